"""Search quality on a query file: success@k and MRR@10, through the JSON API and a baseline."""

from __future__ import annotations

import csv
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from app.config import Settings
from app.models import Entry
from app.queries import all_entries
from app.web.inprocess import InProcessClient

MRR_DEPTH = 10
DEPTH = 50  # results fetched per query: a rank beyond it is "not found"
ASKS = 3  # times a hybrid query is asked while its answer comes ranked by words only
BASELINE_WORD = re.compile(r"\w{3,}")  # the trigram tokenizer cannot match anything shorter

Ranker = Callable[[str], list[str]]  # query text → entry ids, best first


@dataclass(frozen=True)
class EvalQuery:
    """One labelled query: it passes when an entry containing a fingerprint ranks within k."""

    id: str
    k: int
    query: str
    fingerprints: tuple[str, ...]
    lang: str = ""
    kind: str = ""


@dataclass
class EvalResult:
    """The figures for a set of queries and the failures with their ranks."""

    total: int = 0
    passed: int = 0
    reciprocal_ranks: list[float] = field(default_factory=list)
    failures: list[tuple[EvalQuery, int | None]] = field(default_factory=list)
    ranks: dict[str, int | None] = field(default_factory=dict)  # query id → rank of the first answer

    @property
    def success(self) -> float:
        """Share of queries whose answer ranked within their k."""
        return self.passed / self.total if self.total else 0.0

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank of the first right answer within the top 10."""
        return sum(self.reciprocal_ranks) / self.total if self.total else 0.0

    def add(self, query: EvalQuery, rank: int | None) -> None:
        """Count one query answered at `rank` (None: not in the results)."""
        self.total += 1
        self.ranks[query.id] = rank
        self.reciprocal_ranks.append(1 / rank if rank and rank <= MRR_DEPTH else 0.0)
        if rank is not None and rank <= query.k:
            self.passed += 1
        else:
            self.failures.append((query, rank))


def read_queries(path: Path) -> list[EvalQuery]:
    """Parse a query file: id, k, query (\\n for newlines), '|'-separated fingerprints[, lang, kind]."""
    queries: list[EvalQuery] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not row or row[0].startswith("#") or len(row) < 4:
                continue
            queries.append(EvalQuery(
                id=row[0], k=int(row[1]), query=row[2].replace("\\n", "\n"),
                fingerprints=tuple(f.strip().lower() for f in row[3].split("|") if f.strip()),
                lang=row[4].strip() if len(row) > 4 else "",
                kind=row[5].strip() if len(row) > 5 else "",
            ))
    return queries


def _searchable(entry: Entry) -> str:
    return f"{entry.title}\n{entry.question}\n{entry.body_markdown}"


def answerable(queries: Sequence[EvalQuery], entries: Sequence[Entry]) -> list[EvalQuery]:
    """The queries whose answer is among `entries` (an entry holds one of its fingerprints)."""
    texts = [_searchable(entry).lower() for entry in entries]
    return [query for query in queries if any(f in text for text in texts for f in query.fingerprints)]


def score(queries: Sequence[EvalQuery], entries: Sequence[Entry], rank: Ranker) -> EvalResult:
    """Run every query through `rank` and find where the first entry holding a fingerprint lands."""
    texts = {entry.id: _searchable(entry).lower() for entry in entries}
    result = EvalResult()
    for query in queries:
        wanted = {i for i, text in texts.items() if any(f in text for f in query.fingerprints)}
        ids = rank(query.query)
        result.add(query, next((i + 1 for i, entry_id in enumerate(ids) if entry_id in wanted), None))
    return result


@contextmanager
def portal_ranker(settings: Settings, mode: str = "hybrid") -> Iterator[Ranker]:
    """The portal's own ranking (`mode`: hybrid, lexical or semantic), asked through /api/v1/search of an app
    built on `settings`."""
    from app.main import create_app

    # Measuring is not reading: the queries stay out of the editors' statistics.
    with InProcessClient(create_app(settings.model_copy(update={"query_log_days": 0}))) as client:
        def rank(text: str) -> list[str]:
            for _ in range(ASKS):
                response = client.get("/api/v1/search", params={"q": text, "limit": DEPTH, "mode": mode})
                response.raise_for_status()
                answer = response.json()
                # A query whose vector came after the time budget was ranked by its words alone: asked again,
                # its vector is ready, so the figure measures the ranking rather than how busy the machine was.
                if answer["ranking"] == mode or mode != "hybrid":
                    break
            return [hit["id"] for hit in answer["results"]]

        yield rank


def semantic_state(settings: Settings) -> str:
    """How the portal on `settings` searches: its /readyz `semantic` line (ready: …, lexical until …, off …)."""
    from app.main import create_app

    with InProcessClient(create_app(settings.model_copy(update={"query_log_days": 0}))) as client:
        return str(client.get("/readyz").json().get("semantic", ""))


class TrigramBaseline:
    """The yardstick: SQLite FTS5 with the trigram tokenizer, the query's words OR-ed, bm25 order."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self.connection = sqlite3.connect(":memory:")
        started = time.perf_counter()
        self.connection.execute("CREATE VIRTUAL TABLE entry USING fts5(key UNINDEXED, text, tokenize='trigram')")
        self.connection.executemany("INSERT INTO entry VALUES (?, ?)", rows)
        self.build_seconds = time.perf_counter() - started

    def search(self, text: str, limit: int = DEPTH) -> list[str]:
        """Keys of the best entries for `text` (words of three or more characters: trigrams need three)."""
        words = dict.fromkeys(word.lower() for word in BASELINE_WORD.findall(text))
        if not words:
            return []
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        rows = self.connection.execute("SELECT key FROM entry WHERE entry MATCH ? ORDER BY bm25(entry) LIMIT ?",
                                       (match, limit))
        return [row[0] for row in rows]

    def close(self) -> None:
        """Free the in-memory table."""
        self.connection.close()


