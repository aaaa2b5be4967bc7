"""A reader's words as index queries: one clause per term or quoted phrase, with glossary equivalents and
identifier parts."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

from whoosh.query import And, Or, Phrase, Query, Term

from app.search.analysis import HAN, analyse, identifier_words, normalise_text, query_terms, stem
from app.search.topk import LexicalIndex

Glossary = Sequence[Sequence[str]]
Fields = tuple[str, ...]
QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
# The body holds breadcrumb, prose and code; the error field serves pasted errors. Two or
# three fields per term instead of five: same quality on the dev and project queries, and
# the search takes about half the time (measured side by side).
SEARCH_FIELDS = ("title", "body")
ERROR_FIELDS = ("title", "errors", "body")
CODE_FIELDS = ("title", "code", "body")  # for queries that look like code: identifiers, `spans`
CODE_LIKE = re.compile(r"`|\w[._/]\w|\b[A-Z0-9]+_[A-Z0-9_]+\b|==")
MAX_QUERY_TERMS = 64
MAX_PHRASES = 16  # "quoted phrases" searched as phrases; the rest as words
EQUIVALENT_WEIGHT = 0.5  # a glossary equivalent counts, but less than the words the reader typed
LEXICON_WEIGHT = 0.3  # a mined equivalent counts less again: it was learnt, not written
# An equivalent in more entries than both of these is left out: it tells little (low idf) and
# costs much (every entry holding it is scored). Below the floor, any equivalent is cheap.
EQUIVALENT_MAX_SHARE = 0.05
EQUIVALENT_MIN_LIMIT = 500
# Names with dots, digits or underscores (`libnccl.so.2`, `device_map`) identify a failure
# better than the English words around them; their segments match at a lower weight.
IDENTIFIER_LIKE = re.compile(r"[a-z][._\-/]?\d|\w[._/]\w|_")
IDENTIFIER_WEIGHT = 2.0
IDENTIFIER_SEPARATORS = re.compile(r"[._\-/+]+")
SEGMENT_WEIGHT = 0.5
SEGMENT_MAX_SHARE = 0.05  # a segment in more entries than this is not distinctive
WORDS_WEIGHT = 0.5  # an unknown identifier's words, all held by an entry (`Public Key Retrieval`)
COMPOUND = re.compile(r"[a-z]{7,40}")  # an unknown word this long may be two glued together (longer: not a name)
MIN_COMPOUND_PART = 4
MIN_COMPOUND_REST = 3
# Segments that say where code lives, not what failed.
NAMESPACE_WORDS = frozenset("""
apache common core error errors exceptions http https internal java javax json main util utils yaml
""".split())


def term_query(term: str, fields: Fields, weight: float = 1.0) -> Query:
    """`term` in any of `fields`, at `weight`."""
    return Or([Term(field, term, boost=weight) for field in fields])


@lru_cache(maxsize=65536)
def _phrase_terms(phrase: str) -> tuple[str, ...]:
    """A glossary phrase's query terms (the same lines are read for every query)."""
    return tuple(query_terms(phrase))


Line = tuple[str, Sequence[str], float]  # a phrase, its line (the phrase among its equivalents), the weight


class Thesaurus:
    """The editor's glossary and the lexicons, indexed by how a query can mention their phrases.

    A Chinese phrase is mentioned when the query holds it as written; another phrase when
    the query holds all its stems. Built once per generation: a query looks up its own
    substrings and stems instead of testing thousands of lines.
    """

    def __init__(self, sources: Sequence[tuple[Glossary, float]] = ()) -> None:
        self.written: dict[str, list[Line]] = {}  # normalised Chinese phrase → lines
        self.by_first_stem: dict[str, list[Line]] = {}
        for groups, weight in sources:
            for group in groups:
                for phrase in group:
                    normalised = normalise_text(phrase)
                    if HAN.search(normalised):
                        self.written.setdefault(normalised, []).append((phrase, group, weight))
                    elif stems := _phrase_terms(phrase):
                        self.by_first_stem.setdefault(stems[0], []).append((phrase, group, weight))
        self.lengths = sorted({len(key) for key in self.written})

    @classmethod
    def of(cls, glossary: Glossary, lexicon: Glossary) -> Thesaurus:
        """The editor's glossary over the mined lexicon, each at its weight."""
        return cls(((glossary, EQUIVALENT_WEIGHT), (lexicon, LEXICON_WEIGHT)))

    def mentioned(self, normalised_query: str, query_stems: Sequence[str]) -> list[Line]:
        """The lines whose phrase the query mentions: Chinese phrases where the query holds them, then the others by
        their first stem's place among `query_stems` (the query's terms in order), each in source order."""
        found: list[Line] = []
        text = normalised_query if HAN.search(normalised_query) else ""  # every written phrase is Chinese
        for start in range(len(text)):
            for length in self.lengths:
                if start + length > len(text):
                    break
                found.extend(self.written.get(text[start:start + length], ()))
        held = set(query_stems)
        for first in dict.fromkeys(query_stems):  # the query's order, not a set's: the same query, the same clauses
            found.extend(line for line in self.by_first_stem.get(first, ())
                         if all(t in held for t in _phrase_terms(line[0])))
        return found


