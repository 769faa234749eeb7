"""Miles' ROCm install step against the steps the migration writes, in a container shaped like
the MI350 image (podman, on the local Debian base): tests/container/miles_step.py runs both
from one image state; this times the job's install steps on each side (inside the container,
from the first step's start to the last one's end: the image-state set-up is not counted),
per case, interleaved, and prints medians and the ratio. Needs the base image:
bash scripts/container_base.sh.

Usage: python benchmarks/miles_step_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rocm_deps.demo import sandbox
from rocm_deps.runner import Runner
from tests.container.miles_step import (
    already_patched,
    old_refs,
    overrides_for,
    run_side,
    side_script,
    steps,
    toolchain_stubs,
    wheelhouse,
)
from tests.container.podman import build_arguments, podman
from tests.container.test_miles_step import CASES

TAG = "localhost/rocm-deps:bench-step"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    built = podman(*build_arguments(TAG))
    if built.returncode != 0:
        raise SystemExit(f"podman build failed:\n{built.stderr[-3000:]}")
    logging.disable(logging.INFO)
    with tempfile.TemporaryDirectory(prefix="rocm-deps-step-bench-") as scratch, \
            open(os.devnull, "w") as quiet:
        root = Path(scratch)
        box = sandbox.build(root / "template", Runner(stream=quiet), dict(os.environ),
                            python_for_venv=sys.executable)
        sandbox.add_workspace_package(box)
        already_patched(box)
        job, stubs = steps(root / "steps"), toolchain_stubs(root / "stubs")
        wheels = wheelhouse(root / "wheels")
        print(f"| case | (a) Miles' bash | (b) migrated: toolchain, rocm-deps install, packages "
              f"| (b)/(a) | same state |  (medians of {arguments.runs}, podman, 2 cores)")
        print("|---|---|---|---|---|")
        for case, (body, skip, _) in CASES.items():
            overrides = overrides_for(body, root)
            seconds: dict[bool, list[float]] = {False: [], True: []}
            same = True
            for run in range(arguments.runs):
                states = {}
                for migrated in (False, True):
                    copy = sandbox.copy(box, root / f"{case}-{run}-{migrated}")
                    states[migrated], elapsed = run_side(
                        TAG, copy, root / f"io-{case}-{run}-{migrated}", stubs, wheels,
                        side_script(job, migrated, skip, old_refs(body)), overrides)
                    seconds[migrated].append(elapsed)
                same &= states[False] == states[True]
            bash, tool = statistics.median(seconds[False]), statistics.median(seconds[True])
            print(f"| {case} | {bash:.2f} s | {tool:.2f} s | {tool / bash:.2f}x | "
                  f"{'yes' if same else 'NO'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
