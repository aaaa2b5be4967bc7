"""Structure inference on every gold corpus, on each style in both languages, and on hostile files."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.ingest.glossary import read_glossary
from app.ingest.language import entry_language
from app.ingest.segment import segment_markdown
from measure.linkeval import LinkScore, evaluate_links, evaluate_segments
from tests.conftest import CONTENT, REPO, SHARED, require

FIXTURES = REPO / "tests" / "fixtures"
GLOSSARY = read_glossary(CONTENT)[0]


def _corpus(name: str) -> Path:
    """A gold corpus: the project's own style fixtures, or one of the shared folder's (skipped outside CI)."""
    if name == "fixtures":
        return FIXTURES / "styles"
    return require(SHARED / "corpus" / name, f"the {name} corpus")


@pytest.mark.parametrize("corpus", ["real", "styles", "fixtures"])
def test_every_gold_file_segments_to_its_exact_questions(corpus: str) -> None:
    scores = evaluate_segments(_corpus(corpus))
    wrong = {s.name: (s.missed, s.extra) for s in scores if s.missed or s.extra}
    assert wrong == {}
    assert scores[-1].found == scores[-1].gold == scores[-1].matched > 0


def _overall(scores: list[LinkScore]) -> LinkScore:
    return scores[-1]


def test_real_and_styles_pairs_hold() -> None:
    real_score = _overall(evaluate_links(_corpus("real"), glossary=GLOSSARY))
    assert (real_score.correct, real_score.predicted, real_score.gold) == (207, 207, 207)
    # Two styles pairs share no language-neutral anchor (hugegraph "nested attributes", and the
    # S2 pair whose English entry was deleted): a general dictionary is the next step.
    styles_score = _overall(evaluate_links(_corpus("styles"), glossary=GLOSSARY))
    assert styles_score.precision >= 0.99 and styles_score.recall >= 0.98
    assert styles_score.unpaired_violations <= 1


def test_fixture_pairs_hold() -> None:
    # repeated-titles: the English-only "Q12: Can I train without internet access?" and the
    # Chinese-only "Q13: 训练时如何通过国内镜像下载预训练权重？" share their one command and pair as a move.
    fixture_score = _overall(evaluate_links(_corpus("fixtures"), glossary=GLOSSARY))
    assert fixture_score.precision >= 0.98 and fixture_score.recall >= 0.98
    assert fixture_score.unpaired_violations <= 2


WILD = REPO / "eval" / "wild"


def test_the_wild_corpus_keeps_every_gold_question() -> None:
    # 57 FAQ documents of 31 projects (eval/wild/README.md); before issue 24, 641 of 684 (BASELINE.md).
    scores = evaluate_segments(WILD)
    wrong = {s.name: (s.missed, s.extra) for s in scores if s.missed or s.extra}
    assert wrong == {}
    overall = scores[-1]
    assert overall.matched == overall.gold == 684
    # bert-wwm's README_EN.md asks `Q: How to use this model?` twice; gold lists it once.
    assert overall.found == overall.gold + 1


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 238, 2, 3), ("renamed", 235, 0, 0), ("edited", 206, 6, 2)])
def test_the_wild_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # Before issue 24: 227 of 244 correct and 8 wrong (as laid out), 198 of 214 and 14 wrong (edited). What is
    # left as laid out is SpaceVim's partial translation (5 of 14 entries), paired by its folders since: two of
    # its pairs share code with an entry of the other language that has no translation.
    overall = evaluate_links(WILD, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


# Gold corpora gathered by probes of FAQ styles nobody here had read, each labelled before any ingest ran on it (its
# README says how): floors, not targets. Per corpus: gold questions, found at least, the files that may still miss
# one, extra entries at most; then each layout's pairs by words alone (right at least, wrong and gold-unpaired
# entries paired at most). The edits of the edited layout draw from one random sequence over every Chinese document,
# so how one document is cut moves the others' edits.
PROBED: dict[str, tuple[int, int, set[str], int]] = {
    # wild2 (24 documents, 17 projects; two probes, the ingest changed after each): graia-docs `## 当你遇到问题的时候`
    # is cut as the two advice items of its `:::warning`; the other extras are scrcpy's category introductions,
    # hertzbeat's unanswered item 5 and mkdocs-material's three guide headings.
    "wild2": (231, 230, {"graia-docs/before/QA.md"}, 9),
    # wild3 (19, 12): the first run found 138 and cut 9 extras (a `More FAQ` link heading taken for the FAQ section;
    # `Still stuck?`; `权限不足` not taken for a failure). Missed: metagpt `### Chief Evangelist (Monthly Rotation)`.
    "wild3": (174, 173, {"metagpt/FAQ-EN.md"}, 0),
    # wild4 (20, 15): the first run found 291 of 300, 12 extras (steps announced by a lead-in, `X的原因` parts, a
    # heading over topics, a lone `##` among `###`, bold titles without headings). Missed: lx-music
    # `### 打开网易源“我喜欢”歌单`, a how-to under the answered `## 无法打开外部歌单`.
    "wild4": (300, 299, {"lx-music/FAQ.md"}, 0),
    # wild5 (21, 13): the first run found 236 of 241, 23 extras (`1.1、异常现象` parts, `## 排查步骤`, bullets cut off
    # by fenced answers). Missed: safeline `## 配置完成之后…`, cut as its five numbered `####` checks (extras, with
    # knowstreaming's `### 3.2、异因二…` and `### 3.3、异因三…`, causes under its `## 3、ElasticSearch问题`).
    "wild5": (241, 240, {"safeline/FAQ.md"}, 7),
    # wild6 (14, 8): the first run found 145 of 148, 2 extras (`### Q:` answered by the `### A:` heading after it;
    # a closing `1. More questions` item).
    "wild6": (148, 148, set(), 0),
    # wild7 (16, 12): the first run found 144 of 160, 13 extras: fooview-doc's `##### **1）…？**` headings kept their
    # bold wrapper (13 missed + 13 extra; the wrapper is the heading's emphasis since); video-subtitle-remover's
    # `3.`/`4.` items, after a `- ` bullet list at column 0 inside item 2's answer (numbering continues since).
    "wild7": (160, 160, set(), 0),
    # wild8 (17, 11): the first run found 191 of 214, 6 extras (kubeedge's `# Common knowledge` half left outside its
    # `# Frequently Asked Questions`; `### cloudcore in pending status` not read like its sibling
    # `### cloudcore in CrashLoopBackOff status`; `## Runtime related issues` over errors; kube-ovn's `### Behavior`;
    # qtscrcpy's `## 错误信息：…` errors; x-anylabeling's `<summary>` going on into a log; jest's `Still unresolved?`).
    # Still missed: kubeedge's `### Certificate Verification Issues When Deploying on k3s`, kept in the answer of the
    # `##` above it. (pyenv-win's `**Question:**` paragraph inside the item before it is found since.)
    "wild8": (214, 213, {"kubeedge/en/setup.md"}, 0),
    # wild9 (18, 10): the first run found 253 of 262, 25 extras (gsyvideoplayer's `##` page title, its pointer and
    # closing headings off its numbered run, `#### 12. …` cut as the three checks of its answer; xiaozhi's six
    # link-list sections written as numbered lines and its numbered closing pointer). Still missed: tars's numbered
    # tips with no text under them (`### 3.`/`### 4.`, `## 3.`-`## 5.`); snap-hutao's `### **`Received an unexpected
    # EOF …`**` kept in the answer of the answered `## **资源下载失败**` (while the three status-code cases of the
    # unanswered `## **HttpRequestException …**` are cut, the extras). Also extra: tars's `### 注意点：`. (bistoury's
    # first of two error headings sharing one answer is found since.)
    # Since an asking heading with no text of its own over entries is their category (session 28), snap-hutao's
    # unanswered `## **HttpRequestException …**` is no longer an entry with an empty answer (253): its three
    # status-code cases are, under it in their breadcrumb. The gold wants it as one entry holding them.
    "wild9": (262, 253, {"snap-hutao/en/advanced/exceptions.md",
                         "snap-hutao/zh/advanced/exceptions.md", "tars/Install_faq-en.md", "tars/Install_faq.md"}, 7),
    # wild10 (14, 8): the first run found 156 of 265, 108 extras: cubefs's 52 + 52 `_Description_:` / `_描述_：`
    # questions under the label headings `## Question N` / `## 问题N` (the labels were cut; a heading that only
    # numbers a question asks the line under it since). Still missed: cubefs fuse's bullet symptom `The Fuse client
    # occupies too much memory …` under `## Memory and Performance Optimization` (the category is cut instead, in both
    # languages); ilruntime's `## 版本`. (dinky's `Q1：ADD JAR语法如何支持s3路径？`, first cut with the answer line of
    # its paragraph, ends with its line since; bitsail's item 15 in three bold runs, `**… form** **of** **command
    # line?**`, first cut with only its outer `**` removed, keeps them since.)
    "wild10": (265, 262, {"cubefs/docs/fuse.md", "cubefs/docs-zh/fuse.md", "ilruntime/FastQA.md"}, 2),
    # wild11 (22, 13; labels committed at 0088251 before any run): the first run found 267 of 280, 11 extras: colima's
    # `### Docker socket location` read as a category over `#### v0.3.4 or older` …; matrixone's seven bold questions
    # of `## Error reporting related` cut as one entry under that heading (three of them state a failure without
    # asking); trivy's three numbered workarounds cut instead of their topic; podman's `### Solution` of item 33 cut
    # at item level. Still missed: colima's `### Colima not starting` (its second reason, `#### FATA[0000] error
    # starting vm: …`, asks like an error, so the heading is read as their category: both reasons are the extras);
    # matrixone's `Do **cluster deployments …**` (bold not over the whole line), the bullet `* **Does the current
    # non-k8s version …**` (the one bold question of `## Hardware related` is found since).
    "wild11": (280, 277, {"colima/FAQ.md", "matrixone/deployment-faqs.md"}, 2),
    # wild12 (14, 7): the first run found 241 of 246, 15 extras: il2cppdumper's English README cut nothing (its
    # `## Common errors` was not its troubleshooting part); minigame-unity's `#### 11.…permission deny字样错误` lost to
    # the bare `Q:` under it; carla's categories whose only text is a `<!-- ==== -->` comment were cut; minigame-unity's
    # guides were cut whole, outside their `## QA` sections; fluwx's `### 参考文章` link list was cut. Still missed:
    # maixpy's `### Program Exit and Message: "app exit with code: 1, …"`, kept in the answer of the `##` above it.
    "wild12": (246, 245, {"maixpy/en/faq.md"}, 0),
    # wild13 (18, 12; labels committed at 7c597ff before any run): the first run found 194 of 196, 6 extras: hatch's
    # `***Q***: How to migrate to Hatch?`, whose answer holds `### Build system` / `### Environments`, lost to those
    # sub-headings and the category `## Tool migration` above it (3 extras; the label takes the sub-headings of its
    # answer since); code-server's `## Questions?`, a pointer to Discussions, was cut (navigation since). Still missed:
    # vim-galore's `## Function search undo` (the last item of the English guide's `# Common problems`), whose answer
    # opens with two `- ` bullets: the bullets were cut as two questions (2 extras) until a list item whose first
    # line leaves a quote or bracket open (`… changes the "last used`) was read as wrapped text, not a topic.
    "wild13": (196, 196, set(), 0),
    # wild14 (22, 12; labels committed at ffe4b63 before any run): the first run found 141 of 150, 21 extras: vchart's
    # `## Title` / `## 问题标题` labels cut as entries over the question written under them, with `## Code Example`,
    # `## Results`, `## Quote` (`## 代码示例`, `## 结果展示`) cut too (a label heading asks the line under it, and
    # those are answer parts, since); wot-design-uni's closing `## 关于我们` (navigation since). Still missed: feapder's
    # `setting不生效问题.md`, one problem whose H1 is the question (its parts `## 问题`, `### 方法1：…`-`### 方法3：…`
    # are cut instead, 4 extras); webase's two lone `* 问：…` bullets answered by a `答：` paragraph after a column-0
    # fence; wot-design-uni's `## 小程序样式隔离` cut with its first `###` as the answer (and its closing
    # `## 如何快速解决你的问题？`); aliyun-log-producer's `**Q:** …VerifyError…`, a code span over three source lines,
    # cut whole (the gold records its first line: a recording difference, 1 missed + 1 extra).
    "wild14": (150, 145, {"aliyun-log-producer/FAQ_CN.md", "feapder/question/setting不生效问题.md",
                          "webase/WeBASE-Node-Manager/install_FAQ.md", "wot-design-uni/guide/common-problems.md"}, 7),
    # wild15 (13 projects, 19 files; labels committed at 2284aa5 before any run): the first run found 205 of 217, 8
    # extras. Missed: bee's headingless `Q:` paragraphs where a number is glued before the label (`13 (1).Q:&nbsp;…`,
    # `13 (2). Q:&nbsp;…`, `14.Q:&nbsp;Bee与Honey是什么关系?`, `14 (2). Q: …`, lines 153-190), all four left in the
    # answer of `Q:&nbsp;Bee设计原理?`, and its unlabelled item 21 (`How to use ORM Bee develop when the sql like: …`,
    # line 285, after a bare `21.`), left in the answer of item 20; bee's item 29 cut with its question paragraph's
    # second line, the English restatement `How to set customized NameTranslate?` (the gold records the first line: 1
    # missed + 1 extra). openvoice's five whole-line bold topics (`**Bad Audio Quality of the Generated Speech**`) under
    # `## Issues with …` categories: the four categories are cut instead (4 extras). papermod's `## Using Hugo's Syntax
    # highlighter "chroma"`, whose answer is three numbered steps: the steps are cut as three topics (3 extras).
    # Since: a label after an item number is a label; bold titles under headings that only name categories are the
    # questions; numbered steps opening a how-to among heading entries are its answer. Left: bee's unlabelled item 21
    # and its two-line question (1 extra).
    "wild15": (217, 215, {"bee/FAQ_CN.md"}, 1),
    # wild16 (12 files, 9 projects; labels committed at ee3ef1d before any run): the first run found 96 of 104, 8
    # extras. Missed: easemob's English `en/qa.en.md`, 7 `####` items under `## Specialized Issues` and `## Issues with
    # Third-Party Libraries` (`MIUI 12 Strings Fail to Be Displayed Fully` … `flipper compile question`), dropped
    # whole, in no entry's answer, while the 5 under `## FAQs` are cut (the Chinese file, whose three categories all
    # end in 问题, is cut right); amap-fluttify's last item `### Android端报\`INVALID_USER_SCODE\``, whose answer is
    # two numbered lines ending in `<br/>`, cut as those two lines (2 extras) instead, and its build-guide preface cut
    # as five entries (`#### 编译 Android`, `#### 编译 iOS`, and three wrapped bullet lines `下载源码后，使用\`Android`
    # …; 5 extras); native-docs' `### 自定义插件云打包闪退原因查询步骤`, a sub-heading of the last answer (1 extra).
    # Since: `# Question List` names the whole page an FAQ; `检查…是否…` is a step, not a question; `…原因查询步骤`
    # is a part of an answer; a list item whose first line leaves a code span open is wrapped text, not a topic.
    # Left: amap-fluttify's build-guide preface (`### 这里以Android Studio为例`, `#### 编译 Android`, `#### 编译 iOS`).
    "wild16": (104, 104, set(), 3),
    # wild17 (17 files, 9 projects; labels committed at c259078 before any run): the first run found 129 entries, 54
    # of 140 gold, 75 extras. Missed: nacos' 65 one-line `<h4 id="1.1">What is Nacos</h4>` questions, which the gold
    # records with their tags (goldcheck has no HTML-heading rule) and the ingest cuts without them (the same line:
    # 63 of the 75 extras); of those, 3.21 in each language (`<h4 id="3.21">java.lang.IllegalArgumentException: The
    # specified key byte array …`) is not cut at all: it follows 3.20's `<h4>` with no blank line, one HTML block.
    # cloudtask's 5 + 5 blockquote questions (`> How do you see the exception log …?`, answers `&nbsp;&nbsp;…`):
    # 0 entries in either file. flow-ci's Chinese `<b>为什么会报 GitHub WebHook Error ？</b>`-style bold paragraphs
    # (9): cut instead as the one-bullet answers of five of them (`项目中缺少 composer.json 文件`, 5 extras); the
    # English `###` copy is cut right. beego's one-question pages whose question is the H1 (`# Why can't I read the
    # contents of the HTTP body?`, `# 为什么无法读取 HTTP Body 的内容`): read as the title, 0 entries. Extra: casdoor's
    # seven `### MCP Inspector`-style procedures under `## Debugging Tools` (not gold: a tools section, borderline).
    # The gold recorded nacos' questions with their tags because measure.goldcheck had no rule for an HTML heading
    # line; it reads `<h4 id="1.1">What is Nacos</h4>` as `What is Nacos` since, as the ingest does and as
    # tests/fixtures/styles/html-headings records them, and nacos' rows were rewritten so (what counts as an entry is
    # unchanged). The first run with the gold so recorded: 117 of 140, 12 extras (pairs as laid out 43 right, 5 wrong).
    # Since: HTML headings one per line, `<b>…</b>` lines as bold, one-line quotes that ask as questions, and a page
    # whose title asks one question as that entry: 140 of 140. Left: casdoor's 7 tools (extras, borderline).
    "wild17": (140, 140, set(), 7),
    # wild19 (22 files, 11 projects; labels committed at f9927be before any run): the first run (d100bf6) found 189
    # of 200, 2 extras. Missed: esp32-display-panel's Chinese `…画面漂移问题的解决方案` headings (read as a part of an
    # answer, `…的解决方案`) and `Other LCD issues in ESP-IDF` (read as an empty category); levilamina's bare `### 126`,
    # `### 127`, `### 1114` error codes under `## Error codes` / `## 常见错误码` (cut as one entry: the 2 extras);
    # lushi-script's `### 8.卡营火…` and `### 9.总结不上怪`, headings with no `Q:` under them in a page of `Q:` entries.
    # Since: each code under a heading of error codes is an entry, and the solution to a problem named in full is
    # that problem's entry, a numbered heading holding no `Q:` among ones that do is an entry, and so is a heading
    # opening like `Others` that names a topic and answers it: 200 of 200, no extra.
    "wild19": (200, 200, set(), 0),
    # wild20 (23 files, 11 projects; labels committed at 7f72657 before any run): the first run (9268fac) found 167 of
    # 170, 24 extras. Missed: arkui-x's one-question pages whose H1 is the question (`# 如何手动替换ArkUI-X SDK`,
    # `# 现有鸿蒙工程如何使用ArkUI-X向跨平台迁移`), read as the page title, their `###` answer parts cut as the entries
    # instead (`标准替换流程`, `常见问题解决`, `当前应用是否可以全部跨平台`, …: 6 extras; and Dev-faq-26's
    # `### 问题原因`, 1); cphasing's Chinese `### 挂载上的染色体总大小远低于预估基因组大小`, cut as the one ordered-list
    # item of its answer (`1. 输入的数据量低。2. …`, 1 extra). Other extras: uview-pro's category
    # `一、常见问题与解决方案`, the eight numbered best-practice items of `## 二、最佳实践总结` and the headings
    # `三、常见问题排查清单` / `四、总结` (11); litemall's categories `## 3. 基础系统` / `## 4. 项目` (their one-line
    # scope notes read as answers, 2); guide-wii's `## Storage Device FAQ`, whose admonitions introduce its `###` topics
    # (1 per language, 2); helmless' `!!! question "Not finding what you're looking for?"` note (1).
    # Since: a title that asks over sub-headings that ask nothing is one entry, `问题原因` is a part of an answer, one
    # numbered line that is not set out as a question goes on with the answer above it, a heading numbered over the
    # numbered questions under it is their category, and so is a heading naming an FAQ over sub-headings, and a titled
    # block that says where to ask (helmless' note) is no entry: 169 of 170, 14 extras. Left: Pre-faq-11 (its `###`
    # questions read as entries, 4 extras: the gold takes them for parts of the title's answer, a judgement call) and
    # uview-pro's best practices, checklist and summary (10).
    "wild20": (170, 169, {"arkui-x/Pre-research-Stage/Pre-faq-11.md"}, 14),
    # wild21 (23 files, 12 projects; labels committed at f9a73a6 before any run): the first run (090df7f) found 170 of
    # 197, 1 extra. Missed: cloudpss' definition-list terms whose `:` definition follows a blank line, or is a bare
    # `:` over an indented answer (22; two pages read as empty `## 常见问题` categories), and leela-zero's Chinese
    # headings, each directly above its English twin over an answer in both languages (5: read as headings with no
    # text). Extra: corax's English page asks its second question twice (a translation leftover), the repeat cut too.
    # Since: a definition may follow its term after a blank line, open with a bare `:`, and come in several `: `
    # parts, and a heading with nothing under it over its translation's heading, the answer in both languages below,
    # is an entry in each language, the two paired on the page: 197 of 197. Left: corax's repeat (1 extra).
    "wild21": (197, 197, set(), 1),
    # wild22 (15 files, 7 projects; labels committed at 26a1f40 before any run): the first run (f2691bb) found 162 of
    # 164, 23 extras. Missed: sdp's Chinese `**…为什么要NAT Gateway**?` (the `?` after the bold: read as part of the
    # answer above it) and `**Built-in 的数据标识符，有没有详细的说明？**` (its answer goes on in the same paragraph:
    # "no answer"). Extras: ups-guard's Chinese page, whose Q2–Q4 answers hold `###`/`####` headings that ask or name
    # scenarios (17), a `## 🔌 事件驱动未激活` category, and an advice section's headings and numbered items (5): the
    # gold reads them as parts of answers (borderline). Since: a bold question may ask after its bold and go on with its
    # answer in the same paragraph: 164 of 164. Left: ups-guard's 23.
    "wild22": (164, 164, set(), 23),
    # wild23 (13 files, 6 projects; labels committed at bbeaf98 before any run): the first run (4bd1a59) found 142 of
    # 150, 4 extras. Missed: slopecraft's English `5.`–`7.` (a list numbering two items 5, answered by bullets one
    # space in: cut in two, its second part not read as questions), epic-push's troubleshooting headings beside its
    # `<details>` FAQ (`运行成功但没收到消息？ ⭐ 最常见` did not ask), hello-rocm's two `<summary>` symptoms with no
    # error word (`… "Tensile" errors`, `… JS errors`). Extras: hololens' `### Who is affected?` and `### Work around`
    # (both languages). Since: a repeated item number after a margin answer goes on with the list, under-indented
    # bullets answer the last item, a badge after a question mark still asks, `Work around` is an answer part: 148
    # of 150.
    # Left: hello-rocm's two symptoms and `Who is affected?` (2 extras).
    "wild23": (150, 148, {"hello-rocm/en/01-deploy/minicpm-o/webdemo-rocm7-deploy.md"}, 2),
    # wild24 (11, 6: `#### **Q: …**` headings with comments above, `## Symptom N:` over `### Case A–C`, hard-wrapped
    # answers, `###` questions under `##` categories, `## N.` sections): the first run (6658988) found 185 of 187, 3
    # extras. Missed: zotflow's Chinese `### 情况 A：…` and `### 情况 B：…`, taken into the answer of the symptom
    # over them, `## 症状 5：引用插入异常`, which had no text of its own (an extra). Since, the cases of one enumeration
    # are read alike and the symptom is their category: 187 of 187. Extras: zotflow's `Self-Check Checklist` (both
    # languages), which the labels leave in the page.
    "wild24": (187, 187, set(), 2),
}
PROBED_PAIRS: dict[tuple[str, str], tuple[int, int, int]] = {
    # 53 gold pairs; hertzbeat asks two questions twice in each language (10 right links for 8 rows). Words alone
    # miss scrcpy's `Device unauthorized` / `设备未授权` (the meaning model finds it) and join its two category
    # introductions; edited, the inserted `syntax error, unexpected xxx` takes vben's `本地运行报错`.
    ("wild2", "as laid out"): (54, 2, 0), ("wild2", "renamed"): (54, 2, 0), ("wild2", "edited"): (47, 3, 0),
    # 58 gold pairs (the first run: 44, semi-design's 13 uncut).
    ("wild3", "as laid out"): (58, 0, 0), ("wild3", "renamed"): (58, 0, 0), ("wild3", "edited"): (49, 1, 0),
    # 60 gold pairs (the first run: 54 right, 1 wrong); words alone miss shigureader's `**Q:**` / `**问：**` pair
    # that the meaning model finds. Edited, havenask's two entries are inserted into shigureader's Chinese FAQ and
    # words alone pair them by place (with the meaning model, one).
    ("wild4", "as laid out"): (56, 0, 0), ("wild4", "renamed"): (56, 0, 0), ("wild4", "edited"): (46, 2, 2),
    # 40 gold pairs (asdf, starship, gin, vitest).
    ("wild5", "as laid out"): (40, 0, 0), ("wild5", "renamed"): (40, 0, 0), ("wild5", "edited"): (35, 1, 0),
    # 51 gold pairs (astrbot, ktoolbox, smartdns, xxpermissions; the first run also joined `More questions`).
    ("wild6", "as laid out"): (51, 0, 0), ("wild6", "renamed"): (51, 0, 0), ("wild6", "edited"): (44, 3, 2),
    # 42 gold pairs (mockingbird, klinechart, zeronet, video-subtitle-remover): words alone leave klinechart's first
    # pair and zeronet's `malicious content` pair (prose answers, no shared anchor) unpaired; with the meaning model
    # they pair by their place (faq eval-links: 42 of 42). Edited, `7z文件解压错误` is deleted and words alone pair
    # `7z file extraction error` with the Chinese-only `Mac版本运行报错：Error …` (one shared word, `error`).
    ("wild7", "as laid out"): (40, 0, 0), ("wild7", "renamed"): (40, 0, 0), ("wild7", "edited"): (34, 1, 1),
    # 44 gold pairs (kubeedge, chatbox, easytier, kube-ovn, bat, waline; the first run: 33 right, 3 wrong). Missed:
    # kubeedge's k3s pair (not cut in English). Renamed, neither kubeedge (its Chinese page is English but for its
    # title and runtime section) nor kube-ovn (its English page translates 3 of 9 items) pairs as documents. Edited,
    # words alone pair kube-ovn's `Kylin ARM system …`, whose Chinese item was deleted, with the Chinese-only
    # `Pod 创建失败，事件提示 ping gateway failed`.
    ("wild8", "as laid out"): (43, 0, 0), ("wild8", "renamed"): (20, 0, 0), ("wild8", "edited"): (36, 1, 1),
    # 101 gold pairs (the first run by words alone: 91 right, 6 wrong). Wrong: snap-hutao's three status-code cases,
    # paired with each other. Missed: the pairs of missed entries (tars 3, snap-hutao's EOF), and, with both entries
    # cut, march7th-assistant's `Full Workflow` / `完整运行`, `prompt window` / `提示窗口` and `Divergent Universe …` /
    # `差分宇宙…` items, gsyvideoplayer's second `3.` / `3、` and fabedge's `Can cloud pods and edge pods …`. Renamed,
    # tars pairs nothing (its English page translates 11 of 32 items). Edited, `11. tarsnode can not run java server`
    # (its Chinese item deleted) pairs with the Chinese-only `问题：Class 'TARS\_Struct' not found in …`.
    # Since session 28, one fewer: snap-hutao's `HttpRequestException …` pair, whose two entries had empty answers.
    ("wild9", "as laid out"): (91, 3, 0), ("wild9", "renamed"): (83, 3, 0), ("wild9", "edited"): (77, 4, 0),
    # 109 gold pairs (the first run by words alone: 54 right, 54 wrong, cubefs's label headings joined item by item).
    # Wrong: fuse's `Memory and Performance Optimization` / `內存及性能优化相关`. Missed: the pairs of missed entries.
    ("wild10", "as laid out"): (107, 1, 0), ("wild10", "renamed"): (107, 1, 0), ("wild10", "edited"): (89, 2, 0),
    # 53 gold pairs (helm, openmldb, electron-vite, ant-design-vue, goproxy-cn, hwameistor). The first run by words
    # alone: 48 right as laid out (goproxy-cn's English README.md was read as Chinese from the `-cn` of its folder
    # name, so it paired with nothing; a folder's mark gives way to plainly English prose since); edited, helm's
    # English-only `Rollback fails with "no [Resource] …"` paired with hwameistor's `Q3: 如何运维一个 Kubernetes 节点?`,
    # inserted into helm's Chinese page.
    ("wild11", "as laid out"): (53, 0, 0), ("wild11", "renamed"): (53, 0, 0), ("wild11", "edited"): (46, 0, 0),
    # 77 gold pairs (the first run by words alone: 68 right, 1 wrong; faq eval-links with the meaning model: 69 right,
    # 2 wrong, carla's `System requirements` / `系统要求` extras joined). Wrong: maixpy's `Why can't show Chinese
    # characters` (its answer holds the uncut `Program Exit …`) with `程序退出并提示 app exit with code: 1, …`. Missed:
    # fluwx's 3 (its mixed `QA.md`, 4 English then 11 Chinese questions, is read as a Chinese document), maixpy's two
    # around the uncut entry, and by words alone maixpy's `Can I use a camera or screen other than …`. Renamed, the
    # il2cppdumper READMEs do not pair as documents.
    ("wild12", "as laid out"): (71, 1, 0), ("wild12", "renamed"): (68, 1, 0), ("wild12", "edited"): (61, 1, 0),
    # 27 gold pairs (vfox, g, athens, vim-galore; the first run by words alone: 25 right, 1 wrong; faq eval-links with
    # the meaning model: 26 right, 1 wrong). Wrong: vim-galore's first uncut bullet `A search pattern in a command …`
    # with `无法重复函数中执行的搜索` (the English `Function search undo` is not cut). Missed by words alone: g's
    # `Does g support compiling and installing from source code?` / `支持源代码编译安装吗？` (answers `No, it does not
    # support …` and `不支持`, no shared anchor; the meaning model pairs it).
    # Since `Function search undo` is cut: 26 right, 0 wrong (edited 22 right of 23).
    ("wild13", "as laid out"): (26, 0, 0), ("wild13", "renamed"): (26, 0, 0), ("wild13", "edited"): (22, 0, 0),
    # 23 gold pairs (wot-design-uni 14, flarum 7, vchart 2); the first run by words alone, the same as faq eval-links
    # with the meaning model: 19 right, 7 wrong (vchart's label and answer-part headings joined file by file, right
    # since). Wrong: wot-design-uni's `When using Wot UI components in pages, …` with the cut category `小程序样式隔离`.
    # Missed: flarum's `What's next after stable?` / `展望未来，下一阶段 Flarum 会做些什么？` (no shared word, no
    # anchor in the answers); flarum's mistranslated fifth heading is paired right with `Why haven’t you fixed …`.
    ("wild14", "as laid out"): (21, 1, 0), ("wild14", "renamed"): (21, 1, 0), ("wild14", "edited"): (20, 1, 0),
    # 40 gold pairs (piclist 14, typeorm 9, rollup 8, mpe 6, fabric 3); the first run by words alone: 39 right, 0
    # wrong as laid out and renamed, 35 of 36 edited. Missed by words alone: typeorm's `How do I add extra columns
    # into many-to-many (junction) table?` / `如何在多对多（联结）表中添加额外的列？` (no shared anchor: the
    # English answer's only link has no Chinese counterpart, and the Chinese-only dependency-injection question sits
    # next to it). faq eval-links with the meaning model pairs that one but misses rollup's `What Is
    # "tree-shaking?"` / `什么是除屑优化` and pairs typeorm's two unpaired entries `How to use TypeORM in ESM
    # projects?` / `如何使用TypeORM与依赖注入工具？` (40 predicted, 39 right, 2 unpaired violations; edited 33 right of
    # 36).
    # Edited is a seeded random edit over every Chinese file: bee's four more entries shift what it deletes, and
    # mpe's `I exported a html file … math typesetting …` loses its partner and pairs by place (34 right, 1 wrong).
    ("wild15", "as laid out"): (39, 0, 0), ("wild15", "renamed"): (39, 0, 0), ("wild15", "edited"): (34, 1, 0),
    # 25 gold pairs (easemob 12, edgetranslate 9, wechat-assets-picker 4); the first run by words alone: 18 right, 0
    # wrong as laid out and renamed; the 7 missing are easemob's English items that are not cut (see PROBED). Edited:
    # 14 predicted, 13 right, 1 wrong (faq eval-links with the meaning model: 15 predicted, 14 right).
    # Since easemob's English items are cut: 25 of 25 as laid out and renamed. Edited (a seeded random edit, which
    # amap-fluttify's fewer entries shift): 19 right of 22; `Issues with \`expo-updates\`` and edgetranslate's
    # `Q: The translate icon doesn't pop up …` lose their deleted partners and pair by place (the first with the
    # Chinese-only `node 版本问题`).
    ("wild16", "as laid out"): (25, 0, 0), ("wild16", "renamed"): (25, 0, 0), ("wild16", "edited"): (19, 2, 1),
    # 58 gold pairs (nacos 30, flow-ci 8, mosn 8, cloudtask 5, retrofit 5, beego 2); the first run by words alone: 48
    # predicted, 14 right (mosn 8, retrofit 5, beego 1), 34 wrong, as laid out and renamed. The 29 nacos links join
    # the right items (29 of 29 once the `<h4>` tags are taken off the gold strings, checked on a copy) but their
    # question strings are not the gold ones; flow-ci's 5 join the English `###` questions to the Chinese answer
    # bullets cut as entries; cloudtask's 5 and beego's `HTTP body` pair are not cut. Edited: 40 predicted, 12 right,
    # 28 wrong (faq eval-links with the meaning model: 39 predicted, 12 right).
    # Since (nacos' gold recorded without tags, and the rules above), by words alone: 58 of 58 as laid out and
    # renamed; edited 51 right, 1 wrong of 52 (faq eval-links with the meaning model: 52 of 52).
    ("wild17", "as laid out"): (58, 0, 0), ("wild17", "renamed"): (58, 0, 0), ("wild17", "edited"): (51, 1, 0),
    # 51 gold pairs (the first run, words alone: 42 right, 2 wrong; with the meaning model 44 of 47). Wrong: the
    # English drift question with the Chinese serial-monitor entry that holds the Chinese drift text, and `Error
    # codes` with `常见错误码` (the right items, not gold); the uncut entries above leave their twins unpaired.
    # Since every gold entry is cut: 49 right, 0 wrong (edited 42 right, 0 wrong); the two left are chaldea's
    # `Wrong Text/Data` / `文本错误` and iptv-player's language pair, which only the meaning model pairs.
    ("wild19", "as laid out"): (49, 0, 0), ("wild19", "renamed"): (49, 0, 0), ("wild19", "edited"): (42, 0, 0),
    # 63 gold pairs (kubezoo 7, apatch 16, spinningmomo 6, guide-wii 13, stonedb 8, installerx 9, cphasing 4); the first
    # run by words alone: 63 predicted, 61 right as laid out. Wrong: cphasing's `The total size of the chromosomes …`
    # with the Chinese list item cut in place of its question (see PROBED), and guide-wii's `Storage Device FAQ` with
    # itself (the right items, not gold). Missed by words alone: spinningmomo's `Main UI shows a white/blank screen` /
    # `主界面白屏或黑屏` (faq eval-links with the meaning model pairs it: 64 predicted, 62 right). Renamed, guide-wii
    # pairs nothing: its Chinese page is the English one but for its title and three questions, read as English without
    # its `zh_CN/` folder. Edited, the inserted `破解主机的风险有多大？` (guide-wii) takes cphasing's uncut pair and
    # `1.6 支付成功，但商品仍未付款` (litemall) takes kubezoo's `What is the landing scene of kubezoo?`.
    # Since the ingest rules of PROBED's note: 62 right, 0 wrong as laid out; 49, 0 renamed; 50, 1 edited.
    ("wild20", "as laid out"): (62, 0, 0), ("wild20", "renamed"): (49, 0, 0), ("wild20", "edited"): (50, 1, 0),
    # 43 gold pairs; words alone 37 right, 1 wrong (corax's repeated English question takes the Chinese second one);
    # leela-zero's five pairs within one file were not made. Edited (the cloudpss pages now cut change which entries
    # are deleted and inserted): 29 right, 4 wrong, each an entry whose twin was deleted taking the one in its place
    # (siem-opensearch, happytorch, corax). Since the pairs a page writes itself: 42 right, 1 wrong; edited 33, 4.
    ("wild21", "as laid out"): (42, 1, 0), ("wild21", "renamed"): (42, 1, 0), ("wild21", "edited"): (33, 4, 0),
    # 57 gold pairs; words alone 57 right. Wrong: ups-guard's `en/faq.md` and `zh/faq.md` share a name but are
    # different documents (all 45 entries unpaired in the gold): paired by name, 9 of their entries pair by place (12
    # unpaired entries paired); renamed, none. Since the bold-question rule (sdp's NAT Gateway pair was wrong).
    # Edited, since session 28 (ups-guard's Chinese `## 🔌 事件驱动未激活` is no longer an entry with an empty answer,
    # so the random edits fall elsewhere): 50 right, 10 wrong (sdp one more, ups-guard one more), 12 unpaired paired.
    ("wild22", "as laid out"): (57, 9, 12), ("wild22", "renamed"): (57, 0, 0), ("wild22", "edited"): (50, 10, 12),
    # 68 gold pairs; the first run (4bd1a59, faq eval-links with the meaning model): 64 predicted, 62 right. Wrong:
    # hololens' `Who is affected?` and `Work around` pairs (the right items, not gold); missed: slopecraft's
    # numbered-alike items and hello-rocm's two uncut symptoms. Words alone, since: 63 right, 1 wrong (`Who is
    # affected?`), as laid out and renamed; edited 54, 1.
    ("wild23", "as laid out"): (63, 1, 0), ("wild23", "renamed"): (63, 1, 0), ("wild23", "edited"): (54, 1, 0),
    # 82 gold pairs; the first run (6658988, faq eval-links with the meaning model): 80 predicted, 79 right; since the
    # enumerated cases, 82 predicted, 81 right (the wrong one pairs zotflow's two checklists, not gold entries).
    # Missed: one of weekly-git-summary's 30. Words alone: 78 right, 1 wrong, as laid out and renamed; edited 66, 3.
    ("wild24", "as laid out"): (78, 1, 0), ("wild24", "renamed"): (78, 1, 0), ("wild24", "edited"): (66, 3, 0),
}


@pytest.mark.parametrize("corpus", sorted(PROBED))
def test_a_probed_corpus_keeps_the_gold_questions_it_finds(corpus: str) -> None:
    gold, found, may_miss, extras = PROBED[corpus]
    scores = evaluate_segments(REPO / "eval" / corpus)
    overall = scores[-1]
    assert overall.gold == gold
    assert overall.matched >= found
    assert {s.name for s in scores[:-1] if s.missed} <= may_miss
    assert len(overall.extra) <= extras


@pytest.mark.parametrize(("corpus", "layout"), sorted(PROBED_PAIRS))
def test_a_probed_corpus_pairs_hold(corpus: str, layout: str) -> None:
    correct, wrong, unpaired = PROBED_PAIRS[corpus, layout]
    overall = evaluate_links(REPO / "eval" / corpus, renamed=layout == "renamed", perturbed=layout == "edited",
                             glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


def test_question_numbers_are_not_what_pairs_entries(tmp_path: Path) -> None:
    from app.ingest.align import LinkRules
    from app.ingest.pipeline import IngestReport, link_documents, read_documents

    (tmp_path / "faq.en.md").write_text(
        "# FAQ\n\n### Q12: How do I clear the cache?\n\nRun `cache-purge --all`.\n\n"
        "### Q13: How do I pin the toolkit?\n\nAdd `cuda_version: 12.1` to `runtime.yaml`.\n", encoding="utf-8")
    (tmp_path / "faq.zh.md").write_text(
        "# 常见问题\n\n### Q12: 如何固定工具包版本？\n\n在 `runtime.yaml` 中加入 `cuda_version: 12.1`。\n\n"
        "### Q13: 如何查看日志？\n\n运行 `journalctl -u agent`。\n", encoding="utf-8")
    documents = read_documents(tmp_path, IngestReport())
    questions = {i: e.question for d in documents for i, e in zip(d.entry_ids, d.entries, strict=True)}
    pairs = link_documents(documents, GLOSSARY, LinkRules()).alignment.entries
    assert [{questions[p.first], questions[p.second]} for p in pairs] == [
        {"Q13: How do I pin the toolkit?", "Q12: 如何固定工具包版本？"}]


def _entries(text: str, **kwargs: object) -> list[str]:
    return [e.question for e in segment_markdown(text, **kwargs).entries]  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "count"), [
    ("non-questions-list.md", 0), ("readme-no-faq.md", 0), ("deep-nesting.md", 3), ("empty-headings.md", 2),
    ("details-no-summary.md", 1), ("frontmatter-h7.md", 2), ("hint-list-items.md", 4)])
def test_hostile_files_give_the_entries_that_are_there(name: str, count: int) -> None:
    from app.ingest.pipeline import IngestReport, read_document
    from app.ingest.sources import SourceFile

    report = IngestReport()
    document = read_document(SourceFile(FIXTURES / "bad" / name, name), report)
    assert document is not None
    assert len(document.entries) == count
    assert all(e.question.strip() for e in document.entries)


def test_category_headings_above_bullet_questions_are_breadcrumbs() -> None:
    text = ("# FAQ\n\n### Installation\n\n- How do I install it?\n\n  Run `pip install kit`.\n\n"
            "- `ImportError: libcudart.so.11.0`\n\n  Install CUDA 11.\n\n"
            "### 安装\n\n- 如何升级？\n\n  运行 `pip install -U kit`。\n\n"
            "- 报错 `No module named kit`\n\n  重新安装。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == [
        "How do I install it?", "`ImportError: libcudart.so.11.0`", "如何升级？", "报错 `No module named kit`"]
    assert entries[0].section == ("Installation",) and entries[2].section == ("安装",)
    assert entries[0].answer_markdown == "Run `pip install kit`."


def test_bold_numbered_chinese_labels_are_questions_with_their_answers() -> None:
    text = ("# 常见问题\n\n**问题1：** 如何安装？\n\n**回答1：** 运行安装脚本。\n\n"
            "**问题2：** 启动失败怎么办？\n\n**回答2：** 查看日志。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["**问题1：** 如何安装？", "**问题2：** 启动失败怎么办？"]
    assert [e.title for e in entries] == ["如何安装？", "启动失败怎么办？"]
    assert [e.answer_markdown for e in entries] == ["运行安装脚本。", "查看日志。"]


def test_question_and_answer_in_one_paragraph_are_split() -> None:
    text = ("## 常见问题\n\n**Q: 提交被拒绝怎么办？**  \nA: 查看错误提示。\n\n"
            "**Q: 检查失败？**  \nA: 运行 `make check`。\n")
    entries = segment_markdown(text).entries
    assert [(e.question, e.answer_markdown) for e in entries] == [
        ("Q: 提交被拒绝怎么办？", "查看错误提示。"), ("Q: 检查失败？", "运行 `make check`。")]


def test_question_details_keep_the_headings_inside_their_answer() -> None:
    text = ("# Guide\n\n## FAQ\n\n<details>\n<summary>Q: Out of memory?</summary>\n\n#### Lower the batch\n\n"
            "Use 1.\n\n#### Offload\n\nUse ZeRO-3.\n</details>\n<details>\n<summary>Q: Slow start?</summary>\n\n"
            "Warm the cache.\n\n</details>\n\n#### Customizing\n\nGuide text.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Q: Out of memory?", "Q: Slow start?"]
    assert "#### Offload" in entries[0].answer_markdown and "Customizing" not in entries[1].answer_markdown


def test_a_guide_is_read_only_in_its_troubleshooting_section() -> None:
    text = ("# Tool\n\n## Overview\n\nWhat it does.\n\n## Install\n\nRun it.\n\n## Troubleshooting\n\n"
            "| Issue | Solution |\n| --- | --- |\n| CUDA out of memory | Lower the batch |\n"
            "| Import fails | Reinstall |\n")
    assert _entries(text) == ["CUDA out of memory", "Import fails"]


def test_a_readme_without_faq_has_no_entries_unless_a_hint_says_so() -> None:
    text = "# Tool\n\n## Install\n\nRun it.\n\n## Usage\n\nCall it.\n"
    assert _entries(text, file_name="docs/README.md") == []
    assert _entries(text, file_name="docs/README.md", hint="h2") == ["Install", "Usage"]
    assert _entries(text, file_name="notes.md") == ["Install", "Usage"]


def test_hints_choose_the_level_and_bad_hints_are_reported() -> None:
    text = "# FAQ\n\n## Setup\n\n### Install\n\nRun it.\n\n### Upgrade\n\nRun it again.\n"
    assert _entries(text, hint="h3") == ["Install", "Upgrade"]
    assert _entries(text, hint="none") == []
    document = segment_markdown(text, hint="h9")
    assert [e.question for e in document.entries] == ["Install", "Upgrade"]
    assert any("entries: h9" in note for note in document.notes)


def test_a_question_heading_owns_the_plain_headings_under_it() -> None:
    text = "# FAQs\n\n### 2. How to get the image?\n\nPull it.\n\n#### Offline machines\n\nSave and load it.\n"
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["2. How to get the image?"]
    assert "Offline machines" in entries[0].answer_markdown


def test_an_empty_category_is_not_an_entry() -> None:
    text = ("# FAQ\n\n## 1. 使用问题\n\n### 如何安装？\n\n运行脚本。\n\n## 2. 错误和警告\n\n"
            "## 3. 其他\n\n### 如何升级？\n\n再运行。\n")
    assert _entries(text) == ["如何安装？", "如何升级？"]


def test_an_english_error_question_with_a_chinese_answer_is_chinese() -> None:
    text = "RuntimeError: CUDA error: device-side assert triggered\n检查标签是否越界，标签必须小于类别数。"
    assert entry_language(text, "zh") == "zh"


def test_faq_inspect_names_each_entry_rule_and_the_readings_that_lost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(FIXTURES / "styles" / "mixed" / "faq.en.md")]) == 0
    out = capsys.readouterr().out
    assert "bullet list item" in out and "heading that asks a question" in out
    assert "a category" in out
    assert main(["inspect", str(FIXTURES / "missing.md")]) == 2


def test_numbering_labels_are_stripped_before_anchors_are_taken() -> None:
    from app.ingest.segment.evidence import strip_numbering

    labelled = ("Q13: How do I pin it?", "**问题3：** 如何安装？", "**Q1**: Why?", "12. 如何")
    assert [strip_numbering(q) for q in labelled] == ["How do I pin it?", "如何安装？", "Why?", "如何"]
    assert strip_numbering("Quick start?") == "Quick start?"


def test_a_question_wrapped_in_quotes_is_shown_without_them() -> None:
    from app.ingest.segment.decide import display_title

    assert display_title('"How to scale out or scale in?"') == "How to scale out or scale in?"
    assert display_title("“为什么端口显示红色？”") == "为什么端口显示红色？"
    assert display_title('"a" or "b"?') == '"a" or "b"?'  # quotes inside: they are the question's own
    assert display_title('Why does "x" fail?') == 'Why does "x" fail?'
