"""A generation's search engine: everything one generation needs to answer a query, behind one `search`."""

from __future__ import annotations

import threading
from pathlib import Path

from app.search.analysis import warm_up_analysis
from app.search.clauses import Thesaurus
from app.search.index import open_index
from app.search.ranking import Budget, Outcome, lexical_search, raw_search
from app.search.spelling import Vocabulary
from app.search.topk import LexicalIndex


class SearchEngine:
    """One generation's index (its searcher and postings arrays), thesaurus and spelling vocabulary.

    Searches take turns: the searcher and the arrays it fills are not safe to share between threads.
    """

    def __init__(self, index_dir: Path, thesaurus: Thesaurus) -> None:
        self.index_dir = index_dir
        self.lexical = LexicalIndex(open_index(index_dir).searcher())
        self.thesaurus = thesaurus
        self.vocabulary = Vocabulary.load(index_dir)
        self._lock = threading.Lock()

    @property
    def doc_count(self) -> int:
        """How many entries the index holds."""
        count: int = self.lexical.searcher.doc_count()
        return count

    def search(self, text: str, lang: str | None, depth: int, document: str | None = None,
               raw: bool = False) -> Outcome:
        """The best `depth` entries for `text` and the total, within the request's time budget.

        `raw` takes Whoosh's query syntax as written; otherwise the text is read as a reader's
        words or a pasted error.
        """
        with self._lock:
            budget = Budget()
            if raw:
                return raw_search(self.lexical, text, lang, depth, document, budget)
            return lexical_search(self.lexical, text, lang, depth, self.thesaurus, self.vocabulary, document, budget)

    def warm(self) -> None:
        """Load what the first searches would otherwise load inside their time budget: the Chinese
        dictionary, and the field lengths every search reads."""
        warm_up_analysis()
        for field in self.lexical.searcher.schema.scorable_names():
            self.lexical.lengths(field)

    def close(self) -> None:
        """Release the index files."""
        self.lexical.searcher.close()
