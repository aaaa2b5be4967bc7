"""Outdated translations: one side of a translation pair changed and the other did not, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.ingest.identity import minor_edit
from app.ingest.pipeline import run_ingest
from app.lineage import History, substance
from app.main import create_app
from app.outdated import (
    OutdatedTranslation,
    changes_of,
    fell_behind,
    outdated_translations,
    read_review_mark,
    translation_sides,
)
from app.report import build_report, current_reader
from app.web.inprocess import InProcessClient
from tests.conftest import git
from tests.conftest import ids_by_question as ingest

EN = [("How do I install the portal?", "Run `make install` in a clean clone; it creates `.venv` and installs "
       "the pinned dependencies."),
      ("How do I change the port?", "Pass `--port 8080` to `faq serve`; the address is printed when it starts.")]
ZH = [("如何安装门户？", "在干净的克隆中运行 `make install`；它会创建 `.venv` 并安装固定版本的依赖。"),
      ("如何修改端口？", "给 `faq serve` 传入 `--port 8080`；启动时会打印监听地址。")]
INSTALL_EN_EDITED = (EN[0][0], EN[0][1] + " On Windows use WSL2: `make` is not available in PowerShell.")
INSTALL_EN_DOCKER = (EN[0][0], INSTALL_EN_EDITED[1] + " Or run it with `docker compose up`.")


@pytest.fixture
def settings(empty_content: Settings, one_ingest_a_day: None) -> Settings:
    """An empty content folder on SQLite and on a fresh PostgreSQL database; each ingest a day after the last."""
    return empty_content

def write(settings: Settings, name: str, entries: list[tuple[str, str]], front: str = "") -> None:
    """An FAQ file of `### question` entries, with optional YAML front matter lines."""
    head = f"---\n{front}\n---\n" if front else ""
    body = "".join(f"### {question}\n\n{answer}\n\n" for question, answer in entries)
    (settings.content_dir / name).write_text(f"{head}# Portal FAQ\n\n{body}", encoding="utf-8")


def revision_warnings(settings: Settings) -> list[tuple[str, str]]:
    """Ingest; the warnings about revision marks (`translation_of_commit`, `default_lang_commit`)."""
    report = run_ingest(settings, progress=False)
    return [(path, message) for path, message in report.warnings if "_commit`" in message]


def outdated(settings: Settings) -> list[tuple[str, str, str, str]]:
    """(entry question, partner question, since day, partner changed day) of every outdated translation."""
    return [(item.question, item.partner_question, item.since[:10], item.partner_changed[:10])
            for item in outdated_translations(settings)]


def test_the_unchanged_side_of_a_pair_is_outdated_from_the_day_the_other_changed(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ids = ingest(settings)  # day 10
    assert outdated(settings) == []
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    ingest(settings)  # day 11: the English install answer changed, its Chinese translation did not
    ingest(settings)  # day 12: nothing changed
    write(settings, "faq.md", [INSTALL_EN_DOCKER, EN[1]])
    ingest(settings)  # day 13: changed again; behind since day 11, the newer version's last change day 13
    found = outdated_translations(settings)
    assert [(item.question, item.since[:10], item.partner_changed[:10]) for item in found] == [
        (ZH[0][0], "2026-11-11", "2026-11-13")]
    item = found[0]
    assert isinstance(item, OutdatedTranslation)
    assert (item.entry_id, item.lang, item.partner_id, item.partner_lang) == (ids[ZH[0][0]], "zh", ids[EN[0][0]], "en")
    assert item.document_path == "faq.zh.md"
    with InProcessClient(create_app(settings)) as client:
        entry = client.get(f"/api/v1/entries/{ids[ZH[0][0]]}").json()
        assert entry["outdated"] == {"since": item.since, "partner_changed": item.partner_changed,
                                     "partner": {"id": ids[EN[0][0]], "lang": "en", "title": EN[0][0],
                                                 "url": f"/entries/{ids[EN[0][0]]}"}}
        assert client.get(f"/api/v1/entries/{ids[EN[0][0]]}").json()["outdated"] is None
        assert client.get(f"/api/v1/entries/{ids[ZH[1][0]]}").json()["outdated"] is None
        english = client.get(f"/entries/{ids[ZH[0][0]]}", headers={"Accept-Language": "en"}).text
        assert "The English version changed on 2026-11-13; this translation may be out of date." in english
        assert f'href="/entries/{ids[EN[0][0]]}"' in english
        chinese = client.get(f"/entries/{ids[ZH[0][0]]}", headers={"Accept-Language": "zh"}).text
        assert "英文版已于 2026-11-13 修改，此译文可能已过时。" in chinese
        assert "may be out of date" not in client.get(f"/entries/{ids[EN[0][0]]}").text
    with current_reader(settings, semantic=False) as reader:  # the editors' report lists it; --fail-on gates it
        report = build_report(reader, settings)
    assert [(f.entry.id if f.entry else "", f.lang, f.text) for f in report.section("outdated").findings] == [
        (ids[ZH[0][0]], "zh", f"en 2026-11-13: {EN[0][0]}")]
    assert [section.name for section in report.failing(["outdated"])] == ["outdated"]
    # The translator catches up: nothing is outdated any more.
    write(settings, "faq.zh.md", [(ZH[0][0], ZH[0][1] + " 在 Windows 上请使用 WSL2。"), ZH[1]])
    ingest(settings)
    assert outdated(settings) == []


def test_both_sides_changed_in_one_ingest_are_not_outdated(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    write(settings, "faq.zh.md", [(ZH[0][0], ZH[0][1] + " 在 Windows 上请使用 WSL2。"), ZH[1]])
    ingest(settings)
    assert outdated(settings) == []


def test_a_translation_stays_behind_when_its_original_s_question_is_rewritten_over_the_same_answer(
        settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ids = ingest(settings)  # day 10
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    ingest(settings)  # day 11: the Chinese install entry falls behind
    renamed = ("Which command sets up a development copy?", INSTALL_EN_EDITED[1])
    write(settings, "faq.md", [EN[1], renamed])
    after = ingest(settings)  # day 12: the English question rewritten and moved, its answer kept word for word
    assert after[renamed[0]] == ids[EN[0][0]]  # the same entry: not a new original the translation predates
    assert outdated(settings) == [(ZH[0][0], renamed[0], "2026-11-11", "2026-11-12")]


def test_a_translation_written_later_does_not_make_its_original_outdated(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    ingest(settings)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    assert outdated(settings) == []


def test_a_review_date_on_or_after_the_change_clears_the_mark(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)  # day 10
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    ingest(settings)  # day 11
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    write(settings, "faq.zh.md", ZH, front="reviewed: 2026-11-10")  # before the change: still outdated
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    write(settings, "faq.zh.md", ZH, front="reviewed: 2026-11-11")  # the day of the change
    ingest(settings)
    assert outdated(settings) == []
    # Per question, in a sidecar: only the entry named is cleared.
    write(settings, "faq.zh.md", ZH)
    (settings.content_dir / "faq.zh.md.meta.yml").write_text(f"reviewed:\n  \"{ZH[1][0]}\": 2026-11-30\n",
                                                             encoding="utf-8")
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    (settings.content_dir / "faq.zh.md.meta.yml").write_text(f"reviewed:\n  \"{ZH[0][0]}\": 2026-11-30\n",
                                                             encoding="utf-8")
    ingest(settings)
    assert outdated(settings) == []
    # A later change of the English side is not covered by the earlier review.
    write(settings, "faq.md", [INSTALL_EN_DOCKER, EN[1]])
    (settings.content_dir / "faq.zh.md.meta.yml").write_text(f"reviewed:\n  \"{ZH[0][0]}\": 2026-11-12\n",
                                                             encoding="utf-8")
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]


def test_a_translation_edited_in_the_ingest_that_changed_its_original_stays_level(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    # One commit: the English answer gains a sentence; its Chinese translation only gets a character changed. Whoever
    # made it had both in hand (apache/seatunnel's "writing dead" → "hardcoding" beside a v1 → V1 in both files).
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    write(settings, "faq.zh.md", [(ZH[0][0], ZH[0][1].replace("它会创建", "它将创建")), ZH[1]])
    ingest(settings)
    assert outdated(settings) == []
    write(settings, "faq.md", [INSTALL_EN_DOCKER, EN[1]])  # the English alone, later: behind again
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]


def test_an_entry_left_untranslated_is_never_behind_the_original_it_copies(settings: Settings) -> None:
    # The Chinese file carries the port entry in English, copied from the English file's next version
    # (chaos-mesh/website's i18n copies): when the English file reaches that text, the two say the same thing.
    write(settings, "faq.md", [EN[0], (EN[1][0], EN[1][1].replace("; the address is printed when it starts", ""))])
    write(settings, "faq.zh.md", [ZH[0], EN[1]])
    ingest(settings)
    write(settings, "faq.md", EN)
    ingest(settings)
    assert outdated(settings) == []
    write(settings, "faq.md", [EN[0], (EN[1][0], EN[1][1].replace("8080", "9090"))])  # the copy is behind now
    ingest(settings)
    assert [(item.document_path, item.question) for item in outdated_translations(settings)] == [
        ("faq.zh.md", EN[1][0])]


def test_a_revision_mark_clears_the_notice_while_the_original_entry_says_what_it_said_at_that_commit(
        settings: Settings) -> None:
    content = settings.content_dir
    git(content, "init", "-q")
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    git(content, "add", ".")
    git(content, "commit", "-qm", "FAQ and its translation", day="2026-11-01")
    first = git(content, "rev-parse", "HEAD").strip()
    ids = ingest(settings)
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    git(content, "commit", "-qam", "install on Windows", day="2026-11-02")
    second = git(content, "rev-parse", "--short", "HEAD").strip()
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    # Translated from the first commit: the English install entry changed since.
    write(settings, "faq.zh.md", ZH, front=f"translation_of_commit: {first}")
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    # Checked against the second (abbreviated, as OpenTelemetry's key): level, in the report too.
    write(settings, "faq.zh.md", ZH, front=f'default_lang_commit: "{second}"')
    assert revision_warnings(settings) == []
    assert outdated(settings) == []
    with current_reader(settings, semantic=False) as reader:
        assert build_report(reader, settings).section("outdated").findings == []
    with InProcessClient(create_app(settings)) as client:
        assert client.get(f"/api/v1/entries/{ids[ZH[0][0]]}").json()["outdated"] is None
    # The English entry changes again (not committed yet): what the mark names is no longer what it says.
    write(settings, "faq.md", [INSTALL_EN_DOCKER, EN[1]])
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    # Per question, in a sidecar: only the entry named is level.
    write(settings, "faq.md", [INSTALL_EN_DOCKER, (EN[1][0], EN[1][1].replace("8080", "9090"))])
    git(content, "commit", "-qam", "docker, and another port", day="2026-11-03")
    third = git(content, "rev-parse", "HEAD").strip()
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0], ZH[1][0]]
    (content / "faq.zh.md.meta.yml").write_text(f'translation_of_commit:\n  "{ZH[1][0]}": "{third}"\n',
                                                encoding="utf-8")
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]


def test_a_revision_mark_git_cannot_check_is_named_by_the_ingest_and_ignored(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    write(settings, "faq.zh.md", ZH, front='translation_of_commit: "3f2a9c1"')
    assert revision_warnings(settings) == [  # not a git work tree
        ("faq.zh.md", "`translation_of_commit` ignored: the content folder is not a git work tree")]
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    git(settings.content_dir, "init", "-q")
    git(settings.content_dir, "add", ".")
    git(settings.content_dir, "commit", "-qm", "FAQ")
    assert revision_warnings(settings) == [  # a commit git does not know
        ("faq.zh.md", "`translation_of_commit` ignored: git knows no commit 3f2a9c1 here")]
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    for value in ("1234567", "[3f2a9c1]", "not-a-commit"):  # a number, a list, words: never taken for a commit
        write(settings, "faq.zh.md", ZH, front=f"translation_of_commit: {value}")
        assert [path for path, _ in revision_warnings(settings)] == ["faq.zh.md"]


def test_a_changed_translation_never_makes_its_original_outdated_unless_declared_the_other_way(
        settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)  # both in the first ingest: the file name tells the translation
    ingest(settings)
    write(settings, "faq.zh.md", [(ZH[0][0], ZH[0][1] + " 在 Windows 上请使用 WSL2，PowerShell 里没有 make。"),
                                  ZH[1]])
    ingest(settings)
    assert outdated(settings) == []
    # The English file declares it translates the Chinese one: the Chinese is the original.
    write(settings, "faq.md", EN, front="translation_of: faq.zh.md")
    ingest(settings)
    write(settings, "faq.zh.md", [(ZH[0][0], ZH[0][1] + " 也可以用 `docker compose up` 运行。"), ZH[1]])
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [EN[0][0]]


def test_translation_sides_come_from_translation_of_then_language_markers() -> None:
    documents = [("a", "faq.md", "en", None), ("b", "faq.zh.md", "zh", None), ("c", "en/x.md", "en", None),
                 ("d", "zh/x.md", "zh", None), ("e", "y.md", "en", "y.zh.md"), ("f", "y.zh.md", "zh", None),
                 ("g", "i18n/zh/docs/z.md", "zh", None), ("h", "docs/z.md", "en", None)]
    declared, named = translation_sides(documents, [("a", "b"), ("c", "d"), ("e", "f"), ("h", "g")])
    assert declared == {"e": "f"}
    assert named == {"b": "a", "f": "e", "g": "h"}  # en/ and zh/ both marked: nothing said


def test_a_typo_fixed_or_a_reformatted_original_leaves_its_translation_current(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    write(settings, "faq.md", [(EN[0][0], EN[0][1].replace("a clean clone", "a fresh clone")), EN[1]])
    ingest(settings)  # one word replaced, one added: minor
    (settings.content_dir / "faq.md").write_text("# Portal FAQ\n\n" + "".join(
        f"### {question}\n\n{answer.replace(' ', chr(10), 3)}\n\n" for question, answer in
        [(EN[0][0], EN[0][1].replace("a clean clone", "a fresh clone")), EN[1]]), encoding="utf-8")
    ingest(settings)  # re-wrapped lines: no change of substance
    assert outdated(settings) == []
    write(settings, "faq.md", [(EN[0][0], EN[0][1].replace("a clean clone", "a fresh clone")),
                               (EN[1][0], EN[1][1].replace("8080", "9090"))])
    ingest(settings)  # a number changed: never minor
    assert [item[0] for item in outdated(settings)] == [ZH[1][0]]


def test_unpaired_repaired_and_readded_documents_never_crash_and_leave_no_stale_mark(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    ingest(settings)
    assert len(outdated(settings)) == 1
    # Unpaired: the Chinese document is told it translates nothing.
    write(settings, "faq.zh.md", ZH, front="not_translation_of: faq.md")
    ingest(settings)
    assert outdated(settings) == []
    # Paired again, then the English file deleted and added back unchanged.
    write(settings, "faq.zh.md", ZH)
    ingest(settings)
    assert len(outdated(settings)) == 1
    (settings.content_dir / "faq.md").unlink()
    ingest(settings)
    assert outdated(settings) == []
    write(settings, "faq.md", [INSTALL_EN_EDITED, EN[1]])
    ingest(settings)
    assert [item[0] for item in outdated(settings)] == [ZH[0][0]]
    # A bad review mark is a warning, never a failure.
    write(settings, "faq.zh.md", ZH, front="reviewed: [soon]")
    report = run_ingest(settings, progress=False)
    assert any("reviewed" in message for _, message in report.warnings)


def test_fell_behind_reads_the_pair_s_changes_in_time_order() -> None:
    def h(first: str, changed: str) -> History:
        return History(first_seen=first, changed=changed, earlier_questions=[])

    assert fell_behind(h("1", "1"), h("1", "3"), [], ["2", "3"]) == ("2", "3")
    assert fell_behind(h("1", "2"), h("1", "3"), ["2"], ["2", "3"]) == ("3", "3")  # both at 2, the partner at 3
    assert fell_behind(h("1", "3"), h("1", "3"), ["3"], ["3"]) is None  # both in one ingest
    assert fell_behind(h("1", "3"), h("1", "3"), [], ["3"], own_edits=["3"]) is None  # a word of it too
    assert fell_behind(h("1", "3"), h("1", "3"), [], ["3"], own_edits=["2"]) == ("3", "3")
    assert fell_behind(h("1", "1"), h("2", "2")) is None  # the partner only appeared
    assert fell_behind(h("1", "1"), h("1", "3")) is None  # no change given
    # The translator catches up (own change at 3): neither side is behind, the original is not made outdated.
    assert fell_behind(h("1", "3"), h("1", "2"), ["3"], ["2"]) is None
    assert fell_behind(h("1", "2"), h("1", "3"), ["3"], ["2"]) is None
    # The translation's own edit at 2, then the original's change at 3: behind from 3 (the original is never behind).
    assert fell_behind(h("1", "2"), h("1", "3"), ["2"], ["3"], side="translation") == ("3", "3")
    assert fell_behind(h("2", "3"), h("1", "4"), ["3"], ["4"]) == ("4", "4")  # appeared later: the translation
    assert fell_behind(h("1", "2"), h("1", "3"), ["2"], ["3"]) is None  # nothing tells: the partner caught up with it
    # A translation written after its original changed starts level with it.
    assert fell_behind(h("3", "3"), h("1", "2"), [], ["2"]) is None
    old = h("2026-11-01T00:00:00+00:00", "2026-11-01T00:00:00+00:00")
    new = h("2026-11-01T00:00:00+00:00", "2026-11-20T08:00:00+00:00")
    assert fell_behind(old, new, [], [new.changed], reviewed="2026-11-19") is not None
    assert fell_behind(old, new, [], [new.changed], reviewed="2026-11-20") is None
    assert fell_behind(old, new, [], ["2026-11-10T00:00:00+00:00", new.changed], reviewed="2026-11-15") == (
        new.changed, new.changed)  # reviewed after the first change: behind again from the second


def test_only_changes_of_substance_count() -> None:
    history = History(first_seen="1", changed="4", earlier_questions=[])
    versions = [("1", "a", False), ("2", "a", False), ("3", "b", False), ("4", "b", False), ("5", "c", True)]
    assert changes_of(history, versions) == ["3"]  # 2 and 4: reformatted; 5: a minor edit
    assert changes_of(history, []) == ["4"]  # versions not recorded: its last change
    assert changes_of(history, [("3", "b", False)]) == ["3"]  # what it said before 3 is unknown: a change
    assert substance("Q3. How do I **install**?", "Run\n`make   install`.") == substance(
        "七、How do I install?", "run `make install`.")
    assert substance("How?", "Run `make install`.") != substance("How?", "Run `make test`.")


def test_a_minor_edit_changes_a_word_or_two_of_prose_only() -> None:
    assert minor_edit("Where to put my configration?", "It loads configration from `~/.vim`.",
                      "Where to put my configuration?", "It loads configuration from `~/.vim`.")
    assert minor_edit("Q", "感谢您向我们反馈问题。", "Q", "感谢你向我们反馈问题。")
    assert not minor_edit("Q", "Pass `--port 8080`.", "Q", "Pass `--port 8081`.")
    assert not minor_edit("Q", "See https://a.example/x.", "Q", "See https://a.example/y.")
    # The same page linked another way (nunjucks' FAQ, 2016: `/api.html#…` became `api.html#…`) is no change.
    assert minor_edit("Q", "See [compat](/api.html#compat).", "Q", "See [compat](api.html#compat).")
    assert minor_edit("Q", "See http://www.a.example/x/.", "Q", "See https://a.example/x.")
    assert not minor_edit("Q", "See [compat](/api.html#compat).", "Q", "See [compat](/cli.html#compat).")
    # Spelling: SeaTunnel's "two plug-ins" became "two plugins" (2024), beside a link whose address says plugins.
    assert minor_edit("Q", "Use one of two plug-ins: Convert or Sql.", "Q", "Use one of two plugins, Convert or Sql.")
    assert not minor_edit("Q", "A short answer.", "Q", "A short answer. On Windows use WSL2.")


def test_review_marks_read_dates_and_questions_and_name_what_they_ignore() -> None:
    import datetime as dt

    questions = [("How do I **install**?", "How do I install?"), ("Port?", "Port?")]
    assert read_review_mark(dt.date(2026, 11, 21), questions).document == "2026-11-21"
    assert read_review_mark("2026-11-21", questions).document == "2026-11-21"
    mark = read_review_mark({"How do I install?": "2026-11-21", "Port?": "tomorrow", "Gone?": "2026-11-21"},
                            questions)
    assert mark.entries == {0: "2026-11-21"}
    assert len(mark.problems) == 2
    assert read_review_mark(["2026-11-21"], questions).problems
    assert read_review_mark("2026-13-45", questions).problems