def _identifier_query(term: str, fields: Fields, index: LexicalIndex, words: Sequence[str] = ()) -> Query:
    """A term; an identifier weighs more and also matches its distinctive segments, weighted lower.

    `com.datastax…NoHostAvailableException` must meet an entry that names the exception
    alone, `libnccl.so.2` one that says `libnccl`, `flash-attn` one that says `flash_attn`.
    A segment found in many entries (`flag`, `peft` in a PEFT portal) tells nothing and
    would only make the search slow.
    """
    weight = IDENTIFIER_WEIGHT if IDENTIFIER_LIKE.search(term) else 1.0
    whole = term_query(term, fields, weight)
    limit = SEGMENT_MAX_SHARE * index.searcher.doc_count()
    segments = [part for part in dict.fromkeys(IDENTIFIER_SEPARATORS.split(term))
                if len(part) >= 4 and not part.isdigit() and part not in NAMESPACE_WORDS and part != term]
    if not segments and _unknown(index, term, fields):
        segments = _known_prefix(index, term, fields)
    options = [whole]
    for part in segments:
        for form in dict.fromkeys((part, stem(part))):
            if max(index.frequency(field, form) for field in fields) <= limit:
                options.append(term_query(form, fields, weight * SEGMENT_WEIGHT))
    words = [word for word in dict.fromkeys(words) if len(word) >= 3 and word.isalpha() and word != term]
    if words and _unknown(index, term, fields):  # `onSelect` → select: short words say little alone
        options.append(And([term_query(word, fields, weight * WORDS_WEIGHT) for word in words]))
    return Or(options) if len(options) > 1 else whole


def _unknown(index: LexicalIndex, term: str, fields: Fields) -> bool:
    return not any(index.frequency(field, term) for field in fields)


def _known_prefix(index: LexicalIndex, term: str, fields: Fields) -> list[str]:
    """The longest indexed word that starts an unknown compound: `etcdserver` → `etcd`.

    Error messages glue names together that the entries write apart; a substring search
    finds them, a word index does not without this.
    """
    if not COMPOUND.fullmatch(term):
        return []
    for end in range(len(term) - MIN_COMPOUND_REST, MIN_COMPOUND_PART - 1, -1):
        if not _unknown(index, term[:end], fields):
            return [term[:end]]
    return []


def phrase_words(text: str) -> list[str]:
    """Index-side terms of a phrase, the finest one per position (identifier parts, bigrams),
    so the phrase lines up with the positions stored in the index."""
    finest: dict[int, str] = {}
    for term in analyse(text):
        if term.position not in finest or len(term.text) < len(finest[term.position]):
            finest[term.position] = term.text
    return [finest[p] for p in sorted(finest)]


def _phrase_query(terms: list[str], fields: Fields) -> Query:
    if len(terms) == 1:
        return term_query(terms[0], fields)
    return Or([Phrase(field, terms) for field in fields])


def build_clauses(index: LexicalIndex, text: str, thesaurus: Thesaurus,
                  fields: Fields) -> tuple[list[Query], list[str]]:
    """One clause per query term or "quoted phrase"; a glossary or lexicon term also matches its equivalents.

    The editor's glossary comes first; the mined lexicon fills in, weighted lower still.

    Returns the clauses and every term worth highlighting (equivalents included).
    """
    phrases: list[Query] = []
    quoted_terms: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for match in itertools.islice(QUOTED.finditer(text), MAX_PHRASES):
        words = phrase_words(match.group(1) or match.group(2))
        if words and tuple(words) not in seen:  # a phrase quoted twice asks for nothing more
            seen.add(tuple(words))
            phrases.append(_phrase_query(words, fields))
            quoted_terms.extend(words)
    text = QUOTED.sub(" ", text, count=MAX_PHRASES)
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    normalised = normalise_text(text)
    remaining = list(terms)
    highlighted = list(terms)
    clauses: list[Query] = []
    mentioned = thesaurus.mentioned(normalised, terms)
    # The editor's lines first; the longest phrase wins where lines overlap ("memory fragmentation" over "memory"),
    # then the phrase whose words the query writes together ("consumer group" over "work group" in "… not work for
    # new consumer group").
    def preference(line: Line) -> tuple[float, int, bool]:
        stems = _phrase_terms(line[0])
        written_together = bool(HAN.search(line[0])) or _together(stems, terms)  # a Chinese phrase is found as written
        return -line[2], -len(stems), not written_together

    for phrase, group, weight in sorted(mentioned, key=preference):
        covered = list(_phrase_terms(phrase))
        if not covered or not all(t in remaining for t in covered):
            continue
        options: list[Query] = [And([term_query(t, fields) for t in covered])]
        for other in group:
            other_terms = list(_phrase_terms(other))
            if other != phrase and other_terms and not _too_common(index, other_terms, fields):
                options.append(And([term_query(t, fields, weight) for t in other_terms]))
                highlighted.extend(other_terms)
        clauses.append(Or(options))
        for t in covered:
            remaining.remove(t)
    identifiers = identifier_words(text)
    clauses.extend(_identifier_query(t, fields, index, identifiers.get(t, [])) for t in remaining)
    return phrases + clauses, list(dict.fromkeys(quoted_terms + highlighted))


def _together(stems: Sequence[str], terms: Sequence[str]) -> bool:
    """Whether `terms` hold `stems` side by side, in order."""
    width = len(stems)
    return width <= 1 or any(tuple(terms[i:i + width]) == tuple(stems) for i in range(len(terms) - width + 1))


def _too_common(index: LexicalIndex, terms: Sequence[str], fields: Fields) -> bool:
    """Whether an equivalent's rarest word is in so many entries that it tells little and costs much.

    `模型 ~ model` in a portal about models would score most entries at a fraction of a weight.
    """
    limit: float = max(EQUIVALENT_MAX_SHARE * index.searcher.doc_count(), EQUIVALENT_MIN_LIMIT)
    rarest: int = min(max(index.frequency(field, t) for field in fields) for t in terms)
    return rarest > limit
