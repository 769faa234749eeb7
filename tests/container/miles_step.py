"""Miles' ROCm install step and what examples/miles/migrate.py makes of it, run in a container
shaped like the MI350 image: for the container test and its benchmark.

One image state, two runs. The sandbox's complete clones are mounted where the image keeps
them, the Miles workspace (with `docker/amd_patch/latest/megatron.patch`) at
$GITHUB_WORKSPACE, and the container's own python3 gets the image's editable installs first.
Then either Miles' bash runs, as `_run-ci-rocm.yml` at radixark/miles 31f1ca9 has it (the
synthetic tree carries the step verbatim), or the steps the migration writes: the toolchain
step, `rocm-deps install` fed by resolve's `overrides`, and the packages step. The job's
other branch, *Install (miles only)* when nothing is named, runs on both sides alike. Each
side reports its exit status and the state it left: the clones' commits, the patch, and
where python3 imports every package from.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rocm_deps.demo import sandbox, world
from rocm_deps.demo.package import BUILD_REQUIREMENTS
from tests.container.podman import ROOT, podman

TREE = ROOT / "tests" / "examples" / "miles_tree"
ACTION = "your-org/rocm-deps@0123456789abcdef0123456789abcdef01234567"
# What the suite's packages step installs; tiny local wheels stand in for them offline.
EXTRAS = {"polars": "1.0", "zstandard": "0.23", "xxhash": "3.5", "blake3": "1.0",
          "numba": "0.65.1"}
MODULES = ("sglang", "megatron", "miles", *EXTRAS)
SGLANG, MEGATRON, WORKSPACE = "/sgl-workspace/sglang", "/root/Megatron-LM", "/workspace"


def _migrate_module() -> ModuleType:
    if "miles_migrate" in sys.modules:
        return sys.modules["miles_migrate"]
    spec = importlib.util.spec_from_file_location(
        "miles_migrate", ROOT / "examples" / "miles" / "migrate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["miles_migrate"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _script(migrate: ModuleType, text: str, name: str) -> str:
    """The `run: |` script of step `name` of job `run`."""
    lines = text.split("\n")
    step = migrate.find_step(lines, "run", name)
    block = lines[step.start:step.end]
    start = block.index(" " * (step.indent + 2) + "run: |") + 1
    return "\n".join(line[step.indent + 4:] for line in block[start:]) + "\n"


@dataclass(frozen=True)
class Steps:
    """The job's install steps, before and after the migration."""

    bash: str  # Miles' *Install dependencies*
    miles_only: str  # *Install (miles only)*, unchanged by the migration
    toolchain: str  # the migration's step before install
    packages: str  # the migration's step after install


def steps(scratch: Path) -> Steps:
    migrate = _migrate_module()
    original = (TREE / ".github/workflows/_run-ci-rocm.yml").read_text(encoding="utf-8")
    tree = scratch / "miles"
    shutil.copytree(TREE, tree)
    with contextlib.redirect_stdout(io.StringIO()):  # where each command went: its own test
        assert migrate.main([str(tree), "--action", ACTION]) == 0
    migrated = (tree / ".github/workflows/_run-ci-rocm.yml").read_text(encoding="utf-8")
    install = "\n".join(migrated.split("\n")[migrate.find_step(
        migrated.split("\n"), "run", "Install dependencies").start:][:14])
    # The install step as the migration writes it: what the container runs for it below.
    assert "command: install" in install and "overrides: ${{ steps.rocm-deps.outputs." \
        "overrides }}" in install
    return Steps(_script(migrate, original, "Install dependencies"),
                 _script(migrate, original, "Install (miles only)"),
                 _script(migrate, migrated, "Set up the toolchain"),
                 _script(migrate, migrated, "Install the suite's Python packages"))


def tiny_wheel(directory: Path, name: str, version: str) -> None:
    """A real wheel of a one-module package."""
    dist_info = f"{name}-{version}.dist-info"
    files = {f"{name}.py": f"VERSION = {version!r}\n",
             f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tiny\nRoot-Is-Purelib: true\n"
                                   "Tag: py3-none-any\n"}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(directory / f"{name}-{version}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


def wheelhouse(directory: Path) -> Path:
    """The packages the steps install, offline: the suite's (tiny stand-ins) and the build
    requirement of a package versioned from git (setuptools-scm, from the package index)."""
    if (directory / ".complete").exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    for name, version in EXTRAS.items():
        tiny_wheel(directory, name, version)
    # pip's isolated build environment installs setuptools-scm with its own dependencies,
    # for the base image's python3 (Debian bookworm's 3.11).
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
                    "--python-version", "3.11", "--dest", str(directory),
                    *BUILD_REQUIREMENTS], check=True)
    (directory / ".complete").write_text("")
    return directory


def toolchain_stubs(directory: Path) -> Path:
    """The image's Rust and protobuf compilers, as far as the toolchain step asks them."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, said in (("rustc", "rustc 1.91.0 (stub)"), ("protoc", "libprotoc 3.21.12")):
        (directory / name).write_text(f"#!/bin/sh\necho '{said}'\n")
        (directory / name).chmod(0o755)
    return directory


def already_patched(box: sandbox.Sandbox) -> str:
    """Pull request 205 of Megatron-LM: main with the ROCm patch already committed."""
    origin = box.origins["megatron"]
    work = box.root / "patched-work"
    subprocess.run(["git", "clone", "-q", str(origin), str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "apply", str(box.workspace / world.PATCH_LABEL)],
                   check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qam", "megatron: the ROCm device settings upstream"],
                   check=True)
    head = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "-C", str(work), "push", "-q", "origin",
                    f"{head}:refs/pull/205/head"], check=True)
    return head


# The side's script: the image state, then the job's install steps as a runner runs them
# (`bash -eo pipefail`, a failed step stops the job), then the state it left.
STATE = r"""
import importlib.util, json, subprocess, sys
def head(path):
    return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
