"""`rocm-deps install` on real repositories, real patches and a real target virtualenv."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from rocm_deps.demo import sandbox, world
from rocm_deps.demo.package import write_package
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import (
    MEGATRON_BAKED,
    MEGATRON_MAIN,
    MEGATRON_PR,
    Cli,
    CliResult,
    EventWriter,
    add_pull_request,
    git,
    installed_version,
    overrides,
    quiet_runner,
    scm_version,
    snapshot,
)
from tests.install.test_lock import holder as hold_lock

ROCM = world.ROCM_TARGET
ORIGINAL = world.ROCM_MODULE
# Every tag of the remote comes with the ref (tags = "all", the default), as echoed.
ALL_TAGS = "'+refs/tags/*:refs/tags/*'"
PATCHED = ORIGINAL.replace('"cuda"', '"hip"').replace("= 32", "= 64")


def install(cli: Cli, box: sandbox.Sandbox, document: str, *extra: str,
            env: Mapping[str, str] | None = None) -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", document,
               "--workspace", str(box.workspace), "--python", box.python, *extra, env=env)


def echoed(result: CliResult, subcommand: str) -> list[str]:
    return [line for line in result.stderr.splitlines()
            if line.startswith("+ git") and f" {subcommand} " in line]


def test_original_scenario_megatron_pr_with_patch_sglang_untouched(cli: Cli, box: Sandbox) -> None:
    sglang_before = snapshot(box.baked["sglang"])
    sglang_version = installed_version(box, "sglang")
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 0, result.stderr
    megatron = box.baked["megatron"]
    assert git(megatron, "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    assert (megatron / ROCM).read_text() == PATCHED
    assert installed_version(box, "megatron-core") == MEGATRON_PR
    assert sandbox.installed_versions(box, quiet_runner(), dict(os.environ))["megatron"] == (
        MEGATRON_PR)
    # The unnamed dependency: same HEAD, index, files and installed version.
    assert snapshot(box.baked["sglang"]) == sglang_before
    assert installed_version(box, "sglang") == sglang_version
    assert not any(str(box.baked["sglang"]) in line for line in result.stderr.splitlines())
    # Outputs.
    assert result.outputs["megatron_sha"] == box.commits["megatron"]["pr"]
    assert result.outputs["sglang_sha"] == ""
    assert json.loads(result.outputs["patches"]) == {
        "megatron": {"docker/amd_patch/latest/megatron.patch": "applied"}}
    report = json.loads(result.outputs["report"])
    assert report["dependencies"]["megatron"]["state"] == "installed"
    assert report["dependencies"]["megatron"]["fetch_attempts"] == 1
    assert set(report["dependencies"]["megatron"]["seconds"]) == {
        "clean", "fetch", "checkout", "patch", "prepare", "pip"}
    assert (f"| megatron | body | `refs/pull/202/head` → `{box.commits['megatron']['pr'][:12]}` "
            f"| `megatron.patch: applied` | `{MEGATRON_PR}` | installed |") in result.summary
    assert "megatron.patch: applied" in result.summary
    # Each phase is a group, every command is echoed before it runs, refs after `--`.
    assert "::group::megatron: refs/pull/202/head → refs/pull/202/head" in result.stderr
    [fetch, contents] = echoed(result, "fetch")
    # A complete clone stays complete: no --depth, and the remote's tags come along.
    # Megatron-LM's default is a blob-less fetch: whole history, file contents only for the
    # new commit, fetched by a retried command before checkout rather than lazily inside it.
    assert fetch.endswith("fetch --no-recurse-submodules --filter=blob:none origin -- "
                          f"+refs/pull/202/head:refs/rocm-deps/fetched {ALL_TAGS}")
    assert contents.endswith("fetch --no-tags --no-write-fetch-head --recurse-submodules=no "
                             "--filter=blob:none --stdin origin")
    assert git(megatron, "config", "remote.origin.promisor") == "true"
    assert not (megatron / ".git" / "shallow").exists()


def test_pinned_sha_is_fetched_by_sha_and_verified(cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    pr = box.commits["sglang"]["pr"]
    result = install(cli, box, overrides(sglang=("refs/pull/101/head", pr)))
    assert result.code == 0, result.stderr
    assert echoed(result, "fetch")[0].endswith(
        f"origin -- +{pr}:refs/rocm-deps/fetched {ALL_TAGS}")
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == pr
    assert installed_version(box, "sglang") == scm_version(box, "sglang", pr, tmp_path)


def test_rerun_is_up_to_date_and_fetches_nothing(cli: Cli, box: Sandbox) -> None:
    document = overrides(megatron="refs/pull/202/head")
    assert install(cli, box, document).code == 0
    before = snapshot(box.baked["megatron"])
    again = install(cli, box, document)
    assert again.code == 0, again.stderr
    assert echoed(again, "fetch") == [] and echoed(again, "reset") == []
    assert "python -m pip" not in again.stderr
    report = json.loads(again.outputs["report"])
    assert report["dependencies"]["megatron"]["state"] == "up-to-date"
    assert report["dependencies"]["megatron"]["patches"][
        "docker/amd_patch/latest/megatron.patch"]["state"] == "applied"
    assert again.outputs["megatron_sha"] == box.commits["megatron"]["pr"]
    assert snapshot(box.baked["megatron"]) == before


def test_a_clone_shadowed_by_another_copy_is_not_up_to_date_and_fails_naming_it(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    """The clone is at the wanted commit, but a `.pth` file an earlier job left puts another
    `megatron` first on sys.path: the interpreter does not import the clone."""
    from tests.install.test_git_package import shadow

    document = overrides(megatron="refs/pull/202/head")
    assert install(cli, box, document).code == 0
    copy = shadow(box, tmp_path, {"megatron/__init__.py": "LAYERS = 999\n"})
    again = install(cli, box, document)
    assert again.code == 1
    report = json.loads(again.outputs["report"])["dependencies"]["megatron"]
    assert report["state"] == "failed"
    clone = box.baked["megatron"]
    assert (f"megatron: the clone is at the wanted commit, but {box.python} imports `megatron` "
            f"from {copy / 'megatron' / '__init__.py'}: installing it again") in again.stderr
    assert (f"pip installed megatron editable from {clone}, but {box.python} imports "
            f"`megatron` from {copy / 'megatron' / '__init__.py'}: a `.pth` file or an earlier "
            f"entry of sys.path wins over the install") in report["error"]


def test_rerun_after_ref_moved_or_tree_edited_reinstalls(cli: Cli, box: Sandbox) -> None:
    document = overrides(megatron="refs/pull/202/head")
    assert install(cli, box, document).code == 0
    (box.baked["megatron"] / "megatron" / "__init__.py").write_text('__version__ = "9.9"\n')
    edited = install(cli, box, document)
    assert json.loads(edited.outputs["report"])["dependencies"]["megatron"]["state"] == "installed"
    moved = add_pull_request(box, "megatron", 202, {"megatron/version.py": '__version__ = "0.4.0"\n'})
    again = install(cli, box, document)
    assert json.loads(again.outputs["report"])["dependencies"]["megatron"]["state"] == "installed"
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == moved
    assert installed_version(box, "megatron-core") == "0.4.0"


def test_dry_run_changes_nothing_and_prints_the_plan(cli: Cli, box: Sandbox) -> None:
    before = {name: snapshot(path) for name, path in box.baked.items()}
    result = install(cli, box, overrides(megatron="refs/pull/202/head", sglang="main"),
                     "--dry-run")
    assert result.code == 0, result.stderr
    assert {name: snapshot(path) for name, path in box.baked.items()} == before
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED
    megatron = str(box.baked["megatron"])
    plan = [line for line in result.stderr.splitlines()
            if line.startswith("[dry-run] + ") and megatron in line]
    order = ["reset --hard HEAD", "clean -fd", "fetch", "checkout -f --detach", "apply --check",
             "-m pip install -e"]
    positions = [next(i for i, line in enumerate(plan) if step in line) for step in order]
    assert positions == sorted(positions)
    report = json.loads(result.outputs["report"])
    assert report["dry_run"] is True
    assert {dep["state"] for dep in report["dependencies"].values()} == {"planned", "absent"}  # no Megatron-Bridge in the sandbox


@pytest.mark.parametrize(("files", "state"), [
    ({ROCM: PATCHED}, "already-present"),
], ids=["patch-committed-upstream"])
def test_patch_already_present(cli: Cli, box: Sandbox, files: dict[str, str], state: str) -> None:
    add_pull_request(box, "megatron", 300, files)
    result = install(cli, box, overrides(megatron="refs/pull/300/head"))
    assert result.code == 0, result.stderr
    assert json.loads(result.outputs["patches"])["megatron"] == {
        "docker/amd_patch/latest/megatron.patch": state}
    assert git(box.baked["megatron"], "status", "--porcelain") == ""


def test_patch_missing_target_fails_and_names_the_file(cli: Cli, box: Sandbox) -> None:
    add_pull_request(box, "megatron", 301, {ROCM: None})
    result = install(cli, box, overrides(megatron="refs/pull/301/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"]) == ("failed", "patch")
    assert report["patches"]["docker/amd_patch/latest/megatron.patch"]["state"] == "missing-target"
    assert f"it modifies {ROCM}, which does not exist at this commit" in result.stderr
    assert 'or set `dependencies.megatron.on-missing-target = "skip"`' in result.stderr
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED  # pip never ran


def test_patch_missing_target_can_be_skipped(cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    add_pull_request(box, "megatron", 302, {ROCM: None})
    box.config.write_text(box.config.read_text().replace(
        "[dependencies.megatron]\n", '[dependencies.megatron]\non-missing-target = "skip"\n'))
    result = install(cli, box, overrides(megatron="refs/pull/302/head"))
    assert result.code == 0, result.stderr
    assert json.loads(result.outputs["patches"])["megatron"] == {
        "docker/amd_patch/latest/megatron.patch": "missing-target"}
    assert "tolerated: on-missing-target = skip" in result.stderr
    assert installed_version(box, "megatron-core") == MEGATRON_MAIN


def test_patch_ambiguous_fails(cli: Cli, box: Sandbox) -> None:
    both = ORIGINAL + PATCHED  # the pre-image and the post-image both occur
    add_pull_request(box, "megatron", 303, {ROCM: both})
    result = install(cli, box, overrides(megatron="refs/pull/303/head"))
    assert result.code == 1
    assert json.loads(result.outputs["patches"])["megatron"] == {
        "docker/amd_patch/latest/megatron.patch": "ambiguous"}
    assert "both applies and reverse-applies" in result.stderr
    assert (box.baked["megatron"] / ROCM).read_text() == both  # nothing applied


def test_patch_incompatible_fails_closed_with_hunks_and_digest(cli: Cli, box: Sandbox) -> None:
    add_pull_request(box, "megatron", 304, {ROCM: ORIGINAL.replace('"cuda"', '"xpu"')})
    result = install(cli, box, overrides(megatron="refs/pull/304/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    patch = report["patches"]["docker/amd_patch/latest/megatron.patch"]
    assert patch["state"] == "incompatible"
    digest = patch["sha256"]
    assert len(digest) == 64 and f"sha256 {digest}" in result.stderr
    assert "neither applies nor is already present" in result.stderr
    assert f"patch failed: {ROCM}:3" in result.stderr  # the rejected hunk
    assert "while searching for:%0AThe ROCm patch switches" in result.stderr
    assert "Rejected hunks" in result.stderr
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED


def test_other_dependency_still_reported_after_a_failure(cli: Cli, box: Sandbox) -> None:
    result = install(cli, box, overrides(megatron="refs/pull/9999/head", sglang="refs/pull/101/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])
    assert report["dependencies"]["megatron"]["state"] == "failed"
    assert report["dependencies"]["sglang"]["state"] == "installed"
    assert report["workspace"] == "skipped (a dependency failed)"


@pytest.mark.parametrize(("change", "message"), [
    ("missing", "does not exist; the container image is expected to have a clone"),
    ("not-git", "is not the top of a git work tree"),
], ids=["missing-path", "not-a-repository"])
def test_bad_dependency_path(cli: Cli, box: Sandbox, tmp_path: Path, change: str, message: str) -> None:
    target = tmp_path / "elsewhere"
    if change == "not-git":
        target.mkdir()
    box.config.write_text(box.config.read_text().replace(str(box.baked["megatron"]), str(target)))
    result = install(cli, box, overrides(megatron="main"))
    assert result.code == 1
    assert message in result.stderr
    assert "dependencies.megatron.path" in result.stderr


def test_missing_patch_file_in_workspace(cli: Cli, box: Sandbox) -> None:
    (box.workspace / "docker/amd_patch/latest/megatron.patch").unlink()
    result = install(cli, box, overrides(megatron="main"))
    assert result.code == 1
    assert "patch docker/amd_patch/latest/megatron.patch not found in the workspace" in result.stderr
    # The patch is a built-in profile's choice: the message names it and the key.
    assert ("`dependencies.megatron.patches` is the built-in profile miles-rocm's (Miles' "
            "setting)") in result.stderr


def test_pip_failure_is_reported(cli: Cli, box: Sandbox) -> None:
    # The recipe puts pyproject_other.toml in place of pyproject.toml: pip reads that one.
    add_pull_request(box, "sglang", 305, {"python/pyproject_other.toml": "this is [not toml"})
    result = install(cli, box, overrides(sglang="refs/pull/305/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["sglang"]
    assert report["failed_step"] == "pip"
    assert "`pip install -e" in result.stderr and "failed with exit code" in result.stderr
    commit = git(box.baked["sglang"], "rev-parse", "HEAD")
    assert report["clone_state"] == (f"at {commit} without patches; the interpreter still "
                                     f"holds the image's build of sglang")


def test_workspace_reinstall_after_dependencies(cli: Cli, box: Sandbox) -> None:
    box.config.write_text(box.config.read_text().replace("workspace-install = false",
                                                          "workspace-install = true"))
    write_package(box.workspace, world.WORKSPACE_PACKAGE, "1.0")
    result = install(cli, box, overrides(sglang="main"))
    assert result.code == 0, result.stderr
    assert json.loads(result.outputs["report"])["workspace"] == "installed"
    assert installed_version(box, "miles") == "1.0"
    pip_lines = [line for line in result.stderr.splitlines() if "-m pip install -e" in line]
    assert pip_lines[-1].endswith(f"-m pip install -e {box.workspace} --no-deps "
                                  "--no-build-isolation")  # the config's pip-args


def test_nothing_named_is_a_no_op(cli: Cli, box: Sandbox) -> None:
    before = {name: snapshot(path) for name, path in box.baked.items()}
    result = install(cli, box, "{}")
    assert result.code == 0
    assert {name: snapshot(path) for name, path in box.baked.items()} == before
    assert "No dependency is named" in result.summary


def test_the_report_says_which_commit_the_workspace_was_checked_out_at(cli: Cli,
                                                                      box: Sandbox) -> None:
    """What a dispatch re-test's `comment` holds its `head_sha` to: the job's checkout."""
    assert json.loads(install(cli, box, "{}").outputs["report"])["workspace_commit"] is None
    git(box.workspace, "init", "-q", "-b", "main")
    git(box.workspace, "add", "-A")
    git(box.workspace, "commit", "-q", "-m", "the pull request's commit")
    head = git(box.workspace, "rev-parse", "HEAD")
    assert json.loads(install(cli, box, "{}").outputs["report"])["workspace_commit"] == head


@pytest.mark.parametrize(("document", "message"), [
    ("not json", "not valid JSON"),
    ('{"vllm": {"ref": "main"}}', "`vllm` is not a configured dependency"),
    ('{"megatron": {"ref": "--upload-pack=x"}}', "starts with '-'"),
    ('{"megatron": {"ref": "main", "sha": "abc"}}', "`sha` must be a full lowercase hex SHA"),
    ('{"megatron": "main"}', "needs an object with a string `ref`"),
], ids=["not-json", "unknown-dependency", "option-injection", "short-sha", "not-an-object"])
def test_bad_overrides_are_usage_errors(cli: Cli, box: Sandbox, document: str, message: str) -> None:
    result = install(cli, box, document)
    assert result.code == 2
    assert message in result.stderr


def test_install_without_overrides_resolves_the_event(cli: Cli, box: Sandbox, tmp_path: Path,
                                                      write_event: EventWriter) -> None:
    event = write_event("- ci-sglang-pr: #101\n")
    result = cli("install", "--config", str(box.config), "--workspace", str(box.workspace),
                 "--python", box.python, "--event-name", "pull_request", "--event-path", event)
    assert result.code == 0, result.stderr
    assert installed_version(box, "sglang") == scm_version(box, "sglang",
                                                           box.commits["sglang"]["pr"], tmp_path)
    assert "### rocm-deps resolve" in result.summary and "### rocm-deps install" in result.summary


def test_install_without_overrides_fails_on_invalid_directive(
        cli: Cli, box: Sandbox, write_event: EventWriter) -> None:
    event = write_event("ci-sglang-pr: 101\n")
    before = installed_version(box, "sglang")
    result = cli("install", "--config", str(box.config), "--workspace", str(box.workspace),
                 "--python", box.python, "--event-name", "pull_request", "--event-path", event)
    assert result.code == 1
    assert "did you mean `#101`" in result.stderr
    assert installed_version(box, "sglang") == before


def test_stale_index_lock_is_removed(cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    (box.baked["sglang"] / ".git" / "index.lock").write_text("")
    result = install(cli, box, overrides(sglang="main"))
    assert result.code == 0, result.stderr
    assert "removing stale" in result.stderr
    assert installed_version(box, "sglang") == scm_version(
        box, "sglang", box.commits["sglang"]["main"], tmp_path)


def test_submodules_are_initialised_at_the_new_commit(cli: Cli, box: Sandbox, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Local paths as submodule URLs need git's file transport, off by default since 2.38.
    for key, value in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.file.allow",
                       "GIT_CONFIG_VALUE_0": "always"}.items():
        monkeypatch.setenv(key, value)
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    (library / "kernels.txt").write_text("rocm kernels\n")
    git(library, "add", "-A")
    git(library, "commit", "-q", "-m", "library")
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "-b", "with-submodule", "main")
    git(origin, "submodule", "add", "-q", str(library), "third_party/library")
    git(origin, "commit", "-q", "-m", "add a submodule")
    git(origin, "update-ref", "refs/pull/310/head", "HEAD")
    git(origin, "checkout", "-q", "main")
    result = install(cli, box, overrides(megatron="refs/pull/310/head"))
    assert result.code == 0, result.stderr
    assert echoed(result, "submodule")[0].endswith("submodule update --init --recursive --force")
    assert (box.baked["megatron"] / "third_party" / "library" / "kernels.txt").read_text() == (
        "rocm kernels\n")


def test_overrides_file_holding_a_whole_resolve_report(cli: Cli, box: Sandbox,
                                                       tmp_path: Path) -> None:
    report = {"version": 1, "skip_dependency_install": False, "named_by": "body",
              "overrides": json.loads(overrides(megatron="refs/pull/202/head")),
              "warnings": [], "errors": []}
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    result = cli("install", "--config", str(box.config), "--overrides-file", str(path),
                 "--workspace", str(box.workspace), "--python", box.python)
    assert result.code == 0, result.stderr
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    missing = cli("install", "--config", str(box.config), "--overrides-file",
                  str(tmp_path / "absent.json"))
    assert missing.code == 2
    assert f"--overrides-file {tmp_path / 'absent.json'} does not exist" in missing.stderr


def make_workspace_package(box: Sandbox, pyproject: str | None = None) -> None:
    write_package(box.workspace, world.WORKSPACE_PACKAGE, "1.0")
    if pyproject is not None:
        (box.workspace / "pyproject.toml").write_text(pyproject)


def test_workspace_install_flag_overrides_the_config(cli: Cli, box: Sandbox) -> None:
    make_workspace_package(box)
    result = install(cli, box, overrides(sglang="main"), "--workspace-install", "TRUE")
    assert result.code == 0, result.stderr
    assert json.loads(result.outputs["report"])["workspace"] == "installed"
    assert installed_version(box, "miles") == "1.0"
    bad = install(cli, box, overrides(sglang="main"), "--workspace-install", "yes")
    assert bad.code == 2
    assert "--workspace-install has invalid value 'yes'. Expected `true` or `false`" in bad.stderr


def test_failing_workspace_install_fails_the_step(cli: Cli, box: Sandbox) -> None:
    make_workspace_package(box, pyproject="this is [not toml")
    result = install(cli, box, overrides(sglang="main"), "--workspace-install", "true")
    assert result.code == 1
    report = json.loads(result.outputs["report"])
    assert (report["workspace"], report["failed"]) == ("failed", True)
    assert report["dependencies"]["sglang"]["state"] == "installed"
    assert "::error title=rocm-deps%3A workspace install failed::`pip install -e " \
           f"{box.workspace}` for the workspace failed with exit code 2" in result.stderr


def test_head_that_is_not_the_commit_asked_for_fails_verification(cli: Cli, box: Sandbox) -> None:
    # A post-checkout hook (an image could ship one) moves HEAD after git checks out.
    hook = box.baked["megatron"] / ".git" / "hooks" / "post-checkout"
    hook.write_text('#!/bin/sh\ngit update-ref --no-deref HEAD "$1"\n')  # $1: previous HEAD
    hook.chmod(0o755)
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert report["failed_step"] == "verify"
    assert (f"HEAD is {box.commits['megatron']['baked']} after checking out "
            f"{box.commits['megatron']['pr']}; refusing to test a commit other than the one "
            f"asked for") in result.stderr
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED


@pytest.mark.parametrize("entry", ["\turl = {gone}\n", "\turl = ext::sh -c touch% {gone}\n",
                                   "\turl = {gone}\n\tupdate = !touch {gone}\n"],
                         ids=["gone", "ext-transport", "update-command"])
def test_submodule_failure_is_reported_as_its_own_step(cli: Cli, box: Sandbox,
                                                       tmp_path: Path, entry: str) -> None:
    """A submodule git refuses (a missing repository, a transport or an `update` command it
    does not allow) fails at once: only network-shaped failures are tried again."""
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "-b", "broken-submodule", "main")
    (origin / ".gitmodules").write_text(
        '[submodule "lib"]\n\tpath = lib\n' + entry.format(gone=tmp_path / "gone"))
    git(origin, "update-index", "--add", "--cacheinfo",
        f"160000,{box.commits['megatron']['baked']},lib")
    git(origin, "add", ".gitmodules")
    git(origin, "commit", "-q", "-m", "a submodule whose repository is gone")
    git(origin, "update-ref", "refs/pull/311/head", "HEAD")
    git(origin, "checkout", "-q", "main")
    result = install(cli, box, overrides(megatron="refs/pull/311/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"], report["fetch_attempts"]) == (
        "failed", "submodules", 1)
    assert "(attempt 1 of 3: a permanent failure, not retried)" in result.stderr
    assert not (tmp_path / "gone").exists()  # nothing the submodule entry names ran


def test_an_internal_error_exits_3_with_the_traceback(cli: Cli, box: Sandbox,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("rocm_deps.install.pipeline.Installer.install_one", broken)
    result = install(cli, box, overrides(megatron="main"))
    assert result.code == 3
    assert ("::error title=rocm-deps internal error::internal error in rocm-deps; this is a bug"
            in result.stderr)
    assert result.stderr.rstrip().endswith("RuntimeError: a bug")


@pytest.mark.parametrize(("number", "commit", "release"), [
    (101, "pr", "0.3.1.dev1+g"), (102, "pr_old_base", "0.2.1.dev2+g")],
    ids=["pr-after-a-release-the-image-never-saw", "pr-off-an-older-base"])
def test_git_derived_version_equals_a_fresh_full_clone(cli: Cli, box: Sandbox, tmp_path: Path,
                                                       number: int, commit: str,
                                                       release: str) -> None:
    sglang = box.baked["sglang"]
    assert git(sglang, "tag", "--list", "v0.3.0") == ""  # released after the image was built
    result = install(cli, box, overrides(sglang=f"refs/pull/{number}/head"))
    assert result.code == 0, result.stderr
    expected = scm_version(box, "sglang", box.commits["sglang"][commit], tmp_path)
    assert expected.startswith(release), expected  # the oracle itself saw the tags
    assert installed_version(box, "sglang") == expected
    assert git(sglang, "rev-parse", "--is-shallow-repository") == "false"
    assert git(sglang, "rev-parse", "v0.3.0^{commit}") == box.commits["sglang"]["main"]


def test_a_shallow_clone_stays_shallow_and_a_configured_depth_is_used(cli: Cli,
                                                                      box: Sandbox) -> None:
    megatron = box.baked["megatron"]
    git(megatron, "fetch", "-q", "--depth=1", "origin", box.commits["megatron"]["baked"])
    assert git(megatron, "rev-parse", "--is-shallow-repository") == "true"
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 0, result.stderr
    assert " fetch --no-recurse-submodules --depth=1 --filter=blob:none origin -- " in (
        echoed(result, "fetch")[0])
    box.config.write_text(box.config.read_text().replace(
        "[dependencies.sglang]\n", "[dependencies.sglang]\nfetch-depth = 5\n"))
    result = install(cli, box, overrides(sglang="main"))
    assert result.code == 0, result.stderr
    assert " fetch --no-recurse-submodules --depth=5 origin -- +main:" in (
        echoed(result, "fetch")[0])


def test_two_virtualenvs_on_one_base_interpreter_are_two_environments(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    other = sandbox.create_venv(tmp_path / "other-venv", box.python, quiet_runner(),
                                dict(os.environ))
    assert os.path.realpath(other) == os.path.realpath(box.python)  # one binary, two prefixes
    document = overrides(megatron="refs/pull/202/head")
    assert install(cli, box, document).code == 0
    second = cli("install", "--config", str(box.config), "--overrides", document,
                 "--workspace", str(box.workspace), "--python", other)
    assert second.code == 0, second.stderr
    assert json.loads(second.outputs["report"])["dependencies"]["megatron"]["state"] == (
        "installed")
    script = "import importlib.metadata as m; print(m.version('megatron-core'))"
    assert subprocess.run([other, "-c", script], capture_output=True, text=True,
                          check=True).stdout.strip() == MEGATRON_PR
    again = cli("install", "--config", str(box.config), "--overrides", document,
                "--workspace", str(box.workspace), "--python", other)
    assert json.loads(again.outputs["report"])["dependencies"]["megatron"]["state"] == (
        "up-to-date")


def test_pip_runs_isolated_from_the_workspace_and_python_variables(
        cli: Cli, box: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = 'print("HOST" + "ILE"); raise SystemExit(97)\n'
    evil = tmp_path / "evil"
    evil.mkdir()
    for directory in (box.workspace, evil):  # the pull request's files; an earlier step's path
        (directory / "json.py").write_text(marker)
        (directory / "argparse.py").write_text(marker)
    monkeypatch.chdir(box.workspace)  # the action's step runs in the workspace
    result = install(cli, box, overrides(megatron="refs/pull/202/head"), "--workspace-install",
                     "false")
    assert result.code == 0, result.stderr
    with_variables = cli("install", "--config", str(box.config), "--overrides",
                         overrides(sglang="main", megatron="refs/pull/202/head"),
                         "--workspace", str(box.workspace),
                         "--python", box.python,
                         env={"PYTHONPATH": str(evil), "PYTHONSTARTUP": str(evil / "json.py")})
    assert with_variables.code == 0, with_variables.stderr
    assert "HOSTILE" not in result.stderr + with_variables.stderr
    monkeypatch.chdir(tmp_path)  # a plain `python -c` in the workspace would run the plant
    assert installed_version(box, "megatron-core") == MEGATRON_PR


@pytest.mark.parametrize("patch", ["../../../../etc/passwd", "/etc/shadow", "linked.patch"],
                         ids=["dot-dot", "absolute", "symlink-out"])
def test_patch_paths_stay_inside_the_workspace(cli: Cli, box: Sandbox, patch: str) -> None:
    (box.workspace / "linked.patch").symlink_to("/etc/hostname")
    box.config.write_text(box.config.read_text().replace(
        "[dependencies.megatron]\n", f'[dependencies.megatron]\npatches = ["{patch}"]\n'))
    before = snapshot(box.baked["megatron"])
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 1
    assert f"patch {patch} resolves to " in result.stderr
    assert "outside the workspace" in result.stderr
    assert snapshot(box.baked["megatron"]) == before  # refused before anything changed


def test_stale_head_lock_is_removed(cli: Cli, box: Sandbox) -> None:
    (box.baked["megatron"] / ".git" / "HEAD.lock").write_text("")
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 0, result.stderr
    assert "removing stale " in result.stderr and "HEAD.lock" in result.stderr
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["pr"]


def test_a_failing_second_patch_takes_the_first_back(cli: Cli, box: Sandbox) -> None:
    second = box.workspace / "docker" / "amd_patch" / "latest" / "second.patch"
    second.write_text("\n".join([
        "diff --git a/megatron/version.py b/megatron/version.py",
        "--- a/megatron/version.py",
        "+++ b/megatron/version.py",
        "@@ -1 +1 @@",
        '-__version__ = "9.9.9"',
        '+__version__ = "9.9.9+rocm"',
        ""]))
    box.config.write_text(box.config.read_text().replace(
        "[dependencies.megatron]\n",
        '[dependencies.megatron]\npatches = ["docker/amd_patch/latest/megatron.patch", '
        '"docker/amd_patch/latest/second.patch"]\n'))
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    pr = box.commits["megatron"]["pr"]
    assert [patch["state"] for patch in report["patches"].values()] == ["applied",
                                                                        "incompatible"]
    assert report["clone_state"] == f"at {pr} without patches (1 applied by this run, reverted)"
    assert (box.baked["megatron"] / ROCM).read_text() == ORIGINAL  # not half-patched
    assert git(box.baked["megatron"], "status", "--porcelain") == ""
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == pr
    assert "pip was not run" in result.stderr and "this job must not pass" in result.stderr


def test_a_second_install_on_one_clone_waits_then_names_the_holder(cli: Cli,
                                                                  box: Sandbox) -> None:
    box.config.write_text(box.config.read_text() + "lock-timeout-seconds = 1\n")
    holder = hold_lock(box.baked["megatron"] / ".git")
    try:
        before = snapshot(box.baked["megatron"])
        result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    finally:
        holder.kill()
        holder.wait()
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"]) == ("failed", "lock")
    held = re.search(r"is held by rocm-deps install, pid (\d+) on .*; waited 1 s", result.stderr)
    assert held is not None and int(held.group(1)) == holder.pid
    assert snapshot(box.baked["megatron"]) == before  # nothing touched while locked
    again = install(cli, box, overrides(megatron="refs/pull/202/head"))  # the holder is gone
    assert again.code == 0, again.stderr


def test_concurrent_installs_on_one_clone_take_turns(box: Sandbox, tmp_path: Path) -> None:
    main_head, pr_head = box.commits["megatron"]["main"], box.commits["megatron"]["pr"]
    runs = []
    for ref in ("refs/heads/main", "refs/pull/202/head"):
        argv = [sys.executable, "-m", "rocm_deps", "install", "--config", str(box.config),
                "--overrides", overrides(megatron=ref), "--workspace", str(box.workspace),
                "--python", box.python, "--format", "json"]
        runs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=tmp_path))
    results = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in results]
    reports = [json.loads(out)["dependencies"]["megatron"] for out, _ in results]
    assert {report["sha"] for report in reports} == {main_head, pr_head}
    # Each held the clone for its whole install: the clone and the installed package are
    # exactly what the one that went second installed.
    head = git(box.baked["megatron"], "rev-parse", "HEAD")
    assert head in (main_head, pr_head)
    assert installed_version(box, "megatron-core") == (
        MEGATRON_PR if head == pr_head else MEGATRON_MAIN)
    # The ROCm patch, applied once, nothing half-done (the helper strips the leading blank).
    assert git(box.baked["megatron"], "status", "--porcelain") == f"M {ROCM}"


def test_a_failed_workspace_install_is_retried_until_it_succeeds(cli: Cli, box: Sandbox) -> None:
    make_workspace_package(box, pyproject="this is [not toml")
    document = overrides(megatron="refs/pull/202/head")

    def run() -> tuple[int, str]:
        result = install(cli, box, document, "--workspace-install", "true")
        return result.code, json.loads(result.outputs["report"])["workspace"]

    assert run() == (1, "failed")
    assert run() == (1, "failed")  # dependencies up to date, the workspace is tried again
    make_workspace_package(box)  # the fix
    assert run() == (0, "installed")
    assert installed_version(box, "miles") == "1.0"
    assert run() == (0, "not needed (all dependencies up to date)")


def test_pip_success_is_checked_by_asking_the_interpreter(cli: Cli, box: Sandbox) -> None:
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 0, result.stderr
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert report["version"] == MEGATRON_PR
    assert f"megatron: {box.python} imports megatron-core {MEGATRON_PR} from " in result.stderr
    assert f"| `{MEGATRON_PR}` |" in result.summary
    fake = cli("install", "--config", str(box.config), "--overrides",
               overrides(megatron="refs/heads/main"), "--workspace", str(box.workspace),
               "--python", "/bin/true")  # pip "succeeds": exit code 0, nothing installed
    assert fake.code == 1
    failed = json.loads(fake.outputs["report"])["dependencies"]["megatron"]
    assert (failed["state"], failed["failed_step"], failed["version"]) == ("failed", "pip", None)
    assert "pip reported success, but /bin/true has no distribution installed editable from" in (
        fake.stderr)


def test_a_full_disk_is_a_clear_failure_with_a_report(cli: Cli, box: Sandbox) -> None:
    # After checkout, the install record's path leads to /dev/full: writing it fails with
    # ENOSPC, as on a full disk, after the dependency was installed.
    hook = box.baked["megatron"] / ".git" / "hooks" / "post-checkout"
    hook.write_text('#!/bin/sh\nln -sf /dev/full "$(git rev-parse --git-dir)/'
                    'rocm-deps-state.json"\n')
    hook.chmod(0o755)
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"]) == ("failed", "environment")
    assert report["error"].startswith("No space left on device: the machine refused a write")
    assert "a full disk or a read-only file system" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_dry_run_without_the_clones_prints_the_plan_and_what_is_missing(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    missing = tmp_path / "laptop" / "Megatron-LM"
    box.config.write_text(box.config.read_text().replace(str(box.baked["megatron"]),
                                                         str(missing)))
    result = install(cli, box, overrides(megatron="refs/pull/202/head"), "--dry-run")
    assert result.code == 1, result.stderr  # the plan, and install would fail here
    assert (f"::warning title=rocm-deps%3A dry run without the clone::{missing} does not exist "
            f"on this machine") in result.stderr
    assert ("::error title=rocm-deps%3A dry run without the clone::dry run: no clone of "
            "megatron on this machine") in result.stderr
    plan = [line.split(f"-C {missing} ", 1)[1] for line in result.stderr.splitlines()
            if line.startswith("[dry-run] + git") and f"-C {missing} " in line]
    assert plan == ["update-index -q --refresh", "reset --hard HEAD", "clean -fd",
                    "-c protocol.version=2 fetch --no-recurse-submodules --filter=blob:none "
                    f"origin -- +refs/pull/202/head:refs/rocm-deps/fetched {ALL_TAGS}",
                    "checkout -f --detach refs/rocm-deps/fetched",
                    "submodule update --init --recursive --force",
                    f"apply --check {box.workspace / world.PATCH_LABEL}",
                    f"apply {box.workspace / world.PATCH_LABEL}"]
    assert (f"[dry-run] + {box.python} -I -m pip install -e {missing} --no-deps "
            "--no-build-isolation") in result.stderr
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["clone_state"]) == (
        "planned", f"missing on this machine ({missing})")
    assert json.loads(result.outputs["report"])["failed"] is True
    assert not missing.exists()


def test_a_moved_ref_is_noticed_even_when_a_longer_name_ends_the_same(cli: Cli,
                                                                     box: Sandbox) -> None:
    """`git ls-remote origin main` also lists refs/heads/archive/main: matching by suffix
    took the archive's old commit for main's and reported up-to-date at a stale commit."""
    origin = box.origins["megatron"]
    assert install(cli, box, overrides(megatron="main")).code == 0
    old_main = box.commits["megatron"]["main"]
    git(origin, "branch", "archive/main", old_main)
    moved = add_pull_request(box, "megatron", 320, {"megatron/version.py":
                                                    '__version__ = "0.3.2"\n'})
    git(origin, "update-ref", "refs/heads/main", moved)
    again = install(cli, box, overrides(megatron="main"))
    assert again.code == 0, again.stderr
    report = json.loads(again.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["sha"]) == ("installed", moved)
    assert installed_version(box, "megatron-core") == "0.3.2"


def test_a_record_that_cannot_be_removed_is_a_clear_failure(cli: Cli, box: Sandbox) -> None:
    """An existing record and a different ref: the record must go before the clone changes.
    When the file system refuses (read-only; here the record's path holds a directory, which
    unlink refuses the same way), the step fails with a message and a report, not exit 3."""
    assert install(cli, box, overrides(megatron="refs/heads/main")).code == 0
    record = box.baked["megatron"] / ".git" / "rocm-deps-state.json"
    record.unlink()
    record.mkdir()
    result = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"]) == ("failed", "environment")
    assert report["error"].startswith("Is a directory (")
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["main"]
    assert "internal error" not in result.stderr


def test_a_merge_ref_without_a_token_checks_out_the_commit_it_fetched(
        cli: Cli, box: Sandbox) -> None:
    """`pull/202/merge` without a token: install fetches GitHub's test-merge ref and reports
    the commit it got, whose history holds the base's tags (versions from git stay right)."""
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "--detach", "main")
    git(origin, "-c", "user.name=GitHub", "-c", "user.email=noreply@github.com", "merge", "-q",
        "--no-ff", "-m", "Merge 202 into main", box.commits["megatron"]["pr"])
    merge = git(origin, "rev-parse", "HEAD")
    git(origin, "update-ref", "refs/pull/202/merge", merge)
    git(origin, "checkout", "-q", "main")
    result = install(cli, box, overrides(megatron="pull/202/merge"))
    assert result.code == 0, result.stderr
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == merge
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["ref"], report["sha"], report["state"]) == (
        "refs/pull/202/merge", merge, "installed")
    assert result.outputs["megatron_sha"] == merge


