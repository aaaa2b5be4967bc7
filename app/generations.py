"""Generations: each ingest builds a complete database and index, then one atomic step publishes it.

SQLite: every generation is a folder `<data_dir>/generations/<name>` holding its database
file and search index; `<data_dir>/CURRENT` names the current one and is replaced by a rename.

A server database (PostgreSQL): every generation's rows live in their own schema
`gen_<name>`, and the one row of `public.current_generation` names the current generation;
publishing updates that row in one transaction. The search index stays local to each
replica (`<data_dir>/generations/<name>/index`): the ingest builds it on its own machine,
and every other replica builds its own from the rows when it first sees the generation.

Either way a reader sees the old generation or the new one, never a mix.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, NullPool, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from app.config import Settings

log = logging.getLogger(__name__)

POINTER_NAME = "CURRENT"
DATABASE_FILE = "faq.db"  # a generation's SQLite file, in its folder
KEEP_GENERATIONS = 3
COMPLETE_MARKER = "COMPLETE"  # written once a generation is built and verified
DAMAGED_MARKER = "DAMAGED"  # why a server found the generation's index damaged while serving it
BUILDER_MARKER = "BUILDING"  # the pid of the ingest building it
SCHEMA_PREFIX = "gen_"
POINTER_TABLE = "public.current_generation"
# The fix for a damaged or lost generation, said the same way by the log, /readyz and `faq check`.
REBUILD_ADVICE = "run `faq reindex` (or `faq ingest`) to rebuild it"
NO_DATA_ADVICE = "run `faq ingest` first"
PUBLISH_LOCK = 7_414_751  # pg_advisory_xact_lock key: one publication or clean-up at a time
INGEST_LOCK_FILE = "INGEST.lock"  # held (flock) by the ingest writing into this data folder
INGEST_LOCK = 7_414_753  # pg_try_advisory_lock key: one ingest per database
FULL_DISK_BYTES = 1 << 20  # a SQLite failure with less free space than this is said to be the full disk


class IngestRunning(RuntimeError):
    """Another ingest is writing a generation into this data folder or database; the message says which."""


@dataclass(frozen=True)
class Turn:
    """Whether this process holds a lock, and if not, who does (as far as can be told)."""

    mine: bool
    holder: str = ""


@dataclass(frozen=True)
class Generation:
    """Where one generation's database and index live."""

    name: str
    directory: Path
    database_url: str
    index_dir: Path
    schema: str | None = None  # on a server database, the schema holding its rows

    @property
    def database_file(self) -> Path:
        """Where the generation's SQLite file is (or would be, on a server database)."""
        return self.directory / DATABASE_FILE


