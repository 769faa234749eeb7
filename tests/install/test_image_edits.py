"""The image's own build (architecture §6 steps 3, 8, 9, 10): what the reset discards, replaying
it, `prepare`, `pip-env` and `pip-args` per dependency, and the rebuild warning, on the
sandbox whose SGLang clone carries the image's edits (pyproject swap, untracked config)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rocm_deps.demo import world
from rocm_deps.demo.package import ROCM_PYPROJECT_NOTE
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli, CliResult, add_pull_request, git, installed_version, overrides

SWAPPED = "python/pyproject.toml"
ROCM_NOTE = ROCM_PYPROJECT_NOTE


def configure(box: Sandbox, sglang: str) -> None:
    """Extra keys for `[dependencies.sglang]` in the sandbox's config."""
    text = box.config.read_text()
    box.config.write_text(text.replace("[dependencies.sglang]\n",
                                       f"[dependencies.sglang]\n{sglang}\n", 1))


def install(cli: Cli, box: Sandbox, ref: str = "refs/pull/101/head") -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", overrides(sglang=ref),
               "--workspace", str(box.workspace), "--python", box.python)


def sglang_report(result: CliResult) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(result.outputs["report"])["dependencies"]["sglang"]
    return report


def annotations(result: CliResult, title: str) -> list[str]:
    return [line for line in result.stderr.splitlines()
            if line.startswith(f"::warning title=rocm-deps%3A {title}")]


def test_the_reset_reports_what_it_discards(cli: Cli, box: Sandbox) -> None:
    result = install(cli, box)
    assert result.code == 0, result.stderr
    report = sglang_report(result)
    assert report["image_commit"] == box.commits["sglang"]["baked"]
    assert report["local_changes"] == {"replayed": None, "discarded": {
        "modified": {"count": 1, "names": [SWAPPED]},
        "deleted": {"count": 1, "names": ["python/pyproject_other.toml"]},
        "untracked": {"count": 1, "names": [world.IMAGE_CONFIG_FILE]}},
        "undone": {"count": 0, "names": []}}
    [warning] = annotations(result, "sglang local changes discarded")
    # Only what works at the new commit is suggested: the recipe redoes the swap, nothing
    # keeps the untracked copy, and no other tracked edit asks for `reapply`.
    assert warning.endswith(
        "1 modified, 1 deleted, 1 untracked (python/pyproject.toml, "
        "python/pyproject_other.toml, python/sglang/srt/layers/moe/configs/MI300X_VF.json); "
        "the recipe sglang-rocm redoes python/pyproject.toml, python/pyproject_other.toml; "
        "untracked files (1) cannot be kept: redo them with `prepare` if the tests need them")
    # The summary counts them and lists the names.
    assert "discarded: 1 modified, 1 deleted, 1 untracked" in result.summary
    assert f"modified  {SWAPPED}" in result.summary
    assert f"untracked {world.IMAGE_CONFIG_FILE}" in result.summary
    # Discarded for real (the default is discard), and the recipe redid the swap at the new
    # commit: pyproject.toml is that commit's pyproject_other.toml.
    new = box.commits["sglang"]["pr"]
    assert (box.baked["sglang"] / SWAPPED).read_text() == git(
        box.origins["sglang"], "show", f"{new}:python/pyproject_other.toml") + "\n"
    assert not (box.baked["sglang"] / "python" / "pyproject_other.toml").exists()
    assert not (box.baked["sglang"] / world.IMAGE_CONFIG_FILE).exists()
    # The compiled part is ignored build output: `clean -fd` keeps it, and nothing lists it.
    assert (box.baked["sglang"] / world.COMPILED_PART).exists()


GATEWAY = "sgl-model-gateway/Cargo.toml"  # the image's build edits it with sed


