"""Search quality on a query file: success@k and MRR@10, measured through the JSON API."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from app.config import Settings
from app.queries import all_entries
from app.web.inprocess import InProcessClient

MRR_DEPTH = 10


@dataclass(frozen=True)
class EvalQuery:
    """One labelled query: it passes when an entry containing a fingerprint ranks within k."""

    id: str
    k: int
    query: str
    fingerprints: tuple[str, ...]


@dataclass
class EvalResult:
    """The figures for a query file and the failures with their ranks."""

    total: int = 0
    passed: int = 0
    reciprocal_ranks: list[float] = field(default_factory=list)
    failures: list[tuple[EvalQuery, int | None]] = field(default_factory=list)

    @property
    def success(self) -> float:
        """Share of queries whose answer ranked within their k."""
        return self.passed / self.total if self.total else 0.0

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank of the first right answer within the top 10."""
        return sum(self.reciprocal_ranks) / self.total if self.total else 0.0


def read_queries(path: Path) -> list[EvalQuery]:
    """Parse a query file: id, k, query (\\n for newlines), '|'-separated fingerprints."""
    queries: list[EvalQuery] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not row or row[0].startswith("#") or len(row) < 4:
                continue
            queries.append(EvalQuery(
                id=row[0], k=int(row[1]), query=row[2].replace("\\n", "\n"),
                fingerprints=tuple(f.strip().lower() for f in row[3].split("|") if f.strip()),
            ))
    return queries


def _entry_texts(settings: Settings) -> dict[str, str]:
    """Each entry's searchable text, lower-cased, for matching fingerprints."""
    return {e.id: f"{e.title}\n{e.question}\n{e.body_markdown}".lower() for e in all_entries(settings)}


def evaluate(settings: Settings, queries: list[EvalQuery]) -> EvalResult:
    """Run every query through /api/v1/search of an app built on `settings`."""
    from app.main import create_app

    texts = _entry_texts(settings)
    result = EvalResult()
    with InProcessClient(create_app(settings)) as client:
        for query in queries:
            wanted = {i for i, text in texts.items() if any(f in text for f in query.fingerprints)}
            response = client.get("/api/v1/search", params={"q": query.query, "limit": 50})
            response.raise_for_status()
            ids = [hit["id"] for hit in response.json()["results"]]
            rank = next((i + 1 for i, entry_id in enumerate(ids) if entry_id in wanted), None)
            result.total += 1
            result.reciprocal_ranks.append(1 / rank if rank and rank <= MRR_DEPTH else 0.0)
            if rank is not None and rank <= query.k:
                result.passed += 1
            else:
                result.failures.append((query, rank))
    return result
