"""PostgreSQL for real: the same portal, generations in schemas, one pointer row, replicas that follow it.

Needs FAQ_TEST_POSTGRES_URL (`.ci/run` starts a local cluster): skipped on a laptop without
it, failed under CI=true. Every test gets a database of its own.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import NullPool, create_engine, text
from sqlmodel import select

from app import db as db_module
from app.config import Settings
from app.db import DataStore
from app.generations import KEEP_GENERATIONS, current_name, schema_name
from app.ingest import store as store_module
from app.ingest.pipeline import run_ingest
from app.ingest.store import reindex_generation
from app.main import create_app
from app.models import Entry
from app.web.inprocess import InProcessClient
from tests.conftest import fresh_postgres_database, make_vectors, pg_settings_for, require_model

FAQ = "# FAQ\n\n## {question}\n\n{answer}\n"


@pytest.fixture(scope="module")
def pg_seeded(postgres_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings on a database of this module's own holding an ingest of content/."""
    for url in fresh_postgres_database(postgres_server):
        settings = pg_settings_for(tmp_path_factory.mktemp("pg-seeded"), url, semantic=True)
        run_ingest(settings, progress=False)
        make_vectors(settings)  # searched by words and meaning, as `seeded` on SQLite
        yield settings


def _content(tmp_path: Path, question: str, answer: str) -> Path:
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    (content / "faq.md").write_text(FAQ.format(question=question, answer=answer), encoding="utf-8")
    return content


def _titles(client: InProcessClient, query: str = "answer") -> list[str]:
    return [hit["title"] for hit in client.get("/api/v1/search", params={"q": query}).json()["results"]]


