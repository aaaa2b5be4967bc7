"""An editor's overrides of automatic linking, kept in `content/links.tsv`.

Each line is `pair` or `unpair`, then two references, tab-separated: document paths
(relative to the content folder) or entry ids (as in `/entries/{id}`). `pair` forces a
translation pair, `unpair` forbids one. `#` starts a comment. A file whose bytes must not
change (a vendored document) gets its translation named here instead of in front matter.
"""

from __future__ import annotations

from pathlib import Path

from app.ingest.align import LinkRules

LINKS_FILE = "links.tsv"
ACTIONS = {"pair": "force", "force": "force", "unpair": "forbid", "forbid": "forbid"}


def parse_link_rules(text: str) -> tuple[LinkRules, list[str]]:
    """The rules of a links file, and a warning for each line that cannot be one."""
    rules = LinkRules()
    warnings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 3 or fields[0].lower() not in ACTIONS or not all(fields[1:]):
            warnings.append(f"line {number}: expected `pair` or `unpair` and two paths or entry ids, "
                            f"tab-separated; found {line.strip()!r}")
            continue
        target = rules.force if ACTIONS[fields[0].lower()] == "force" else rules.forbid
        target.append((fields[1], fields[2]))
    return rules, warnings


def read_link_rules(content_dir: Path) -> tuple[LinkRules, list[str]]:
    """The link rules of a content folder (none if the file is absent)."""
    path = content_dir / LINKS_FILE
    if not path.is_file():
        return LinkRules(), []
    try:
        return parse_link_rules(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        return LinkRules(), [f"cannot be read ({exc}); save it as UTF-8"]
