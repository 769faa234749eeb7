"""Each install step on its own (clean, fetch, checkout, patch, prepare, rebuild check),
run against tiny real repositories: an origin, and a clone of it standing in for the image's."""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_deps.config import build_config
from rocm_deps.contract.install import DependencyReport
from rocm_deps.contract.overrides import Override
from rocm_deps.install import build, checkout, clean, patches
from rocm_deps.install.git import FETCHED_REF, Git
from rocm_deps.install.job import Context, Job, PatchFile, StepFailed
from rocm_deps.install.record import RecordFile
from rocm_deps.install.settings import InstallSettings
from rocm_deps.resolve.settings import ResolveSettings
from rocm_deps.runner import Runner
from tests.conftest import git
from tests.repos import commit, make_repo


@dataclass
class World:
    origin: Path
    clone: Path
    context: Context
    job: Job
    log: io.StringIO


def world(tmp_path: Path, *, dry_run: bool = False, ref: str = "refs/heads/feature",
          **dependency: object) -> World:
    """An origin with `main` and a `feature` branch that changes `lib/core.c`, and a clone at
    main's first commit."""
    origin = tmp_path / "origin"
    base = make_repo(origin, {"README": "r\n", "lib/core.c": "int x;\n", "doc.txt": "d\n"})
    git(origin, "checkout", "-q", "-b", "feature")
    commit(origin, {"lib/core.c": "int x = 1;\n"}, "feature")
    git(origin, "checkout", "-q", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "--detach", base)
    config = build_config({"dependencies": {"dep": {
        "repository": "owner/dep", "path": str(clone), "install-dir": "", **dependency}},
        "install": {"retry-min-seconds": 0, "retry-max-seconds": 0}}, source="test")
    settings = InstallSettings(resolve=ResolveSettings(config=config), overrides=None,
                               workspace=tmp_path / "workspace", python=sys.executable,
                               dry_run=dry_run, environ=dict(os.environ))
    log = io.StringIO()
    runner = Runner(stream=log)
    override = Override(name="dep", kind="ref", ref=ref, source="body", raw=ref, line=3)
    job = Job(config.dependency("dep"), override,
              DependencyReport("dep", "body", override.ref, None),
              Git(clone, runner, dict(os.environ), dry_run=dry_run),
              RecordFile(clone / ".git"), [])
    return World(origin, clone, Context(settings, runner), job, log)


def edit_like_an_image(clone: Path) -> None:
    (clone / "README").write_text("edited by the image\n")
    (clone / "doc.txt").unlink()
    (clone / "copied.json").write_text("{}\n")


def test_clean_captures_the_image_reports_the_discarded_and_resets(tmp_path: Path) -> None:
    w = world(tmp_path)
    edit_like_an_image(w.clone)
    (w.clone / ".git" / "index.lock").write_text("")
    (w.clone / ".git" / "rocm-deps-state.json").write_text("{}")
    clean.clean(w.context, w.job)
    assert w.job.image is not None and w.job.image.commit == git(w.clone, "rev-parse", "HEAD")
    assert w.job.image.changes is not None
    assert "edited by the image" in w.job.image.changes.read_text()
    discarded = w.job.report.discarded
    assert discarded is not None
    assert (discarded.modified, discarded.deleted, discarded.untracked) == (
        ("README",), ("doc.txt",), ("copied.json",))
    assert ("warning: rocm-deps: dep local changes discarded: dep: the reset before checkout "
            "discards local changes") in w.log.getvalue()
    assert git(w.clone, "status", "--porcelain") == ""
    assert not (w.clone / ".git" / "index.lock").exists()
    assert not (w.clone / ".git" / "rocm-deps-state.json").exists()


def test_a_dry_run_clean_changes_nothing(tmp_path: Path) -> None:
    w = world(tmp_path, dry_run=True)
    edit_like_an_image(w.clone)
    clean.clean(w.context, w.job)
    assert git(w.clone, "status", "--porcelain").splitlines() == [
        "M README", " D doc.txt", "?? copied.json"]
    assert not (w.clone / ".git" / "rocm-deps-image.json").exists()
    assert "[dry-run] + git --no-optional-locks" in w.log.getvalue()


