"""Does "this translation fell behind" come true? Replays the git history of real bilingual FAQ files.

    python -m measure.outdated [--mirrors DIR] [--split dev|test|all] [--cases FILE] [--no-meaning]

The files are those of measure/identity.py (measure/identity_sources.tsv), and the commits those of the
branch as a portal that serves it saw them: its first-parent line, where a merged branch is one step, the merge
(commits of merged branches, in time order, interleave states that never stood together). Each commit
is ingested in order as the portal does it: entries read, ids inherited from the previous commit's,
translations paired (app/ingest/align.py, with the questions' meaning by the embedding model as the portal's
default `semantic` has it, when the model runs here; `--no-meaning` pairs by anchors alone, as `semantic: false`
does), the histories brought up to date in a real lineage file (app/lineage.py, the commit's index as the ingest
time), and every translation pair judged by app/outdated.py. Only files whose entries pair with a translation count.

The reference is the diff, independently of the portal's ids: an entry of one commit continues an
entry of the previous commit as measure/identity.py's reference pairs them (a chain of such pairs is
one entry over time), and it *changed* when its question or answer differs from the one it continues other than
in whitespace and letter case (a line rewrapped, a space between Chinese and Latin words, vim written Vim: nothing a
translator has to follow, nor a catch-up).

- A prediction is "entry X fell behind at commit c": X is marked possibly outdated at c and was not
  at c-1. It is correct when a later commit changes X (the translator caught up), as the issue
  defines it. Predictions of entries never changed later are counted wrong, and listed apart as
  "still open at the last commit" (behind at the end of the history, or removed later).
- A reference event is "X fell behind at c": at commit c, X and its translation Y are paired (by the
  ingest), Y changed, X existed before and did not change, and a later commit changes X. It is found
  when the portal marks X outdated at c. Recall is the share found.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.config import Settings
from app.ingest.align import LinkRules, Meaning
from app.ingest.pipeline import IngestReport, inherit_previous_ids, link_documents, read_documents
from app.ingest.store import published
from app.lineage import Lineage
from app.outdated import ReviewMarks, judge_pair, translation_sides
from app.search.embedding import ModelSlot, question_cosines
from measure.identity import (
    Seen,
    Source,
    _seen,
    history,
    mirror_of,
    read_sources,
    reference_pairs,
    write_cases,
    write_step,
)
from measure.localserver import ROOT

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass
class Tally:
    """The counts behind precision and recall."""

    commits: int = 0  # commits replayed
    bilingual_commits: int = 0  # of those, with at least one translation pair
    pairs: set[tuple[str, int, int]] = field(default_factory=set)  # (source, chain, chain) ever paired
    predictions: int = 0
    correct: int = 0
    open: int = 0  # predictions never followed by a change of the entry (wrong by the definition)
    events: int = 0  # reference events
    found: int = 0
    cases: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add `other`'s counts to these."""
        for name in ("commits", "bilingual_commits", "predictions", "correct", "open", "events", "found"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.pairs |= other.pairs
        self.cases += other.cases


@dataclass
class Commit:
    """What one replayed commit leaves for the judging, in the reference's terms (chains)."""

    commit: str
    chains: list[int]  # of each entry, in order
    seen: list[Seen]
    pairs: list[tuple[int, int]]  # translation pairs (both ways), as chains
    changed: set[int]  # chains whose question or answer changed at this commit
    existed: set[int]  # chains present at the previous commit
    flagged: dict[int, int]  # outdated chains → the chain of the newer version


def replay_source(repo: Path, source: Source, work: Path, meaning: Meaning | None = None) -> list[Commit]:
    """Every commit of one repository's FAQ files as the portal and the reference see it (`meaning`: the
    questions' cosines the ingest pairs translations with, `app.search.embedding.question_cosines`)."""
    content = work / "content"
    settings = Settings(content_dir=content, data_dir=work / "data", database_url="", semantic=False,
                        _env_file=None)
    lineage = Lineage(settings)
    commits: list[Commit] = []
    previous: list[Seen] = []
    previous_chains: list[int] = []
    next_chain = 0
    try:
        for index, step in enumerate(history(repo, source.paths, first_parent=True)):
            write_step(step, content)
            documents = read_documents(content, IngestReport())
            if not documents:
                continue  # nothing readable: `faq ingest` fails and the previous generation stays
            inherit_previous_ids(documents, [seen.version for seen in previous], IngestReport())
            keys = {path: key for key, (path, _) in step.files.items()}
            current = list(_seen(documents, keys))
            links = link_documents(documents, [], LinkRules(), meaning)
            since = (EPOCH + timedelta(days=index)).isoformat(timespec="seconds")
            lineage.record({}, published([seen.version for seen in previous],
                                         [(seen.version.id, seen.version.title, seen.version.answer)
                                          for seen in current]), since)
            continues = reference_pairs(previous, current) if previous else {}
            chains: list[int] = []
            changed: set[int] = set()
            for k, seen in enumerate(current):
                if k in continues:
                    chain = previous_chains[continues[k]]
                    before = previous[continues[k]].version
                    if _said(before.title, before.answer) != _said(seen.version.title, seen.version.answer):
                        changed.add(chain)
                else:
                    chain, next_chain = next_chain, next_chain + 1
                chains.append(chain)
            position = {seen.version.id: k for k, seen in enumerate(current)}
            pairs = [(position[pair.first], position[pair.second]) for pair in links.alignment.entries
                     if pair.first in position and pair.second in position]
            pairs += [(second, first) for first, second in pairs]
            ids = {current[k].version.id for pair in pairs for k in pair}
            histories, versions = lineage.histories(ids), lineage.versions(ids)
            declared, named = translation_sides(
                [(d.id, d.source.relative_path, d.lang, d.translation_of) for d in documents],
                [(pair.first, pair.second) for pair in links.alignment.documents])
            marks = ReviewMarks(declared=declared, named=named)
            flagged: dict[int, int] = {}
            for own, partner in pairs:
                a, b = current[own].version, current[partner].version
                if judge_pair(a.id, b.id, (a.document_id, b.document_id), histories, versions, marks):
                    flagged[chains[own]] = chains[partner]
            commits.append(Commit(step.commit, chains, current, [(chains[a], chains[b]) for a, b in pairs], changed,
                                  set(previous_chains), flagged))
            previous, previous_chains = current, chains
    finally:
        lineage.close()
    return commits


def _said(question: str, answer: str) -> str:
    """What an entry says, for the reference: its question and answer without whitespace and letter case (a line
    rewrapped, a space put between Chinese and Latin words, ``` plain fenced as ```plain or vim written Vim tell a
    translator nothing: neither a change to follow nor a catch-up)."""
    return "".join(f"{question}\n{answer}".split()).casefold()


def judge(label: str, commits: Sequence[Commit]) -> Tally:
    """Precision and recall counts of one repository's replay."""
    tally = Tally(commits=len(commits))
    changes: dict[int, list[int]] = defaultdict(list)  # chain → the commits that changed it
    for c, commit in enumerate(commits):
        for chain in commit.changed:
            changes[chain].append(c)
    for c, commit in enumerate(commits):
        if commit.pairs:
            tally.bilingual_commits += 1
            tally.pairs |= {(label, a, b) for a, b in commit.pairs if a < b}
        before = commits[c - 1].flagged if c else {}
        for chain, partner in commit.flagged.items():
            if chain in before:
                continue
            tally.predictions += 1
            if any(later > c for later in changes[chain]):
                tally.correct += 1
            else:
                tally.open += 1
                tally.cases.append(_case("never caught up (wrong by the definition)", label, commit, chain, partner))
        for own, partner in commit.pairs:
            if (partner in commit.changed and own not in commit.changed and own in commit.existed
                    and any(later > c for later in changes[own])):
                tally.events += 1
                if own in commit.flagged:
                    tally.found += 1
                else:
                    tally.cases.append(_case("MISSED: fell behind, caught up later", label, commit, own, partner))
    return tally


def _case(kind: str, label: str, commit: Commit, chain: int, partner: int) -> str:
    def question(of: int) -> str:
        return next((seen.version.title for seen, c in zip(commit.seen, commit.chains, strict=True) if c == of), "?")
    return f"## {kind} — {label} {commit.commit[:10]}\n  behind: {question(chain)}\n  newer:  {question(partner)}\n"


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.3f}" if whole else f"{part}/0"


