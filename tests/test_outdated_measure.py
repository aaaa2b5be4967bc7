"""measure/outdated.py: replaying a bilingual git history counts the translations that fell behind and caught up."""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from measure.identity import Source
from measure.outdated import judge, replay_source

DAYS = itertools.count(1)

EN = """# FAQ

## How do I install it?

Run `make install` in a clean clone; it creates the virtual environment.

## How do I change the port?

Pass `--port 8080` to `faq serve`; the address is printed when it starts.
"""
ZH = """# 常见问题

## 如何安装？

在干净的克隆中运行 `make install`，它会创建虚拟环境。

## 如何修改端口？

给 `faq serve` 传入 `--port 8080`，启动时会打印地址。
"""


def _commit(repo: Path, path: str, text: str, message: str) -> None:
    """A commit a day: replayed in order (commits within one second would have no order to follow)."""
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", path], check=True)
    when = f"2026-01-{next(DAYS):02d}T12:00:00+00:00"
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
                    "-m", message], check=True, env={**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})


def test_a_translation_that_fell_behind_and_caught_up_is_a_correct_prediction(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, "docs/faq.md", EN, "English")
    _commit(repo, "docs/faq.zh.md", ZH, "Chinese translation")
    en = EN.replace("`--port 8080`", "`--port 9090` (8080 is taken by the proxy)")
    _commit(repo, "docs/faq.md", en, "the port changes")  # the Chinese port entry falls behind
    _commit(repo, "docs/faq.md", en.replace("a clean clone", "a fresh clone"), "a typo")  # minor: nothing
    _commit(repo, "docs/faq.zh.md", ZH.replace("`--port 8080`", "`--port 9090`（8080 已被代理占用）"), "caught up")
    source = Source("test", "local/repo", ("docs/faq.md", "docs/faq.zh.md"))
    commits = replay_source(repo, source, tmp_path / "work")
    assert len(commits) == 5
    tally = judge("local/repo", commits)
    assert (tally.predictions, tally.correct, tally.open) == (1, 1, 0)
    assert (tally.events, tally.found) == (1, 1)
    assert len(tally.pairs) == 2
    assert [sorted(commit.flagged) for commit in commits] == [[], [], [3], [3], []]  # the Chinese port entry


def test_a_merged_branch_is_replayed_as_the_branch_it_was_merged_into_saw_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _commit(repo, "docs/faq.md", EN, "English")
    _commit(repo, "docs/faq.zh.md", ZH, "Chinese translation")
    en_port = EN.replace("`--port 8080`", "`--port 9090` (8080 is taken by the proxy)")
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "-b", "topic"], check=True)
    _commit(repo, "docs/faq.md", en_port, "the port changes, on a branch")
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "main"], check=True)
    _commit(repo, "docs/faq.md", EN.replace("# FAQ", "# Frequently asked questions"), "meanwhile on main")
    when = f"2026-01-{next(DAYS):02d}T12:00:00+00:00"
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", "merge", "-q",
                    "--no-edit", "topic"], check=True,
                   env={**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    _commit(repo, "docs/faq.zh.md", ZH.replace("`--port 8080`", "`--port 9090`（8080 已被代理占用）"), "caught up")
    commits = replay_source(repo, Source("test", "local/repo", ("docs/faq.md", "docs/faq.zh.md")), tmp_path / "work")
    # The branch's commit was never a state of main (whose English port entry would then have gone back to 8080 with
    # the next commit of main): the port changes with the merge, the 4th step.
    main = subprocess.run(["git", "-C", str(repo), "rev-list", "--first-parent", "--reverse", "main"],
                          capture_output=True, text=True, check=True).stdout.split()
    assert [commit.commit for commit in commits] == main
    tally = judge("local/repo", commits)
    assert [sorted(commit.flagged) for commit in commits] == [[], [], [], [3], []]
    assert (tally.predictions, tally.correct, tally.open) == (1, 1, 0)
    assert (tally.events, tally.found) == (1, 1)


def test_a_change_of_whitespace_or_letter_case_is_neither_a_change_to_follow_nor_a_catch_up(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, "docs/faq.md", EN, "English")
    _commit(repo, "docs/faq.zh.md", ZH, "Chinese translation")
    # Rewrapped and recased: says what it said (rapidjson put spaces between Chinese and Latin words, hexo wrote
    # ``` plain as ```plain, SpaceVim vim as Vim): nothing for the Chinese to follow.
    rewrapped = EN.replace("it creates the virtual", "it creates\nthe Virtual")
    _commit(repo, "docs/faq.md", rewrapped, "rewrapped")
    _commit(repo, "docs/faq.zh.md", ZH.replace("它会创建虚拟环境。", "它会创建虚拟环境（`.venv`）。"), "Chinese detail")
    _commit(repo, "docs/faq.md", rewrapped.replace("`--port 8080`", "`--port 9090` (8080 is taken by the proxy)"),
            "the port changes")  # the Chinese port entry falls behind …
    _commit(repo, "docs/faq.zh.md", ZH.replace("它会创建虚拟环境。", "它会创建虚拟环境（`.venv`）。")
            .replace("给 `faq serve`", "给  `faq serve`"), "a space")  # … and a space is no catch-up
    commits = replay_source(repo, Source("test", "local/repo", ("docs/faq.md", "docs/faq.zh.md")), tmp_path / "work")
    assert [sorted(commit.changed) for commit in commits] == [[], [], [], [2], [1], []]
    tally = judge("local/repo", commits)
    assert (tally.predictions, tally.correct, tally.open) == (1, 0, 1)  # the port notice: never caught up
    assert (tally.events, tally.found) == (0, 0)


def test_the_replay_pairs_translations_with_the_meaning_it_is_given(tmp_path: Path) -> None:
    """As the ingest does with its model (`semantic`, on by default): a pair made on two shared words whose questions
    mean different things is no pair, and the change of one side marks nothing behind (SpaceVim 6266158722)."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    python = ("\n\n## How do I enable Python in SpaceVim?\n\n"
              "Set `PYTHON3_HOST_PROG` to the interpreter before vim starts.\n")
    colour = "\n\n## 为什么 SpaceVim 的颜色和官网不一致？\n\n终端不支持真色时，把 enable_guicolors 设为否。\n"
    en, zh = EN.split("\n\n## How do I change")[0] + python, ZH.split("\n\n## 如何修改端口")[0] + colour
    _commit(repo, "docs/faq.md", en, "English")
    _commit(repo, "docs/faq.zh.md", zh, "Chinese translation")
    _commit(repo, "docs/faq.md", en.replace("before vim starts.", "in `init.toml`, or before vim starts."), "toml")
    source = Source("test", "local/repo", ("docs/faq.md", "docs/faq.zh.md"))

    def meaning(first: Sequence[str], second: Sequence[str]) -> list[list[float]]:
        return [[0.95 if "install" in a and "安装" in b else 0.75 for b in second] for a in first]

    anchors_alone = judge("local/repo", replay_source(repo, source, tmp_path / "anchors"))
    assert len(anchors_alone.pairs) == 2 and anchors_alone.open == 1  # the colour entry "behind" the Python one
    tally = judge("local/repo", replay_source(repo, source, tmp_path / "meaning", meaning))
    assert len(tally.pairs) == 1 and tally.predictions == 0