def test_reapply_replays_the_images_tracked_edits_and_reruns_are_up_to_date(
        cli: Cli, box: Sandbox) -> None:
    gateway = box.baked["sglang"] / GATEWAY
    gateway.write_text(gateway.read_text() + 'edition = "2021"\n')
    configure(box, 'local-changes = "reapply"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    report = sglang_report(result)
    assert report["local_changes"]["replayed"] == "applied"
    assert report["patches"]["the image's local changes"]["state"] == "applied"
    assert gateway.read_text().endswith('edition = "2021"\n')
    # The files the recipe rewrites are never replayed: the recipe redoes them.
    captured = (box.baked["sglang"] / ".git" / "rocm-deps-image-changes.patch").read_text()
    assert GATEWAY in captured and "pyproject" not in captured
    assert (box.baked["sglang"] / SWAPPED).read_text().startswith(ROCM_NOTE)
    [warning] = annotations(result, "sglang local changes reapplied")
    assert "the other tracked edits are reapplied after checkout" in warning
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == box.commits["sglang"]["pr"]
    assert "image's edits replayed: applied" in result.summary
    again = install(cli, box)
    assert again.code == 0, again.stderr
    assert sglang_report(again)["state"] == "up-to-date"
    # A different ref later replays the edits captured from the image, not this run's tree.
    other = install(cli, box, "main")
    assert other.code == 0, other.stderr
    assert sglang_report(other)["local_changes"]["replayed"] == "applied"
    assert sglang_report(other)["image_commit"] == box.commits["sglang"]["baked"]
    assert (box.baked["sglang"] / SWAPPED).read_text().startswith(ROCM_NOTE)
    assert gateway.read_text().endswith('edition = "2021"\n')


def test_a_replay_that_no_longer_fits_fails_with_the_fix(cli: Cli, box: Sandbox) -> None:
    kernels = box.baked["sglang"] / world.KERNEL_SOURCE
    kernels.write_text("// kernels, tuned by the image build\n")  # the PR changes this file
    configure(box, 'local-changes = "reapply"')
    result = install(cli, box)
    assert result.code == 1
    report = sglang_report(result)
    assert (report["state"], report["failed_step"]) == ("failed", "patch")
    assert report["local_changes"]["replayed"] == "incompatible"
    assert 'local-changes = "discard"' in report["error"] and "prepare" in report["error"]
    assert report["clone_state"].endswith("without patches")


def test_without_the_recipe_prepare_redoes_the_swap_before_pip(cli: Cli, box: Sandbox) -> None:
    configure(box, 'recipe = ""\nprepare = [["mv", "python/pyproject_other.toml", '
                   '"python/pyproject.toml"]]')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert (box.baked["sglang"] / SWAPPED).read_text().startswith(ROCM_NOTE)
    echoed = [line for line in result.stderr.splitlines() if line.startswith("+ ")]
    mv = echoed.index("+ mv python/pyproject_other.toml python/pyproject.toml")
    pip = next(i for i, line in enumerate(echoed) if " -m pip install -e " in line)
    apply = max(i for i, line in enumerate(echoed) if " apply " in line or " checkout " in line)
    assert apply < mv < pip
    assert "prepare" in sglang_report(result)["seconds"]


def test_a_failing_prepare_command_stops_before_pip(cli: Cli, box: Sandbox) -> None:
    configure(box, 'prepare = [["mv", "python/no-such-file", "python/pyproject.toml"]]')
    result = install(cli, box)
    assert result.code == 1
    report = sglang_report(result)
    assert (report["state"], report["failed_step"]) == ("failed", "prepare")
    assert report["error"].startswith("`mv python/no-such-file python/pyproject.toml` in ")
    assert "failed with exit code 1" in report["error"] and "pip was not run" in report["error"]
    assert " -m pip install -e " not in result.stderr
    missing = box.config.read_text().replace("python/no-such-file", "x").replace(
        '["mv", "x", "python/pyproject.toml"]', '["no-such-program-rocm-deps"]')
    box.config.write_text(missing)
    result = install(cli, box)
    assert (result.code, sglang_report(result)["failed_step"]) == (1, "prepare")
    assert "cannot run `no-such-program-rocm-deps`" in sglang_report(result)["error"]


def test_pip_env_and_pip_args_reach_this_dependencys_pip_only(cli: Cli, box: Sandbox) -> None:
    configure(box, 'pip-env = {SETUPTOOLS_SCM_PRETEND_VERSION = "9.9.9"}\n'
                   'pip-args = ["--no-cache-dir"]')
    result = cli("install", "--config", str(box.config), "--overrides",
                 overrides(sglang="refs/pull/101/head", megatron="refs/pull/202/head"),
                 "--workspace", str(box.workspace), "--python", box.python)
    assert result.code == 0, result.stderr
    assert installed_version(box, "sglang") == "9.9.9"
    pips = [line for line in result.stderr.splitlines() if " -m pip install -e " in line]
    assert [line.endswith("--no-build-isolation --no-cache-dir") for line in pips] == [
        True, False]


def test_rebuild_warning_names_compiled_parts_the_new_commit_changes(
        cli: Cli, box: Sandbox) -> None:
    result = install(cli, box)  # PR 101 changes a kernel the image compiled
    assert result.code == 0, result.stderr
    assert sglang_report(result)["rebuild"] == {"count": 1, "files": [world.KERNEL_SOURCE]}
    [warning] = annotations(result, "sglang compiled parts not rebuilt")
    assert (f"1 file(s) under sgl-kernel/, python/sglang/kernels/aot/, sgl-model-gateway/ "
            f"differ between the image's commit {box.commits['sglang']['baked'][:12]}") in warning
    assert "the image's build is what runs" in warning
    assert "1 file(s) not rebuilt" in result.summary
    quiet = install(cli, box, "main")  # main changes no compiled part
    assert quiet.code == 0, quiet.stderr
    assert sglang_report(quiet)["rebuild"] == {"count": 0, "files": []}
    assert annotations(quiet, "sglang compiled parts not rebuilt") == []


def test_rebuild_paths_are_configurable(cli: Cli, box: Sandbox) -> None:
    configure(box, 'rebuild-paths = ["python/"]')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert sglang_report(result)["rebuild"]["files"] == ["python/sglang/changes.py"]


def test_dry_run_lists_the_discard_and_the_prepare_plan(cli: Cli, box: Sandbox) -> None:
    configure(box, 'prepare = [["mv", "python/pyproject_other.toml", "python/pyproject.toml"]]')
    before = (box.baked["sglang"] / SWAPPED).read_text()
    result = cli("install", "--config", str(box.config), "--overrides",
                 overrides(sglang="refs/pull/101/head"), "--workspace", str(box.workspace),
                 "--python", box.python, "--dry-run")
    assert result.code == 0, result.stderr
    assert "[dry-run] + mv python/pyproject_other.toml python/pyproject.toml" in result.stderr
    assert sglang_report(result)["local_changes"]["discarded"]["modified"]["count"] == 1
    assert (box.baked["sglang"] / SWAPPED).read_text() == before
    assert not (box.baked["sglang"] / ".git" / "rocm-deps-image.json").exists()


def test_the_recipe_runs_without_pip_and_says_when_its_file_is_absent(
        cli: Cli, box: Sandbox) -> None:
    configure(box, 'install-dir = ""')  # no pip install: the recipe runs all the same
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert (box.baked["sglang"] / SWAPPED).read_text().startswith(ROCM_NOTE)
    assert sglang_report(result)["steps"][5] == "recipe"
    gone = add_pull_request(box, "sglang", 320, {"python/pyproject_other.toml": None})
    without = install(cli, box, "refs/pull/320/head")
    assert without.code == 0, without.stderr
    assert ("sglang: recipe sglang-rocm: python/pyproject_other.toml is absent at this commit; "
            "python/pyproject.toml stays as the commit has it") in without.stderr
    assert (box.baked["sglang"] / SWAPPED).read_text() == git(
        box.origins["sglang"], "show", f"{gone}:python/pyproject.toml") + "\n"


def test_the_recipe_never_moves_files_through_a_link_of_the_new_commit(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    """A commit whose `python/` is a symbolic link to elsewhere: the pyproject swap would
    rename files there. It fails at the recipe instead, and nothing outside is touched."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject_other.toml").write_text("[project]\nname = 'elsewhere'\n")
    (outside / "pyproject.toml").write_text("untouched\n")
    origin = box.origins["sglang"]
    git(origin, "checkout", "-q", "--detach", "main")
    git(origin, "rm", "-r", "-q", "python")
    (origin / "python").symlink_to(outside)
    git(origin, "add", "python")
    git(origin, "commit", "-q", "-m", "python is a link")
    git(origin, "update-ref", "refs/pull/666/head", "HEAD")
    git(origin, "checkout", "-q", "main")
    result = install(cli, box, "refs/pull/666/head")
    assert result.code == 1
    report = sglang_report(result)
    assert (report["state"], report["failed_step"]) == ("failed", "recipe")
    assert "python/pyproject_other.toml is reached through a symbolic link" in report["error"]
    assert sorted(path.name for path in outside.iterdir()) == ["pyproject.toml",
                                                               "pyproject_other.toml"]
    assert (outside / "pyproject.toml").read_text() == "untouched\n"


def megatron(cli: Cli, box: Sandbox, ref: str) -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", overrides(megatron=ref),
               "--workspace", str(box.workspace), "--python", box.python)


def local_changes(result: CliResult) -> dict[str, Any]:
    assert result.code == 0, result.stderr
    changes: dict[str, Any] = json.loads(result.outputs["report"])["dependencies"][
        "megatron"]["local_changes"]
    return changes


def counts(changes: dict[str, Any]) -> tuple[int, int, int]:
    discarded = changes["discarded"]
    return (discarded["modified"]["count"], discarded["deleted"]["count"],
            discarded["untracked"]["count"])


def test_a_rerun_does_not_call_the_tools_own_patch_or_the_images_build_local_changes(
        cli: Cli, box: Sandbox) -> None:
    """The image patched Megatron-LM and its `pip install -e` left `*.egg-info` and `.eggs/`
    (its `build/` is ignored by the clone's .gitignore): neither is the user's. The next run's reset undoes the tool's own patch from the run
    before: not the user's either. What the user changed since, even in the patched file, is."""
    clone = box.baked["megatron"]
    for leftover in ("megatron_core.egg-info/PKG-INFO", "megatron_core.egg-info/top_level.txt",
                     ".eggs/README.txt"):
        (clone / leftover).parent.mkdir(parents=True, exist_ok=True)
        (clone / leftover).write_text("written by the image's pip install -e\n")
    first = local_changes(megatron(cli, box, "refs/pull/202/head"))
    # The image's patch is an edit of the image (captured and reported), its build is not.
    assert counts(first) == (1, 0, 0)
    assert first["undone"] == {"count": 3, "names": [
        ".eggs/README.txt", "megatron_core.egg-info/PKG-INFO",
        "megatron_core.egg-info/top_level.txt"]}
    rerun = megatron(cli, box, "main")
    assert counts(local_changes(rerun)) == (0, 0, 0)
    assert local_changes(rerun)["undone"] == {"count": 1, "names": [world.ROCM_TARGET]}
    assert annotations(rerun, "megatron local changes discarded") == []
    # The user's own edits since: another line in the patched file, a file of their own.
    target = clone / world.ROCM_TARGET
    target.write_text(target.read_text() + "# debugging\n")
    (clone / "notes.txt").write_text("mine\n")
    mine = megatron(cli, box, "refs/pull/202/head")
    assert counts(local_changes(mine)) == (1, 0, 1)
    [warning] = annotations(mine, "megatron local changes discarded")
    assert f"1 modified, 1 untracked ({world.ROCM_TARGET}, notes.txt)" in warning


def test_a_dependency_only_cloned_is_up_to_date_on_a_rerun(cli: Cli, box: Sandbox) -> None:
    """`install-dir = ""` (the CUDA suite's clones, on PYTHONPATH) with `compile-inputs`:
    nothing is built, so no build record is asked for; the re-run proves the commit, the
    tree and the patch as an installed one does, and reports no local changes."""
    text = box.config.read_text()
    box.config.write_text(text.replace("[dependencies.megatron]\n", (
        '[dependencies.megatron]\ninstall-dir = ""\n'
        'compile-inputs = ["megatron/legacy/fused_kernels/__init__.py"]\n'), 1))
    first = megatron(cli, box, "refs/pull/202/head")
    assert local_changes(first)["discarded"]["modified"]["count"] == 1  # the image's patch
    again = megatron(cli, box, "refs/pull/202/head")
    report = json.loads(again.outputs["report"])["dependencies"]["megatron"]
    assert (report["state"], report["steps"]) == ("up-to-date", [])
    assert report["local_changes"]["discarded"] is None  # nothing was reset
