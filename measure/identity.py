"""Do entry ids survive real edits? Replays the git history of real FAQ files as a sequence of ingests.

    python -m measure.identity [--mirrors DIR] [--split dev|test|all] [--http] [--baseline] [--cases FILE]

For each repository of measure/identity_sources.tsv (a git mirror under DIR, default ../.mirror,
as the `fetch` tool leaves them: DIR/<owner>+<name>/repo), every commit that changed one of its
FAQ files is ingested in order, each file as it was at that commit (renames followed), and each
version's entries are matched to the previous version's by the ingest's own code.

The reference ("the same entry") comes from the diff, independently of the matcher: an old and a
new entry of one file are the same when most of the non-blank lines of either are carried over
unchanged by a line diff (and each is the other's best) or the diff keeps the old question line as
the new one's question line, or — for entries the diff shows as moved
— when their question or their answer is identical and found once on each side. Printed:

- survival: of the entries the reference keeps across a commit that edited them (question, answer,
  section or file name changed), the share whose id survived (goal ≥ 98%); and of all kept entries;
- wrong carry-over: of the ids carried over to a new version, the share given to an entry the
  reference pairs with another one (goal ≤ 0.5%); carry-overs the reference cannot judge (it sees
  the old entry vanish and the new one appear) are counted apart and listed in `--cases` to read;
- with `--http`: every ingest is a real one (database, index, the map of old ids) and, after the
  last commit, every id ever served is requested: each answers 200, 301 (to a page that answers 200)
  or 410, never 404; the ids are checked to be those of the fast replay.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.config import Settings
from app.ingest.identity import Version
from app.ingest.pipeline import IngestReport, ReadDocument, document_versions, inherit_previous_ids, read_documents
from measure.localserver import ROOT

SOURCES = ROOT / "measure" / "identity_sources.tsv"
KEPT_LINES = 0.5  # the reference: this share of an entry's non-blank lines carried over unchanged


@dataclass(frozen=True)
class Source:
    """One repository and the FAQ files of it to replay."""

    split: str
    repository: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Step:
    """One commit: the text of every replayed file as it stood then (file key → (path then, bytes))."""

    commit: str
    files: dict[str, tuple[str, bytes]]


@dataclass(frozen=True)
class Seen:
    """An entry of one replayed version, with what the reference needs."""

    version: Version
    file: str  # the history the entry's file belongs to (its path at HEAD)
    path: str  # its path at this commit
    lines: tuple[str, ...]  # its source lines (question line to the next entry)


@dataclass
class Tally:
    """The counts behind the figures."""

    steps: int = 0
    kept: int = 0  # pairs the reference keeps
    kept_survived: int = 0
    edited: int = 0  # of those, pairs whose entry was edited
    edited_survived: int = 0
    carried: int = 0  # new entries carrying an id of the previous version
    carried_edited: int = 0  # of those, across an edit of the entry
    wrong: int = 0  # carried to an entry the reference pairs with another one
    unjudged: int = 0  # carried where the reference sees one entry vanish and the other appear
    urls: Counter[int] = field(default_factory=Counter)
    mismatched_ids: int = 0  # --http: ids the real ingest gave that the fast replay did not
    cases: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add `other`'s counts to these."""
        for name in ("steps", "kept", "kept_survived", "edited", "edited_survived", "carried", "carried_edited",
                     "wrong", "unjudged", "mismatched_ids"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.urls.update(other.urls)
        self.cases += other.cases


def write_cases(path: Path | None, cases: list[str]) -> None:
    """Write the cases a replay kept to `path` (when asked for) and say so."""
    if path is not None:
        path.write_text("\n".join(cases), encoding="utf-8")
        print(f"{len(cases)} cases written to {path}")


def mirror_of(mirrors: Path, source: Source) -> Path | None:
    """The local mirror of `source`'s repository (None, said on standard error, when it is not fetched)."""
    repo = mirrors / source.repository.replace("/", "+") / "repo"
    if not repo.is_dir():
        print(f"{source.repository}: no mirror at {repo}; fetch it first", file=sys.stderr)
        return None
    return repo


def read_sources(split: str) -> list[Source]:
    """The repositories of measure/identity_sources.tsv in `split` (dev, test or all)."""
    sources = []
    for line in SOURCES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            part, repository, paths = line.split("\t")
            if split in ("all", part):
                sources.append(Source(part, repository, tuple(paths.split())))
    return sources


def git(repo: Path, *args: str) -> bytes:
    """The output of a git command in `repo` (raises on failure)."""
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def history(repo: Path, paths: Sequence[str], first_parent: bool = False) -> list[Step]:
    """Every commit that changed one of `paths` (renames followed), oldest first, with the files as they stood;
    with `first_parent`, only the states the branch itself went through (a merge is one step)."""
    changes: dict[str, dict[str, str]] = {}  # commit → {file key: its path at that commit}
    times: dict[str, tuple[int, int]] = {}
    # Commits of merged branches, in time order, interleave states that never stood together: a file as a branch
    # left it, then as the mainline had it before the merge. Which side changed when is only real on one line.
    lines = ["--first-parent"] if first_parent else []
    for key in paths:
        try:
            log = git(repo, "log", *lines, "--follow", "--format=%x00%H %ct", "--name-only", "--", key).decode()
        except subprocess.CalledProcessError:  # the mirror lacks a blob rename detection needs: this path only
            log = git(repo, "log", *lines, "--format=%x00%H %ct", "--name-only", "--", key).decode()
        for record in log.split("\x00")[1:]:
            head, *names = [line for line in record.splitlines() if line.strip()]
            commit, time = head.split()
            path = names[-1] if names else key
            if path != key and path in paths:
                continue  # --follow took another replayed file for this one's ancestor (a copy): not its history
            times.setdefault(commit, (int(time), -len(times)))  # a log lists newest first: ties keep its order
            changes.setdefault(commit, {})[key] = path
    steps: list[Step] = []
    state: dict[str, tuple[str, bytes]] = {}
    for commit in sorted(changes, key=lambda c: times[c]):
        for key, path in changes[commit].items():
            listed = git(repo, "ls-tree", commit, "--", path).split()
            if not listed:
                state.pop(key, None)  # deleted by this commit
                continue
            try:
                state[key] = (path, git(repo, "cat-file", "blob", listed[2].decode()))
            except subprocess.CalledProcessError:
                continue  # the mirror lacks this blob: the file stays as it was
        if state:
            steps.append(Step(commit, dict(state)))
    return steps


def write_step(step: Step, content: Path) -> None:
    """Lay the step's files out in an empty `content` folder, under their paths at that commit."""
    shutil.rmtree(content, ignore_errors=True)
    content.mkdir(parents=True)
    for path, data in step.files.values():
        target = content / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def replay(content: Path, step: Step, previous: Sequence[Version], baseline: bool = False) -> tuple[int, list[Seen]]:
    """How many documents the step has that read, and their entries under the ids the ingest gives them after
    `previous` (the fast replay: no database); with `baseline`, the fresh ids an ingest gave before ids were
    inherited."""
    write_step(step, content)
    documents = read_documents(content, IngestReport())
    if not baseline:
        inherit_previous_ids(documents, previous, IngestReport())
    keys = {path: key for key, (path, _) in step.files.items()}
    return len(documents), list(_seen(documents, keys))


def _seen(documents: Sequence[ReadDocument], keys: dict[str, str]) -> Iterator[Seen]:
    versions = iter(document_versions(documents))
    for doc in documents:
        lines = doc.body.splitlines()
        starts = [entry.line for entry in doc.entries]
        for start, end in zip(starts, [*starts[1:], len(lines) + 1][:len(starts)], strict=True):
            yield Seen(next(versions), keys.get(doc.source.relative_path, doc.source.relative_path),
                       doc.source.relative_path, tuple(lines[start - 1:end - 1]))


def reference_pairs(before: Sequence[Seen], after: Sequence[Seen]) -> dict[int, int]:
    """The diff's view of which old entry (index in `before`) each new entry (index in `after`) continues."""
    pairs: dict[int, int] = {}
    for file in {seen.file for seen in before} & {seen.file for seen in after}:
        olds = [k for k, seen in enumerate(before) if seen.file == file]
        news = [k for k, seen in enumerate(after) if seen.file == file]
        pairs.update(_pairs_in_file(before, after, olds, news))
    return pairs


def _pairs_in_file(before: Sequence[Seen], after: Sequence[Seen], olds: list[int], news: list[int]) -> dict[int, int]:
    old_lines = [(k, line) for k in olds for line in before[k].lines]
    new_lines = [(k, line) for k in news for line in after[k].lines]
    matcher = difflib.SequenceMatcher(None, [line.strip() for _, line in old_lines],
                                      [line.strip() for _, line in new_lines], autojunk=False)
    shared: Counter[tuple[int, int]] = Counter()
    starts_old = {sum(len(before[j].lines) for j in olds[:i]): k for i, k in enumerate(olds)}
    starts_new = {sum(len(after[j].lines) for j in news[:i]): k for i, k in enumerate(news)}
    pairs: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            (old, line), (new, _) = old_lines[block.a + offset], new_lines[block.b + offset]
            if line.strip():
                shared[(new, old)] += 1
            # A question line the diff keeps in place of a question line: the same entry, whatever its answer did.
            if block.a + offset in starts_old and block.b + offset in starts_new:
                pairs[starts_new[block.b + offset]] = starts_old[block.a + offset]
    size = {**{("o", k): _nonblank(before[k]) for k in olds}, **{("n", k): _nonblank(after[k]) for k in news}}
    best_of_new: dict[int, tuple[int, int]] = {}
    best_of_old: dict[int, tuple[int, int]] = {}
    for (new, old), count in shared.items():
        best_of_new[new] = max(best_of_new.get(new, (0, -1)), (count, old))
        best_of_old[old] = max(best_of_old.get(old, (0, -1)), (count, new))
    _pair_identical(before, after, olds, news, "title", pairs)  # a question kept word for word
    for new, (count, old) in best_of_new.items():
        if new in pairs or old in pairs.values():
            continue
        if best_of_old[old][1] == new and (count >= KEPT_LINES * size[("o", old)]
                                           or count >= KEPT_LINES * size[("n", new)]):
            pairs[new] = old
    _pair_identical(before, after, olds, news, "answer", pairs)  # moved: a line diff shows it deleted and added
    return pairs


def _pair_identical(before: Sequence[Seen], after: Sequence[Seen], olds: list[int], news: list[int], part: str,
                    pairs: dict[int, int]) -> None:
    """Pair unpaired entries whose `part` (title or answer) is identical and found once on each side."""
    left = Counter(getattr(before[k].version, part) for k in olds if k not in pairs.values())
    right = Counter(getattr(after[k].version, part) for k in news if k not in pairs)
    for new in news:
        text = getattr(after[new].version, part)
        if new in pairs or not text.strip() or left[text] != 1 or right[text] != 1:
            continue
        pairs[new] = next(k for k in olds if k not in pairs.values() and getattr(before[k].version, part) == text)


def _nonblank(seen: Seen) -> int:
    return max(1, sum(1 for line in seen.lines if line.strip()))


def _edited(old: Seen, new: Seen) -> bool:
    a, b = old.version, new.version
    return (a.title, a.answer.strip(), a.section, old.path) != (b.title, b.answer.strip(), b.section, new.path)


def compare(before: Sequence[Seen], after: Sequence[Seen], commit: str, tally: Tally) -> None:
    """Count one step: which kept entries kept their id, and which ids went to another entry."""
    pairs = reference_pairs(before, after)
    successor = {old: new for new, old in pairs.items()}
    old_by_id = {seen.version.id: k for k, seen in enumerate(before)}
    for new, old in pairs.items():
        survived = after[new].version.id == before[old].version.id
        edited = _edited(before[old], after[new])
        tally.kept += 1
        tally.kept_survived += survived
        tally.edited += edited
        tally.edited_survived += edited and survived
        if edited and not survived:
            tally.cases.append(_case("lost its id", commit, before[old], after[new]))
    for new, seen in enumerate(after):
        carrier = old_by_id.get(seen.version.id)
        if carrier is None:
            continue
        tally.carried += 1
        tally.carried_edited += _edited(before[carrier], seen)
        if pairs.get(new) == carrier:
            continue
        if new in pairs or carrier in successor:
            tally.wrong += 1
            tally.cases.append(_case("WRONG: carried to another entry", commit, before[carrier], seen))
        else:
            tally.unjudged += 1
            tally.cases.append(_case("carried, reference sees a removal and an addition", commit, before[carrier],
                                     seen))


def _case(kind: str, commit: str, old: Seen, new: Seen) -> str:
    def show(seen: Seen) -> str:
        answer = " ".join(seen.version.answer.split())[:160]
        return f"  {seen.path} › {' › '.join(seen.version.section)}\n  Q: {seen.version.title}\n  A: {answer}"
    return (f"## {kind} ({commit[:10]}): {old.version.id} → {new.version.id}\n"
            f"before:\n{show(old)}\nafter:\n{show(new)}\n")


def measure_source(repo: Path, source: Source, work: Path, http: bool, baseline: bool = False) -> Tally:
    """Replay one repository's FAQ history; its tally."""
    tally = Tally()
    steps = history(repo, source.paths)
    content = work / "content"
    settings = Settings(content_dir=content, data_dir=work / "data", database_url="", semantic=False,
                        _env_file=None)
    previous: list[Seen] = []
    served: set[str] = set()
    for step in steps:
        documents_read, current = replay(content, step, [seen.version for seen in previous], baseline)
        if not documents_read:
            continue  # nothing readable (an emptied file): `faq ingest` fails and the previous generation stays
        if http:
            tally.mismatched_ids += _ingest_for_real(settings, current)
        served.update(seen.version.id for seen in current)
        if previous:
            compare(previous, current, step.commit, tally)
        tally.steps += 1
        previous = current
    if http and steps:
        tally.urls = _answers(settings, served)
    return tally


def _ingest_for_real(settings: Settings, expected: Sequence[Seen]) -> int:
    """Ingest the content folder as `faq ingest` does; how many served ids differ from the fast replay's."""
    from sqlmodel import Session, select

    from app.db import DataStore
    from app.ingest.pipeline import run_ingest
    from app.models import Entry

    run_ingest(settings, progress=False)
    store = DataStore(settings)
    try:
        with Session(store.current().engine) as session:
            stored = {(entry.document_id, entry.position): entry.id for entry in session.exec(select(Entry))}
    finally:
        store.close()
    replayed = {(seen.version.document_id, seen.version.position): seen.version.id for seen in expected}
    return sum(1 for key, id_ in replayed.items() if stored.get(key) != id_)


def _answers(settings: Settings, ids: set[str]) -> Counter[int]:
    """The HTTP status each id ever served answers now (a 301 counts only when its target answers 200)."""
    from app.main import create_app
    from app.web.inprocess import InProcessClient

    statuses: Counter[int] = Counter()
    with InProcessClient(create_app(settings)) as client:
        for id_ in sorted(ids):
            answer = client.get(f"/entries/{id_}")
            status = answer.status_code
            if status == 301 and client.get(answer.headers["location"]).status_code != 200:
                status = -301  # a redirect to nowhere
            statuses[status] += 1
    return statuses


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.2f}%" if whole else f"{part}/0"