def test_a_merge_of_an_older_head_than_the_one_pinned_fails_verification(
        cli: Cli, box: Sandbox) -> None:
    """Right after a push GitHub may still answer the merge of the previous head: resolve
    pinned that merge with the new head, H2. Install refuses to test it as H2's merge, and
    accepts the merge when it is of the head and base it records."""
    origin = box.origins["megatron"]
    base, older_head = box.commits["megatron"]["main"], box.commits["megatron"]["pr"]
    git(origin, "checkout", "-q", "--detach", "main")
    git(origin, "-c", "user.name=GitHub", "-c", "user.email=noreply@github.com", "merge", "-q",
        "--no-ff", "-m", "Merge 202 into main", older_head)
    merge = git(origin, "rev-parse", "HEAD")
    git(origin, "update-ref", "refs/pull/202/merge", merge)
    git(origin, "checkout", "-q", "main")
    newer_head = "9" * 40

    def pinned(head: str) -> str:
        return json.dumps({"megatron": {"ref": "refs/pull/202/merge", "sha": merge, "kind": "pr",
                                        "source": "body", "raw": "pull/202/merge", "line": 1,
                                        "pr": 202, "head": head, "base": base}})

    result = install(cli, box, pinned(newer_head))
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["failed_step"]) == ("failed", "verify")
    assert (f"{merge} is GitHub's merge of {older_head} onto {base}, but pull request #202 is "
            f"head {newer_head} on base {base}") in report["error"]
    assert install(cli, box, pinned(older_head)).code == 0
