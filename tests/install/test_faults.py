"""install killed with SIGKILL at random points of every phase, then run again: the clone,
the patch and the installed package always end as asked (seeded, so reproducible)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocm_deps.demo import world
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import MEGATRON_MAIN, MEGATRON_PR, git, installed_version, overrides

pytestmark = pytest.mark.faults

# Where to strike: the first echoed command of each phase (architecture §6 steps 3, 4, 5, 7, 9).
PHASES = {"clean": " reset --hard HEAD", "fetch": " fetch --no-recurse-submodules ",
          "checkout": " checkout -f --detach ", "patch": " apply --check ",
          "pip": " -m pip install -e "}
KILLS_PER_PHASE = 4
SEED = 20261130


def install_argv(box: Sandbox, ref: str) -> list[str]:
    return [sys.executable, "-m", "rocm_deps", "install", "--config", str(box.config),
            "--overrides", overrides(megatron=ref), "--workspace", str(box.workspace),
            "--python", box.python, "--format", "json"]


def kill_during(argv: list[str], marker: str, delay: float, cwd: Path) -> str:
    """Start install, SIGKILL it `delay` seconds after it echoes `marker`; its stderr. The
    install must have died of the kill, not finished first."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, cwd=cwd, start_new_session=True)
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if line.startswith("+ ") and marker in line:
            time.sleep(delay)
            os.killpg(process.pid, signal.SIGKILL)  # the tool and whatever it runs
            break
    assert process.wait(timeout=60) == -signal.SIGKILL, "".join(seen)[-3000:]
    return "".join(seen)


def test_sigkill_at_random_points_then_rerun_ends_right(box: Sandbox, tmp_path: Path) -> None:
    rng = random.Random(SEED)  # noqa: S311 - reproducible choices, not secrets
    targets = {"refs/heads/main": (box.commits["megatron"]["main"], MEGATRON_MAIN),
               "refs/pull/202/head": (box.commits["megatron"]["pr"], MEGATRON_PR)}
    refs = list(targets)
    plan = [(phase, rng.uniform(0.0, 0.08)) for phase in PHASES
            for _ in range(KILLS_PER_PHASE)]
    rng.shuffle(plan)
    killed_in = []
    for index, (phase, delay) in enumerate(plan):
        ref = refs[index % 2]  # alternate, so every run has work to do
        stderr = kill_during(install_argv(box, ref), PHASES[phase], delay, tmp_path)
        killed_in.append(phase if PHASES[phase] in stderr else "before")
        rerun = subprocess.run(install_argv(box, ref), capture_output=True, text=True,
                               cwd=tmp_path, timeout=300)
        assert rerun.returncode == 0, (phase, delay, rerun.stderr[-3000:])
        report = json.loads(rerun.stdout)["dependencies"]["megatron"]
        sha, version = targets[ref]
        assert report["state"] in ("installed", "up-to-date"), (phase, report)
        assert report["sha"] == sha
        assert {name: value["state"] for name, value in report["patches"].items()} == {
            world.PATCH_LABEL: "applied"}
        assert git(box.baked["megatron"], "rev-parse", "HEAD") == sha
        assert git(box.baked["megatron"], "status", "--porcelain") == f"M {world.ROCM_TARGET}"
        assert installed_version(box, "megatron-core") == version
    assert killed_in.count("before") == 0
    assert {phase: killed_in.count(phase) for phase in PHASES} == {
        phase: KILLS_PER_PHASE for phase in PHASES}


REPLAY_LABEL = "the image's local changes"


def test_sigkill_during_a_replay_then_rerun_ends_right(box: Sandbox, tmp_path: Path) -> None:
    """With `local-changes = "reapply"`, killed while the image's edits are probed and
    replayed (they are the ROCm patch again: already present once the patch is applied)."""
    box.config.write_text(box.config.read_text().replace(
        "[dependencies.megatron]\n", '[dependencies.megatron]\nlocal-changes = "reapply"\n'))
    rng = random.Random(SEED + 1)  # noqa: S311 - reproducible choices, not secrets
    for kill in range(KILLS_PER_PHASE):
        ref = ("refs/pull/202/head", "refs/heads/main")[kill % 2]
        stderr = kill_during(install_argv(box, ref), "rocm-deps-image-changes.patch",
                             rng.uniform(0.0, 0.05), tmp_path)
        assert "rocm-deps-image-changes.patch" in stderr  # killed in the replay, not before
        rerun = subprocess.run(install_argv(box, ref), capture_output=True, text=True,
                               cwd=tmp_path, timeout=300)
        assert rerun.returncode == 0, (kill, rerun.stderr[-3000:])
        report = json.loads(rerun.stdout)["dependencies"]["megatron"]
        sha = box.commits["megatron"]["pr" if ref.startswith("refs/pull") else "main"]
        assert report["sha"] == sha
        assert {name: value["state"] for name, value in report["patches"].items()} == {
            world.PATCH_LABEL: "applied", REPLAY_LABEL: "already-present"}
        assert report["local_changes"]["replayed"] == "already-present"
        assert git(box.baked["megatron"], "status", "--porcelain") == f"M {world.ROCM_TARGET}"
        assert installed_version(box, "megatron-core") == (
            MEGATRON_PR if ref.startswith("refs/pull") else MEGATRON_MAIN)
