"""The README's first quick-start command: `rocm-deps demo`, as a real process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


def test_demo_runs_resolve_then_install_and_cleans_up(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "rocm_deps", "demo"], capture_output=True,
                            text=True, env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    log = result.stdout + result.stderr
    assert "megatron: refs/pull/202/head (from body, line 5: #202)" in log
    assert "patch docker/amd_patch/latest/megatron.patch: applied" in log
    assert "### rocm-deps resolve" in log and "### rocm-deps install" in log
    assert "versions in the target interpreter: {'sglang': '0.1.0', " \
           "'megatron': '0.3.0.dev202'}" in log
    sandbox = re.search(r"building the sandbox in (\S+)", log)
    assert sandbox is not None and not Path(sandbox.group(1)).exists()  # removed afterwards
