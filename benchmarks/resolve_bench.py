"""Whole-process cost of `rocm-deps resolve` on PR bodies of 1 KiB, 64 KiB and 1 MiB.

Each figure is the median wall time of several runs of a fresh process, reported as a ratio
against two baselines measured in the same run: `python -c pass` (interpreter start-up) and
the inline bash this tool replaces (`grep -qP '^ci-(megatron|sglang)-pr:\\s+\\S+'` on the same
body). Usage: python benchmarks/resolve_bench.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = {"1 KiB": 1024, "64 KiB": 64 * 1024, "1 MiB": 1024 * 1024}
# What any small Python CLI pays before doing anything: the stdlib modules rocm-deps needs.
FLOOR = "import argparse, dataclasses, json, pathlib, re, typing"
# The body is read from a file into the variable: a 1 MiB environment value is over Linux's
# per-string limit, so the workflow's `env: PR_BODY` form could not even start.
GREP_SCRIPT = ('PR_BODY="$(cat "$0")"; if [ -n "$PR_BODY" ] && echo "$PR_BODY" | '
               "grep -qP '^ci-(megatron|sglang)-pr:\\s+\\S+'; then echo named; fi")


def make_body(size: int) -> str:
    """A realistic PR description: prose, a list, a fenced example, directives at the end."""
    paragraph = ("This change teaches the ROCm suite to honour dependency directives. "
                 "It keeps the image's baked copy for every dependency it does not name.\n\n")
    block = paragraph + "- item one\n- item two\n\n```\nci-sglang-pr: #1234\n```\n\n"
    tail = "ci-sglang-pr: #30421\nci-megatron-pr: 3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e\n"
    body = block * (size // len(block) + 1)
    return body[: size - len(tail)] + tail


def median_seconds(argv: list[str], runs: int, env: dict[str, str]) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    tool = shutil.which("rocm-deps", path=str(Path(sys.executable).parent)) or "rocm-deps"
    env = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    python_pass = median_seconds([sys.executable, "-c", "pass"], arguments.runs, env)
    floor = median_seconds([sys.executable, "-c", FLOOR], arguments.runs, env)
    results = []
    with tempfile.TemporaryDirectory() as directory:
        for label, size in SIZES.items():
            body_file = Path(directory) / f"body-{size}.md"
            body = make_body(size)
            body_file.write_text(body)
            tool_seconds = median_seconds([tool, "resolve", "--body-file", str(body_file)],
                                          arguments.runs, env)
            grep_seconds = median_seconds(["bash", "-c", GREP_SCRIPT, str(body_file)],
                                          arguments.runs, env)
            results.append({"body": label, "rocm_deps_ms": round(tool_seconds * 1000, 1),
                            "python_pass_ms": round(python_pass * 1000, 1),
                            "grep_ms": round(grep_seconds * 1000, 1),
                            "vs_python_pass": round(tool_seconds / python_pass, 2),
                            "vs_grep": round(tool_seconds / grep_seconds, 2)})
    if arguments.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"median of {arguments.runs} runs per figure; python -c pass = "
          f"{python_pass * 1000:.1f} ms; python -c '{FLOOR}' = {floor * 1000:.1f} ms "
          f"({floor / python_pass:.2f}x python -c pass)")
    print("| body | rocm-deps resolve | python -c pass | inline grep -P | vs python -c pass "
          "| vs grep |")
    print("|---|---|---|---|---|---|")
    for row in results:
        print(f"| {row['body']} | {row['rocm_deps_ms']} ms | {row['python_pass_ms']} ms | "
              f"{row['grep_ms']} ms | {row['vs_python_pass']}x | {row['vs_grep']}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
