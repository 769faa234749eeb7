"""Build time and size of the container image (podman, on the local Debian base).

Build time is the median of several `podman build --no-cache` runs (pip downloads included);
sizes come from `podman image inspect`. Needs the base image: bash scripts/container_base.sh.
Usage: python benchmarks/image_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.container.podman import BASE_IMAGE, build_arguments, podman

TAG = "localhost/rocm-deps:bench"


def size_mb(image: str) -> float:
    result = podman("image", "inspect", "--format", "{{.Size}}", image)
    if result.returncode != 0:
        raise SystemExit(f"cannot inspect {image}: {result.stderr.strip()}")
    return int(result.stdout.strip()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    seconds = []
    for _ in range(arguments.runs):
        started = time.perf_counter()
        built = podman(*build_arguments(TAG, "--no-cache"))
        if built.returncode != 0:
            raise SystemExit(f"podman build failed:\n{built.stderr[-3000:]}")
        seconds.append(time.perf_counter() - started)
    image, base = size_mb(TAG), size_mb(BASE_IMAGE)
    print(f"| build time (median of {arguments.runs}, --no-cache) | {statistics.median(seconds):.1f} s |")
    print(f"| image size | {image:.0f} MB |")
    print(f"| of which the base image ({BASE_IMAGE}) | {base:.0f} MB |")
    print(f"| added by the Dockerfile | {image - base:.0f} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
