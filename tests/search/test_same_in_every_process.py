"""Every worker of a server is its own process, with its own string hashes (PYTHONHASHSEED): the same query
must rank the same entries in each, or a reader's results change with the worker that answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.ingest.pipeline import run_ingest
from tests.conftest import settings_for

ROOT = Path(__file__).resolve().parents[2]
# Seeds under which the thesaurus, when it read a set of the query's stems, ranked these queries differently.
SEEDS = ("1", "2", "5")
QUERIES = ("offset not work for new consumer group", "new consumer group not work", "work group consumer offset",
           "consumer offset group work new")
SEARCH = """
import json, sys
from app.config import Settings
from app.main import create_app
from app.web.inprocess import InProcessClient
settings = Settings(content_dir=sys.argv[1], data_dir=sys.argv[2], database_url="", semantic=False,
                    query_log_days=0, _env_file=None)
with InProcessClient(create_app(settings)) as client:
    print(json.dumps([[hit["id"] for hit in client.get("/api/v1/search", params={"q": q, "mode": "lexical"}).json()
                       ["results"]] for q in sys.argv[3:]]))
"""


def test_the_same_query_ranks_the_same_entries_in_every_process(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "glossary.tsv").write_text("工作组\twork group\n消费者组\tconsumer group\n不行\tnot work\n新的消费者\t"
                                          "new consumer\n位点\tconsumer offset\n", encoding="utf-8")
    (content / "faq.zh.md").write_text(
        "# 常见问题\n\n## 工作组如何配置？\n\n在控制台设置。\n\n## 新的消费者组从哪里开始消费？\n\n从最后的位点。\n\n"
        "## 为什么消费不行？\n\n检查网络。\n\n## 新的消费者如何加入？\n\n订阅主题。\n", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    rankings = {}
    for seed in SEEDS:
        done = subprocess.run([sys.executable, "-c", SEARCH, str(content), str(settings.data_dir), *QUERIES],
                              capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr[-2000:]
        rankings[seed] = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(ranking for ranking in rankings[SEEDS[0]])
    assert all(ranking == rankings[SEEDS[0]] for ranking in rankings.values()), rankings
