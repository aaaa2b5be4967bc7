"""`make screenshots`: the home, results and entry pages, light and dark, desktop and phone; then every page
kind at 320, 360, 390 and 1366 px in both schemes, measured.

Ingests `content/` into a scratch folder, serves it on loopback and has Debian's Chromium
(`FAQ_TEST_CHROMIUM`, default /usr/bin/chromium) write one PNG of the first screen of each
page to `docs/screenshots/NAME-SCHEME-WIDTH.png` (e.g. `results-dark-phone.png`). Then, for
each page kind, width and scheme, it prints the page's width against the window's, the
elements wider than their box without a scroll hint, the smallest code text, and axe-core's
violations of any impact (the copy vendored for the tests).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

import httpx

from measure.localserver import ROOT, seeded_server

CHROMIUM = os.environ.get("FAQ_TEST_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
OUT = ROOT / "docs" / "screenshots"
WIDTHS = {"desktop": (1280, 800), "phone": (390, 780)}
SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


def pages(base: str) -> dict[str, str]:
    """The pages to show: home, a results page, an entry with code and a translation."""
    with httpx.Client(base_url=base) as http:
        entry = http.get("/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF"}).json()["results"][0]["url"]
    return {"home": "/", "results": "/search?q=CUDA+out+of+memory", "entry": entry}


def shoot(base: str, out: Path) -> list[Path]:
    """Write the screenshots into `out`; return their paths."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        for width_name, (width, height) in WIDTHS.items():
            for scheme in SCHEMES:
                context: Any = browser.new_context(viewport={"width": width, "height": height},
                                                   color_scheme=scheme, locale="en-US")
                page = context.new_page()
                for name, path in pages(base).items():
                    page.goto(base + path)
                    target = out / f"{name}-{scheme}-{width_name}.png"
                    page.screenshot(path=str(target))
                    written.append(target)
                context.close()
        browser.close()
    return written


CHECKED_WIDTHS = (320, 360, 390, 1366)
AXE = ROOT / "tests" / "web" / "vendor" / "axe-core" / "axe.min.js"
MEASURE = """async () => {
  const unsaid = [...document.querySelectorAll("main *")].filter(e => {
    if (e.scrollWidth <= e.clientWidth + 1) return false;
    const style = getComputedStyle(e);
    if (style.overflowX === "visible" || (style.overflowX === "hidden" && e.clientWidth <= 1)) return false;
    const hint = (e.closest(".code") || e).nextElementSibling;
    return !(hint && hint.classList.contains("scroll-hint"));
  }).length;
  const code = [...document.querySelectorAll("main code, main pre")].map(e => parseFloat(getComputedStyle(e).fontSize));
  const axeFound = (await axe.run(document, {resultTypes: ["violations"]})).violations.length;
  return {width: document.documentElement.scrollWidth, unsaid, code: code.length ? Math.min(...code) : null,
          axe: axeFound};
}"""


def kinds(base: str) -> dict[str, str]:
    """Every kind of page, for the widths check."""
    return {**pages(base), "corrected": "/search?q=deepsped", "nothing found": "/search?q=qqxqz+vvkwp",
            "table document": "/documents/deepspeed-chat-faq-zh",
            "document": "/documents/hf-transformers-deepspeed-notes-zh", "404": "/no/such/page", "docs": "/docs"}


def check_widths(base: str) -> list[str]:
    """One line per page kind, width and scheme: page width, unsaid overflows, smallest code, axe violations."""
    from playwright.sync_api import sync_playwright

    lines = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        for width in CHECKED_WIDTHS:
            for scheme in SCHEMES:
                context: Any = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme,
                                                   locale="en-US", bypass_csp=True)  # to add axe as a script
                page = context.new_page()
                for name, path in kinds(base).items():
                    page.goto(base + path)
                    if name == "docs":
                        page.wait_for_selector(".opblock-summary-path", timeout=20_000)
                    page.add_script_tag(path=str(AXE))
                    found = page.evaluate(MEASURE)
                    code = "-" if found["code"] is None else f"{found['code']:.0f} px"
                    lines.append(f"{width:>5} {scheme:5} {name:15} page {found['width']:>5} px  "
                                 f"wide without a hint {found['unsaid']}  smallest code {code:>6}  "
                                 f"axe violations {found['axe']}")
                context.close()
        browser.close()
    return lines


def main() -> int:
    """Ingest, serve, shoot, list the files written, and measure every page kind at every width."""
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM} (apt-get install chromium fonts-noto-cjk)")
        return 2
    with seeded_server() as base:
        for path in shoot(base, OUT):
            print(f"{path.relative_to(ROOT)}  {path.stat().st_size / 1000:.0f} kB")
        for line in check_widths(base):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
