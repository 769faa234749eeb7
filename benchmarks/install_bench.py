"""What `rocm-deps install` costs against the inline bash it replaces, in a world like the real one.

The origin is served by `git daemon` on 127.0.0.1 through a proxy that counts the bytes the
client receives. It has 3,000 commits over 2,000 files, an annotated release tag every 500
commits, and a package versioned by setuptools-scm (as SGLang is). The "baked" clone is a
complete clone (full history, the tags of its time) 500 commits behind main; after it was
made, upstream tagged another release. Two pull requests:

  recent   one commit on top of the current main
  old-base one commit on a base 800 commits back, older than the baked commit

Every run starts from a fresh copy of the baked clone, so git's index is cold the way it is
in a freshly started container. Per case, whole-process medians of:

  (a) the inline bash of the original workflow: reset --hard; clean -fd; fetch origin <ref>;
      checkout -f FETCH_HEAD; log; pip install -e . --no-deps
  (b) `rocm-deps install`, first run
  (c) `rocm-deps install` again: the re-run of a job on a persistent machine (a `container:`
      job starts a fresh container on re-run, where (b) applies)

and the version the target interpreter reports afterwards, beside what a fresh full clone at
that commit computes.

With --origin (a bare clone of a real repository, such as radixark/Megatron-LM) the world is
that history instead: the baked clone holds exactly the history of `--branch` as it was
`--behind` first-parent commits ago (as an image built then would), the case is the branch's
tip, and `--patch` (such as Miles' docker/amd_patch/latest/megatron.patch) is applied by both
sides. Without --pip neither side runs pip there, and the figures are the git part; with
--pip both run `pip install -e . --no-deps` into a fresh virtualenv of --pip-python that holds
--build-requirement (the image's build requirements, from the package index once): the bash
with pip's default build isolation (downloading the build requirements every run, as Miles'
workflow does), the tool with its `build-isolation = "auto"`. The phases then include the
package's own compile (Megatron-LM's C++ helper). --fetch-filter sets the tool's
`fetch-filter`, --tag-policy its `tags`. The snapshots of real repositories carry no tags: --tags N adds N annotated tags to
the origin, two thirds on the branch's older history (what a clone already has) and a third
on release branches of one commit each (what only `tags = "all"` fetches), as SGLang tags
its releases.

Usage: python benchmarks/install_bench.py [--runs N] [--pinned] [--json] [--tool EXE]
       python benchmarks/install_bench.py --origin BARE --branch B --patch FILE
                                          [--behind N] [--fetch-filter blob:none]
       python benchmarks/install_bench.py --origin BARE --branch B --patch FILE --pip \
           --pip-python python3.10 --build-requirement 'setuptools<80' \
           --build-requirement pybind11 --build-requirement packaging
       (--patch is optional with --origin)
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocm_deps.demo import sandbox  # noqa: E402
from rocm_deps.demo.package import Package, write_package  # noqa: E402
from rocm_deps.runner import Runner  # noqa: E402
from tests.gitserver import Proxy, git_daemon  # noqa: E402

FILES, COMMITS, BEHIND, RELEASE_EVERY, OLD_BASE = 2000, 3000, 500, 500, 800
PACKAGE = Package("bench", "bench", ".")  # versioned from git tags, as SGLang is
PIP_ARGS = ["--no-deps", "--no-build-isolation"]  # the build requirement is provided
INLINE_GIT = """set -e
cd "$BAKED"
git reset --hard HEAD
git clean -fd
git fetch origin "$REF"
git checkout -f FETCH_HEAD
git log --oneline -1
"""
INLINE = INLINE_GIT + f'"$TARGET_PYTHON" -m pip install -e . {" ".join(PIP_ARGS)}\n'
# With --origin: no pip (see above); the ROCm patch, as Miles' workflow applies it.
INLINE_REAL = INLINE_GIT + 'if [ -n "$PATCH" ]; then git apply "$PATCH"; fi\n'
# With --pip too: Miles' own line, pip's default build isolation.
INLINE_REAL_PIP = INLINE_REAL + '"$TARGET_PYTHON" -m pip install -e . --no-deps\n'
VERSION = "import importlib.metadata as m; print(m.version('bench'))"
CASES = {"recent": "refs/pull/1/head", "old-base": "refs/pull/2/head"}


def module_text(index: int, revision: int) -> str:
    lines = [f'"""Module {index}, revision {revision}."""', ""]
    lines += [f"VALUE_{line} = {(index * 7919 + line * 104729 + revision) % 1000003}"
              for line in range(60)]
    return "\n".join(lines) + "\n"


def fast_import_stream(package: Path) -> bytes:
    """3,000 commits: the first adds 2,000 modules, each later one rewrites a few of them;
    annotated release tags every 500 commits up to the baked commit."""
    out = io.BytesIO()
    identity = "bench <bench@example.invalid> 1700000000 +0000"

    def blob(path: str, data: bytes) -> None:
        out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for number in range(1, COMMITS + 1):
        message = f"commit {number}".encode()
        out.write(f"commit refs/heads/main\nmark :{number}\ncommitter {identity}\n".encode())
        out.write(f"data {len(message)}\n".encode() + message + b"\n")
        if number > 1:
            out.write(f"from :{number - 1}\n".encode())
        if number == 1:
            for index in range(FILES):
                blob(f"bench/mod_{index:04d}.py", module_text(index, 0).encode())
            for path in package.rglob("*"):
                if path.is_file():
                    blob(str(path.relative_to(package)), path.read_bytes())
        else:
            for offset in range(3):
                index = (number * 37 + offset * 613) % FILES
                blob(f"bench/mod_{index:04d}.py", module_text(index, number).encode())
        out.write(b"\n")
        if number % RELEASE_EVERY == 0 and number <= COMMITS - BEHIND:
            release = f"release 0.{number // RELEASE_EVERY}.0".encode()
            out.write(f"tag v0.{number // RELEASE_EVERY}.0\nfrom :{number}\n"
                      f"tagger {identity}\ndata {len(release)}\n".encode() + release + b"\n")
    return out.getvalue()


def run(argv: list[str], env: dict[str, str], **kwargs: object) -> str:
    return subprocess.run(argv, check=True, env=env, capture_output=True, text=True,
                          **kwargs).stdout.strip()  # type: ignore[call-overload,no-any-return]


def pull_request(origin: Path, base: str, number: int, env: dict[str, str]) -> str:
    """One commit on `base`, published as refs/pull/<number>/head."""
    work = origin.parent / f"pr-{number}"
    run(["git", "clone", "-q", "--no-checkout", str(origin), str(work)], env)
    run(["git", "-C", str(work), "checkout", "-q", "--detach", base], env)
    (work / "bench" / f"change_{number}.py").write_text(f"CHANGE = {number}\n")
    run(["git", "-C", str(work), "add", "-A"], env)
    run(["git", "-C", str(work), "commit", "-q", "-m", f"pull request {number}"], env)
    head = run(["git", "-C", str(work), "rev-parse", "HEAD"], env)
    run(["git", "-C", str(work), "push", "-q", "origin", f"HEAD:refs/pull/{number}/head"], env)
    shutil.rmtree(work)
    return head


def build_world(root: Path, env: dict[str, str], url: str) -> tuple[Path, dict[str, str]]:
    package = root / "package"
    write_package(package, PACKAGE, None)
    origin = root / "origins" / "bench"
    origin.mkdir(parents=True)
    run(["git", "init", "-q", "-b", "main", str(origin)], env)
    run(["git", "-C", str(origin), "fast-import", "--quiet"], env, input=fast_import_stream(
        package).decode("latin-1"))
    tip = run(["git", "-C", str(origin), "rev-parse", "main"], env)
    baked = run(["git", "-C", str(origin), "rev-parse", f"main~{BEHIND}"], env)
    # The image cloned when main was at the baked commit: a complete clone, history and tags.
    run(["git", "-C", str(origin), "update-ref", "refs/heads/main", baked], env)
    template = root / "baked-template"
    run(["git", "clone", "-q", url, str(template)], env)
    run(["git", "-C", str(template), "checkout", "-q", "--detach", baked], env)
    run(["git", "-C", str(origin), "update-ref", "refs/heads/main", tip], env)
    # Upstream, after the image was built: a release, and the two pull requests.
    run(["git", "-C", str(origin), "tag", "-a", "-m", "release 0.6.0", "v0.6.0", "main"], env)
    heads = {"recent": pull_request(origin, "main", 1, env),
             "old-base": pull_request(origin, f"main~{OLD_BASE}", 2, env)}
    return template, heads


def add_tags(origin: Path, branch: str, behind: int, count: int, env: dict[str, str]) -> None:
    """`count` annotated tags: two thirds on first-parent commits older than the baked one,
    a third on release branches (one new commit each, off those commits)."""
    identity = {**env, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    for index in range(count):
        base = run(["git", "-C", str(origin), "rev-parse", f"{branch}~{behind + 5 * index}"], env)
        target = base
        if index % 3 == 2:  # a release branch: a commit of its own on top of the base
            target = run(["git", "-C", str(origin), "commit-tree", f"{base}^{{tree}}", "-p",
                          base, "-m", f"release 0.{index}.0"], identity)
            run(["git", "-C", str(origin), "branch", f"release/v0.{index}", target], env)
        run(["git", "-C", str(origin), "tag", "-a", "-m", f"v0.{index}.0", f"v0.{index}.0",
             target], identity)


def build_real_world(root: Path, env: dict[str, str], url: str, source: Path, branch: str,
                     behind: int, tags: int = 0) -> tuple[Path, dict[str, str]]:
    """A shared bare clone of `source` as the origin; the baked clone fetched only the
    branch's history as of `behind` first-parent commits ago (what an image built then holds)."""
    origin = root / "origins" / "bench"
    run(["git", "clone", "-q", "--bare", "--shared", str(source), str(origin)], env)
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        run(["git", "-C", str(origin), "config", key, "true"], env)
    add_tags(origin, branch, behind, tags, env)
    baked = run(["git", "-C", str(origin), "rev-parse", f"{branch}~{behind}"], env)
    template = root / "baked-template"
    run(["git", "init", "-q", str(template)], env)
    run(["git", "-C", str(template), "remote", "add", "origin", url], env)
    run(["git", "-C", str(template), "fetch", "-q", "origin", f"{baked}:refs/heads/main"], env)
    run(["git", "-C", str(template), "checkout", "-q", "--detach", baked], env)
    return template, {branch: run(["git", "-C", str(origin), "rev-parse", branch], env)}