def _schemas(url: str) -> list[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(text(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'gen\\_%' ORDER BY nspname")).scalars())
    finally:
        engine.dispose()


def _ranked(client: InProcessClient, query: str, mode: str) -> list[dict[str, object]]:
    """The results of `query` ranked as `mode` asks. On a starved CPU a hybrid search may answer by words alone
    (its query vector missed the time budget, and it says so in `ranking`): then it is asked again, a few times
    (a lone identifier, never embedded, is always ranked by words)."""
    for _ in range(5):
        body = client.get("/api/v1/search", params={"q": query, "mode": mode}).json()
        if body["ranking"] == mode:
            break
    results: list[dict[str, object]] = body["results"]
    return results


def test_api_and_pages_answer_the_same_as_on_sqlite(pg_seeded: Settings, client: InProcessClient) -> None:
    with InProcessClient(create_app(pg_seeded)) as pg:
        assert pg.get("/healthz").json() == client.get("/healthz").json() == {
            "status": "ok", "documents": 5, "entries": 68}
        assert pg.get("/api/v1/documents").json() == client.get("/api/v1/documents").json()
        for query in ("expandable_segments", "梯度", "FSDP"):
            for mode in ("lexical", "hybrid"):
                found = _ranked(pg, query, mode)
                assert [hit["id"] for hit in found] == [hit["id"] for hit in _ranked(client, query, mode)], mode
        entry_id = found[0]["id"]
        on_pg = pg.get(f"/api/v1/entries/{entry_id}").json()
        on_sqlite = client.get(f"/api/v1/entries/{entry_id}").json()
        # The two databases were ingested at different times: their entries' histories say so, and nothing else.
        pg_history, sqlite_history = on_pg.pop("history"), on_sqlite.pop("history")
        assert on_pg == on_sqlite
        assert pg_history["earlier_questions"] == sqlite_history["earlier_questions"] == []
        assert pg_history["first_seen"] == pg_history["changed"]
        for page in ("/", "/search?q=FSDP", f"/entries/{entry_id}", f"/documents/{found[0]['document']['id']}"):
            response = pg.get(page)
            assert response.status_code == 200 and '<html lang="' in response.text, page
        assert pg.get("/api/v1/entries/no-such-entry").status_code == 404
        assert pg.get("/readyz").json()["generation"] == current_name(pg_seeded)


def test_each_generation_has_its_own_schema_and_old_ones_are_dropped(tmp_path: Path, postgres_url: str) -> None:
    content = _content(tmp_path, "Why first?", "First answer.")
    settings = pg_settings_for(tmp_path, postgres_url, content)
    names = [run_ingest(settings, progress=False).generation for _ in range(KEEP_GENERATIONS + 1)]
    assert current_name(settings) == names[-1]
    assert _schemas(postgres_url) == [schema_name(name) for name in names[1:]]  # the oldest was dropped
    engine = create_engine(postgres_url, poolclass=NullPool)
    with engine.connect() as connection:  # nothing in public but the pointer and what outlives generations
        tables = connection.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
        assert sorted(tables) == ["current_generation", "entry_changes", "entry_forwarding", "entry_history"]
    engine.dispose()


def test_readers_see_the_old_generation_until_the_new_one_is_published(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    content = _content(tmp_path, "Why old?", "Old answer.")
    settings = pg_settings_for(tmp_path, postgres_url, content)
    run_ingest(settings, progress=False)
    monkeypatch.setattr(db_module, "POINTER_POLL_SECONDS", 0.0)
    seen_while_building: list[list[str]] = []
    real_build_index = store_module.build_index

    def observed_build_index(*args: object, **kwargs: object) -> int:
        # The new rows are written and committed; the index is not built yet.
        with InProcessClient(create_app(settings)) as reader:
            seen_while_building.append(_titles(reader))
        return real_build_index(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "build_index", observed_build_index)
    _content(tmp_path, "Why new?", "New answer.")
    run_ingest(settings, progress=False)
    assert seen_while_building == [["Why old?"]]
    with InProcessClient(create_app(settings)) as reader:
        assert _titles(reader) == ["Why new?"]


def test_a_failed_index_build_leaves_the_previous_generation_serving(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    content = _content(tmp_path, "Why old?", "Old answer.")
    settings = pg_settings_for(tmp_path, postgres_url, content)
    before = run_ingest(settings, progress=False).generation
    monkeypatch.setattr(db_module, "POINTER_POLL_SECONDS", 0.0)
    with InProcessClient(create_app(settings)) as reader:
        assert _titles(reader) == ["Why old?"]

        def broken_index(*_args: object, **_kwargs: object) -> int:
            raise OSError("disk full while writing the index")

        monkeypatch.setattr(store_module, "build_index", broken_index)
        _content(tmp_path, "Why new?", "New answer.")
        with pytest.raises(OSError, match="disk full"):
            run_ingest(settings, progress=False)
        assert current_name(settings) == before
        assert _schemas(postgres_url) == [schema_name(before)]  # the half-built generation was dropped
        assert _titles(reader) == ["Why old?"]
        assert reader.get("/api/v1/documents").json()[0]["entry_count"] == 1
        entry = reader.get("/api/v1/search", params={"q": "answer"}).json()["results"][0]
        assert reader.get(entry["url"].replace("/entries/", "/api/v1/entries/")).json()["body_markdown"] == (
            "Old answer.")


def test_a_second_replica_follows_ingests_and_reindexes_of_the_first(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    content = _content(tmp_path, "Why old?", "Old answer.")
    first = pg_settings_for(tmp_path / "first", postgres_url, content)
    second = pg_settings_for(tmp_path / "second", postgres_url, content)
    run_ingest(first, progress=False)
    monkeypatch.setattr(db_module, "POINTER_POLL_SECONDS", 0.0)
    with InProcessClient(create_app(second)) as replica:
        assert _titles(replica) == ["Why old?"]  # its first request built its own index
        _content(tmp_path, "Why new?", "New answer.")
        published = run_ingest(first, progress=False).generation
        _wait_for(replica, published)
        assert _titles(replica) == ["Why new?"]
        reindexed, _ = reindex_generation(first)
        _wait_for(replica, reindexed.name)
        assert _titles(replica) == ["Why new?"]
    assert (second.data_dir / "generations" / reindexed.name / "index").is_dir()


def _wait_for(replica: InProcessClient, name: str, timeout: float = 20.0) -> None:
    """Until the replica serves generation `name` (it builds the index in the background meanwhile)."""
    deadline = time.monotonic() + timeout
    while replica.get("/readyz").json()["generation"] != name:
        assert time.monotonic() < deadline, f"the replica did not switch to {name} within {timeout} s"
        time.sleep(0.05)


def test_a_replica_keeps_serving_while_it_builds_the_new_index(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    content = _content(tmp_path, "Why old?", "Old answer.")
    first = pg_settings_for(tmp_path / "first", postgres_url, content)
    run_ingest(first, progress=False)
    monkeypatch.setattr(db_module, "POINTER_POLL_SECONDS", 0.0)
    replica = DataStore(pg_settings_for(tmp_path / "second", postgres_url, content))
    old = replica.current().generation.name
    building = []

    def slow_build(settings: Settings, name: str) -> object:
        building.append(name)
        time.sleep(0.5)
        return store_module.build_local_index(settings, name)

    monkeypatch.setattr(db_module, "_build_local_index", slow_build)
    _content(tmp_path, "Why new?", "New answer.")
    new = run_ingest(first, progress=False).generation
    assert replica.current().generation.name == old  # not blocked: the old generation serves meanwhile
    deadline = time.monotonic() + 20
    while replica.current().generation.name != new:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert building == [new]
    with replica.session() as session:
        assert [entry.title for entry in session.exec(select(Entry))] == ["Why new?"]
    replica.close()


def test_replicas_share_vectors_one_embeds_and_the_others_assemble_theirs_from_the_database(
        postgres_url: str, tmp_path: Path) -> None:
    from app.search.embedding import ModelSlot
    from app.semantic import Progress, build_vectors
    from app.vectorcache import VectorCache

    embedder = require_model(ModelSlot(enabled=True))
    content = _content(tmp_path, "How do I freeze some layers?", "Set `trainable` to false on those layers.")
    first = pg_settings_for(tmp_path / "replica-a", postgres_url, content, semantic=True)
    second = pg_settings_for(tmp_path / "replica-b", postgres_url, content, semantic=True)
    run_ingest(first, progress=False)
    name = str(current_name(first))
    made: list[Progress] = []
    assert build_vectors(first, name, embedder, on_progress=made.append) is not None
    assert made[-1].embedded == 1
    cache = VectorCache(second, embedder.dimensions)  # the table in the shared database, not a local file
    try:
        # One entry, three vectors: its question and answer, its question read as a query, and its question and
        # answer by the second model.
        assert len(cache.held([row for row in _vector_keys(postgres_url)])) == 3
    finally:
        cache.close()
    assert not (second.data_dir / "vectors.db").exists()
    store = DataStore(second, semantic=True)
    try:
        store.current()  # this replica builds its own index
        assembled: list[Progress] = []
        assert build_vectors(second, name, embedder, on_progress=assembled.append) is not None
        assert (assembled[-1].done, assembled[-1].embedded) == (1, 0)  # nothing embedded twice
        store.attach_vectors(name)
        state = store.semantic_state(store.current())
        assert state.startswith("ready: 1 of 1 entries") and "with use-multilingual-v3" in state
    finally:
        store.close()


def _vector_keys(url: str) -> list[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(text("SELECT key FROM public.vector_cache")).scalars())
    finally:
        engine.dispose()


def test_search_statistics_of_every_replica_meet_in_the_database(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli
    from app.querylog import QueryLog, top_queries

    content = _content(tmp_path, "Why is the answer late?", "The answer waits.")
    first = pg_settings_for(tmp_path / "a", postgres_url, content).model_copy(update={"admin_token": "t0ken"})
    run_ingest(first, progress=False)
    second = pg_settings_for(tmp_path / "b", postgres_url, content)  # another machine: its own data folder
    with InProcessClient(create_app(first)) as one, InProcessClient(create_app(second)) as other:
        for client, query in ((one, "late answer"), (other, "late answer"), (other, "zzqx nothing")):
            assert client.get("/api/v1/search", params={"q": query}).status_code == 200
        other.app.state.query_log.flush()  # the second replica's last seconds reach the database
        stats = one.get("/api/v1/admin/queries", headers={"Authorization": "Bearer t0ken"}).json()
    assert {"query": "late answer", "searches": 2, "zero": 0} in stats["top"]
    assert stats["zero_results"] == [{"query": "zzqx nothing", "searches": 1, "zero": 1}]
    assert not (first.data_dir / "queries.db").exists() and not (second.data_dir / "queries.db").exists()
    third = pg_settings_for(tmp_path / "c", postgres_url, content)  # `faq stats` anywhere sees them all
    assert [(row.query, row.searches) for row in top_queries(third, 30, 10)] == [("late answer", 2),
                                                                               ("zzqx nothing", 1)]
    monkeypatch.setattr(cli, "get_settings", lambda: third)
    assert cli.main(["stats"]) == cli.EXIT_OK
    assert "2 searches" in capsys.readouterr().out
    old = QueryLog(third.model_copy(update={"query_log_days": 1}))
    old.record("kept today", 1)
    old.flush()  # retention is applied to the shared table too
    engine = create_engine(postgres_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE public.query_day SET day = '2000-01-01' WHERE query = 'late answer'"))
    finally:
        engine.dispose()
    old.record("kept today", 1)
    old.flush()
    assert "late answer" not in [row.query for row in top_queries(third, 36500, 10)]


QUESTIONS = ("# FAQ\n\n## Why is the answer late?\n\nThe answer waits.\n\n## Why is the page blank?\n\nIt loads.\n\n"
             "## Why is the search slow?\n\nIt warms up.\n\n## Why is the link broken?\n\nIt moved.\n")
ADMIN = {"Authorization": "Bearer t0ken"}


def _entries(client: InProcessClient) -> list[str]:
    document = client.get("/api/v1/documents").json()[0]["id"]
    return [entry["id"] for entry in client.get(f"/api/v1/documents/{document}").json()["entries"]]


def test_votes_of_every_replica_meet_in_the_database(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli
    from app.feedback import entry_feedback

    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text(QUESTIONS, encoding="utf-8")
    first = pg_settings_for(tmp_path / "a", postgres_url, content).model_copy(update={"admin_token": "t0ken"})
    run_ingest(first, progress=False)
    second = pg_settings_for(tmp_path / "b", postgres_url, content)  # another machine: its own data folder
    with InProcessClient(create_app(first)) as one, InProcessClient(create_app(second)) as other:
        late, blank, _, _ = _entries(one)
        assert one.get("/api/v1/admin/queries", headers=ADMIN).json()["feedback"] == []  # no table yet: nothing
        assert other.post(f"/entries/{late}/feedback",
                          data={"helpful": "no", "comment": "Still late on Tuesdays"}).status_code == 303
        assert other.post(f"/entries/{blank}/feedback", data={"helpful": "yes"}).status_code == 303
        assert one.post(f"/entries/{late}/feedback", data={"helpful": "no"}).status_code == 303
        assert other.post(f"/entries/{late}/feedback", data={"helpful": "yes"}).status_code == 303  # counted once
        stats = one.get("/api/v1/admin/queries", headers=ADMIN).json()["feedback"]
        assert [(row["entry_id"], row["helpful"], row["unhelpful"]) for row in stats] == [(late, 0, 2), (blank, 1, 0)]
        assert stats[0]["comments"] == [[dt.date.today().isoformat(), False, "Still late on Tuesdays"]]
        assert "Still late on Tuesdays" in one.get(f"/admin/entries/{late}", headers=ADMIN).text
        assert "Still late on Tuesdays" in one.get("/admin/queries", headers=ADMIN).text
        report = one.get("/admin", headers=ADMIN).text
        assert "Why is the answer late?" in report and "Still late on Tuesdays" in report
    assert not (first.data_dir / "queries.db").exists() and not (second.data_dir / "queries.db").exists()
    third = pg_settings_for(tmp_path / "c", postgres_url, content)  # `faq stats` anywhere sees them all
    assert [(row.entry_id, row.unhelpful) for row in entry_feedback(third, 30, 10)] == [(late, 2), (blank, 0)]
    monkeypatch.setattr(cli, "get_settings", lambda: third)
    assert cli.main(["stats"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert f"     0 helpful       2 not helpful  {late}" in out and "Still late on Tuesdays" in out


def test_a_vote_the_database_cannot_take_is_thanked_kept_and_written_later(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from app import feedback as feedback_module
    from app.feedback import entry_feedback

    caplog.set_level(logging.WARNING, logger="faq.feedback")
    monkeypatch.setattr(feedback_module, "FLUSH_SECONDS", 0.01)
    monkeypatch.setattr(feedback_module, "RETRY_MAX_SECONDS", 0.05)
    monkeypatch.setattr(feedback_module, "MAX_PENDING", 1)

    def messages(word: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "faq.feedback" and word in r.getMessage()]

    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text(QUESTIONS, encoding="utf-8")
    settings = pg_settings_for(tmp_path / "a", postgres_url, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        late, blank, slow, broken = _entries(client)
        assert client.post(f"/entries/{late}/feedback", data={"helpful": "yes"}).status_code == 303
        engine = create_engine(postgres_url, poolclass=NullPool)
        try:
            with engine.begin() as connection:  # an operator drops the tables: the next vote creates them again
                connection.execute(text("DROP TABLE public.feedback_day, public.feedback_comment"))
        finally:
            engine.dispose()
        assert client.post(f"/entries/{blank}/feedback", data={"helpful": "yes"}).status_code == 303
        assert [(f.entry_id, f.helpful) for f in entry_feedback(settings, 1, 10)] == [(blank, 1)]
        votes = client.app.state.feedback
        reachable, votes.server_url = votes.server_url, "postgresql+psycopg://faq:faq@127.0.0.1:9/faq"  # unreachable
        assert client.post(f"/entries/{slow}/feedback", data={"helpful": "no", "comment": "Kept"}).status_code == 303
        assert client.post(f"/entries/{broken}/feedback", data={"helpful": "no"}).status_code == 303  # past MAX_PENDING
        assert len(messages("paused")) == 1 and [f.entry_id for f in entry_feedback(settings, 1, 10)] == [blank]
        time.sleep(0.3)  # retried meanwhile, and still failing: said once
        assert len(messages("paused")) == 1 and not messages("resumed")
        votes.server_url = reachable
        deadline = time.monotonic() + 10
        while not messages("resumed") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert "1 votes could not be kept" in messages("resumed")[0]
        found = entry_feedback(settings, 1, 10)
        assert [(f.entry_id, f.helpful, f.unhelpful, [c[2] for c in f.comments]) for f in found] == [
            (slow, 0, 1, ["Kept"]), (blank, 1, 0, [])]
        assert votes._retrying is None  # the retries stop once written
