"""What `rocm-deps sweep` costs on a large repository: requests, GraphQL points, seconds and
peak memory per sweep, against the local stand-in of the GitHub API on 127.0.0.1 the tests use
(it answers at GitHub's documented sizes and counts points by GitHub's formula).

The repository has `--pulls` open pull requests (default 1,000); `--naming` of them (50) name
a dependency pull request, `--dependencies` distinct ones (20) between them; all but a fifth
of the naming ones were tested (a manifest comment, and the status `comment` set), and every
naming one carries the merge guard's status (merge-check wrote it). Besides them, as real
repositories have: `--stacked` (5) pull requests that name nothing, each based on a naming
one's branch (a stack), and `--waiting` (5) that name nothing but `Depends-On:` an open one,
half of them with the guard's status. Sweeps, as whole processes, each with the requests the
server answered:

  first     the first sweep: the untested ones get `pending`
  steady    nothing changed since (the common case): no write
  moved     after two dependency pull requests moved: their dependents turn `failure`
  merged    after one dependency pull request merged: its dependents' guard turns `success`
  empty     baseline, the same process on a repository with no open pull request

`steady` and `empty` alternate for `--runs` rounds; medians, and steady's ratio to empty.
`--body-kib N` pads every description to N KiB (GitHub's cap is 64): the sweep holds them all.

Usage: python benchmarks/sweep_bench.py [--pulls 1000] [--naming 50] [--dependencies 20]
           [--stacked 5] [--waiting 5] [--runs 5] [--body-kib 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from rocm_deps.contract.manifest import (  # noqa: E402
    Manifest,
    ManifestDocument,
    ManifestEntry,
    marker,
)
from rocm_deps.contract.status import context  # noqa: E402
from tests.fake_github import FakeGitHub  # noqa: E402

TOKEN = "ghp_" + "b" * 36
SUITE = "ROCm suite"


GUARD = "rocm-deps: merge guard"
# The sweep as `python -m rocm_deps` runs it, writing its peak resident memory (VmHWM: this
# process's own, not the fork's copy of the benchmark that getrusage would also count) at exit.
PEAK = """import atexit, runpy, sys
out = sys.argv.pop(1)
def peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(out, "w") as written:
        written.write(kib)
