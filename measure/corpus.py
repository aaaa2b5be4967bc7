"""A generated bilingual FAQ corpus for benchmarks, and SQLite FTS5 (trigram) as the baseline.

Entries are recombined from the real entries of content/ (their sentences, in both
languages) plus a product name and a unique configuration key each, so every labelled
query has one known right answer. Queries are the kinds readers type: a 2-character
Chinese word from the middle of a sentence, the same in Traditional characters, a
full-width identifier, and an exact identifier.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from app.search.analysis import HAN_RUN

PRODUCTS = ["llama", "qwen", "bloomz", "baichuan", "chatglm", "mistral", "falcon", "starcoder",
            "deepspeed", "vllm", "peft", "accelerate", "megatron", "lmdeploy", "fastchat", "xformers"]
TRADITIONAL = str.maketrans("显训练数据载时问题内存设参卡错误", "顯訓練數據載時問題內存設參卡錯誤")
SENTENCE = re.compile(r"[^。！？.!?\n]+[。！？.!?]")
HAN_WORD = re.compile(HAN_RUN)


@dataclass(frozen=True)
class BenchEntry:
    """One generated entry."""

    key: str
    lang: str
    title: str
    body: str


@dataclass(frozen=True)
class BenchQuery:
    """A query with the key of the entry that answers it."""

    kind: str
    text: str
    key: str


def _sentences(texts: list[str]) -> list[str]:
    # A sentence that starts with '#' (a code comment in the source) would become a heading.
    cleaned = (s.strip().lstrip("#").strip() for t in texts for s in SENTENCE.findall(t))
    return [s for s in cleaned if len(s) > 8]


def generate(pool: dict[str, tuple[list[str], list[str]]], count: int, seed: int = 7) -> list[BenchEntry]:
    """`count` entries; `pool` maps a language to (titles, answer texts) to recombine."""
    rng = random.Random(seed)
    entries = []
    sentences = {lang: _sentences(bodies) for lang, (_, bodies) in pool.items()}
    for n in range(count):
        lang = "zh" if n % 2 == 0 else "en"
        titles, _ = pool[lang]
        product = rng.choice(PRODUCTS)
        key = f"{product}_opt_{n:05d}_flag"
        title = f"{product} {rng.choice(titles)}"
        body_sentences = rng.sample(sentences[lang], k=min(4, len(sentences[lang])))
        body = " ".join(body_sentences) + f"\n\n```bash\nexport {key.upper()}=1\n```\n"
        entries.append(BenchEntry(key=key, lang=lang, title=title, body=body))
    return entries


def write_corpus(entries: list[BenchEntry], folder: Path, per_document: int = 100) -> None:
    """Write entries as markdown FAQ documents (`## question` headings)."""
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(entries), per_document):
        chunk = entries[start:start + per_document]
        lines = [f"# Generated FAQ {start // per_document}", ""]
        for entry in chunk:
            lines += [f"## {entry.title}?", "", entry.body, ""]
        (folder / f"faq-{start // per_document:04d}.md").write_text("\n".join(lines), encoding="utf-8")


def make_queries(entries: list[BenchEntry], count: int, seed: int = 11) -> list[BenchQuery]:
    """Labelled queries of four kinds, each answered by one known entry."""
    rng = random.Random(seed)
    queries: list[BenchQuery] = []
    chinese = [e for e in entries if e.lang == "zh"]
    while len(queries) < count:
        entry = rng.choice(chinese)
        product = entry.key.split("_")[0]
        words = [w for run in HAN_WORD.findall(entry.body.split("```")[0]) for w in [run] if len(run) >= 6]
        if not words:
            continue
        run = rng.choice(words)
        middle = rng.randrange(1, len(run) - 3)
        two = run[middle:middle + 2]
        four = run[middle:middle + 4]
        queries += [
            BenchQuery("zh-2char+product", f"{product} {two} {entry.key[-10:-5]}", entry.key),
            BenchQuery("traditional", f"{four.translate(TRADITIONAL)} {entry.key}", entry.key),
            BenchQuery("full-width-identifier",
                       "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in entry.key), entry.key),
            BenchQuery("identifier", entry.key.upper(), entry.key),
        ]
    return queries[:count]



ENGLISH_WORD = re.compile(r"\b[A-Za-z]{4,}\b")


def vague_queries(entries: list[BenchEntry], count: int, seed: int = 13) -> list[str]:
    """Queries of one or two of the corpus's most common words (English, or a Chinese bigram): they
    match a large share of the entries, which is what makes a search engine slow."""
    english: Counter[str] = Counter()
    chinese: Counter[str] = Counter()
    for entry in entries:
        text = f"{entry.title}\n{entry.body}"
        english.update({w.lower() for w in ENGLISH_WORD.findall(text)})
        chinese.update({run[k:k + 2] for run in HAN_WORD.findall(text) for k in range(len(run) - 1)})
    common = [w for w, _ in english.most_common(20)] + [w for w, _ in chinese.most_common(20)]
    rng = random.Random(seed)
    queries = []
    for k in range(count):
        first = rng.choice(common)
        queries.append(first if k % 2 else f"{first} {rng.choice(common)}")
    return queries
