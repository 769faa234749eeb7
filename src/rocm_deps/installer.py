"""Put exactly the named dependency commits into the container (DESIGN §6).

For each overridden dependency, in the order of DESIGN §6: open the clone; skip everything
when the install record says this commit with these patches is already installed into this
interpreter; else clean, fetch, check out, verify, update submodules, probe/apply patches and
`pip install -e`; then reinstall the workspace. Dependencies that are not named are never
touched. Settings in, an `InstallReport` out; nothing here prints a summary or an output.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import __version__, process
from rocm_deps.clone_lock import LockError, LockTimeout, clone_lock
from rocm_deps.config import DependencyConfig
from rocm_deps.git import FETCHED_REF, Git, GitError, RetryPolicy, is_permanent_fetch_failure
from rocm_deps.model import (
    AMBIGUOUS,
    APPLIED,
    FAILED,
    INSTALLED,
    MISSING_TARGET,
    PLANNED_INSTALL,
    REPLAY_LABEL,
    UP_TO_DATE,
    DependencyReport,
    InstallReport,
    InstallSettings,
    LocalChanges,
    Override,
    PatchOutcome,
)
from rocm_deps.patches import probe_and_apply, sha256_of
from rocm_deps.pip import editable_install_argv, editable_probe_argv, pip_environment
from rocm_deps.record import (
    ImageState,
    ImageStateFile,
    Record,
    RecordFile,
    Request,
    tree_fingerprint,
)
from rocm_deps.runner import Runner

ENVIRONMENT_PROBE = "import sys; print(sys.prefix); print(sys.version)"
NAMES_IN_MESSAGE = 5  # file names a warning lists before "…"


class StepFailed(Exception):
    def __init__(self, step: str, message: str) -> None:
        super().__init__(message)
        self.step = step
        self.message = message


@dataclass(frozen=True)
class Clone:
    """A dependency's baked clone, opened: git bound to it and its install record."""

    git: Git
    record: RecordFile


@dataclass(frozen=True)
class PatchFile:
    label: str  # as configured, relative to the workspace
    path: Path