def report(label: str, tally: Tally) -> str:
    """The figures of one tally, one line each."""
    lines = [
        f"{label}: {tally.steps} commits replayed",
        f"  id survives an edit that keeps the entry: {_share(tally.edited_survived, tally.edited)}"
        f"   (all kept entries: {_share(tally.kept_survived, tally.kept)})",
        f"  id wrongly carried over to a different entry: {_share(tally.wrong, tally.carried)} of ids carried over"
        f" ({tally.carried_edited} across an edit); the reference cannot judge {tally.unjudged}",
    ]
    if tally.urls:
        answered = ", ".join(f"{status}: {count}" for status, count in sorted(tally.urls.items()))
        lines.append(f"  every id ever served, requested after the last commit: {answered}"
                     f"; 404: {tally.urls.get(404, 0)}; mismatched ids: {tally.mismatched_ids}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Replay the histories and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m measure.identity", description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=ROOT.parent / ".mirror",
                        help="folder of git mirrors, <owner>+<name>/repo (default ../.mirror)")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--http", action="store_true", help="real ingests, then every old id requested over HTTP")
    parser.add_argument("--baseline", action="store_true",
                        help="the ids as an ingest gave them before they were inherited (fresh ids only)")
    parser.add_argument("--cases", type=Path, help="write the cases to read (lost ids, carry-overs) to this file")
    args = parser.parse_args(argv)
    total = Tally()
    files = 0
    for source in read_sources(args.split):
        repo = mirror_of(args.mirrors, source)
        if repo is None:
            return 1
        with tempfile.TemporaryDirectory(prefix="faq-identity-") as work:
            tally = measure_source(repo, source, Path(work), args.http and not args.baseline, args.baseline)
        files += len(source.paths)
        print(report(f"{source.repository} ({source.split}, {len(source.paths)} files)", tally), flush=True)
        total.add(tally)
    print(report(f"ALL ({args.split}: {files} files)", total))
    write_cases(args.cases, total.cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
