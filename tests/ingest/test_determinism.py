"""The same content gives the same data whatever Python's string hashing: set iteration order changes with
PYTHONHASHSEED, and a float summed in that order once broke ties between pairs differently from run to run, as
mined word pairs of equal score kept that order (the thesaurus uses the first of equal weight)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from measure.ingest_scale import seed_sentences, write_files
from measure.localserver import ROOT

Rows = list[tuple[object, ...]]


def _links(content: Path, data: Path, hash_seed: str) -> tuple[Rows, Rows, Rows]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "FAQ_SEMANTIC": "false", "FAQ_CONTENT_DIR": str(content),
           "FAQ_DATA_DIR": str(data), "FAQ_DATABASE_URL": ""}
    subprocess.run([sys.executable, "-m", "app.cli", "ingest", "--quiet"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    database = sorted(data.glob("generations/*/faq.db"))[-1]
    with sqlite3.connect(database) as connection:
        documents = connection.execute("select * from documentlink order by 1, 2").fetchall()
        entries = connection.execute("select * from entrylink order by 1, 2, 3").fetchall()
        lexicon = connection.execute("select value from meta where key = 'lexicon'").fetchall()  # in its order
    return documents, entries, lexicon


def test_pairs_related_entries_and_the_mined_lexicon_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    content = tmp_path / "content"
    write_files(seed_sentences(tmp_path / "seeds"), 1000, content)  # files named without a language: pairing by content
    first = _links(content, tmp_path / "one", "1")
    assert first[0] and first[1] and first[2] != [("[]",)]
    assert _links(content, tmp_path / "two", "2") == first
    assert _links(content, tmp_path / "five", "5") == first
