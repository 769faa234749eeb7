"""scripts/local_api.py, the documented way to try `sweep` and `merge-check` offline: it serves
the example scenario, the real commands run against it, and it reports what they wrote."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent


def guide_command() -> str:
    """The sweep docs/guide.md shows against the local API."""
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    block = guide[guide.index("### Try `sweep` or `merge-check` offline"):]
    block = block[block.index("```sh\n") + 6:block.index("\n```", block.index("```sh"))]
    joined = block.replace("\\\n", " ")
    [line] = [line for line in joined.splitlines() if line.startswith("GITHUB_API_URL=")]
    return line


def test_the_local_api_serves_the_example_and_reports_what_the_sweep_wrote(
        cli: Cli, tmp_path: Path) -> None:
    helper = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "local_api.py"),
         str(ROOT / "examples" / "local-api.json")], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    assert helper.stdout is not None and helper.stdin is not None
    try:
        variable, _, url = helper.stdout.readline().strip().partition("=")
        assert variable == "GITHUB_API_URL" and url.startswith("http://127.0.0.1:")
        # The guide's command, as written there (its continuation lines joined).
        words = shlex.split(guide_command().replace("http://127.0.0.1:PORT/api/v3", url))
        assignments = dict(word.split("=", 1) for word in words[:2])
        assert words[2] == ".venv/bin/rocm-deps" and set(assignments) == {"GITHUB_API_URL", "T"}
        environ = assignments
        swept = cli(*words[3:], env=environ)
        assert swept.code == 0, swept.stderr
        body = tmp_path / "body.md"
        body.write_text("ci-sglang-pr: #30421\n")
        checked = cli("merge-check", "--body-file", str(body), "--github-token-env", "T",
                      env=environ)
        assert checked.code == 1
        assert "sgl-project/sglang#30421 is still open" in checked.stderr
    finally:
        helper.stdin.close()
        report = json.loads(helper.stdout.read())
        helper.wait(timeout=30)
    assert helper.returncode == 0
    statuses = report["repositories"]["radixark/miles"]["statuses"]
    assert {head: [(status["context"], status["state"]) for status in entries]
            for head, entries in statuses.items()} == {
        "42" * 20: [("rocm-deps: ROCm suite", "pending")]}
    assert report["requests"][:2] == [  # the configuration, then the open pull requests
        "GET /repos/radixark/miles/contents/.github/rocm-deps.toml", "POST /api/graphql"]