atexit.register(peak)
sys.argv[0] = "rocm-deps"
runpy.run_module("rocm_deps", run_name="__main__")
"""


def populate(github: FakeGitHub, pulls: int, naming: int, dependencies: int, stacked: int,
             waiting: int, body_kib: int = 0) -> None:
    sglang = github.repository("sgl-project/sglang")
    for number in range(1, dependencies + 1):
        sglang.add_pull(1000 + number, f"{number:040x}")
    miles = github.repository("radixark/miles")
    step = pulls // naming
    naming_numbers = [number for number in range(1, pulls + 1)
                      if not number % step and number // step <= naming]
    quiet = [number for number in range(1, pulls + 1) if number not in naming_numbers]
    stacks = dict(zip(quiet[:stacked], naming_numbers, strict=False))
    waits = dict(zip(quiet[stacked:stacked + waiting], naming_numbers, strict=False))
    for number in range(1, pulls + 1):
        head = f"{0xF00000 + number:040x}"
        if number in stacks:  # on a naming pull request's branch, naming nothing itself
            miles.add_pull(number, head, body=f"Change {number}: the next step.\n",
                           base=f"feature-{stacks[number]}")
            continue
        if number in waits:
            miles.add_pull(number, head, body=f"Change {number}.\n\nDepends-On: "
                                              f"#{waits[number]}\n")
            if len(waits) and list(waits).index(number) % 2 == 0:
                miles.statuses[head] = [{"context": GUARD, "state": "failure",
                                         "description": f"waits for #{waits[number]} (open)"}]
            continue
        if number not in naming_numbers:
            miles.add_pull(number, head, body=f"Change {number}.\n\nA refactor; no pins.\n")
            continue
        index = number // step
        dependency = 1000 + 1 + index % dependencies
        miles.add_pull(number, head, body=f"Change {number}.\n\nci-sglang-pr: #{dependency}\n")
        guard = {"context": GUARD, "state": "failure",
                 "description": f"waits for sglang#{dependency} (open)"}
        miles.statuses[head] = [guard]
        if index % 5 == 0:
            continue  # not tested yet
        tested = sglang.pulls[dependency]["head"]["sha"]
        document = ManifestDocument({SUITE: Manifest(
            f"https://github.com/radixark/miles/actions/runs/{number}",
            {"sglang": ManifestEntry("sgl-project/sglang", f"refs/pull/{dependency}/head",
                                     tested, dependency, source="body")}, head)})
        identifier = miles.add_comment(number, github.login,
                                       f"{marker(SUITE)}\ntested\n{document.data_block()}")
        miles.statuses[head] = [{
            "context": context(SUITE), "state": "success",
            "description": f"tested sglang#{dependency} at {tested[:7]}",
            "target_url": f"https://github.com/radixark/miles/pull/{number}#issuecomment-"
                          f"{identifier}"}, guard]


def pad(github: FakeGitHub, body_kib: int) -> None:
    """Every description to `body_kib` KiB: what it said, then prose (a quarter of it in
    characters of three bytes), under GitHub's 65,536-character cap."""
    if not body_kib:
        return
    filler = ("Measured on the MI350 runners; see the log. " * 3 + "\u6f22\u5b57\u304b\u306a " * 10
              + "\n\n")
    for pull in github.repository("radixark/miles").pulls.values():
        size = min(body_kib * 1024, 65_536)
        pull["body"] = (pull["body"] + "\n" + filler * (size // len(filler) + 1))[:size]


def sweep(github: FakeGitHub, repository: str,
          workdir: str) -> tuple[float, int, int, int, float]:
    """One whole-process sweep: seconds, requests, writes, GraphQL points, peak MiB."""
    config = Path(workdir) / "api.toml"
    config.write_text("[api]\ntimeout-seconds = 10\nbackoff-seconds = 0\n")
    environ = {**os.environ, "GITHUB_API_URL": github.url, "BENCH_TOKEN": TOKEN,
               "GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": ""}
    environ.pop("GITHUB_ACTIONS", None)
    github.log.clear()
    points = github.points
    started = time.perf_counter()
    peak = Path(workdir) / "peak"
    result = subprocess.run(
        [sys.executable, "-c", PEAK, str(peak), "sweep", "--repository", repository,
         "--config", str(config), "--github-token-env", "BENCH_TOKEN", "--format", "json"],
        env={**environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True,
        check=False)
    seconds = time.perf_counter() - started
    if result.returncode:
        raise SystemExit(f"sweep failed ({result.returncode}):\n{result.stderr[-3000:]}")
    writes = sum(1 for line in github.log if not line.startswith("GET ")
                 and line != "POST /api/graphql")
    return (seconds, len(github.log), writes, github.points - points,
            int(peak.read_text()) / 1024)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulls", type=int, default=1000)
    parser.add_argument("--naming", type=int, default=50)
    parser.add_argument("--dependencies", type=int, default=20)
    parser.add_argument("--stacked", type=int, default=5)
    parser.add_argument("--waiting", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--body-kib", type=int, default=0)
    arguments = parser.parse_args()
    with FakeGitHub() as github, tempfile.TemporaryDirectory() as workdir:
        populate(github, arguments.pulls, arguments.naming, arguments.dependencies,
                 arguments.stacked, arguments.waiting)
        pad(github, arguments.body_kib)
        github.repository("radixark/empty")
        rows = {"first": sweep(github, "radixark/miles", workdir)}
        times: dict[str, list[float]] = {"steady": [], "empty": []}
        for _ in range(arguments.runs):
            for name, repository in (("steady", "radixark/miles"), ("empty", "radixark/empty")):
                seconds, requests, writes, points, peak = sweep(github, repository, workdir)
                times[name].append(seconds)
                rows[name] = (statistics.median(times[name]), requests, writes, points, peak)
        sglang = github.repository("sgl-project/sglang")
        for number in (1001, 1002):
            sglang.move(number, f"{number:040x}".replace("0", "e", 1))
        rows["moved"] = sweep(github, "radixark/miles", workdir)
        sglang.pulls[1003].update(state="closed", merged=True,
                                  merged_at="2026-12-03T10:00:00Z")
        rows["merged"] = sweep(github, "radixark/miles", workdir)
    print(f"{arguments.pulls} open pull requests, {arguments.naming} naming one of "
          f"{arguments.dependencies} dependency pull requests (each with a guard status), "
          f"{arguments.stacked} stacked on them, {arguments.waiting} waiting for one; "
          f"descriptions {arguments.body_kib or 'as written'}"
          f"{' KiB' if arguments.body_kib else ''}; {arguments.runs} runs")
    print("| sweep | seconds | requests | of them writes | GraphQL points | peak MiB |\n"
          "|---|---|---|---|---|---|")
    for name in ("first", "steady", "moved", "merged", "empty"):
        seconds, requests, writes, points, peak = rows[name]
        print(f"| {name} | {seconds:.2f} | {requests} | {writes} | {points} | {peak:.0f} |")
    print(f"steady / empty (medians): "
          f"{statistics.median(times['steady']) / statistics.median(times['empty']):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
