"""What `rocm-deps install` costs against the inline bash it replaces, on a realistic repository.

An origin with 3,000 commits and 2,000 files is served by `git daemon` on 127.0.0.1 (through
a proxy that counts the bytes the client receives); the "baked" clone stops 500 commits
behind; a pull-request ref sits on top. Three whole-process measurements, each the median of
several runs on a fresh copy of the baked clone:

  (a) the inline bash: reset --hard; clean -fd; fetch origin <ref>; checkout -f FETCH_HEAD;
      pip install -e . --no-deps
  (b) `rocm-deps install` (first run)
  (c) `rocm-deps install` again (the re-run of a job)

With --pinned the overrides carry the commit SHA, as `resolve` writes them when it has a
github-token (the recommended setup): install then fetches by SHA and its re-run needs no
network round trip to learn where the ref points.

Usage: python benchmarks/install_bench.py [--runs N] [--pinned] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocm_deps import sandbox  # noqa: E402
from rocm_deps.runner import Runner  # noqa: E402
from tests.gitserver import Proxy, git_daemon  # noqa: E402

FILES, COMMITS, BEHIND = 2000, 3000, 500
INLINE = """set -e
cd "$BAKED"
git reset --hard HEAD
git clean -fd
git fetch origin "$REF"
git checkout -f FETCH_HEAD
git log --oneline -1
"$TARGET_PYTHON" -m pip install -e . --no-deps
"""


def module_text(index: int, revision: int) -> str:
    lines = [f'"""Module {index}, revision {revision}."""', ""]
    lines += [f"VALUE_{line} = {(index * 7919 + line * 104729 + revision) % 1000003}"
              for line in range(60)]
    return "\n".join(lines) + "\n"


def fast_import_stream(package: Path) -> bytes:
    """3,000 commits: the first adds 2,000 modules, each later one rewrites a few of them."""
    out = io.BytesIO()
    identity = "bench <bench@example.invalid> 1700000000 +0000"

    def blob(path: str, data: bytes) -> None:
        out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for number in range(1, COMMITS + 1):
        branch = "refs/heads/main"
        message = f"commit {number}".encode()
        out.write(f"commit {branch}\nmark :{number}\ncommitter {identity}\n".encode())
        out.write(f"data {len(message)}\n".encode() + message + b"\n")
        if number > 1:
            out.write(f"from :{number - 1}\n".encode())
        if number == 1:
            for index in range(FILES):
                blob(f"bench/mod_{index:04d}.py", module_text(index, 0).encode())
            for path in ("pyproject.toml", "tiny_backend.py", ".gitignore"):
                blob(path, (package / path).read_bytes())
        else:
            for offset in range(3):
                index = (number * 37 + offset * 613) % FILES
                blob(f"bench/mod_{index:04d}.py", module_text(index, number).encode())
        version = f'__version__ = "1.0.{number}"\n'.encode()
        blob("bench/__init__.py", version)
        out.write(b"\n")
    return out.getvalue()


def build_origin(root: Path, env: dict[str, str]) -> tuple[Path, str]:
    package = root / "package"
    builder = sandbox.Builder(Runner(stream=io.StringIO()), env)
    builder.write_package(package, sandbox.PackageSpec("bench", "bench", "bench", ".", 1), "0")
    origin = root / "origins" / "bench"
    origin.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True, env=env)
    subprocess.run(["git", "-C", str(origin), "fast-import", "--quiet"], check=True, env=env,
                   input=fast_import_stream(package))
    git = ["git", "-C", str(origin)]
    baked = subprocess.run([*git, "rev-parse", f"main~{BEHIND}"], check=True, env=env,
                           capture_output=True, text=True).stdout.strip()
    subprocess.run([*git, "branch", "baked", baked], check=True, env=env)
    pr_head = subprocess.run([*git, "rev-parse", "main"], check=True, env=env,
                             capture_output=True, text=True).stdout.strip()
    subprocess.run([*git, "update-ref", "refs/pull/1/head", pr_head], check=True, env=env)
    return origin, pr_head


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pinned", action="store_true",
                        help="give install the PR head SHA, as resolve does with a token")
    parser.add_argument("--tool", help="the rocm-deps executable to measure (default: the one "
                                       "next to this interpreter)")
    arguments = parser.parse_args()
    tool = arguments.tool or shutil.which("rocm-deps", path=str(Path(sys.executable).parent))
    env = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    env.update(sandbox.IDENTITY)
    samples: dict[str, list[float]] = {"inline": [], "first": [], "rerun": []}
    received: dict[str, list[int]] = {"inline": [], "first": [], "rerun": []}
    with tempfile.TemporaryDirectory(prefix="rocm-deps-bench-") as directory:
        root = Path(directory)
        _, pr_head = build_origin(root, env)
        python = sandbox.create_venv(root / "venv", Runner(stream=io.StringIO()), env)
        with git_daemon(root / "origins") as port, Proxy(port) as proxy:
            url = f"git://127.0.0.1:{proxy.port}/bench"
            template = root / "baked-template"
            subprocess.run(["git", "clone", "-q", "--single-branch", "--branch", "baked",
                            "--no-tags", url, str(template)], check=True, env=env)
            config = root / "rocm-deps.toml"
            config.write_text(f'[dependencies.bench]\nrepository = "bench/bench"\n'
                              f'path = "{root / "baked"}"\ninstall-dir = "."\n'
                              f'[install]\nworkspace-install = false\n')
            sha = pr_head if arguments.pinned else None
            overrides = json.dumps({"bench": {"ref": "refs/pull/1/head", "sha": sha}})
            command = [str(tool), "install", "--config", str(config), "--overrides", overrides,
                       "--python", python, "--workspace", str(root)]
            for _ in range(arguments.runs):
                for kind in ("inline", "first"):
                    baked = root / "baked"
                    shutil.rmtree(baked, ignore_errors=True)
                    shutil.copytree(template, baked, symlinks=True)
                    before = proxy.bytes_to_client
                    if kind == "inline":
                        seconds = timed(["bash", "-c", INLINE], {
                            **env, "BAKED": str(baked), "REF": "refs/pull/1/head",
                            "TARGET_PYTHON": python})
                    else:
                        seconds = timed(command, env)
                    samples[kind].append(seconds)
                    received[kind].append(proxy.bytes_to_client - before)
                before = proxy.bytes_to_client
                samples["rerun"].append(timed(command, env))
                received["rerun"].append(proxy.bytes_to_client - before)
    inline = statistics.median(samples["inline"])
    results = {
        kind: {"median_s": round(statistics.median(values), 3),
               "bytes_received": int(statistics.median(received[kind])),
               "ratio_to_inline": round(statistics.median(values) / inline, 3)}
        for kind, values in samples.items()}
    if arguments.json:
        print(json.dumps(results, indent=2))
        return 0
    labels = {"inline": "(a) inline bash", "first": "(b) rocm-deps install, first run",
              "rerun": "(c) rocm-deps install, re-run"}
    print(f"origin: {COMMITS} commits, {FILES} files; baked clone {BEHIND} commits behind; "
          f"median of {arguments.runs} runs; overrides "
          f"{'pinned to the SHA' if arguments.pinned else 'by ref only (no token)'}")
    print("| run | median | bytes received | vs (a) |")
    print("|---|---|---|---|")
    for kind, row in results.items():
        print(f"| {labels[kind]} | {row['median_s']:.2f} s | {row['bytes_received']:,} | "
              f"{row['ratio_to_inline']}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