def test_fetch_and_checkout_land_on_the_ref_and_verify_it(tmp_path: Path) -> None:
    w = world(tmp_path)
    checkout.fetch(w.context, w.job)
    checkout.checkout(w.context, w.job)
    feature = git(w.origin, "rev-parse", "feature")
    assert (w.job.report.fetch_attempts, w.job.report.commit) == (1, feature)
    assert git(w.clone, "rev-parse", "HEAD") == git(w.clone, "rev-parse", FETCHED_REF) == feature
    assert (w.clone / "lib" / "core.c").read_text() == "int x = 1;\n"


def test_a_ref_the_origin_lacks_fails_at_once_naming_the_value(tmp_path: Path) -> None:
    w = world(tmp_path, ref="refs/heads/no-such-branch")
    with pytest.raises(StepFailed) as caught:
        checkout.fetch(w.context, w.job)
    assert caught.value.step == "fetch"
    assert "(attempt 1 of 3: a permanent failure, not retried)" in caught.value.message
    assert ("Fix: check the value `refs/heads/no-such-branch` (body, line 3): does that pull "
            "request, branch or commit exist in owner/dep?") in caught.value.message


def write_patch(tmp_path: Path, name: str, old: str, new: str) -> PatchFile:
    path = tmp_path / name
    path.write_text(f"--- a/lib/core.c\n+++ b/lib/core.c\n@@ -1 +1 @@\n-{old}\n+{new}\n")
    return PatchFile(name, path)


def test_a_failing_patch_takes_back_the_ones_before_it(tmp_path: Path) -> None:
    w = world(tmp_path)
    w.job.configured_patches = [write_patch(tmp_path, "first.patch", "int x;", "int y;"),
                                write_patch(tmp_path, "second.patch", "int z;", "int w;")]
    with pytest.raises(StepFailed) as caught:
        patches.apply_patches(w.context, w.job)
    assert [(o.patch, o.state) for o in w.job.report.patches] == [
        ("first.patch", "applied"), ("second.patch", "incompatible")]
    assert "without patches (1 applied by this run, reverted)" in caught.value.message
    assert git(w.clone, "status", "--porcelain") == ""


def test_prepare_runs_in_the_clone_and_a_failure_stops_before_pip(tmp_path: Path) -> None:
    w = world(tmp_path, prepare=[["mv", "doc.txt", "moved.txt"], ["false"]])
    with pytest.raises(StepFailed) as caught:
        build.prepare(w.context, w.job)
    assert (w.clone / "moved.txt").exists()
    assert (caught.value.step, caught.value.message) == (
        "prepare", f"`false` in {w.clone} failed with exit code 1 (its output is above); pip "
                   f"was not run")


def test_prepare_with_a_missing_program_says_so(tmp_path: Path) -> None:
    w = world(tmp_path, prepare=[["no-such-program-rocm-deps"]])
    with pytest.raises(StepFailed, match="cannot run `no-such-program-rocm-deps` in "):
        build.prepare(w.context, w.job)


def test_the_rebuild_check_lists_changed_compiled_parts(tmp_path: Path) -> None:
    w = world(tmp_path, **{"rebuild-paths": ["lib/"]})
    clean.clean(w.context, w.job)
    checkout.fetch(w.context, w.job)
    checkout.checkout(w.context, w.job)
    build.rebuild_warning(w.context, w.job)
    assert w.job.report.rebuild == ("lib/core.c",)
    assert "compiled parts not rebuilt: dep: 1 file(s) under lib/ differ" in w.log.getvalue()


@pytest.mark.parametrize(("name", "install_dir", "leftover"), [
    ("sglang.egg-info/PKG-INFO", ".", True),
    ("python/sglang.egg-info/SOURCES.txt", "python", True),
    ("python/build/lib/sglang/__init__.py", "python", True),
    ("build/temp/helpers.o", ".", True),
    (".eggs/README.txt", ".", True),
    ("python/dist/sglang.whl", "python", True),
    ("python/build/lib/x.py", ".", False),  # a `build` inside the sources: the user's
    ("build.py", ".", False),
    ("docs/build/index.html", "python", False),
    ("notes.egg-info", ".", False),  # a file, not a build's metadata directory
])
def test_the_build_leftovers_are_what_pip_install_e_writes(name: str, install_dir: str,
                                                          leftover: bool) -> None:
    assert clean.is_build_leftover(name, install_dir) is leftover