patch = "/workspace/docker/amd_patch/latest/megatron.patch"
def applied(check):
    return subprocess.run(["git", "-C", "/root/Megatron-LM", "apply", *check, patch],
                          capture_output=True).returncode == 0
state = {"exit": int(sys.argv[1]), "sglang": head("/sgl-workspace/sglang"),
         "megatron": head("/root/Megatron-LM"),
         "patch": "applied" if applied(["--check", "--reverse"]) else
                  "applies" if applied(["--check"]) else "neither",
         "imports": {}}
for name in sys.argv[2:]:
    spec = importlib.util.find_spec(name)
    state["imports"][name] = spec.origin if spec else None
print(json.dumps(state))
"""


def side_script(steps: Steps, migrated: bool, skip: bool, refs: dict[str, str]) -> str:
    if skip:
        job = [steps.miles_only]
    elif migrated:
        job = [steps.toolchain, 'rocm-deps install --overrides "$OVERRIDES"\n', steps.packages]
    else:
        job = [steps.bash]
    run = "".join(
        f"if [ $code = 0 ]; then bash --noprofile --norc -eo pipefail <<'STEP_{index}'\n"
        f"{script}STEP_{index}\ncode=$?; fi\n" for index, script in enumerate(job))
    exports = "".join(f"export {name}={value}\n" for name, value in refs.items())
    return (
        "set -u\n" + exports +
        # The image: its python3 holds both clones and nothing of the suite, editable.
        f"pip install -q --break-system-packages --no-deps -e {SGLANG}/python -e {MEGATRON} "
        ">/dev/null\n"
        "start=$(date +%s.%N); code=0\n" + run +
        "end=$(date +%s.%N)\n"
        "echo \"$start $end\" > /io/seconds\n"
        f"python3 -c {shlex_quote(STATE)} $code {' '.join(MODULES)} > /io/state.json\n")


def shlex_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def run_side(image: str, box: sandbox.Sandbox, out: Path, stubs: Path, wheels: Path,
             script: str, overrides: str) -> tuple[dict[str, Any], float]:
    """One side in a fresh container over `box`: the state it left and its steps' seconds."""
    out.mkdir(parents=True, exist_ok=True)
    result = podman(
        "run", "--rm", "--network", "none", "--user", "0", "--workdir", WORKSPACE,
        "--volume", f"{box.baked['sglang']}:{SGLANG}",
        "--volume", f"{box.baked['megatron']}:{MEGATRON}",
        # The clones' remote is the origin's host path: mount it there.
        "--volume", f"{box.root / 'origins'}:{box.root / 'origins'}:ro",
        "--volume", f"{box.workspace}:{WORKSPACE}", "--volume", f"{out}:/io",
        "--volume", f"{stubs}:/opt/stubs:ro", "--volume", f"{wheels}:/wheels:ro",
        "--env", f"GITHUB_WORKSPACE={WORKSPACE}", "--env", "PIP_NO_INDEX=1",
        "--env", "PIP_FIND_LINKS=/wheels", "--env", "PIP_DISABLE_PIP_VERSION_CHECK=1",
        "--env", "PATH=/opt/stubs:/usr/local/bin:/usr/bin:/bin",
        "--env", f"OVERRIDES={overrides}", "--entrypoint", "/bin/bash", image, "-c", script)
    (out / "log").write_text(result.stdout + result.stderr)
    assert (out / "state.json").is_file(), result.stdout[-3000:] + result.stderr[-3000:]
    start, end = (out / "seconds").read_text().split()
    return json.loads((out / "state.json").read_text()), float(end) - float(start)


def overrides_for(body: str, scratch: Path) -> str:
    """What resolve writes for `body` with Miles' built-in profile (no token: refs)."""
    path = scratch / "body.md"
    path.write_text(body)
    result = subprocess.run([sys.executable, "-m", "rocm_deps", "resolve", "--body-file",
                             str(path), "--format", "json"], capture_output=True, text=True,
                            cwd=scratch, check=True)
    return json.dumps(json.loads(result.stdout)["overrides"])


def old_refs(body: str) -> dict[str, str]:
    """What Miles' own refs step wrote for `body` (its first `ci-<name>-pr:` value, `#N` as
    `refs/pull/N/head`): the bash side's SGLANG_PR and MEGATRON_PR."""
    refs = {"SGLANG_PR": "", "MEGATRON_PR": ""}
    for line in body.splitlines():
        for name in ("sglang", "megatron"):
            if line.startswith(f"ci-{name}-pr: ") and not refs[f"{name.upper()}_PR"]:
                value = line.split(": ", 1)[1].strip()
                refs[f"{name.upper()}_PR"] = (f"refs/pull/{value[1:]}/head"
                                              if value.startswith("#") else value)
    return refs