def patched_commit(clone: Path, patch: Path | None, env: dict[str, str]) -> str:
    """With --origin, what stands for the version: the commit, and whether the patch is in."""
    head = run(["git", "-C", str(clone), "rev-parse", "HEAD"], env)
    if patch is None:
        return head
    reverse = subprocess.run(["git", "-C", str(clone), "apply", "--check", "-R", str(patch)],
                             env=env, capture_output=True)
    return f"{head} {'patched' if reverse.returncode == 0 else 'unpatched'}"


def oracle_version(origin: Path, commit: str, python: str, root: Path,
                   env: dict[str, str]) -> str:
    """What setuptools-scm computes in a fresh full clone at `commit`."""
    clone = root / f"oracle-{commit[:12]}"
    if not clone.exists():
        run(["git", "clone", "-q", str(origin), str(clone)], env)
        run(["git", "-C", str(clone), "checkout", "-q", "--detach", commit], env)
    return run([python, "-c", f"from setuptools_scm import get_version; "
                              f"print(get_version(root={str(clone)!r}))"], env)


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def timed_install(argv: list[str], env: dict[str, str],
                  phases: dict[str, list[float]], said: list[str] | None = None) -> float:
    """Time an install and collect the seconds its report gives each phase (and, in `said`,
    its state and the local changes it reports)."""
    started = time.perf_counter()
    result = subprocess.run([*argv, "--format", "json"], env=env, capture_output=True,
                            text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"rocm-deps install failed ({result.returncode}):\n"
                         f"{result.stderr[-4000:]}")
    report = json.loads(result.stdout)["dependencies"]["bench"]
    for phase, seconds in report["seconds"].items():
        phases.setdefault(phase, []).append(seconds)
    if said is not None:
        discarded = report["local_changes"]["discarded"] or {}
        said.append(f"{report['state']}, local changes "
                    f"{sum(kind['count'] for kind in discarded.values())}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pinned", action="store_true",
                        help="give install the PR head SHA, as resolve does with a token")
    parser.add_argument("--tool", help="the rocm-deps executable to measure (default: the one "
                                       "next to this interpreter)")
    parser.add_argument("--origin", type=Path, help="a bare clone of a real repository")
    parser.add_argument("--branch", default="main", help="with --origin: the branch to move to")
    parser.add_argument("--behind", type=int, default=BEHIND, help="with --origin: how far the "
                                                                   "baked clone is behind")
    parser.add_argument("--patch", type=Path, help="with --origin: the patch both sides apply")
    parser.add_argument("--fetch-filter", default="", choices=["", "blob:none"])
    parser.add_argument("--tag-policy", default="all", choices=["all", "reachable", "none"])
    parser.add_argument("--tags", type=int, default=0, help="with --origin: tags to add")
    parser.add_argument("--pip", action="store_true", help="with --origin: both sides pip "
                                                           "install the checkout")
    parser.add_argument("--pip-python", default=sys.executable,
                        help="with --pip: the interpreter the target virtualenv is made from")
    parser.add_argument("--build-requirement", action="append", default=[],
                        help="with --pip: a build requirement the target interpreter holds")
    parser.add_argument("--case", help="with --origin: the commit to install (default: the "
                        "branch's tip)")
    parser.add_argument("--image-install", action="store_true",
                        help="with --pip: the baked clone is installed as the image build "
                             "installs it (the patch applied, `pip install -e . --no-deps "
                             "--no-build-isolation`, its compiled extension left in the clone), "
                             "once, before the runs")
    parser.add_argument("--compile-inputs", action="append", default=[],
                        help="the tool's `compile-inputs` for the dependency (repeatable)")
    parser.add_argument("--tool-index-closed", action="store_true",
                        help="the tool's runs get PIP_INDEX_URL at a closed port on 127.0.0.1 "
                             "(the bash keeps the reachable index)")
    arguments = parser.parse_args()
    real = arguments.origin is not None
    tool = arguments.tool or shutil.which("rocm-deps", path=str(Path(sys.executable).parent))
    env = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    env.update(sandbox.IDENTITY)
    kinds = ("inline", "first", "rerun")
    results: dict[str, dict[str, dict[str, object]]] = {}
    with tempfile.TemporaryDirectory(prefix="rocm-deps-bench-") as directory:
        root = Path(directory)
        runner = Runner(stream=io.StringIO())
        with_pip = real and arguments.pip
        python = sandbox.create_venv(root / "venv", arguments.pip_python if with_pip
                                     else sys.executable, runner, env)
        if with_pip:  # the image's build requirements, once (an image has them baked in)
            run([python, "-m", "pip", "install", "-q", *arguments.build_requirement], env)
            # As in the image, `python3` on PATH is the interpreter under test: Megatron-LM's
            # setup.py runs `python3 -m pybind11`.
            env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
        else:
            sandbox.provide_build_requirements(python, root / "build-requirements", runner,
                                               env)
        (root / "origins").mkdir()
        with git_daemon(root / "origins") as port, Proxy(port) as proxy:
            url = f"git://127.0.0.1:{proxy.port}/bench"
            baked = root / "baked"
            config = root / "rocm-deps.toml"
            if real:
                template, heads = build_real_world(root, env, url, arguments.origin.resolve(),
                                                   arguments.branch, arguments.behind,
                                                   arguments.tags)
                cases = {arguments.branch: arguments.case or arguments.branch}
                if arguments.case:
                    heads[arguments.branch] = arguments.case
                patch = root / "dependency.patch" if arguments.patch else None
                if patch:
                    shutil.copy(arguments.patch, patch)
                if arguments.image_install and with_pip:  # as the image's build leaves it
                    if patch:
                        run(["git", "-C", str(template), "apply", str(patch)], env)
                    run([python, "-m", "pip", "install", "-q", "-e", str(template),
                         "--no-deps", "--no-build-isolation"], env, cwd=template)
                config.write_text(f'[dependencies.bench]\nrepository = "bench/bench"\n'
                                  f'path = "{baked}"\n'
                                  f'install-dir = "{"." if with_pip else ""}"\n'
                                  f'patches = {json.dumps([patch.name] if patch else [])}\n'
                                  f'fetch-filter = "{arguments.fetch_filter}"\n'
                                  f'tags = "{arguments.tag_policy}"\n'
                                  f'compile-inputs = {json.dumps(arguments.compile_inputs)}\n'
                                  f'[install]\nworkspace-install = false\n')
            else:
                template, heads = build_world(root, env, url)
                cases = CASES
                config.write_text(f'[dependencies.bench]\nrepository = "bench/bench"\n'
                                  f'path = "{baked}"\ninstall-dir = "."\n'
                                  f'fetch-filter = "{arguments.fetch_filter}"\n'
                                  f'[install]\nworkspace-install = false\n'
                                  f'pip-args = ["--no-build-isolation"]\n')
            tool_env = dict(env)
            if arguments.tool_index_closed:
                with socket.socket() as probe:  # nothing listens there once it is closed
                    probe.bind(("127.0.0.1", 0))
                    tool_env["PIP_INDEX_URL"] = (f"http://127.0.0.1:{probe.getsockname()[1]}"
                                                 f"/simple")
                tool_env["PIP_RETRIES"] = "0"
            for case, ref in cases.items():
                sha = heads[case] if arguments.pinned else None
                overrides = json.dumps({"bench": {"ref": ref, "sha": sha}})
                command = [str(tool), "install", "--config", str(config), "--overrides",
                           overrides, "--python", python, "--workspace", str(root)]
                samples: dict[str, list[float]] = {kind: [] for kind in kinds}
                phases: dict[str, list[float]] = {}
                received: dict[str, list[int]] = {kind: [] for kind in kinds}
                versions: dict[str, str] = {}
                reruns: list[str] = []  # each re-run's state and local changes, as it says
                for _ in range(arguments.runs):
                    for kind in ("inline", "first"):
                        shutil.rmtree(baked, ignore_errors=True)
                        shutil.copytree(template, baked, symlinks=True)  # cold index
                        before = proxy.bytes_to_client
                        script = (INLINE_REAL_PIP if with_pip else INLINE_REAL) if real else INLINE
                        samples[kind].append(timed(["bash", "-c", script], {
                            **env, "BAKED": str(baked), "REF": ref, "TARGET_PYTHON": python,
                            "PATCH": str(patch) if real and patch else ""})
                            if kind == "inline" else timed_install(command, tool_env, phases))
                        received[kind].append(proxy.bytes_to_client - before)
                        versions[kind] = (patched_commit(baked, patch, env)
                                          if real else run([python, "-c", VERSION], env))
                    before = proxy.bytes_to_client
                    samples["rerun"].append(timed_install(command, tool_env, {}, reruns))
                    received["rerun"].append(proxy.bytes_to_client - before)
                inline = statistics.median(samples["inline"])
                results[case] = {
                    kind: {"median_s": round(statistics.median(samples[kind]), 3),
                           "bytes_received": int(statistics.median(received[kind])),
                           "ratio_to_inline": round(statistics.median(samples[kind]) / inline,
                                                    3),
                           "version": versions.get(kind, versions["first"])}
                    for kind in kinds}
                results[case]["reruns_said"] = reruns
                results[case]["first_run_phases_s"] = {
                    phase: round(statistics.median(values), 3) for phase, values in phases.items()}
                results[case]["oracle"] = {"version": (f"{heads[case]}{' patched' if patch else ''}") if real
                                           else oracle_version(root / "origins" / "bench",
                                                               heads[case], python, root, env)}
    if arguments.json:
        print(json.dumps(results, indent=2))
        return 0
    labels = {"inline": "(a) inline bash", "first": "(b) rocm-deps install, first run",
              "rerun": "(c) rocm-deps install, re-run"}
    world = (f"origin: {arguments.origin.name} {arguments.branch}, baked clone "
             f"{arguments.behind} first-parent commits behind, patch "
             f"{arguments.patch.name if arguments.patch else 'none'}, "
             f"{'pip install -e (' + Path(arguments.pip_python).name + ')' if with_pip else 'no pip'}"
             if real else
             f"origin: {COMMITS} commits, {FILES} files, a release every {RELEASE_EVERY}; baked "
             f"clone complete, {BEHIND} behind")
    print(f"{world}; fetch-filter {arguments.fetch_filter!r}; tags {arguments.tag_policy!r}"
          f"{f' ({arguments.tags} in the origin)' if real else ''}"
          f"{'; the tool with PIP_INDEX_URL at a closed port' if arguments.tool_index_closed else ''}"
          f"; fresh copy (cold index) per run; "
          f"median of "
          f"{arguments.runs} runs; overrides "
          f"{'pinned to the SHA' if arguments.pinned else 'by ref only (no token)'}")
    print("| PR | run | median | bytes received | vs (a) | version installed |")
    print("|---|---|---|---|---|---|")
    for case, rows in results.items():
        for kind in kinds:
            row = rows[kind]
            print(f"| {case} | {labels[kind]} | {row['median_s']:.2f} s | "
                  f"{row['bytes_received']:,} | {row['ratio_to_inline']}x | {row['version']} |")
        print(f"| {case} | fresh full clone at that commit | | | | {rows['oracle']['version']} |")
    for case, rows in results.items():
        print(f"{case}, each (c) as its report says it: {'; '.join(rows['reruns_said'])}")
        print(f"{case}, phases of (b) as its report gives them (medians): " + ", ".join(
            f"{phase} {seconds:.2f} s" for phase, seconds in rows["first_run_phases_s"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
