"""The README documents every setting and command users rely on."""

from __future__ import annotations

from pathlib import Path

from app.cli import build_parser
from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import REPO, settings_for

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_documents_every_setting() -> None:
    missing = [f"FAQ_{name.upper()}" for name in Settings.model_fields if f"FAQ_{name.upper()}" not in README]
    assert missing == []


def test_readme_documents_every_command() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    missing = [f"faq {name}" for name in commands if f"faq {name}" not in README]
    assert missing == []
    for target in ("make run", "make test", "make install"):
        assert target in README


def readme_commands() -> list[str]:
    """Every `faq …` and `curl …` line of the README's shell blocks, continuation lines joined."""
    import re

    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            command = line.strip()
            if re.match(r"(\.venv/bin/)?faq |curl ", command):
                lines.append(command)
    return lines


def test_every_command_of_the_readme_runs_against_a_served_sample(tmp_path: Path) -> None:
    """Each `faq` and `curl` line as the README writes it, on the bundled sample (`faq serve` lines: parsed only;
    docker, make, psql and export lines need a machine of their own)."""
    import json
    import os
    import shlex
    import subprocess
    import sys

    from measure.localserver import running_server
    from tests.conftest import SAMPLE

    commands = readme_commands()
    assert len(commands) >= 20
    documented = {"faq " + name for name in build_parser()._subparsers._group_actions[0].choices}  # type: ignore[union-attr]
    run = {" ".join(shlex.split(line.split("#")[0])[:2]).removeprefix(".venv/bin/") for line in commands}
    assert sorted(documented - run) == []  # every command has an example that runs
    bin_dir = Path(sys.executable).parent  # .venv/bin
    env = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    env.update(FAQ_DATA_DIR=str(tmp_path / "data"), FAQ_CONTENT_DIR=str(SAMPLE), FAQ_SEMANTIC="false",
               FAQ_ADMIN_TOKEN="readme-token", PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    first = subprocess.run([str(bin_dir / "faq"), "ingest", "--quiet"], env=env, cwd=REPO, capture_output=True,
                           text=True, timeout=300, check=False)
    assert first.returncode == 0, first.stderr
    with running_server({key: value for key, value in env.items() if key.startswith("FAQ_")}) as server:
        for line in commands:
            if line.split()[0].endswith("faq") and line.split()[1] == "serve":
                build_parser().parse_args(shlex.split(line.split("#")[0])[1:])
                continue
            shell = (line.replace("http://127.0.0.1:8000", server.base).replace("http://localhost:8000", server.base)
                     .replace(".venv/bin/", f"{bin_dir}/"))
            done = subprocess.run(["bash", "-c", shell], env={**env, "FAQ_SEMANTIC": "true"}, cwd=REPO,
                                  capture_output=True, text=True, timeout=300, check=False)
            if done.returncode == 1 and (" check" in line or "--fail-on" in line):
                # Exit 1: something for an editor (README, exit codes): the damaged seed's uncertain repairs only.
                said = done.stdout.splitlines()[-1] if " check" in line else done.stderr
                assert ("0 damaged generations, 0 damaged vector files, 42 uncertain repairs, 0 skipped files, "
                        "0 link problems" in said or said.endswith(": found repairs 42\n")), f"{line}\n{said}"
                continue
            assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            assert "Traceback" not in done.stderr, line
            if line.startswith("curl"):
                assert " -f" in line, f"{line}: without -f an HTTP error would pass unnoticed"
                json.loads(done.stdout)  # an answer, not an error page


def test_the_readme_example_ids_are_entries_of_the_sample(tmp_path: Path) -> None:
    import re

    from tests.conftest import SAMPLE

    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    shown = set(re.findall(r"/(entries|documents)/([a-z0-9][a-z0-9-]*)", README))
    assert len(shown) >= 4
    with InProcessClient(create_app(settings)) as client:
        for kind, item in sorted(shown):
            assert client.get(f"/api/v1/{kind}/{item}").status_code == 200, f"/{kind}/{item}"


def test_every_file_the_readme_links_exists() -> None:
    import re

    targets = {target.split("#")[0] for target in re.findall(r"\]\(([^)#][^)]*)\)", README)
               if not target.startswith(("http://", "https://"))}
    assert {"docs/writing-content.md", "docs/design.md", "docs/development.md"} <= targets
    assert sorted(target for target in targets if not (REPO / target).exists()) == []
