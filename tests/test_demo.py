"""The README's first quick-start command: `rocm-deps demo`.

It runs in-process here (so its lines count for coverage); the resolve and install steps it
drives are real child processes of the command line, as in a workflow.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_deps.main import main


def test_demo_runs_resolve_then_install_and_cleans_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo"], {**os.environ, "TMPDIR": str(tmp_path)})
    captured = capsys.readouterr()
    log = captured.out + captured.err
    assert code == 0, log[-3000:]
    assert "megatron: refs/pull/202/head (from body, line 5: #202)" in captured.out
    assert "patch docker/amd_patch/latest/megatron.patch: applied" in log
    assert "megatron: installed " in captured.out and "workspace: disabled" in captured.out
    assert "### rocm-deps resolve" in log and "### rocm-deps install" in log
    assert "| sglang | image baseline |" in log  # not named: untouched
    # sglang keeps the image's version (from git; the image's edits make it dirty), megatron
    # is at the PR head.
    assert re.search(r"versions in the target interpreter: \{'sglang': '0\.2\.1\.dev3\+g[0-9a-f]+"
                     r"\.d[0-9]{8}', 'megatron': '0\.3\.1\.dev202'\}", log), log[-2000:]
    sandbox = re.search(r"building the sandbox in (\S+)", log)
    assert sandbox is not None and Path(sandbox.group(1)).parent == tmp_path
    assert list(tmp_path.iterdir()) == []  # removed afterwards


def test_demo_command_line_as_a_process() -> None:
    result = subprocess.run([sys.executable, "-m", "rocm_deps", "demo", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--keep" in result.stdout
    assert "json prints the report on stdout" in result.stdout  # --format has its help
