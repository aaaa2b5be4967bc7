"""The editors' report (issue 27, item 4): `faq report` and `/admin`, its counts checked against the database and the
gold of the real corpus, its CI gate, its escaping."""

from __future__ import annotations

import posixpath
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

from app.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from app.config import Settings, get_settings
from app.feedback import Feedback
from app.generations import current_name, generation
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.querylog import QueryLog
from app.report import SECTION_NAMES, build_report, current_reader
from app.web.inprocess import InProcessClient
from tests.conftest import DAMAGED_SEED, SAMPLE, pg_settings_for, require, settings_for

TOKEN = "editors-t0ken"
COUNTS_ROW = re.compile(r"^\| (?P<title>[^|]+) \| (?P<en>\d+) \| (?P<zh>\d+) \| (?P<total>\d+) \|$", re.M)
TITLES = {"Untranslated entries": "untranslated", "Translations that fell behind": "outdated",
          "Entries readers found unhelpful": "unhelpful",
          "Searches that found nothing": "zero-results", "Uncertain encoding repairs": "repairs",
          "Structure close calls": "structure", "Broken links": "links"}


def _use(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `faq` read `settings`' data folder."""
    monkeypatch.setenv("FAQ_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("FAQ_CONTENT_DIR", str(settings.content_dir))
    monkeypatch.setenv("FAQ_SEMANTIC", "false")
    monkeypatch.delenv("FAQ_DATABASE_URL", raising=False)
    get_settings.cache_clear()


@pytest.fixture
def faq(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield
    get_settings.cache_clear()


def report_counts(markdown: str) -> dict[str, dict[str, int]]:
    """The report's table of counts: section → {en, zh, total}."""
    return {TITLES[m["title"].strip()]: {k: int(m[k]) for k in ("en", "zh", "total")}
            for m in COUNTS_ROW.finditer(markdown)}


def run_report(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               *args: str) -> tuple[int, str, str]:
    _use(settings, monkeypatch)
    code = main(["report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _database(settings: Settings) -> sqlite3.Connection:
    name = current_name(settings)
    assert name is not None
    return sqlite3.connect(generation(settings, name).database_file)


def untranslated_in_database(settings: Settings) -> dict[str, int]:
    """Entries no translation link leaves from, per language: counted here with SQL of its own."""
    with _database(settings) as db:
        rows = db.execute("SELECT lang, COUNT(*) FROM entry WHERE id NOT IN "
                          "(SELECT source_id FROM entrylink WHERE kind = 'translation') GROUP BY lang").fetchall()
    return {"en": 0, "zh": 0, **dict(rows)}


def unreachable_links(content: Path) -> int:
    """Links of the markdown files whose target is neither a web page nor a document of the folder (in-page anchors
    left out), found by parsing the files: independent of the rendered HTML the report reads."""
    parser = MarkdownIt("commonmark").enable("table")
    documents = {str(p.relative_to(content)) for p in content.rglob("*.md")}
    found = 0
    for path in content.rglob("*.md"):
        relative = str(path.relative_to(content))
        for token in parser.parse(path.read_text(encoding="utf-8")):
            for child in token.children or []:
                if child.type != "link_open":
                    continue
                parts = urlsplit(str(child.attrGet("href")))
                if parts.scheme:
                    found += parts.scheme.lower() not in ("http", "https", "mailto")
                elif parts.path:
                    target = posixpath.normpath(posixpath.join(posixpath.dirname(relative), unquote(parts.path)))
                    found += target not in documents
    return found


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """An ingest of the bundled sample, content/, as users start with."""
    settings = settings_for(tmp_path_factory.mktemp("report-sample"), SAMPLE)
    run_ingest(settings, progress=False)
    return settings


# ------------------------------------------------------------------ counts


def test_report_counts_on_the_sample_match_the_database_and_the_files(
        sample: Settings, faq: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_report(sample, monkeypatch, capsys)
    assert code == EXIT_OK
    counts = report_counts(out)
    assert list(counts) == list(SECTION_NAMES)
    untranslated = untranslated_in_database(sample)
    assert counts["untranslated"] == {**untranslated, "total": sum(untranslated.values())}
    # The sample: 11 English and 57 Chinese entries, 9 pairs; three Chinese documents have no translation. (12 and 56
    # before f256009: deepspeed-chat-faq.zh.md's `HFValidationError` entry, answered in Chinese glued to code, was
    # counted English.)
    assert counts["untranslated"] == {"en": 2, "zh": 48, "total": 50}
    assert counts["links"]["total"] == unreachable_links(SAMPLE) == 6  # Dataset.md, ../src/…/train_utils.py
    assert counts["links"] == {"en": 3, "zh": 3, "total": 6}
    for clean in ("unhelpful", "zero-results", "structure"):  # no statistics yet; no structure close call
        assert counts[clean]["total"] == 0, clean
    with _database(sample) as db:  # the damaged seed's guesses that a repair could not be sure of
        (uncertain,) = db.execute("SELECT SUM(uncertain_repairs) FROM document").fetchone()
    assert counts["repairs"] == {"en": 0, "zh": uncertain, "total": uncertain} and uncertain == 42
    assert "### [deepspeed-chat-faq.zh.md](</documents/deepspeed-chat-faq-zh>) (Chinese, 13; no document " \
           "translates it)" in out


def test_report_counts_on_the_real_corpus_match_the_database_and_the_gold(
        tmp_path: Path, shared: Path, faq: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    content = tmp_path / "content"
    for path in corpus.glob("*/**/*.md"):  # the FAQ folders' documents, as `make eval-real-content` copies them
        target = content / "real" / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    code, out, _ = run_report(settings, monkeypatch, capsys)
    assert code == EXIT_OK
    counts = report_counts(out)
    untranslated = untranslated_in_database(settings)
    assert counts["untranslated"] == {**untranslated, "total": sum(untranslated.values())}
    # Against the gold: every entry that exists in one language only is listed, and every other entry listed is one
    # whose gold pair the ingest did not link (the alignment's misses, which an editor should pair).
    listed = set(re.findall(r"^- \[.*?\]\(</entries/([^>]+)>\)", out.split("## Entries readers")[0], re.M))
    with _database(settings) as db:
        question = {(path, q): id_ for id_, path, q in db.execute(
            "SELECT entry.id, document.path, entry.question FROM entry JOIN document ON document.id = "
            "entry.document_id")}
        linked = set(db.execute("SELECT source_id, target_id FROM entrylink WHERE kind = 'translation'").fetchall())
    unpaired, missed = set(), set()
    for folder in sorted(p for p in corpus.iterdir() if (p / "pairs.tsv").is_file()):
        for row in (folder / "unpaired.tsv").read_text(encoding="utf-8").splitlines()[1:]:
            path, text = row.split("\t")
            unpaired.add(question[(f"real/{folder.name}/{path}", text)])
        for row in (folder / "pairs.tsv").read_text(encoding="utf-8").splitlines()[1:]:
            en_path, en_q, zh_path, zh_q = row.split("\t")
            en = question[(f"real/{folder.name}/{en_path}", en_q)]
            zh = question[(f"real/{folder.name}/{zh_path}", zh_q)]
            if (en, zh) not in linked:
                missed |= {en, zh}
    assert len(unpaired) == 8 and unpaired <= listed
    assert listed - unpaired <= missed
    assert len(listed) == counts["untranslated"]["total"] == 8 + len(missed & listed)
    with _database(settings) as db:
        spans = [target for (html,) in db.execute("SELECT title_html || body_html FROM entry")
                 for target in re.findall(r'class="broken-link" title="Link target not available in this portal: '
                                          r'([^"]*)"', html)]
    assert counts["links"]["total"] == len([t for t in spans if not t.startswith("#")]) > 0


def test_a_structure_close_call_and_an_uncertain_repair_are_listed_under_their_document(
        tmp_path: Path, faq: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "hinted.en.md").write_text("---\nentries: bogus\n---\n# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    shutil.copy2(DAMAGED_SEED, content)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with _database(settings) as db:
        (uncertain,) = db.execute("SELECT SUM(uncertain_repairs) FROM document").fetchone()
    code, out, _ = run_report(settings, monkeypatch, capsys, "--fail-on", "structure")
    assert code == EXIT_FAILED
    counts = report_counts(out)
    assert counts["structure"] == {"en": 1, "zh": 0, "total": 1}
    assert "front matter \\`entries: bogus\\` is not one of" in out
    assert counts["repairs"]["total"] == uncertain > 0
    assert counts["repairs"]["zh"] == uncertain


# ------------------------------------------------------------------ the CI gate


def test_fail_on_exits_one_with_one_line_naming_what_was_found(
        sample: Settings, faq: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_report(sample, monkeypatch, capsys, "--fail-on", "untranslated,repairs,links")
    assert code == EXIT_FAILED and out.startswith("# Editors' report")  # the report is written all the same
    assert err == "faq report: --fail-on untranslated,repairs,links: found untranslated 50, repairs 42, links 6\n"
    code, _, err = run_report(sample, monkeypatch, capsys, "--fail-on", " structure,zero-results,unhelpful,outdated")
    assert (code, err) == (EXIT_OK, "")


def test_an_unknown_section_is_a_usage_error_naming_the_valid_ones(
        sample: Settings, faq: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_report(sample, monkeypatch, capsys, "--fail-on", "untranslated,outdatted")
    err = capsys.readouterr().err
    assert stopped.value.code == EXIT_USAGE and len(err.splitlines()) == 1
    assert "unknown section 'outdatted'" in err and ", ".join(SECTION_NAMES) in err


def test_without_data_the_report_says_to_ingest_first(
        tmp_path: Path, faq: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_report(settings_for(tmp_path, SAMPLE), monkeypatch, capsys, "--fail-on", "untranslated")
    assert (code, out) == (EXIT_FAILED, "")
    assert err == "faq report: no data yet: run `faq ingest` first\n"
    assert not (tmp_path / "data").exists()  # reading creates nothing


# ------------------------------------------------------------------ readers' statistics, escaped


@pytest.fixture
def with_statistics(sample: Settings, tmp_path: Path) -> Settings:
    """A copy of the sample's data whose statistics hold a search that found nothing and unhelpful votes with
    comments that look like markup."""
    data = tmp_path / "data"
    shutil.copytree(sample.data_dir, data, symlinks=True)
    settings = sample.model_copy(update={"data_dir": data, "admin_token": TOKEN})
    log = QueryLog(settings)
    for _ in range(3):
        log.record("kubernetes <img src=x onerror=alert(1)>", 0)
    log.record("fused_adam", 4)
    log.close()
    feedback = Feedback(settings)
    feedback.vote("10.0.0.1", "exec-docker-82244f", False, "<script>alert(1)</script> [x](javascript:alert(1))")
    feedback.vote("10.0.0.2", "exec-docker-82244f", False, "# not a heading | nor a cell")
    feedback.vote("10.0.0.3", "exec-docker-82244f", True)
    feedback.vote("10.0.0.1", "how-to-handle-cuda-memory-fragmentations-during-42eb34", True)  # helpful: not listed
    return settings


def test_unhelpful_entries_and_fruitless_searches_are_listed_with_comments_escaped(
        with_statistics: Settings, faq: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_report(with_statistics, monkeypatch, capsys, "--fail-on", "zero-results")
    assert code == EXIT_FAILED
    counts = report_counts(out)
    assert counts["unhelpful"] == {"en": 1, "zh": 0, "total": 1}
    assert counts["zero-results"] == {"en": 1, "zh": 0, "total": 1}  # "fused_adam" found something
    assert "2 not helpful, 1 helpful" in out
    assert r"\<script\>alert\(1\)\</script\> \[x\]\(javascript:alert\(1\)\)" in out
    assert r"\# not a heading \| nor a cell" in out and "<script>" not in out
    assert r"**kubernetes \<img src=x onerror=alert\(1\)\>**: found nothing (3×)" in out
    assert "Closest by words" in out  # no vectors here: the search run on the query, as for a removed entry
    page = tmp_path / "report.html"
    code, _, _ = run_report(with_statistics, monkeypatch, capsys, "--format", "html", "--output", str(page))
    html = page.read_text(encoding="utf-8")
    assert code == EXIT_OK and html.startswith("<!doctype html>")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x" in html
    assert "<script" not in html and "<img" not in html and "<link" not in html  # nothing loaded from anywhere
    assert 'href="/admin/entries/exec-docker-82244f"' in html and 'href="/entries/exec-docker-82244f"' in html


# ------------------------------------------------------------------ /admin


def test_admin_needs_the_token_and_shows_the_same_report(
        with_statistics: Settings, faq: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_report(with_statistics, monkeypatch, capsys)
    with InProcessClient(create_app(with_statistics)) as client:
        refused = client.get("/admin")
        assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Basic")
        assert client.get("/admin", auth=("editor", "wrong")).status_code == 401
        assert client.get("/api/v1/admin/report").status_code == 401
        page = client.get("/admin", auth=("editor", TOKEN))
        data = client.get("/api/v1/admin/report", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert '<a href="/admin/queries">' in html
    for section in data["sections"]:  # one owner: the page, the API and `faq report` count alike
        cells = re.search(rf'<a href="#{section["name"]}">[^<]+</a></th><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>',
                          html)
        assert cells is not None, section["name"]
        assert int(cells[3]) == len(section["findings"]) == report_counts(out)[section["name"]]["total"]
    for finding in next(s for s in data["sections"] if s["name"] == "untranslated")["findings"]:
        entry = finding["entry"]["id"]
        assert f'href="/entries/{entry}"' in html and f'href="/admin/entries/{entry}"' in html
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and 'href="/search?q=kubernetes+%3Cimg' in html
    with InProcessClient(create_app(with_statistics)) as client:  # small: the page and its (shared) assets
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
        assert len(page.content) + sum(len(client.get(a).content) for a in assets) <= 100_000
        packed = client.get("/admin", auth=("editor", TOKEN), headers={"Accept-Encoding": "gzip"})
        assert packed.headers["content-encoding"] == "gzip"


def test_the_report_reads_postgresql_as_it_reads_sqlite(sample: Settings, tmp_path: Path, postgres_url: str) -> None:
    settings = pg_settings_for(tmp_path, postgres_url, SAMPLE)
    run_ingest(settings, progress=False)
    with current_reader(settings, semantic=False) as reader:
        on_postgresql = build_report(reader, settings)
    with current_reader(sample, semantic=False) as reader:
        on_sqlite = build_report(reader, sample)
    assert [(s.name, s.counts()) for s in on_postgresql.sections] == \
        [(s.name, s.counts()) for s in on_sqlite.sections]
    assert on_postgresql.section("untranslated").findings == on_sqlite.section("untranslated").findings


def test_admin_does_not_exist_without_a_token(sample: Settings) -> None:
    with InProcessClient(create_app(sample.model_copy(update={"admin_token": ""}))) as client:
        assert client.get("/admin").status_code == 404
        assert client.get("/api/v1/admin/report").status_code == 404
