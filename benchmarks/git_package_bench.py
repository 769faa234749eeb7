"""What `rocm-deps install` of a git package (Megatron-Bridge) costs against the Dockerfile's
own command, on a real history, interleaved in the same run.

The origin is a git repository holding the package's commits (for Megatron-Bridge, built
from `src` and `pyproject.toml` of real commits). A fresh virtualenv of `--python` with the
image's build requirements (`--build-requirement`, from the package index once, not timed)
gets the image's install of `--image` the way the Dockerfile installs it before each
measurement; per round, whole-process times of:

  dockerfile  `pip install git+<origin>@<commit> --no-deps --no-build-isolation`
  tool        `rocm-deps install` naming <commit> (pinned, as resolve writes it with a token),
              into a venv that holds the image's install again
  rerun       the same install again: up to date (the commit's trees fetched, every installed
              file verified against them), no pip

The tool and the Dockerfile's command alternate which goes first. Medians of the times, and
the median of each round's ratio to the Dockerfile's command of that round; and the floor:
the tool's own work around its pip child (its install report times the child), added to
the Dockerfile's command of the round.

Usage: python benchmarks/git_package_bench.py --origin DIR --image SHA --commit SHA
           [--python python3.12] [--build-requirement 'setuptools<80' ...] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pip_seconds(report: str) -> float:
    """How long the tool's own `pip install` child took, from its install report."""
    return float(json.loads(report)["dependencies"]["megatron-bridge"]["seconds"]["pip"])


def run(argv: list[str], environ: dict[str, str], out: list[str] | None = None) -> float:
    # Each timed from written-back disk: the install before it (the image's, or the other
    # command's) otherwise leaves its writes to slow whichever runs next.
    os.sync()
    started = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=environ, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    if out is not None:
        out.append(result.stdout)
    return seconds


def recorded_commit(python: Path) -> str:
    script = ("import json; from importlib.metadata import distribution as d; "
              "print(json.loads(d('megatron-bridge').read_text('direct_url.json'))"
              "['vcs_info']['commit_id'])")
    return subprocess.run([str(python), "-I", "-c", script], capture_output=True, text=True,
                          check=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--origin", type=Path, required=True)
    parser.add_argument("--image", required=True, help="the commit the image installed")
    parser.add_argument("--commit", required=True, help="the commit a run names")
    parser.add_argument("--python", default="python3.12")
    parser.add_argument("--build-requirement", action="append",
                        default=[], help="repeatable; default: setuptools<80, pybind11, wheel")
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    requirements = arguments.build_requirement or ["setuptools<80", "pybind11", "wheel"]
    url = arguments.origin.resolve().as_uri()
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_"))}
    tool = [sys.executable, "-I", "-S", "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
            "raise SystemExit(main(sys.argv[2:]))", str(ROOT / "src")]
    times: dict[str, list[float]] = {"dockerfile": [], "tool": [], "rerun": []}
    own: list[float] = []
    with tempfile.TemporaryDirectory(prefix="git-package-bench-") as work:
        config = Path(work) / "config.toml"
        config.write_text("[dependencies.sglang]\nenabled = false\n"
                          "[dependencies.megatron]\nenabled = false\n"
                          f"[dependencies.megatron-bridge]\nurl = {json.dumps(url)}\n"
                          "[install]\nworkspace-install = false\n")
        pinned = json.dumps({"megatron-bridge": {"ref": arguments.commit, "kind": "commit",
                                                 "source": "dispatch",
                                                 "raw": arguments.commit}})
        # One interpreter, as the image has one; each measurement starts from the image's
        # install, put back just before it (a fresh virtualenv per round made whichever
        # command ran first in it up to 40 % faster or slower).
        venv = Path(work) / "venv"
        subprocess.run([arguments.python, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], check=True)

        def image() -> None:
            run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                 "--force-reinstall", f"git+{url}@{arguments.image}"], environ)

        for round_number in range(arguments.runs):
            install = [*tool, "install", "--config", str(config), "--workspace", work,
                       "--python", str(python), "--overrides", pinned, "--format", "json"]
            dockerfile = [str(python), "-m", "pip", "install", "-q", "--no-deps",
                          "--no-build-isolation", f"git+{url}@{arguments.commit}"]
            # Alternate which goes first: the second of a round meets warmer caches.
            for name in (("dockerfile", "tool") if round_number % 2 == 0
                         else ("tool", "dockerfile")):
                image()
                reports: list[str] = []
                times[name].append(run(install if name == "tool" else dockerfile, environ,
                                       reports))
                assert recorded_commit(python) == arguments.commit
                if name == "tool":  # the tool's own work: all but its pip child
                    own.append(times["tool"][-1] - pip_seconds(reports[0]))
            times["rerun"].append(run(install, environ))
    print(f"runs: {arguments.runs}; target {arguments.python}; origin {arguments.origin}")
    for name, values in times.items():
        ratios = [value / baseline
                  for value, baseline in zip(values, times["dockerfile"], strict=True)]
        print(f"{name:10} median {statistics.median(values):6.2f} s  median ratio to the "
              f"Dockerfile's command in the same round {statistics.median(ratios):5.3f}x  "
              f"runs: {', '.join(f'{value:.2f}' for value in values)}")
    # The floor: the tool's own work around pip, over the Dockerfile's command of the round.
    floors = [1 + extra / baseline for extra, baseline in zip(own, times["dockerfile"],
                                                              strict=True)]
    print(f"tool's own work around its pip: median {statistics.median(own):.2f} s "
          f"(runs: {', '.join(f'{value:.2f}' for value in own)}); the Dockerfile's command "
          f"plus that: median {statistics.median(floors):5.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
