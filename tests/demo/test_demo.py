"""The README's first quick-start command: `rocm-deps demo`.

It runs in-process here (so its lines count for coverage); the resolve and install steps it
drives are real child processes of the command line, as in a workflow.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rocm_deps.cli import main
from rocm_deps.contract.overrides import CONFIG_KEY
from rocm_deps.demo import world


def run_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str],
             *arguments: str) -> tuple[int, str, tuple[dict[str, Any], dict[str, Any]]]:
    code = main(["demo", "--format", "json", *arguments], {**os.environ, "TMPDIR": str(tmp_path)})
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # one document, both reports inside
    assert list(document) == ["resolve", "install"]
    return code, captured.err, (document["resolve"], document["install"])


def test_demo_shows_the_real_worlds_effects_and_cleans_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, log, (resolved, installed) = run_demo(tmp_path, capsys)
    assert code == 0, log[-3000:]
    assert {name: o["ref"] for name, o in resolved["overrides"].items() if name != CONFIG_KEY} == {
        "sglang": "refs/pull/101/head", "megatron": "refs/pull/203/head"}
    sglang, megatron = installed["dependencies"]["sglang"], installed["dependencies"]["megatron"]
    # It ends saying what happened, from the two reports, and what to do next.
    closing = log[log.index("--- what happened ---"):].splitlines()
    assert closing[1:4] == [
        "resolve: applied sglang #101 → refs/pull/101/head; megatron #203 → refs/pull/203/head",
        f"install: sglang: installed at {sglang['sha'][:9]}, version {sglang['version']}, 3 of "
        f"the image's edits reset",
        f"install: megatron: installed at {megatron['sha'][:9]}, version {megatron['version']}, "
        f"{world.PATCH_LABEL} applied, 1 of the image's edits reset"]
    assert "exit code 0: a workflow step would pass" in closing
    assert closing[closing.index("--- next ---") + 2].endswith("rocm-deps config")
    # The version comes from git: one commit past the v0.3.0 tag, at the PR's commit (dirty:
    # SGLang's recipe swapped the pyproject, as the image did).
    assert re.fullmatch(rf"0\.3\.1\.dev1\+g{sglang['sha'][:9]}\.d[0-9]{{8}}",
                        sglang["version"]), sglang["version"]
    assert sglang["image_commit"] != sglang["sha"]
    assert sglang["local_changes"]["discarded"] == {
        "modified": {"count": 1, "names": ["python/pyproject.toml"]},
        "deleted": {"count": 1, "names": ["python/pyproject_other.toml"]},
        "untracked": {"count": 1, "names": [world.IMAGE_CONFIG_FILE]}}
    assert sglang["rebuild"] == {"count": 1, "files": [world.KERNEL_SOURCE]}
    assert ("sglang: recipe sglang-rocm: python/pyproject_other.toml replaces "
            "python/pyproject.toml (as the image's build did)") in log
    # Megatron-LM: a PR off a base older than the image's, the ROCm patch applied on it.
    assert (megatron["state"], megatron["version"]) == ("installed", "0.2.1.dev203")
    assert megatron["patches"]["docker/amd_patch/latest/megatron.patch"]["state"] == "applied"
    assert installed["workspace"] == "installed"  # the default, workspace-install = true
    # The job summaries, printed as GitHub would render them.
    assert "### rocm-deps resolve" in log and "### rocm-deps install" in log
    assert "#### sglang: compiled parts not rebuilt" in log
    assert "sglang: the reset before checkout discards local changes in " in log
    sandbox_root = re.search(r"building the sandbox in (\S+)", log)
    assert sandbox_root is not None and Path(sandbox_root.group(1)).parent == tmp_path
    root = sandbox_root.group(1)
    # Every command it runs, as a user would type it: this tool by the name a user has for it.
    programs = {"rocm-deps", str(Path(sys.executable).parent / "rocm-deps"),
                f"{sys.executable} -m rocm_deps"}
    resolve_line = re.search(rf"^\$ GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="
                             rf"{re.escape(root)}/event.json (?P<program>.+) resolve --config "
                             rf"{re.escape(root)}/demo.toml$", log, re.MULTILINE)
    install_line = re.search(rf"^\$ (?P<program>.+) install --config {re.escape(root)}/demo.toml "
                             rf"--overrides-file {re.escape(root)}/overrides.json --workspace "
                             rf"{re.escape(root)}/workspace --python {re.escape(root)}/venv/bin/"
                             rf"python$", log, re.MULTILINE)
    assert resolve_line is not None and install_line is not None, log[-3000:]
    assert resolve_line.group("program") == install_line.group("program")
    assert resolve_line.group("program") in programs
    assert "the Markdown written to $GITHUB_STEP_SUMMARY" in log
    assert list(tmp_path.iterdir()) == []  # removed afterwards


def test_the_command_demo_keep_prints_reruns_install_in_the_kept_sandbox(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, log, (_, installed) = run_demo(tmp_path, capsys, "--keep")
    assert code == 0, log[-3000:]
    lines = log.splitlines()
    printed = lines[lines.index(next(line for line in lines
                                     if line.startswith("sandbox kept in "))) + 1]
    command = shlex.split(printed)
    assert "install" in command and "--overrides-file" in command
    # The printed line itself, run as it stands (`rocm-deps` found on PATH, as for a user).
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    again = subprocess.run([*command, "--format", "json"], capture_output=True, text=True,
                           timeout=300, env={**os.environ, "PATH": path, "GITHUB_OUTPUT": "",
                                             "GITHUB_STEP_SUMMARY": ""})
    assert again.returncode == 0, again.stderr[-3000:]
    report = json.loads(again.stdout)
    assert {name: dep["state"] for name, dep in report["dependencies"].items()} == {
        "sglang": "up-to-date", "megatron": "up-to-date", "megatron-bridge": "absent"}
    assert {name: dep["sha"] for name, dep in report["dependencies"].items()} == {
        name: dep["sha"] for name, dep in installed["dependencies"].items()}


def test_demo_missing_target_scenario_fails_with_the_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, log, (resolved, installed) = run_demo(tmp_path, capsys, "--scenario", "missing-target")
    assert code == 1
    assert list(resolved["overrides"]) == ["megatron", CONFIG_KEY]
    megatron = installed["dependencies"]["megatron"]
    assert (megatron["state"], megatron["failed_step"]) == ("failed", "patch")
    assert megatron["patches"]["docker/amd_patch/latest/megatron.patch"]["state"] == (
        "missing-target")
    assert (f"it modifies {world.ROCM_TARGET}, which does not exist at this commit"
            in megatron["error"])
    assert 'set `dependencies.megatron.on-missing-target = "skip"`' in megatron["error"]
    assert installed["workspace"] == "skipped (a dependency failed)"
    assert "install: megatron: failed at step patch: patch docker/amd_patch" in log
    assert ("exit code 1: a workflow step would fail, as it must when the named commit cannot "
            "be tested exactly") in log
    assert "| megatron | body | `refs/pull/204/head` → `" in log
    assert "`megatron.patch: missing-target` |  | failed at patch |" in log
    # The text report gives the error's whole first line (it was cut at 300 characters).
    assert "Update or drop )" not in log
    assert megatron["error"].split("\n", 1)[0] in log


def test_demo_command_line_as_a_process() -> None:
    result = subprocess.run([sys.executable, "-m", "rocm_deps", "demo", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--keep" in result.stdout
    assert "json prints the report on stdout" in result.stdout  # --format has its help
    assert "missing-target: a Megatron-LM pull request deleted the file" in " ".join(
        result.stdout.split())
