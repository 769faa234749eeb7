"""Every `rocm-deps …` command README.md and the guide (docs/guide.md) show runs as written
after the Quick start (from the clone, `.venv/bin/` as they write it) and exits as they say."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

# The command as the README writes it -> the exit code the README gives for it.
EXPECTED = {
    ".venv/bin/rocm-deps demo": 0,
    ".venv/bin/rocm-deps resolve --body-file examples/description.md": 0,
    ".venv/bin/rocm-deps config --config examples/not-miles/rocm-deps.toml": 0,
    ".venv/bin/rocm-deps resolve --config examples/not-miles/rocm-deps.toml --body-file "
    "examples/not-miles/description.md": 0,
    # No clones on the machine that runs the suite: the plan, then exit 1 naming them.
    ".venv/bin/rocm-deps install --dry-run --body-file examples/description.md --profile cuda": 1,
    ".venv/bin/rocm-deps resolve --body-file examples/description.md --format json": 0,
    ".venv/bin/rocm-deps merge-check --body-file examples/description.md "
    "--github-token-env GH_TOKEN": 2,
}


def readme_commands() -> list[str]:
    text = "\n".join((ROOT / name).read_text(encoding="utf-8")
                      for name in ("README.md", "docs/guide.md"))
    spans = [" ".join(span.split()) for span in re.findall(r"`(\.venv/bin/rocm-deps [^`]+)`",
                                                             text)]
    # A command given a local API (`GITHUB_API_URL=…`) needs scripts/local_api.py running:
    # tests/test_local_api.py runs it that way.
    blocks = [re.split(r"\s*(?:&&|\|\||;|#)", line[line.index(".venv/bin/rocm-deps"):])[0]
              for block in re.findall(r"```(?:sh|console|bash)\n(.*?)```", text, re.S)
              for line in block.splitlines() if ".venv/bin/rocm-deps" in line
              and "GITHUB_API_URL=" not in line]
    return list(dict.fromkeys(blocks + spans))


def test_the_readme_is_read_in_five_minutes() -> None:
    """An adopter's front door: what it is, the workflow, the tables, security, versions;
    everything else is in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) <= 12_000


def test_the_readme_shows_exactly_the_commands_checked_here() -> None:
    assert readme_commands() == list(EXPECTED), (
        "README's commands changed: update EXPECTED with each one's exit code as the README "
        "states it")


@pytest.mark.parametrize("command", list(EXPECTED))
def test_each_readme_command_runs_as_written(command: str, tmp_path: Path) -> None:
    argv = command.split()
    assert argv[0] == ".venv/bin/rocm-deps"
    # This environment's rocm-deps stands in for the Quick start's .venv/bin/rocm-deps.
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_", "INPUT_")) and key != "GH_TOKEN"}
    environ["TMPDIR"] = str(tmp_path)  # the demo's sandbox, below pytest's directory
    result = subprocess.run([sys.executable, "-m", "rocm_deps", *argv[1:]], cwd=ROOT,
                            capture_output=True, text=True, timeout=600, env=environ)
    assert result.returncode == EXPECTED[command], result.stdout[-2000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr
