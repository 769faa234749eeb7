"""What holding the dependencies nobody named at the image's copy costs, in the demo's
sandbox (complete clones with tags, edited as the ROCm image edits them, a target venv).

The examples run `install` in every GPU job, named or not. Each round, on a fresh copy of
the sandbox, whole-process times of:

  baseline    `rocm-deps --version`: the interpreter and the tool starting, nothing else
  fresh       `install --overrides '{}'`: a fresh container, nothing named (both clones
              checked: never changed by the tool, so no fetch and no pip)
  restore     `install --overrides '{}'` after a run installed Megatron-LM PR #202 (a
              persistent machine): Megatron-LM is returned to the image's commit, edits and
              install (git and pip)
  verified    the same again: the image's copy as the restore left it, verified from the
              install record (no fetch, no pip)

Rounds are interleaved; medians and the ratio to the baseline of the same round are printed.

Usage: python benchmarks/image_copy_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rocm_deps.demo import sandbox  # noqa: E402 - the source tree, not an install
from rocm_deps.runner import Runner  # noqa: E402


def timed(argv: list[str], environ: dict[str, str]) -> tuple[float, dict[str, str]]:
    """Seconds, and each dependency's state from the install report (when it printed one)."""
    started = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=environ, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{argv[3:5]} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    try:
        report = json.loads(result.stdout)
    except ValueError:
        return seconds, {}
    return seconds, {name: entry["state"] for name, entry in report["dependencies"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    tool = [sys.executable, "-I", "-S", "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
            "raise SystemExit(main(sys.argv[2:]))", str(ROOT / "src")]
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_"))}
    times: dict[str, list[float]] = {"baseline": [], "fresh": [], "restore": [], "verified": []}
    with tempfile.TemporaryDirectory(prefix="image-copy-bench-") as work:
        template = sandbox.build(Path(work) / "template", Runner(stream=io.StringIO()),
                                 environ, python_for_venv=sys.executable)
        for round_number in range(arguments.runs):
            box = sandbox.copy(template, Path(work) / f"round-{round_number}")
            install = [*tool, "install", "--config", str(box.config), "--workspace",
                       str(box.workspace), "--python", box.python, "--workspace-install",
                       "false", "--format", "json", "--overrides"]
            times["baseline"].append(timed([*tool, "--version"], environ)[0])
            seconds, states = timed([*install, "{}"], environ)
            assert states == {"sglang": "image", "megatron": "image",
                              "megatron-bridge": "absent"}, states
            times["fresh"].append(seconds)
            pull = json.dumps({"megatron": {"ref": "refs/pull/202/head", "kind": "pr",
                                            "pr": 202, "source": "body", "raw": "#202"}})
            timed([*install, pull], environ)
            seconds, states = timed([*install, "{}"], environ)
            assert states["megatron"] == "restored", states
            times["restore"].append(seconds)
            seconds, states = timed([*install, "{}"], environ)
            assert states == {"sglang": "image", "megatron": "image",
                              "megatron-bridge": "absent"}, states
            times["verified"].append(seconds)
            sandbox.remove(box.root)
    baseline = statistics.median(times["baseline"])
    print(f"runs: {arguments.runs}; Python {sys.version.split()[0]}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:9} median {median:6.3f} s  ({median / baseline:5.2f}x the baseline)  "
              f"runs: {', '.join(f'{value:.3f}' for value in values)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