def report(label: str, tally: Tally) -> str:
    """The figures of one tally."""
    return (f"{label}: {tally.commits} commits ({tally.bilingual_commits} with translation pairs), "
            f"{len(tally.pairs)} translation pairs\n"
            f"  precision {_share(tally.correct, tally.predictions)} (predictions still open at the last commit: "
            f"{tally.open})\n"
            f"  recall {_share(tally.found, tally.events)} (reference events: {tally.events})")


def main(argv: Sequence[str] | None = None) -> int:
    """Replay the histories and print precision and recall."""
    parser = argparse.ArgumentParser(prog="python -m measure.outdated", description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=ROOT.parent / ".mirror",
                        help="folder of git mirrors, <owner>+<name>/repo (default ../.mirror)")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--cases", type=Path, help="write the missed and never-caught-up cases to this file")
    parser.add_argument("--no-meaning", action="store_true",
                        help="pair translations by their anchors alone, without the embedding model (semantic: false)")
    args = parser.parse_args(argv)
    slot = ModelSlot(enabled=not args.no_meaning, companion=False)
    meaning = question_cosines(slot)
    total = Tally()
    bilingual = 0
    for source in read_sources(args.split):
        repo = mirror_of(args.mirrors, source)
        if repo is None:
            return 1
        with tempfile.TemporaryDirectory(prefix="faq-outdated-") as work:
            tally = judge(source.repository, replay_source(repo, source, Path(work), meaning))
        if not tally.pairs:
            print(f"{source.repository}: no translation pairs, not counted", flush=True)
            continue
        bilingual += len(source.paths)
        print(report(f"{source.repository} ({len(source.paths)} files)", tally), flush=True)
        total.add(tally)
    paired_by = ("anchors alone (--no-meaning)" if args.no_meaning else
                 "anchors and meaning" if slot.get() is not None else "anchors alone (the model cannot run here)")
    print(report(f"ALL ({args.split}: {bilingual} files in bilingual histories, translations paired by {paired_by})",
                 total))
    write_cases(args.cases, total.cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
