"""measure/identity.py: replaying a git history counts surviving ids, and every old id answers 200, 301 or 410."""

from __future__ import annotations

import subprocess
from pathlib import Path

from measure.identity import Source, history, measure_source

FIRST = """# FAQ

## How do I install it?

Run `make install` in a clean clone; it creates the virtual environment.

## Where are the logs?

Access logs go to standard error as JSON lines, one request a line.

## How do I change the port?

Pass `--port 8080` to `faq serve`; the address is printed when it starts.
"""


def _commit(repo: Path, path: str, text: str | None, message: str) -> None:
    target = repo / path
    if text is None:
        subprocess.run(["git", "-C", str(repo), "rm", "-q", path], check=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        subprocess.run(["git", "-C", str(repo), "add", path], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
                    "-m", message], check=True)


def test_replaying_a_history_counts_survivals_and_requests_every_old_id(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, "docs/faq.md", FIRST, "first")
    reworded = FIRST.replace("How do I install it?", "How can I install the portal?")
    _commit(repo, "docs/faq.md", reworded, "reword a question")
    subprocess.run(["git", "-C", str(repo), "mv", "docs/faq.md", "docs/questions.md"], check=True)
    _commit(repo, "docs/questions.md", reworded.replace("## Where are the logs?\n\nAccess logs go to standard error "
                                                        "as JSON lines, one request a line.\n\n", ""),
            "rename the file and remove an entry")
    steps = history(repo, ["docs/questions.md"])
    assert [sorted(path for path, _ in step.files.values()) for step in steps] == [
        ["docs/faq.md"], ["docs/faq.md"], ["docs/questions.md"]]
    tally = measure_source(repo, Source("test", "local/repo", ("docs/questions.md",)), tmp_path / "work", http=True)
    assert tally.steps == 3
    assert tally.edited == tally.edited_survived == 3  # the reworded one, then the two renamed ones
    assert tally.wrong == 0
    assert tally.mismatched_ids == 0
    assert tally.urls == {200: 2, 410: 1}  # the removed entry's id answers 410, never 404

    baseline = measure_source(repo, Source("test", "local/repo", ("docs/questions.md",)), tmp_path / "base",
                              http=False, baseline=True)
    assert baseline.edited_survived == 0  # before ids were inherited, every one of those edits changed the URL
