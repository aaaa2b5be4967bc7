"""Instant search in Chromium: keystroke → rendered results, and the results page's weight.

`python -m measure.instant [ROUNDS]` ingests `content/` into a scratch folder, serves it on
loopback, opens the home page in Debian's Chromium (`FAQ_TEST_CHROMIUM`, default
/usr/bin/chromium) and, for each query below, puts all but its last character in the box,
types the last one and times from that keystroke's `input` event to the first animation
frame after the results were put in the page (portal.js fires `faq:instant`). The time
includes portal.js's 60 ms debounce, the request to `/api/v1/search` and the rendering;
the fetch alone is reported beside it (Resource Timing). Then it adds up the bytes of the
results page and the CSS and JavaScript it loads, uncompressed. A measurement, not a test:
read the figures against each other, the machine is shared.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import httpx

from measure.localserver import seeded_server

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


def page_weight(base: str, path: str) -> dict[str, int]:
    """Uncompressed bytes of the page at `path` and of the CSS and JavaScript it loads."""
    with httpx.Client(base_url=base, headers={"Accept-Encoding": "identity"}) as http:
        page = http.get(path)
        weights = {"HTML": len(page.content)}
        for asset in re.findall(r'(?:src|href)="(/static/[^"?]+\.(?:css|js))(?:\?v=[0-9a-f]+)?"', page.text):
            weights[asset] = len(http.get(asset).content)
    return weights


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


def main() -> int:
    """Print keystroke-to-rendered latency and the results page's weight."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set FAQ_TEST_CHROMIUM)")
        return 2
    with seeded_server() as base:
        httpx.get(base + "/api/v1/search", params={"q": "warm up 预热"})  # jieba and caches, once
        totals, fetches = measure(base, rounds)
        weights = page_weight(base, "/search?q=CUDA+out+of+memory")
    print(f"instant search, {len(totals)} keystroke queries ({len(QUERIES)} queries × {rounds} round(s)) "
          "on the seeds, Chromium, local server:")
    print(f"  keystroke → rendered   median {statistics.median(totals):6.1f} ms   "
          f"p95 {percentile(totals, 0.95):6.1f} ms   max {max(totals):6.1f} ms   (includes the 60 ms debounce)")
    if fetches:
        print(f"  of which the fetch     median {statistics.median(fetches):6.1f} ms   "
              f"p95 {percentile(fetches, 0.95):6.1f} ms")
    print("results page weight (/search?q=CUDA+out+of+memory), uncompressed:")
    for name, size in weights.items():
        print(f"  {name:28} {size / 1000:6.1f} kB")
    print(f"  {'total':28} {sum(weights.values()) / 1000:6.1f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
