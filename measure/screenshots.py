"""`make screenshots`: the home, results and entry pages, light and dark, desktop and phone.

Ingests `content/` into a scratch folder, serves it on loopback and has Debian's Chromium
(`FAQ_TEST_CHROMIUM`, default /usr/bin/chromium) write one PNG of the first screen of each
page to `docs/screenshots/NAME-SCHEME-WIDTH.png` (e.g. `results-dark-phone.png`).
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


def main() -> int:
    """Ingest, serve, shoot, and list the files written."""
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM} (apt-get install chromium fonts-noto-cjk)")
        return 2
    with seeded_server() as base:
        for path in shoot(base, OUT):
            print(f"{path.relative_to(ROOT)}  {path.stat().st_size / 1000:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