class Installer:
    def __init__(self, settings: InstallSettings, runner: Runner) -> None:
        self.settings = settings
        self.runner = runner
        self.dry_run = settings.dry_run
        install = settings.config.install
        self.retry = RetryPolicy(install.fetch_attempts, install.retry_min_seconds,
                                 install.retry_max_seconds)
        self._environment_identity: str | None = None
        # Install records of the dependencies this run installed or found up to date, and
        # whether their last workspace install succeeded.
        self._records: dict[str, RecordFile] = {}
        self._workspace_done: dict[str, bool] = {}

    def install(self, overrides: Mapping[str, Override]) -> InstallReport:
        report = InstallReport(self.dry_run, self.settings.python)
        for dependency in self.settings.config.dependencies:
            override = overrides.get(dependency.name)
            if override is not None:
                report.dependencies[dependency.name] = self.install_one(dependency, override)
        report.workspace = self.install_workspace(report)
        return report

    def install_one(self, dependency: DependencyConfig, override: Override) -> DependencyReport:
        report = DependencyReport(dependency.name, override.source, override.ref, override.sha)
        with self.runner.group(f"{dependency.name}: {override.raw} → {override.ref}"):
            try:
                try:
                    self._steps(dependency, override, report)
                except OSError as error:  # disk full, read-only file system, ...
                    raise StepFailed("environment", _environment_failure(error)) from None
            except StepFailed as failure:
                report.state, report.failed_step, report.error = (
                    FAILED, failure.step, failure.message)
                self.runner.error(f"{dependency.name}: {failure.message}",
                                  title=f"rocm-deps: {dependency.name} {failure.step} failed")
        return report

    def _steps(self, dependency: DependencyConfig, override: Override,
               report: DependencyReport) -> None:
        if self.dry_run and not Path(dependency.path).exists():
            self._plan_without_clone(dependency, override, report)
            return
        clone = self._open(dependency)                                    # step 1
        if self.dry_run:  # a dry run changes nothing, not even a lock file
            self._locked_steps(clone, dependency, override, report)
            return
        try:
            with clone_lock(clone.record.path.parent,
                            self.settings.config.install.lock_timeout_seconds):
                self._locked_steps(clone, dependency, override, report)
        except LockTimeout as error:
            raise StepFailed("lock", f"another install is working on {dependency.path}: "
                                     f"{error.path} is held by {error.holder}; waited "
                                     f"{error.waited:g} s (install.lock-timeout-seconds). Two "
                                     f"installs on one clone would each claim their commit "
                                     f"while the clone holds only one") from None
        except LockError as error:
            raise StepFailed("lock", str(error)) from None

    def _locked_steps(self, clone: Clone, dependency: DependencyConfig, override: Override,
                      report: DependencyReport) -> None:
        image_file = ImageStateFile(clone.record.path.parent)
        image = image_file.load()
        configured = self._patch_files(dependency)
        patches = configured + self._replay(dependency, image)
        request = self._request(dependency, override, patches)
        record = clone.record.load()
        report.image_commit = image.commit if image else None
        if self._up_to_date(clone, dependency, override, request, record, patches):  # step 2
            assert record is not None
            report.state, report.commit = UP_TO_DATE, record.commit
            self._records[dependency.name] = clone.record
            self._workspace_done[dependency.name] = record.workspace_installed(
                self.settings.workspace)
            report.patches = list(record.patches)
            self.runner.info(f"{dependency.name} is up to date at {record.commit} (installed by "
                             f"an earlier run with the same patches and interpreter); nothing "
                             f"to do")
            return
        with self._timed(report, "clean"):
            if image is None:
                image = self._capture_image(clone.git, image_file)
                patches = configured + self._replay(dependency, image)
                request = self._request(dependency, override, patches)
            report.image_commit = image.commit
            report.discarded = self._discarded(clone.git, dependency)
            self._clean(clone)                                            # step 3
        with self._timed(report, "fetch"):
            report.fetch_attempts = self._fetch(clone.git, dependency, override)  # step 4
        with self._timed(report, "checkout"):
            report.commit = self._checkout(clone.git, override)           # step 5
            self._update_submodules(clone.git, dependency)                # step 6
        with self._timed(report, "patch"):
            self._apply_patches(clone.git, dependency, patches, report)   # step 7
        with self._timed(report, "prepare"):
            self._prepare(dependency)                                     # step 8
        with self._timed(report, "pip"):
            self._pip_install(dependency, report)                         # step 9
        self._rebuild_warning(clone.git, dependency, image, report)       # step 10
        report.state = PLANNED_INSTALL if self.dry_run else INSTALLED
        if not self.dry_run:
            clone.record.save(request, report.commit, tree_fingerprint(clone.git),
                              report.patches)
            self._records[dependency.name] = clone.record
            self._workspace_done[dependency.name] = False

    def _plan_without_clone(self, dependency: DependencyConfig, override: Override,
                            report: DependencyReport) -> None:
        """`--dry-run` away from the container (a laptop): the plan, and what is missing."""
        path = Path(dependency.path)
        self.runner.warning(f"{path} does not exist on this machine: below is what install "
                            f"would run where the image has its clone of "
                            f"{dependency.repository} (the up-to-date check needs the clone, "
                            f"so the plan is the full install)",
                            title="rocm-deps: dry run without the clone")
        git = Git(path, self.runner, self.settings.environ, dry_run=True)
        patches = self._patch_files(dependency)
        self._reset_tree(git)
        self._fetch(git, dependency, override)
        self._checkout(git, override)
        if dependency.submodules:  # without the clone, .gitmodules cannot be looked at
            git.update_submodules(self.retry)
        self._apply_patches(git, dependency, patches, report)
        self._pip_install(dependency, report)
        report.state, report.commit = PLANNED_INSTALL, override.sha
        report.clone_state = f"missing on this machine ({path})"

    # step 3, before the reset: the image's commit and edits, and what the reset discards
    def _capture_image(self, git: Git, image_file: ImageStateFile) -> ImageState:
        head = git.commit_of("HEAD")
        if head is None:
            raise StepFailed("check", f"{git.path} has no commit checked out")
        if self.dry_run:
            return ImageState(head, None)
        try:
            diff = git.diff_against_head()
        except GitError as error:
            raise StepFailed("clean", error.message) from None
        return image_file.capture(head, diff)

    def _replay(self, dependency: DependencyConfig, image: ImageState | None) -> list[PatchFile]:
        if dependency.local_changes != "reapply" or image is None or image.changes is None:
            return []
        return [PatchFile(REPLAY_LABEL, image.changes)]

    def _discarded(self, git: Git, dependency: DependencyConfig) -> LocalChanges:
        try:
            changes = git.local_changes()
        except GitError as error:
            raise StepFailed("clean", error.message) from None
        if changes:
            after = ("the image's tracked edits are replayed after checkout (local-changes = "
                     "\"reapply\"); untracked files are not"
                     if dependency.local_changes == "reapply" else
                     f"to keep the image's edits, set `dependencies.{dependency.name}."
                     f"local-changes = \"reapply\"` or redo them with `prepare`")
            self.runner.warning(f"{dependency.name}: the reset before checkout discards local "
                                f"changes in {dependency.path}: {changes.counts()} "
                                f"({_first_names(changes.names())}); "
                                f"{after}", title=f"rocm-deps: {dependency.name} local changes "
                                                  f"discarded")
        return changes

    # step 8
    def _prepare(self, dependency: DependencyConfig) -> None:
        for argv in dependency.prepare:
            if self.dry_run:
                self.runner.echo_command(argv, dry_run=True)
                continue
            try:
                result = process.run(argv, self.runner, cwd=dependency.path,
                                     env=self._pip_env(dependency), capture=False)
            except OSError as error:
                raise StepFailed("prepare", f"cannot run `{shlex.join(argv)}` in "
                                            f"{dependency.path}: {error.strerror or error}"
                                 ) from None
            if not result.ok:
                raise StepFailed("prepare", f"`{shlex.join(argv)}` in {dependency.path} failed "
                                            f"with exit code {result.returncode} (its output "
                                            f"is above); pip was not run")

    # step 10
    def _rebuild_warning(self, git: Git, dependency: DependencyConfig, image: ImageState,
                         report: DependencyReport) -> None:
        if self.dry_run or not dependency.rebuild_paths or report.commit is None:
            return
        try:
            files = git.changed_files(image.commit, report.commit, dependency.rebuild_paths)
        except GitError as error:
            self.runner.warning(f"{dependency.name}: cannot compare the rebuild paths with the "
                                f"image's commit {image.commit[:12]}: {error.message}",
                                title=f"rocm-deps: {dependency.name} rebuild check")
            return
        report.rebuild = tuple(files)
        if files:
            self.runner.warning(
                f"{dependency.name}: {len(files)} file(s) under "
                f"{', '.join(dependency.rebuild_paths)} differ between the image's commit "
                f"{image.commit[:12]} and {report.commit[:12]} ({_first_names(files)}). "
                f"`pip install -e --no-deps` does not rebuild these compiled parts: the "
                f"image's build is what runs, not this commit's",
                title=f"rocm-deps: {dependency.name} compiled parts not rebuilt")

    # step 1: the path must be the top of a git work tree
    def _open(self, dependency: DependencyConfig) -> Clone:
        path = Path(dependency.path)
        where = (f"set `dependencies.{dependency.name}.path` in the config if the checkout "
                 f"lives elsewhere")
        if not path.is_dir():
            raise StepFailed("check", f"{path} does not exist; the container image is expected "
                                      f"to have a clone of {dependency.repository} there; {where}")
        git = Git(path.resolve(), self.runner, self.settings.environ, dry_run=self.dry_run)
        layout = git.layout()
        if layout is None or layout.top.resolve() != path.resolve():
            raise StepFailed("check", f"{path} is not the top of a git work tree; {where}")
        return Clone(git, RecordFile(layout.git_dir))

    def _patch_files(self, dependency: DependencyConfig) -> list[PatchFile]:
        files = []
        workspace = self.settings.workspace.resolve()
        for label in dependency.patches:
            patch = (workspace / label).resolve()  # symlinks resolved before the check
            if not patch.is_relative_to(workspace):
                raise StepFailed("patch", f"patch {label} resolves to {patch}, outside the "
                                          f"workspace {workspace}; patch paths must name files "
                                          f"of the workspace checkout")
            if not patch.is_file():
                raise StepFailed("patch", f"patch {label} not found in the workspace "
                                          f"{self.settings.workspace}; patch paths are relative "
                                          f"to the workspace checkout (--workspace / "
                                          f"$GITHUB_WORKSPACE), because the image deletes its "
                                          f"own copies")
            files.append(PatchFile(label, patch))
        return files

    # step 2: up to date?
    def _request(self, dependency: DependencyConfig, override: Override,
                 patches: list[PatchFile]) -> Request:
        return Request(tool=__version__, ref=override.ref, python=self._environment(),
                       install_dir=dependency.install_dir,
                       pip_args=self._pip_args(dependency),
                       patch_files=tuple((patch.label, sha256_of(patch.path))
                                         for patch in patches),
                       pip_env=dependency.pip_env, prepare=dependency.prepare)

    def _pip_args(self, dependency: DependencyConfig | None) -> tuple[str, ...]:
        extra = dependency.pip_args if dependency else ()
        return (*self.settings.config.install.pip_args, *extra)

    def _pip_env(self, dependency: DependencyConfig | None) -> dict[str, str]:
        return {**pip_environment(self.settings.environ),
                **dict(dependency.pip_env if dependency else ())}

    def _environment(self) -> str:
        """Where pip installs: the target's `sys.prefix` and version, asked of it. Two venvs
        on one base interpreter resolve to one binary but are two environments."""
        if self._environment_identity is None:
            result = process.run((self.settings.python, "-I", "-c", ENVIRONMENT_PROBE),
                                 self.runner, env=pip_environment(self.settings.environ),
                                 echo=False)
            if not result.ok:
                raise StepFailed("check", f"the interpreter {self.settings.python} does not run "
                                          f"(exit code {result.returncode}): "
                                          f"{result.stderr.strip()[-500:]}")
            self._environment_identity = result.stdout.strip()
        return self._environment_identity

    def _up_to_date(self, clone: Clone, dependency: DependencyConfig, override: Override,
                    request: Request, record: Record | None, patches: list[PatchFile]) -> bool:
        """Whether an earlier run installed exactly what is wanted now, and the clone still
        holds it: same HEAD, the ref has not moved, the work tree as it was left."""
        if record is None or not record.satisfies(request):
            return False
        git = clone.git
        head = git.commit_of("HEAD")
        if head is None or head != record.commit:
            return False
        wanted = override.sha or git.remote_commit(dependency.remote, override.ref)
        if head != wanted:
            return False  # the ref moved since the last install (or cannot be read)
        if tree_fingerprint(git) != record.fingerprint:
            return False
        return all(git.try_apply_check(patch.path, reverse=True, echo=False)
                   for patch in patches if patch.label in record.present_patches)

    # step 3: clean, forgetting the record first
    def _clean(self, clone: Clone) -> None:
        git_dir = clone.record.path.parent
        for lock in ("index.lock", "shallow.lock", "HEAD.lock"):
            stale = git_dir / lock
            if stale.exists():
                if self.dry_run:
                    self.runner.info(f"[dry-run] would remove stale {stale}")
                else:
                    self.runner.info(f"removing stale {stale} (left by an interrupted git)")
                    stale.unlink()
        if not self.dry_run:
            clone.record.forget()
        self._reset_tree(clone.git)

    def _reset_tree(self, git: Git) -> None:
        try:
            git.refresh_index()
            git.reset_hard()
            git.clean()
        except GitError as error:
            raise StepFailed("clean", error.message) from None

    # step 4: fetch, retried when the failure looks transient
    def _fetch(self, git: Git, dependency: DependencyConfig, override: Override) -> int:
        target = override.sha or override.ref
        depth = dependency.fetch_depth
        if depth == 0 and git.is_shallow():
            depth = 1  # deepening a shallow clone to full history is not what it was made for
        try:
            return git.fetch(dependency.remote, target, depth, self.retry)
        except GitError as error:
            url = git.remote_url(dependency.remote) or "(no such remote)"
            stderr = error.result.stderr if error.result else ""
            if is_permanent_fetch_failure(stderr) and "remote ref" in stderr:
                fix = (f"check the value `{override.raw}` ({override.source}"
                       f"{f', line {override.line}' if override.line else ''}): does that pull "
                       f"request, branch or commit exist in {dependency.repository}?")
            else:
                fix = "check the network and the remote's URL, then re-run the job"
            raise StepFailed("fetch", f"could not fetch `{target}` from remote "
                                      f"`{dependency.remote}` ({url}): {error.message}\nFix: "
                                      f"{fix}") from None

    # step 5: check out and verify
    def _checkout(self, git: Git, override: Override) -> str:
        if self.dry_run:
            commit = override.sha or FETCHED_REF
        else:
            fetched = git.commit_of(f"{FETCHED_REF}^{{commit}}")
            if fetched is None:
                raise StepFailed("checkout", f"git fetch succeeded but {FETCHED_REF} names no "
                                             f"commit")
            commit = override.sha or fetched
        try:
            # `commit` is a verified hex SHA (or our own ref name), never text from the PR body.
            git.checkout_detached(commit)
        except GitError as error:
            raise StepFailed("checkout", error.message) from None
        if self.dry_run:
            return commit
        head = git.commit_of("HEAD")
        if head != commit:
            raise StepFailed("verify", f"HEAD is {head} after checking out {commit}; refusing to "
                                       f"test a commit other than the one asked for")
        self.runner.info(git.describe_head())
        return commit

    # step 6
    def _update_submodules(self, git: Git, dependency: DependencyConfig) -> None:
        if not dependency.submodules or not (git.path / ".gitmodules").is_file():
            return
        try:
            git.update_submodules(self.retry)
        except GitError as error:
            raise StepFailed("submodules", error.message) from None

    # step 7
    def _apply_patches(self, git: Git, dependency: DependencyConfig, patches: list[PatchFile],
                       report: DependencyReport) -> None:
        applied: list[PatchFile] = []
        for patch in patches:
            outcome = probe_and_apply(git, patch.path, patch.label,
                                      skip_missing=dependency.on_missing_target == "skip")
            report.patches.append(outcome)  # recorded before a failure, so the report shows it
            tolerated = " (tolerated: on-missing-target = skip)" if outcome.tolerated else ""
            self.runner.info(f"patch {patch.label}: {outcome.state}{tolerated}")
            if outcome.state == APPLIED:
                applied.append(patch)
            if not outcome.ok:
                message = _patch_failure(dependency, outcome, report.commit or "")
                raise StepFailed("patch", message + self._take_back(git, applied, report))

    def _take_back(self, git: Git, applied: list[PatchFile], report: DependencyReport) -> str:
        """Never leave a clone half-patched: revert this run's patches, newest first, and say
        what state the clone is in."""
        try:
            for patch in reversed(applied):
                git.revert(patch.path)
        except GitError as error:
            report.clone_state = (f"at {report.commit}, half-patched: reverting this run's "
                                  f"patches failed ({error.message})")
        else:
            report.clone_state = (f"at {report.commit} without patches"
                                  + (f" ({len(applied)} applied by this run, reverted)"
                                     if applied else ""))
        return (f"\nThe clone is {report.clone_state}; pip was not run, and the installed "
                f"package now serves that checkout: this job must not pass.")

    # step 9
    def _pip_install(self, dependency: DependencyConfig, report: DependencyReport) -> None:
        if not dependency.install_dir:
            self.runner.info(f"{dependency.name}: install-dir is empty; not pip installing")
            return
        directory = Path(dependency.path) / dependency.install_dir
        self._pip("pip", directory, dependency.name, dependency)
        if not self.dry_run:
            report.version = self._installed_from(directory, dependency.name)

    def _installed_from(self, directory: Path, what: str) -> str:
        """The version the interpreter reports for what it now imports from `directory`."""
        result = process.run(editable_probe_argv(self.settings.python, directory), self.runner,
                             env=pip_environment(self.settings.environ), echo=False)
        try:
            name, version = json.loads(result.stdout.strip() or "null")
        except (TypeError, ValueError):
            raise StepFailed("pip", f"pip reported success, but {self.settings.python} has no "
                                    f"distribution installed editable from {directory} (exit "
                                    f"code {result.returncode}); {what} is not what it "
                                    f"imports. Is `python` the container's interpreter?"
                             ) from None
        self.runner.info(f"{what}: {self.settings.python} imports {name} {version} from "
                         f"{directory}")
        return str(version)

    def _pip(self, step: str, directory: Path, what: str,
             dependency: DependencyConfig | None = None) -> None:
        argv = editable_install_argv(self.settings.python, directory,
                                     self._pip_args(dependency))
        if self.dry_run:
            self.runner.echo_command(argv, dry_run=True)
            return
        result = process.run(argv, self.runner, env=self._pip_env(dependency), capture=False)
        if not result.ok:
            raise StepFailed(step, f"`pip install -e {directory}` for {what} failed with exit "
                                   f"code {result.returncode} (pip's output is above); the "
                                   f"interpreter was {self.settings.python}")

    # step 11
    def install_workspace(self, report: InstallReport) -> str:
        if not report.dependencies:
            return "not needed"
        if report.failed:
            return "skipped (a dependency failed)"
        if not self.settings.config.install.workspace_install:
            return "disabled"
        if all(dep.state == UP_TO_DATE for dep in report.dependencies.values()):
            if all(self._workspace_done.get(name) for name in report.dependencies):
                return "not needed (all dependencies up to date)"
            self.runner.info("every dependency is up to date, but the workspace install after "
                             "them did not succeed last time: installing it again")
        outcome = self._install_workspace()
        for record in self._records.values():
            try:
                record.mark_workspace(self.settings.workspace, outcome)
            except (OSError, ValueError) as error:
                self.runner.warning(f"cannot update the install record {record.path}: {error}; "
                                    f"the next run installs again",
                                    title="rocm-deps: install record")
        return outcome

    def _install_workspace(self) -> str:
        with self.runner.group(f"workspace: pip install -e {self.settings.workspace}"):
            try:
                self._pip("workspace", self.settings.workspace, "the workspace")
            except StepFailed as failure:
                self.runner.error(failure.message, title="rocm-deps: workspace install failed")
                return FAILED
        return PLANNED_INSTALL if self.dry_run else INSTALLED

    @contextlib.contextmanager
    def _timed(self, report: DependencyReport, phase: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            report.seconds[phase] = time.monotonic() - started


def _first_names(names: list[str]) -> str:
    return ", ".join(names[:NAMES_IN_MESSAGE]) + (", …" if len(names) > NAMES_IN_MESSAGE else "")


def _environment_failure(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return (f"{error.strerror or error}{where}: the machine refused a write or a read, e.g. "
            f"a full disk or a read-only file system; free space or remount, then re-run")


def _patch_failure(dependency: DependencyConfig, outcome: PatchOutcome, commit: str) -> str:
    head = f"patch {outcome.patch} (sha256 {outcome.sha256}) at {dependency.name} {commit[:12]}"
    if outcome.patch == REPLAY_LABEL:
        return (f"{head}: the image's tracked edits, replayed because of `local-changes = "
                f"\"reapply\"`, are {outcome.state} at this commit. Set `dependencies."
                f"{dependency.name}.local-changes = \"discard\"` and redo what the image "
                f"did with `prepare` commands that fit this commit")
    if outcome.state == MISSING_TARGET:
        return (f"{head}: it modifies {', '.join(outcome.missing)}, which does not exist at this "
                f"commit, so the patch is probably obsolete for this ref. Update or drop the "
                f"patch, or set `dependencies.{dependency.name}.on-missing-target = \"skip\"`")
    if outcome.state == AMBIGUOUS:
        return (f"{head}: it both applies and reverse-applies, so it is impossible to tell "
                f"whether it is already present; give the patch more context lines")
    return (f"{head}: it neither applies nor is already present (fail-closed). Rejected hunks:\n"
            f"{outcome.rejected}\nFix: rebase the patch onto this ref, or name a ref the patch "
            f"supports")
