"""Put exactly the named dependency commits into the container (docs/architecture.md, *The install
pipeline*).

For each configured dependency: open the clone and lock it; skip everything when the
install record says this commit with these patches is already installed into this
interpreter (the up-to-date check); else walk `STEPS`, the one list of what an install does.
A dependency that is not named is held at the image's copy: when an earlier run moved it, the
same steps return it to the image's recorded commit. A real run, a dry run and a dry run
without the clone (a laptop away from the image) all walk that list, so a plan can never
leave out a step that the run takes. A git package (no clone) is installed by
`git_package.install`. After every dependency, `install_workspace` reinstalls the workspace.
Settings in, a `DependencyReport` out; nothing here prints a summary or an output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rocm_deps.config import DependencyConfig
from rocm_deps.config.loader import from_profile
from rocm_deps.contract.install import (
    ABSENT,
    FAILED,
    IMAGE,
    INSTALLED,
    PLANNED_INSTALL,
    RESTORED,
    UNCHANGED,
    UP_TO_DATE,
    DependencyReport,
    InstallReport,
    Phase,
    StepName,
    WorkspaceState,
)
from rocm_deps.contract.overrides import Override
from rocm_deps.grammar.refs import FULL_SHA
from rocm_deps.install import build, checkout, clean, compiled, git_package, patches, recipe
from rocm_deps.install.git import Git, Layout
from rocm_deps.install.job import Context, Job, PatchFile, StepFailed, timed
from rocm_deps.install.lock import LockError, LockTimeout, clone_lock
from rocm_deps.install.record import Record, RecordFile, left_by_install, tree_fingerprint
from rocm_deps.install.settings import InstallSettings
from rocm_deps.runner import Runner


@dataclass(frozen=True)
class Step:
    name: StepName
    phase: Phase | None  # the report's timed phase it counts towards
    run: Callable[[Context, Job], None]


# What an install does to one clone, in order (docs/architecture.md, *The install pipeline*).
STEPS: tuple[Step, ...] = (
    Step("clean", "clean", clean.clean),
    Step("fetch", "fetch", checkout.fetch),
    Step("checkout", "checkout", checkout.checkout),
    Step("submodules", "checkout", checkout.update_submodules),
    Step("patch", "patch", patches.apply_patches),
    Step("recipe", "prepare", recipe.redo),
    Step("prepare", "prepare", build.prepare),
    Step("pip", "pip", build.pip_install),
    Step("rebuild-check", None, build.rebuild_warning),
)


class Installer:
    def __init__(self, settings: InstallSettings, runner: Runner) -> None:
        self.context = Context(settings, runner)
        self.settings = settings
        self.runner = runner
        # Install records of the dependencies this run installed or found up to date, and
        # whether their last workspace install succeeded.
        self._records: dict[str, RecordFile] = {}
        self._workspace_done: dict[str, bool] = {}

    def install_one(self, dependency: DependencyConfig,
                    override: Override | None) -> DependencyReport:
        """Install `override` into `dependency`'s clone and the interpreter; when nothing names
        the dependency (None), make sure both hold the image's copy."""
        wanted = override or _image_copy(dependency.name)
        report = DependencyReport(dependency.name, wanted.source, wanted.ref, wanted.sha)
        title = (f"{dependency.name}: {wanted.raw} → {wanted.ref}" if override else
                 f"{dependency.name}: not named, the image's copy")
        with self.runner.group(title):
            try:
                try:
                    if dependency.path is None:  # a git package: pip-installed, no clone
                        git_package.install(self.context, dependency, override, report)
                    elif override is None and not Path(dependency.path).is_dir():
                        report.state = ABSENT
                        self.runner.info(f"{dependency.name}: not named, and there is no clone "
                                         f"at {dependency.path}: nothing to keep")
                    elif self.settings.dry_run and not Path(dependency.path).exists():
                        self._walk(self._job_without_clone(dependency, wanted, report))
                    else:
                        git = self._git(dependency)
                        job = self._job(dependency, wanted, report, git, git.layout())
                        job.restoring = override is None
                        self._install(job)
                except OSError as error:  # disk full, read-only file system, ...
                    raise StepFailed("environment", _environment_failure(error)) from None
            except StepFailed as failure:
                report.state, report.failed_step, report.error = (
                    FAILED, failure.step, failure.message)
                if report.clone_state is None and report.commit and not self.settings.dry_run:
                    report.clone_state = _left_at(report)
                self.runner.error(f"{dependency.name}: {failure.message}",
                                  title=f"rocm-deps: {dependency.name} {failure.step} failed")
        return report

    def _install(self, job: Job) -> None:
        """Under the clone's lock (none in a dry run: it changes nothing, not even a lock
        file)."""
        dependency = job.dependency
        if self.settings.dry_run:  # a dry run changes nothing, not even a lock file
            self._locked(job)
            return
        assert job.record is not None
        try:
            with clone_lock(job.record.path.parent,
                            self.settings.config.install.lock_timeout_seconds):
                self._locked(job)
        except LockTimeout as error:
            raise StepFailed("lock", f"another install is working on {dependency.path}: "
                                     f"{error.path} is held by {error.holder}; waited "
                                     f"{error.waited:g} s (install.lock-timeout-seconds). Two "
                                     f"installs on one clone would each claim their commit "
                                     f"while the clone holds only one") from None
        except LockError as error:
            raise StepFailed("lock", str(error)) from None

    def _locked(self, job: Job) -> None:
        assert job.record is not None
        image_file = job.image_file
        assert image_file is not None
        job.image = image_file.load()
        job.report.image_commit = job.image.commit if job.image else None
        if job.restoring and not self._towards_the_image(job):
            return
        record = job.record.load()
        if self._up_to_date(job, record):
            assert record is not None
            self._skip(job, record)
            return
        self._walk(job)
        if not self.settings.dry_run:
            job.record.save(job.request(self.context), job.report.commit or "",
                            tree_fingerprint(job.git), job.report.patches,
                            left_by_install(job.git))
            self._records[job.dependency.name] = job.record
            self._workspace_done[job.dependency.name] = False

    def _towards_the_image(self, job: Job) -> bool:
        """Not named: whether the clone must be returned to the image's copy. A clone whose
        image state was never captured was never reset by this tool, so neither it nor its
        install in the interpreter was ever changed: it is the image's copy. Otherwise the job
        now asks for the image's commit."""
        if job.image is None:
            head = job.git.commit_of("HEAD")
            job.report.state, job.report.commit = IMAGE, head
            self.runner.info(f"{job.dependency.name}: not named; the clone was never changed "
                             f"by rocm-deps: the image's copy at {head}")
            return False
        job.override = _image_copy(job.dependency.name, job.image.commit)
        job.report.ref = job.report.sha = job.image.commit
        return True

    def _walk(self, job: Job) -> None:
        """`STEPS`: the same list for a run, a dry run and a plan without the clone."""
        for step in STEPS:
            job.report.steps.append(step.name)
            with timed(job.report, step.phase):
                step.run(self.context, job)
        job.report.state = (PLANNED_INSTALL if self.settings.dry_run else
                            RESTORED if job.restoring else INSTALLED)
        if job.restoring and not self.settings.dry_run:
            self.runner.warning(f"{job.dependency.name}: not named, but an earlier run had "
                                f"installed another commit: returned the clone and the "
                                f"interpreter to the image's copy at {job.override.ref}",
                                title=f"rocm-deps: {job.dependency.name} restored")

    def _skip(self, job: Job, record: Record) -> None:
        report, name = job.report, job.dependency.name
        report.state, report.commit = (IMAGE if job.restoring else UP_TO_DATE), record.commit
        report.patches = list(record.patches)
        assert job.record is not None
        self._records[name] = job.record
        self._workspace_done[name] = record.workspace_installed(self.settings.workspace)
        self.runner.info(f"{name} is up to date at {record.commit} (installed by an earlier "
                         f"run with the same patches and interpreter); nothing to do")

    def _job_without_clone(self, dependency: DependencyConfig, override: Override,
                           report: DependencyReport) -> Job:
        """`--dry-run` away from the container (a laptop): the plan, and what is missing."""
        path = Path(dependency.clone)
        self.runner.warning(f"{path} does not exist on this machine: below is what install "
                            f"would run where the image has its clone of "
                            f"{dependency.repository} (the up-to-date check needs the clone, "
                            f"so the plan is the full install)",
                            title="rocm-deps: dry run without the clone")
        report.clone_state, report.clone_missing = f"missing on this machine ({path})", True
        git = Git(path, self.runner, self.settings.environ, dry_run=True)
        return Job(dependency, override, report, git, None, self._patch_files(dependency))

    def _git(self, dependency: DependencyConfig) -> Git:
        """git in the dependency's clone, which must exist."""
        path = Path(dependency.clone)
        if not path.is_dir():
            raise StepFailed("check", f"{path} does not exist; the container image is expected "
                                      f"to have a clone of {dependency.repository} there; "
                                      f"{_where(dependency)}")
        return Git(path.resolve(), self.runner, self.settings.environ,
                   dry_run=self.settings.dry_run)

    def _job(self, dependency: DependencyConfig, override: Override, report: DependencyReport,
             git: Git, layout: Layout | None) -> Job:
        """The clone's path must be the top of a git work tree (`layout`)."""
        if layout is None or layout.top.resolve() != git.path:
            raise StepFailed("check", f"{dependency.clone} is not the top of a git work tree; "
                                      f"{_where(dependency)}")
        return Job(dependency, override, report, git, RecordFile(layout.git_dir),
                   self._patch_files(dependency))

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
                chosen = from_profile(self.settings.config, "dependencies", dependency.name,
                                      "patches")
                raise StepFailed("patch", f"patch {label} not found in the workspace "
                                          f"{self.settings.workspace}; patch paths are relative "
                                          f"to the workspace checkout (--workspace / "
                                          f"$GITHUB_WORKSPACE)"
                                          + (f"; {chosen}" if chosen else ""))
            files.append(PatchFile(label, patch))
        return files

    def _up_to_date(self, job: Job, record: Record | None) -> bool:
        """Whether an earlier run installed exactly what is wanted now, and the clone still
        holds it: same HEAD, the ref has not moved, the work tree as it was left. A clone
        whose image state was never captured was never installed by this tool."""
        if record is None or job.image is None or not record.satisfies(
                job.request(self.context)):
            return False
        git = job.git
        head = git.commit_of("HEAD")
        if head is None or head != record.commit:
            return False
        wanted = job.override.sha or git.remote_commit(job.dependency.remote, job.override.ref)
        if head != wanted:
            return False  # the ref moved since the last install (or cannot be read)
        if tree_fingerprint(git) != record.fingerprint:
            return False
        if not self._extensions_as_built(job):
            return False
        if not all(git.try_apply_check(patch.path, reverse=True, echo=False)
                   for patch in job.patches if patch.label in record.present_patches):
            return False
        return self._imports_from_the_clone(job)

    def _imports_from_the_clone(self, job: Job) -> bool:
        """An installed clone is up to date only while `import` finds its modules in the clone
        (a `.pth` file an earlier job left can put another copy first)."""
        if not job.dependency.install_dir:
            return True  # only cloned: the interpreter imports nothing from it
        directory = Path(job.dependency.clone) / job.dependency.install_dir
        name, _, found = build.imported_from(self.context, directory)
        elsewhere = build.shadowed(found, directory) if name is not None else (
            f"no distribution installed editable from {directory}")
        if elsewhere:
            self.runner.warning(f"{job.dependency.name}: the clone is at the wanted commit, but "
                                f"{self.settings.python} imports {elsewhere}: installing it "
                                f"again", title=f"rocm-deps: {job.dependency.name} install "
                                                f"changed")
        return not elsewhere

    def _extensions_as_built(self, job: Job) -> bool:
        """With `compile-inputs`: every extension file is the one the recorded build left
        (git ignores them, so the tree's fingerprint cannot see one rebuilt elsewhere). A
        dependency only cloned (no `install-dir`) is never built by pip: nothing to compare."""
        if not job.dependency.compile_inputs or job.build_file is None or (
                not job.dependency.install_dir):
            return True
        build = job.build_file.load(self.context.environment())
        files = compiled.extension_files(self.context, job)[1]
        return build is not None and compiled.file_hashes(job, files) == build.files

    def workspace_commit(self) -> str | None:
        """The commit the workspace is checked out at (None: not a git checkout): what this job
        tested, where a dispatch re-test's status may go."""
        git = Git(self.settings.workspace, self.runner, self.settings.environ)
        result = git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", echo=False)
        commit = result.stdout.strip().lower()
        return commit if result.ok and FULL_SHA.fullmatch(commit) else None

    def install_workspace(self, report: InstallReport) -> WorkspaceState:
        if all(dep.state in UNCHANGED for dep in report.dependencies.values()):
            return "not needed"
        if any(dep.state == FAILED for dep in report.dependencies.values()):
            return "skipped (a dependency failed)"  # a dry run's missing clone: still planned
        if not self.settings.config.install.workspace_install:
            return "disabled"
        if all(dep.state in (UP_TO_DATE, *UNCHANGED) for dep in report.dependencies.values()):
            if all(self._workspace_done.get(name) for name, dep in report.dependencies.items()
                   if dep.state == UP_TO_DATE):
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

    def _install_workspace(self) -> WorkspaceState:
        with self.runner.group(f"workspace: pip install -e {self.settings.workspace}"):
            try:
                build.editable_install(self.context, "workspace", self.settings.workspace,
                                       "the workspace")
            except StepFailed as failure:
                self.runner.error(failure.message, title="rocm-deps: workspace install failed")
                return "failed"
        return "planned" if self.settings.dry_run else "installed"


def _image_copy(name: str, commit: str | None = None) -> Override:
    """What a dependency that nothing names is held to: the image's commit (None until the
    clone's image state is read)."""
    return Override(name, "commit", commit or "the image's copy", "image", "not named",
                    sha=commit)


def _where(dependency: DependencyConfig) -> str:
    return (f"set `dependencies.{dependency.name}.path` in the config if the checkout lives "
            f"elsewhere")


def _left_at(report: DependencyReport) -> str:
    """Where a step after checkout left the clone, and what the interpreter still holds."""
    patched = [outcome.patch for outcome in report.patches
               if outcome.state in ("applied", "already-present")]
    patches = f"with {', '.join(patched)}" if patched else "without patches"
    return (f"at {report.commit} {patches}; the interpreter still holds the image's build of "
            f"{report.name}")


def _environment_failure(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return (f"{error.strerror or error}{where}: the machine refused a write or a read, e.g. "
            f"a full disk or a read-only file system; free space or remount, then re-run")