@contextmanager
def exclusive_turn(settings: Settings, lock_file: str, advisory_key: int) -> Iterator[Turn]:
    """Try, without waiting, to hold one of the data folder's locks (SQLite: `lock_file` in it) or the database's
    (a session advisory lock) for the block. The kernel or the database drops the lock when its holder dies, so a
    killed holder never leaves it taken: its file is only a note of who held it last."""
    if is_sqlite(settings.resolved_database_url):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with (settings.data_dir / lock_file).open("a+", encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                yield Turn(False, handle.read().strip() or "another process")
                return
            handle.truncate(0)
            handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S')}")
            handle.flush()
            try:
                yield Turn(True)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    engine = create_engine(settings.resolved_database_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            held = bool(connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": advisory_key}).scalar())
            holder = "" if held else "database session " + str(connection.execute(text(
                "SELECT string_agg(pid::text, ', ') FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid = 0 AND objid = :key"), {"key": advisory_key}).scalar() or "?")
            try:
                yield Turn(held, holder)
            finally:
                if held:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": advisory_key})
    finally:
        engine.dispose()


@contextmanager
def ingest_turn(settings: Settings) -> Iterator[None]:
    """Hold the one ingest turn of this data folder (SQLite) or database for the block; IngestRunning if taken.

    Two ingests at once both published, and the one finishing last was served even if it had read older content.
    """
    with exclusive_turn(settings, INGEST_LOCK_FILE, INGEST_LOCK) as turn:
        if not turn.mine:
            where = f"data folder {settings.data_dir}" if is_sqlite(settings.resolved_database_url) else "database"
            raise IngestRunning(f"another ingest ({turn.holder}) is writing to this {where}; nothing was changed: "
                                "wait for it to finish, then run this again")
        yield


def is_sqlite(url: str) -> bool:
    """True for SQLite URLs (one file per generation); others share one database."""
    return make_url(url).get_backend_name() == "sqlite"


def schema_name(name: str) -> str:
    """The server database schema that holds generation `name`'s rows."""
    return SCHEMA_PREFIX + name.lower()


def generation(settings: Settings, name: str) -> Generation:
    """The locations of generation `name`."""
    directory = settings.data_dir / "generations" / name
    url = settings.resolved_database_url
    if is_sqlite(url):
        return Generation(name=name, directory=directory, database_url=f"sqlite:///{directory / DATABASE_FILE}",
                          index_dir=directory / "index")
    return Generation(name=name, directory=directory, database_url=url, index_dir=directory / "index",
                      schema=schema_name(name))


def in_schema(engine: Engine, schema: str | None) -> Engine:
    """`engine` reading and writing the tables of `schema` (unchanged when None)."""
    if schema is None:
        return engine
    return engine.execution_options(schema_translate_map={None: schema})


# The rights a PostgreSQL role needs, said the same way wherever they are missing (README: "Running on PostgreSQL").
DATABASE_RIGHTS = ("CONNECT and CREATE on the database (a schema per generation) and USAGE and CREATE on schema "
                   "public (the pointer, vector cache and statistics tables); simplest, make the role the database's "
                   "owner: CREATE DATABASE faq OWNER faq")
# The PostgreSQL error code for a missing privilege (insufficient_privilege).
INSUFFICIENT_PRIVILEGE = "42501"
# PostgreSQL drivers SQLAlchemy may be asked to import, by module, and the package that installs each.
DRIVER_PACKAGES = {"psycopg2": "psycopg2-binary", "psycopg": "psycopg[binary]", "pg8000": "pg8000"}
SUPPORTED_BACKENDS = ("sqlite", "postgresql")


def database_url_problem(url: str) -> str | None:
    """Why FAQ_DATABASE_URL cannot work here (not a URL, an unknown kind, its driver not installed), or None."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        parsed = make_url(url)
        dialect = parsed.get_dialect()
    except NoSuchModuleError:  # an ArgumentError too: first
        return (f"FAQ_DATABASE_URL names {parsed.drivername!r}, a database kind SQLAlchemy does not know; "
                "give sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE")
    except ArgumentError:
        return ("FAQ_DATABASE_URL is not a database URL; give sqlite:///PATH or "
                "postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE")
    if parsed.get_backend_name() not in SUPPORTED_BACKENDS:
        return (f"FAQ_DATABASE_URL names {parsed.get_backend_name()}; the portal runs on SQLite or PostgreSQL: "
                "give sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE")
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        module = (exc.name or parsed.drivername).split(".")[0]
        package = DRIVER_PACKAGES.get(module, module)
        return (f"FAQ_DATABASE_URL ({parsed.drivername}) needs the driver {module}, which is not installed: "
                f"install the package {package} (.venv/bin/pip install '{package}'), or use "
                "postgresql+psycopg://… whose driver comes with the portal")
    return None


def lacks_rights(exc: BaseException) -> bool:
    """Whether the database refused `exc`'s statement because the role lacks a privilege."""
    return isinstance(exc, DBAPIError) and getattr(exc.orig, "sqlstate", None) == INSUFFICIENT_PRIVILEGE


def describe_failure(exc: BaseException, url: str) -> str:
    """One line for what went wrong; an unreachable database is named with what to check."""
    if lacks_rights(exc):
        assert isinstance(exc, DBAPIError)
        reason = " ".join((str(exc.orig).strip().splitlines() or [""])[0].split())
        return (f"the database role {make_url(url).username or '(default)'} lacks a right ({reason}); "
                f"it needs {DATABASE_RIGHTS}")
    if isinstance(exc, OperationalError) and not is_sqlite(url):
        where = make_url(url)
        reason = " ".join((str(exc.orig).strip().splitlines() or [""])[0].split())
        reason = reason.rsplit(" failed: ", 1)[-1] if reason.startswith("connection failed") else reason
        return (f"cannot reach the database at {where.host or 'localhost'}:{where.port or 5432} ({reason}); "
                "check FAQ_DATABASE_URL")
    message = str(exc.orig) if isinstance(exc, DBAPIError) else str(exc)
    first = message.strip().splitlines()[0] if message.strip() else ""
    if isinstance(exc, OperationalError | sqlite3.OperationalError) and is_sqlite(url) and \
            (folder := _database_folder(url)) is not None and shutil.disk_usage(folder).free < FULL_DISK_BYTES:
        return f"No space left on device on the disk of {folder} ({first}); free some space and try again"
    return f"{type(exc).__name__}: {first}"


def _database_folder(url: str) -> Path | None:
    """The nearest existing folder of a SQLite database's file (SQLite says "disk I/O error" on a full disk)."""
    database = make_url(url).database
    folder = Path(database).parent if database else None
    while folder is not None and not folder.is_dir():
        folder = folder.parent if folder != folder.parent else None
    return folder


def pointer_path(settings: Settings) -> Path:
    """The file that names the current generation (SQLite)."""
    return settings.data_dir / POINTER_NAME


def current_name(settings: Settings) -> str | None:
    """The current generation's name, or None before the first ingest."""
    return read_current(settings)[0]


def read_current(settings: Settings) -> tuple[str | None, str | None]:
    """The current generation's name (None before the first ingest) and, when the pointer file is missing,
    empty or unreadable while complete generations exist, what happened: the newest of them is current then."""
    url = settings.resolved_database_url
    if not is_sqlite(url):
        engine = create_engine(url, poolclass=NullPool)
        try:
            return read_pointer(engine), None
        finally:
            engine.dispose()
    pointer = pointer_path(settings)
    try:
        return str(json.loads(pointer.read_text(encoding="utf-8"))["generation"]), None
    except FileNotFoundError:
        problem = f"{POINTER_NAME} is missing"
    except (OSError, UnicodeDecodeError, KeyError, TypeError, ValueError) as exc:
        problem = f"{POINTER_NAME} is empty" if _is_empty(pointer) else f"{POINTER_NAME} cannot be read ({exc})"
    newest = next(iter(complete_generations(settings)), None)
    if newest is None:
        return None, None  # nothing ingested yet (or nothing complete): no pointer is expected
    return newest, (f"{problem}; the newest complete generation, {newest}, is served. Run `faq ingest` (or "
                    "`faq reindex`) to write it again")


def _is_empty(path: Path) -> bool:
    try:
        return not path.read_bytes().strip()
    except OSError:
        return False


def read_pointer(engine: Engine) -> str | None:
    """The generation named by the server database's pointer row, or None before the first ingest."""
    with engine.connect() as connection:
        if connection.execute(text(f"SELECT to_regclass('{POINTER_TABLE}')")).scalar() is None:
            return None
        name = connection.execute(text(f"SELECT name FROM {POINTER_TABLE} WHERE id = 1")).scalar()
    return None if name is None else str(name)


def ensure_pointer_table(connection: Connection) -> None:
    """Create the server database's pointer table if missing, holding the publication lock until commit."""
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PUBLISH_LOCK})
    connection.execute(text(
        f"CREATE TABLE IF NOT EXISTS {POINTER_TABLE} (id integer PRIMARY KEY CHECK (id = 1), "
        "name text NOT NULL, published_at timestamptz NOT NULL DEFAULT now())"))


def create_schema(new: Generation) -> None:
    """Create the empty schema that will hold `new`'s rows."""
    engine = create_engine(new.database_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{new.schema}"'))
    finally:
        engine.dispose()


def complete_generations(settings: Settings) -> list[str]:
    """Names of the generations marked complete in the data directory, newest first."""
    root = settings.data_dir / "generations"
    if not root.is_dir():
        return []
    return sorted((p.name for p in root.iterdir() if (p / COMPLETE_MARKER).is_file()), reverse=True)


def start_building(new: Generation) -> None:
    """Create `new`'s folder, marked with the pid of the process building it."""
    new.directory.mkdir(parents=True)
    (new.directory / BUILDER_MARKER).write_text(str(os.getpid()), encoding="utf-8")


def mark_complete(new: Generation) -> None:
    """Record that `new`'s folder is built and verified."""
    (new.directory / COMPLETE_MARKER).write_text(new.name, encoding="utf-8")
    (new.directory / BUILDER_MARKER).unlink(missing_ok=True)


def publish(settings: Settings, new: Generation) -> None:
    """Make the built and verified `new` the current generation in one atomic step, then tidy up."""
    mark_complete(new)
    if new.schema is not None:
        _flip_pointer_row(new)
        remove_old_local(settings, keep=new.name)
        _drop_old_schemas(new)
        return
    pointer = pointer_path(settings)
    temporary = pointer.with_name(f".{POINTER_NAME}.{os.getpid()}")
    temporary.write_text(json.dumps({"generation": new.name}), encoding="utf-8")
    os.replace(temporary, pointer)
    _link_configured_database(settings, new)
    remove_old_local(settings, keep=new.name)


def _flip_pointer_row(new: Generation) -> None:
    """Point the server database at `new`: one row, one transaction."""
    engine = create_engine(new.database_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            ensure_pointer_table(connection)
            if connection.execute(text("SELECT to_regnamespace(:schema)"), {"schema": new.schema}).scalar() is None:
                raise RuntimeError(f"schema {new.schema} of generation {new.name} vanished before publication")
            connection.execute(text(
                f"INSERT INTO {POINTER_TABLE} (id, name, published_at) VALUES (1, :name, now()) "
                "ON CONFLICT (id) DO UPDATE SET name = excluded.name, published_at = excluded.published_at"),
                {"name": new.name})
    finally:
        engine.dispose()


def _drop_old_schemas(current: Generation) -> None:
    """Drop the schemas of old generations, keeping the newest few for readers still on them.

    Schemas newer than the current one belong to ingests still running and are left alone.
    A schema that a reader holds locked is retried at the next publication.
    """
    assert current.schema is not None
    engine = create_engine(current.database_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            schemas = connection.execute(text(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE :prefix ORDER BY nspname DESC"),
                {"prefix": SCHEMA_PREFIX.replace("_", r"\_") + "%"}).scalars().all()
        older = [schema for schema in schemas if schema <= current.schema]
        for schema in older[KEEP_GENERATIONS:]:
            try:
                with engine.begin() as connection:
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PUBLISH_LOCK})
                    connection.execute(text("SET LOCAL lock_timeout = '2s'"))
                    connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            except DBAPIError as exc:
                log.warning("old generation schema %s not dropped yet (%s)", schema,
                            describe_failure(exc, current.database_url))
    finally:
        engine.dispose()


def _link_configured_database(settings: Settings, new: Generation) -> None:
    """Point the configured SQLite path (default data/faq.db) at the current file, for tools."""
    url = settings.resolved_database_url
    if not is_sqlite(url) or not make_url(url).database:
        return
    link = Path(str(make_url(url).database))
    if link.exists() and not link.is_symlink():
        return  # a real file someone put there: leave it alone
    temporary = link.with_name(f".{link.name}.{os.getpid()}")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(os.path.relpath(new.database_file, link.parent))
    os.replace(temporary, link)


def remove_old_local(settings: Settings, keep: str) -> None:
    """Keep the newest complete generation folders; remove older ones and what killed builds left."""
    root = settings.data_dir / "generations"
    # On SQLite another ingest may have published meanwhile; on a server database `keep` is current.
    current = current_name(settings) if is_sqlite(settings.resolved_database_url) else keep
    complete, abandoned = [], []
    for path in root.iterdir():
        if not path.is_dir():
            continue
        if (path / COMPLETE_MARKER).exists() or path.name in (keep, current):
            complete.append(path.name)
        elif not _being_built(path):
            abandoned.append(path.name)
    # Readers that opened an older generation a moment ago keep working: keep a few.
    for name in sorted(complete, reverse=True)[KEEP_GENERATIONS:] + abandoned:
        if name not in (keep, current):
            shutil.rmtree(root / name, ignore_errors=True)


def _being_built(directory: Path) -> bool:
    """Whether a process that is still running is building this folder."""
    try:
        pid = int((directory / BUILDER_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # no marker: a half-built generation from before markers, or its writer died early
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, someone else's
    return True


def discard(new: Generation) -> None:
    """Remove a generation that failed to build: its folder and, on a server database, its schema."""
    shutil.rmtree(new.directory, ignore_errors=True)
    if new.schema is None:
        return
    engine = create_engine(new.database_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{new.schema}" CASCADE'))
    except DBAPIError as exc:  # the database may be why the build failed; a later publication drops it
        log.info("could not drop schema %s of the failed generation (%s)", new.schema,
                    describe_failure(exc, new.database_url))
    finally:
        engine.dispose()