@contextmanager
def baseline_ranker(entries: Sequence[Entry]) -> Iterator[Ranker]:
    """The trigram baseline over the portal's entries, as a ranker."""
    baseline = TrigramBaseline((e.id, _searchable(e)) for e in entries)
    try:
        yield baseline.search
    finally:
        baseline.close()


def evaluate(settings: Settings, queries: Sequence[EvalQuery], mode: str = "hybrid") -> EvalResult:
    """The portal's figures on `queries` over the current data, ranked by `mode`."""
    with portal_ranker(settings, mode) as rank:
        return score(queries, all_entries(settings), rank)


def evaluate_baseline(settings: Settings, queries: Sequence[EvalQuery]) -> EvalResult:
    """The FTS5 trigram baseline's figures on `queries` over the same entries."""
    entries = all_entries(settings)
    with baseline_ranker(entries) as rank:
        return score(queries, entries, rank)


def breakdown(queries: Sequence[EvalQuery], result: EvalResult) -> dict[str, EvalResult]:
    """The result again for all queries, then per language and per kind ("lang en", "kind log" …)."""
    groups: dict[str, EvalResult] = {"all": EvalResult()}
    for query in queries:
        if query.id not in result.ranks:
            continue
        names = ["all"] + [f"{axis} {value}" for axis, value in (("lang", query.lang), ("kind", query.kind)) if value]
        for name in names:
            groups.setdefault(name, EvalResult()).add(query, result.ranks[query.id])
    return dict(sorted(groups.items(), key=lambda item: (item[0] != "all", item[0])))


Column = tuple[str, dict[str, EvalResult]]  # a ranking's name and its figures per group


def compared_columns(settings: Settings, queries: Sequence[EvalQuery], semantic: bool) -> list[Column]:
    """The other rankings beside the default: by words only and by meaning only (when the vectors are made),
    and the FTS5 trigram baseline."""
    columns: list[Column] = []
    if semantic:
        columns += [(mode, breakdown(queries, evaluate(settings, queries, mode))) for mode in ("lexical", "semantic")]
    columns.append(("FTS5 trigram", breakdown(queries, evaluate_baseline(settings, queries))))
    return columns


def report_lines(queries: Sequence[EvalQuery], result: EvalResult, semantic: bool,
                 columns: Sequence[Column]) -> list[str]:
    """The figures as `faq eval` prints them: totals, a table per language and kind beside the other
    rankings, then every failure with its rank."""
    lines = [f"queries:    {result.total}", f"success@k:  {result.success:.1%} ({result.passed}/{result.total})",
             f"MRR@10:     {result.mrr:.3f}"]
    groups = breakdown(queries, result)
    if columns or len(groups) > 1:
        header = f"  {'queries':<22} {'n':>4} {'hybrid' if semantic else 'lexical':>10} {'MRR@10':>7}"
        lines.append(header + "".join(f"   {name:>12} {'MRR@10':>7}" for name, _ in columns))
        for name, group in groups.items():
            line = f"  {name:<22} {group.total:>4} {group.passed:>4} {group.success:>5.0%} {group.mrr:>7.3f}"
            for _, other_groups in columns:
                other = other_groups.get(name)
                if other is not None:
                    line += f"   {other.passed:>6} {other.success:>5.0%} {other.mrr:>7.3f}"
            lines.append(line)
    for query, rank in result.failures:
        where = f"rank {rank}" if rank else "not in the top 50"
        lines.append(f"  FAIL {query.id} (k={query.k}, {where}): {query.query[:80]!r}")
    return lines
