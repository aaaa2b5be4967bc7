"""`faq inspect FILE`: how one file segments, so an editor sees at once why a question is missing."""

from __future__ import annotations

from pathlib import Path

from app.ingest.pipeline import IngestReport, read_document
from app.ingest.sources import SourceFile


class InspectError(RuntimeError):
    """The file cannot be inspected (missing, unreadable)."""


def inspect_file(path: Path, content_dir: Path) -> str:
    """A readable report: the entries with line and rule, then every section's decision and the losers."""
    if not path.is_file():
        raise InspectError(f"no file at {path}; give the path of a markdown document")
    try:
        relative = path.resolve().relative_to(content_dir.resolve()).as_posix()
    except ValueError:
        relative = path.name
    report = IngestReport()
    document = read_document(SourceFile(path=path, relative_path=relative), report)
    if document is None:
        raise InspectError("; ".join(message for _, message in report.skipped))
    out = [f"{relative}: {document.lang}, title {document.title!r}, {len(document.entries)} entries",
           f"  read as: {document.reading}"]
    for (_, note) in report.warnings + report.structure_notes:
        out.append(f"  note: {note}")
    out.append("")
    out.append("entries:")
    for entry, lang in zip(document.entries, document.entry_langs, strict=True):
        where = " › ".join(entry.section)
        out.append(f"  line {entry.line:>5}  [{lang}] {entry.question[:100]}")
        out.append(f"              {entry.rule}{f'; under {where}' if where else ''}")
    out.append("")
    out.append("sections (how each was read; readings that lost):")
    for decision in document.structure:
        flag = "  CLOSE CALL" if decision.close_call else ""
        out.append(f"  line {decision.line:>5}  {decision.title[:60]!r}: {decision.chosen} "
                   f"→ {decision.entries} entries{flag}")
        for loser in decision.losers:
            out.append(f"              lost: {loser}")
    out.append("")
    out.append("wrong? put a hint in the front matter (or a sidecar FILE.meta.yml): "
               "`entries: list-items` | `h3` | `headings` | `qa` | `details` | `table` | `none`")
    return "\n".join(out)
