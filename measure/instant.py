"""Instant search in Chromium: keystroke → rendered results, and the results page's weight.

`python -m measure.instant [ROUNDS] [--entries N]` ingests `content/` (or N entries generated from it, as
`make bench` does) into a scratch folder, serves it on
loopback, opens the home page in Debian's Chromium (`FAQ_TEST_CHROMIUM`, default
/usr/bin/chromium) and, for each query below, puts all but its last character in the box,
types the last one and times from that keystroke's `input` event to the first animation
frame after the results were put in the page (portal.js fires `faq:instant`). The time
includes portal.js's 60 ms debounce, the request to `/api/v1/search` and the rendering;
the fetch alone is reported beside it (Resource Timing). Then, on the seeds, it weighs every
kind of page with the CSS and JavaScript it loads, uncompressed and as sent gzipped. A measurement, not a test:
read the figures against each other, the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from measure.localserver import ROOT, running_server, seeded_server

CHROMIUM = os.environ.get("FAQ_TEST_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
QUERIES = [
    "fsdp", "CUDA out of memory", "显存不足", "内存碎片", "PYTORCH_CUDA_ALLOC_CONF",
    "bitsandbytes undefined symbol", "deepspeed zero stage 2", "flash attention", "混合精度", "fp16 bf16",
    "load_in_8bit", "device_map auto", "ds_report", "async_io", "ModuleNotFoundError: No module named 'torch'",
    "RuntimeError: CUDA error: an illegal memory access was encountered", "LoRA 训练", "单机多卡",
    "RecursionError maximum recursion depth", "llama tokenizer", "gradient checkpointing", "max_steps",
    "保存时发生OOM", "程序莫名其妙被killed", "docker exec", "transformers 版本", "cache_dir",
    "offload optimizer", "hardware SKU requirements", "import errors when running inference",
    "Traceback (most recent call last):\n  File \"train.py\", line 8, in <module>\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
]
WATCH = """() => {
  window.__rendered = null;
  const input = document.querySelector("header.site input[name=q]");
  input.addEventListener("input", () => { window.__typedAt = performance.now(); }, true);
  document.querySelector("header.site form.search").addEventListener("faq:instant", (event) => {
    const query = event.detail.query;
    requestAnimationFrame(() => { window.__rendered = {query, at: performance.now()}; });
  });
}"""
PREPARE = """(text) => {
  const input = document.querySelector("header.site input[name=q]");
  input.value = text;  // no input event: nothing is searched for the prefix
  input.focus();
  input.setSelectionRange(text.length, text.length);
  window.__rendered = null;
  performance.clearResourceTimings();
}"""
RESULT = """() => {
  const fetches = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/search"));
  const last = fetches[fetches.length - 1];
  return {total: window.__rendered.at - window.__typedAt, fetch: last ? last.duration : null};
}"""


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def page_weight(base: str, path: str) -> dict[str, tuple[int, int]]:
    """Bytes of the page at `path` and of the CSS and JavaScript it loads: (uncompressed, sent gzipped)."""
    weights = {}
    with httpx.Client(base_url=base) as http:
        page = http.get(path)
        sent = http.get(path, headers={"Accept-Encoding": "gzip"}).num_bytes_downloaded
        weights["HTML"] = (len(page.content), sent)
        for asset in re.findall(r'(?:src|href)="(/static/[^"?]+\.(?:css|js))(?:\?v=[0-9a-f]+)?"', page.text):
            body = http.get(asset, headers={"Accept-Encoding": "identity"}).content
            weights[asset] = (len(body), http.get(asset, headers={"Accept-Encoding": "gzip"}).num_bytes_downloaded)
    return weights


@contextmanager
def scale_server(entries: int) -> Iterator[str]:
    """A `faq serve` over `entries` generated entries (recombined from the seeds, as `make bench` does)."""
    from app.config import Settings
    from app.ingest.pipeline import run_ingest
    from measure.bench import _pool
    from measure.corpus import generate, write_corpus

    with tempfile.TemporaryDirectory() as scratch:
        seeds, content, data = Path(scratch) / "seeds", Path(scratch) / "content", Path(scratch) / "data"
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=seeds, database_url=""), progress=False)
        write_corpus(generate(_pool(seeds), entries), content)
        started = time.perf_counter()
        run_ingest(Settings(content_dir=content, data_dir=data, database_url=""), progress=False)
        print(f"{entries:,} generated entries ingested in {time.perf_counter() - started:.0f} s")
        with running_server({"FAQ_DATA_DIR": str(data)}) as (base, _, _):
            yield base


def measure(base: str, rounds: int) -> tuple[list[float], list[float]]:
    """Keystroke → rendered and fetch durations (ms), one pair per query per round."""
    from playwright.sync_api import sync_playwright

    totals: list[float] = []
    fetches: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page: Any = browser.new_page(viewport={"width": 1366, "height": 900})
        for round_ in range(rounds):
            page.goto(f"{base}/?round={round_}")  # a fresh page: portal.js's cache starts empty
            page.evaluate(WATCH)
            for query in QUERIES:
                page.evaluate(PREPARE, query[:-1])
                page.keyboard.type(query[-1])
                page.wait_for_function(  # a search box drops newlines: compare with what it holds
                    "() => window.__rendered && window.__rendered.query === "
                    "document.querySelector('header.site input[name=q]').value.trim()", timeout=10_000)
                result = page.evaluate(RESULT)
                totals.append(result["total"])
                if result["fetch"] is not None:
                    fetches.append(result["fetch"])
        browser.close()
    return totals, fetches


PAGES = {"home": "/", "results": "/search?q=CUDA+out+of+memory", "empty search": "/search",
         "nothing found": "/search?q=qqxqz+vvkwp", "entry": "ENTRY", "document": "/documents/deepspeed-chat-faq-zh",
         "404": "/no/such/page"}


def main() -> int:
    """Print keystroke-to-rendered latency and every page kind's weight."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rounds", nargs="?", type=int, default=1, help="rounds over the queries (default 1)")
    parser.add_argument("--entries", type=int, default=0, help="search generated entries (e.g. 10000), not the seeds")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set FAQ_TEST_CHROMIUM)")
        return 2
    corpus = f"{args.entries:,} generated entries" if args.entries else "the seeds"
    with scale_server(args.entries) if args.entries else seeded_server() as base:
        httpx.get(base + "/api/v1/search", params={"q": "warm up 预热"})  # jieba and caches, once
        totals, fetches = measure(base, args.rounds)
        weights: dict[str, dict[str, tuple[int, int]]] = {}
        if not args.entries:
            entry = httpx.get(base + "/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF"}).json()["results"][0]
            weights = {kind: page_weight(base, path.replace("ENTRY", entry["url"])) for kind, path in PAGES.items()}
    print(f"instant search, {len(totals)} keystroke queries ({len(QUERIES)} queries × {args.rounds} round(s)) "
          f"on {corpus}, Chromium, local server:")
    print(f"  keystroke → rendered   median {statistics.median(totals):6.1f} ms   "
          f"p95 {percentile(totals, 0.95):6.1f} ms   max {max(totals):6.1f} ms   (includes the 60 ms debounce)")
    if fetches:
        print(f"  of which the fetch     median {statistics.median(fetches):6.1f} ms   "
              f"p95 {percentile(fetches, 0.95):6.1f} ms")
    if weights:
        print("page weight: HTML, and HTML + CSS + JavaScript, in kB uncompressed / sent gzipped:")
        for kind, parts in weights.items():
            html, html_sent = parts["HTML"]
            total, sent = sum(raw for raw, _ in parts.values()), sum(gz for _, gz in parts.values())
            print(f"  {kind:14} HTML {html / 1000:5.1f} / {html_sent / 1000:4.1f}   "
                  f"with CSS and JS {total / 1000:5.1f} / {sent / 1000:4.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
