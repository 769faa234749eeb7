"""`rocm-deps install`: put exactly the named dependency commits into the container (DESIGN §6).

For each overridden dependency, in order: check the path, skip everything when a previous
run already installed this commit with these patches into this interpreter, else clean,
fetch, check out, verify, update submodules, probe/apply patches and `pip install -e`.
Dependencies that are not named are never touched.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_deps import __version__, process
from rocm_deps.commands import resolve as resolve_command
from rocm_deps.commands.resolve import Override, ResolveSettings
from rocm_deps.config import Config, DependencyConfig
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK, UsageError
from rocm_deps.git import Git, GitError, RetryPolicy, is_permanent_fetch_failure
from rocm_deps.patches import (
    ALREADY_PRESENT,
    AMBIGUOUS,
    APPLIED,
    INCOMPATIBLE,
    MISSING_TARGET,
    PatchOutcome,
    probe_and_apply,
    sha256_of,
    try_reverse_applies,
)
from rocm_deps.refs import check_ref_format
from rocm_deps.runner import Runner, markdown_cell, markdown_table

REPORT_VERSION = 1
RECORD_NAME = "rocm-deps-state.json"
FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
PHASES = ("fetch", "checkout", "patch", "pip")

INSTALLED = "installed"
UP_TO_DATE = "up-to-date"
FAILED = "failed"
PLANNED = "planned"


@dataclass(frozen=True)
class InstallSettings:
    config: Config
    overrides: Mapping[str, Override] | None  # None: resolve from the event (single job)
    resolve: ResolveSettings
    workspace: Path
    python: str
    dry_run: bool = False
    output_format: str = "text"
    environ: Mapping[str, str] = field(default_factory=dict)


class StepFailed(Exception):
    def __init__(self, step: str, message: str) -> None:
        super().__init__(message)
        self.step = step
        self.message = message


@dataclass
class DependencyReport:
    name: str
    source: str
    ref: str
    sha: str | None
    state: str = ""
    commit: str | None = None
    failed_step: str | None = None
    error: str | None = None
    patches: list[PatchOutcome] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    fetch_attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "ref": self.ref, "sha": self.commit or self.sha,
            "state": self.state, "failed_step": self.failed_step, "error": self.error,
            "fetch_attempts": self.fetch_attempts,
            "patches": {outcome.patch: {"state": outcome.state, "sha256": outcome.sha256}
                        for outcome in self.patches},
            "seconds": {phase: round(seconds, 3) for phase, seconds in self.seconds.items()},
        }


@dataclass
class InstallReport:
    dry_run: bool
    python: str
    dependencies: dict[str, DependencyReport] = field(default_factory=dict)
    workspace: str = "not needed"

    @property
    def failed(self) -> bool:
        return any(dep.state == FAILED for dep in self.dependencies.values()) or (
            self.workspace == FAILED)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION, "dry_run": self.dry_run, "python": self.python,
            "dependencies": {name: dep.to_json() for name, dep in self.dependencies.items()},
            "workspace": self.workspace, "failed": self.failed,
        }


# ---- settings --------------------------------------------------------------------------


def settings_from(arguments: argparse.Namespace, environ: Mapping[str, str], runner: Runner,
                  resolve_settings: ResolveSettings) -> InstallSettings:
    config = resolve_settings.config
    if arguments.workspace_install is not None:
        install = dataclasses.replace(config.install,
                                      workspace_install=arguments.workspace_install == "true")
        config = dataclasses.replace(config, install=install)
        resolve_settings = dataclasses.replace(resolve_settings, config=config)
    overrides = None
    if arguments.overrides is not None:
        overrides = parse_overrides(arguments.overrides, config, "--overrides")
    elif arguments.overrides_file is not None:
        try:
            text = arguments.overrides_file.read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot read --overrides-file {arguments.overrides_file}: "
                             f"{error.strerror}") from None
        overrides = parse_overrides(text, config, str(arguments.overrides_file))
    workspace = arguments.workspace or Path(environ.get("GITHUB_WORKSPACE") or Path.cwd())
    return InstallSettings(
        config=config, overrides=overrides, resolve=resolve_settings,
        workspace=workspace.resolve(), python=find_python(arguments.python, environ),
        dry_run=arguments.dry_run, output_format=arguments.format, environ=dict(environ))


def find_python(requested: str | None, environ: Mapping[str, str]) -> str:
    """The interpreter under test: `--python`, else `python3` on PATH *outside* our own venv
    (the action's private environment must never be the one that gets the dependencies)."""
    search_path = environ.get("PATH", os.defpath)
    if requested:
        found = shutil.which(requested, path=search_path)
        if found is None:
            raise UsageError(f"--python {requested!r}: no such interpreter (not an executable "
                             f"file and not found on PATH)")
        return found
    own_bin = Path(sys.prefix, "bin").resolve() if sys.prefix != sys.base_prefix else None
    directories = [entry for entry in search_path.split(os.pathsep)
                   if entry and (own_bin is None or Path(entry).resolve() != own_bin)]
    found = shutil.which("python3", path=os.pathsep.join(directories))
    if found is None:
        raise UsageError("no python3 found on PATH outside rocm-deps' own environment; "
                         "pass --python (action input `python`) with the container's interpreter")
    return found


def parse_overrides(text: str, config: Config, where: str) -> dict[str, Override]:
    """The `overrides` output of resolve (or a whole resolve report), validated again: it
    travels through workflow outputs, and its refs reach git's argv."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{where}: not valid JSON ({error})") from None
    if isinstance(document, dict) and "version" in document and "overrides" in document:
        document = document["overrides"]
    if not isinstance(document, dict):
        raise UsageError(f"{where}: expected a JSON object mapping dependency names to overrides")
    overrides = {}
    for name, entry in document.items():
        if name not in config.names:
            raise UsageError(f"{where}: `{name}` is not a configured dependency "
                             f"(configured: {', '.join(config.names)})")
        overrides[name] = _override_entry(name, entry, where)
    return overrides


def _override_entry(name: str, entry: object, where: str) -> Override:
    if not isinstance(entry, dict) or not isinstance(entry.get("ref"), str):
        raise UsageError(f"{where}: `{name}` needs an object with a string `ref`")
    ref, sha = entry["ref"], entry.get("sha")
    problem = check_ref_format(ref)
    if problem:
        raise UsageError(f"{where}: `{name}` ref {ref!r} is not valid: {problem}")
    if sha is not None and (not isinstance(sha, str) or not FULL_SHA.fullmatch(sha)):
        raise UsageError(f"{where}: `{name}` sha must be a full lowercase hex SHA or null")
    if sha is None and FULL_SHA.fullmatch(ref):
        sha = ref
    line, pr = entry.get("line"), entry.get("pr")
    return Override(name, ref, str(entry.get("source") or "overrides"),
                    str(entry.get("raw") or ref), "commit" if sha == ref else "ref", sha,
                    line if isinstance(line, int) else None, pr if isinstance(pr, int) else None)


# ---- the algorithm ---------------------------------------------------------------------


class Installer:
    def __init__(self, settings: InstallSettings, runner: Runner) -> None:
        self.settings = settings
        self.runner = runner
        install = settings.config.install
        self.retry = RetryPolicy(install.fetch_attempts, install.retry_min_seconds,
                                 install.retry_max_seconds)
        self.python_identity = os.path.realpath(settings.python)

    def install(self, overrides: Mapping[str, Override]) -> InstallReport:
        report = InstallReport(self.settings.dry_run, self.settings.python)
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
                self._steps(dependency, override, report)
            except StepFailed as failure:
                report.state, report.failed_step, report.error = (
                    FAILED, failure.step, failure.message)
                self.runner.error(f"{dependency.name}: {failure.message}",
                                  title=f"rocm-deps: {dependency.name} {failure.step} failed")
        return report

    def _steps(self, dependency: DependencyConfig, override: Override,
               report: DependencyReport) -> None:
        git, git_dir = self._open(dependency)
        patches = self._patch_files(dependency)
        record_path = git_dir / RECORD_NAME
        record = _read_record(record_path)
        wanted_record = self._wanted_record(dependency, override, patches)
        commit = self._up_to_date(git, dependency, override, record, wanted_record, patches)
        if commit is not None:
            report.state, report.commit = UP_TO_DATE, commit
            report.patches = [PatchOutcome(label, state, digest) for label, digest, state
                              in _recorded_patches(record)]
            self.runner.info(f"{dependency.name} is up to date at {commit} (installed by an "
                             f"earlier run with the same patches and interpreter); nothing to do")
            return
        with self._timed(report, "fetch"):
            self._clean(git, record_path)
            report.fetch_attempts = self._fetch(git, dependency, override)
        with self._timed(report, "checkout"):
            report.commit = self._checkout(git, dependency, override)
        with self._timed(report, "patch"):
            self._apply_patches(git, dependency, patches, report)
        with self._timed(report, "pip"):
            self._pip_install(dependency)
        report.state = PLANNED if self.settings.dry_run else INSTALLED
        if not self.settings.dry_run:
            self._write_record(git, record_path, wanted_record, report)

    # step 1
    def _open(self, dependency: DependencyConfig) -> tuple[Git, Path]:
        path = Path(dependency.path)
        where = f"set `dependencies.{dependency.name}.path` in the config if the checkout lives "\
                f"elsewhere"
        if not path.is_dir():
            raise StepFailed("check", f"{path} does not exist; the container image is expected "
                                      f"to have a clone of {dependency.repository} there; {where}")
        git = Git(path.resolve(), self.runner, self.settings.environ,
                  dry_run=self.settings.dry_run)
        layout = git.try_layout()
        if layout is None or layout[0].resolve() != path.resolve():
            raise StepFailed("check", f"{path} is not the top of a git work tree; {where}")
        return git, layout[1]

    def _patch_files(self, dependency: DependencyConfig) -> list[tuple[str, Path]]:
        files = []
        for label in dependency.patches:
            patch = (self.settings.workspace / label).resolve()
            if not patch.is_file():
                raise StepFailed("patch", f"patch {label} not found in the workspace "
                                          f"{self.settings.workspace}; patch paths are relative "
                                          f"to the workspace checkout (--workspace / "
                                          f"$GITHUB_WORKSPACE), because the image deletes its "
                                          f"own copies")
            files.append((label, patch))
        return files

    # step 2
    def _wanted_record(self, dependency: DependencyConfig, override: Override,
                       patches: list[tuple[str, Path]]) -> dict[str, Any]:
        return {
            "tool": __version__, "ref": override.ref, "python": self.python_identity,
            "install_dir": dependency.install_dir,
            "pip_args": list(self.settings.config.install.pip_args),
            "patch_files": [[label, sha256_of(path)] for label, path in patches],
        }

    def _up_to_date(self, git: Git, dependency: DependencyConfig, override: Override,
                    record: dict[str, Any] | None, wanted: dict[str, Any],
                    patches: list[tuple[str, Path]]) -> str | None:
        """HEAD, when an earlier run installed exactly what is wanted now; else None."""
        if record is None or any(record.get(key) != value for key, value in wanted.items()):
            return None
        head = git.try_rev_parse("HEAD")
        if head is None or head != record.get("commit"):
            return None
        if override.sha is not None:
            if head != override.sha:
                return None
        elif head not in {sha for sha, _ in git.try_ls_remote(dependency.remote, override.ref)}:
            return None  # the ref moved since the last install
        if _tree_fingerprint(git) != record.get("fingerprint"):
            return None
        present = {label for label, _, state in _recorded_patches(record)
                   if state in (APPLIED, ALREADY_PRESENT)}
        if not all(try_reverse_applies(git, path) for label, path in patches if label in present):
            return None
        return head

    # step 3
    def _clean(self, git: Git, record_path: Path) -> None:
        git_dir = record_path.parent
        for lock in ("index.lock", "shallow.lock"):
            stale = git_dir / lock
            if stale.exists():
                if self.settings.dry_run:
                    self.runner.info(f"[dry-run] would remove stale {stale}")
                else:
                    self.runner.info(f"removing stale {stale} (left by an interrupted git)")
                    stale.unlink()
        if not self.settings.dry_run:
            record_path.unlink(missing_ok=True)  # a half-done install must not look installed
        try:
            git.change("reset", "--hard", "HEAD")
            git.change("clean", "-fd")
        except GitError as error:
            raise StepFailed("clean", error.message) from None

    # step 4
    def _fetch(self, git: Git, dependency: DependencyConfig, override: Override) -> int:
        target = override.sha or override.ref
        try:
            return git.fetch(dependency.remote, target, dependency.fetch_depth, self.retry)
        except GitError as error:
            url = git.remote_url(dependency.remote)
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

    # step 5 and 6
    def _checkout(self, git: Git, dependency: DependencyConfig, override: Override) -> str:
        if self.settings.dry_run:
            commit = override.sha or "FETCH_HEAD"
        else:
            fetched = git.try_rev_parse("FETCH_HEAD^{commit}")
            if fetched is None:
                raise StepFailed("checkout", "git fetch succeeded but FETCH_HEAD names no commit")
            commit = override.sha or fetched
        try:
            # `commit` is a verified hex SHA (or FETCH_HEAD), never text from the PR body.
            git.change("checkout", "-f", "--detach", commit)
        except GitError as error:
            raise StepFailed("checkout", error.message) from None
        if self.settings.dry_run:
            return commit
        head = git.try_rev_parse("HEAD")
        if head != commit:
            raise StepFailed("verify", f"HEAD is {head} after checking out {commit}; refusing to "
                                       f"test a commit other than the one asked for")
        self.runner.info(git.check("log", "--oneline", "--no-decorate", "-1").strip())
        if dependency.submodules and (git.path / ".gitmodules").is_file():
            try:
                git.with_retries(("submodule", "update", "--init", "--recursive"), self.retry)
            except GitError as error:
                raise StepFailed("submodules", error.message) from None
        return commit

    # step 7
    def _apply_patches(self, git: Git, dependency: DependencyConfig,
                       patches: list[tuple[str, Path]], report: DependencyReport) -> None:
        commit = report.commit or ""
        for label, path in patches:
            outcome = probe_and_apply(git, path, label,
                                      skip_missing=dependency.on_missing_target == "skip")
            report.patches.append(outcome)  # recorded before a failure, so the report shows it
            tolerated = " (tolerated: on-missing-target = skip)" if outcome.tolerated else ""
            self.runner.info(f"patch {label}: {outcome.state}{tolerated}")
            if not outcome.ok:
                raise StepFailed("patch", _patch_failure(dependency, outcome, commit))

    # step 8
    def _pip_install(self, dependency: DependencyConfig) -> None:
        if not dependency.install_dir:
            self.runner.info(f"{dependency.name}: install-dir is empty; not pip installing")
            return
        self._pip("pip", Path(dependency.path) / dependency.install_dir, dependency.name)

    def _pip(self, step: str, directory: Path, what: str) -> None:
        argv = [self.settings.python, "-m", "pip", "install", "-e", str(directory), "--no-deps",
                *self.settings.config.install.pip_args]
        if self.settings.dry_run:
            self.runner.echo_command(argv, dry_run=True)
            return
        env = {**self.settings.environ, "PIP_BREAK_SYSTEM_PACKAGES": "1",
               "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
        result = process.run(argv, self.runner, env=env, capture=False)
        if not result.ok:
            raise StepFailed(step, f"`pip install -e {directory}` for {what} failed with exit "
                                   f"code {result.returncode} (pip's output is above); the "
                                   f"interpreter was {self.settings.python}")

    # step 9
    def install_workspace(self, report: InstallReport) -> str:
        if not report.dependencies:
            return "not needed"
        if report.failed:
            return "skipped (a dependency failed)"
        if not self.settings.config.install.workspace_install:
            return "disabled"
        if all(dep.state == UP_TO_DATE for dep in report.dependencies.values()):
            return "not needed (all dependencies up to date)"
        with self.runner.group(f"workspace: pip install -e {self.settings.workspace}"):
            try:
                self._pip("workspace", self.settings.workspace, "the workspace")
            except StepFailed as failure:
                self.runner.error(failure.message, title="rocm-deps: workspace install failed")
                return FAILED
        return PLANNED if self.settings.dry_run else INSTALLED

    def _write_record(self, git: Git, record_path: Path, wanted: dict[str, Any],
                      report: DependencyReport) -> None:
        record = {**wanted, "commit": report.commit, "fingerprint": _tree_fingerprint(git),
                  "patches": [[o.patch, o.sha256, o.state] for o in report.patches]}
        record_path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

    @contextlib.contextmanager
    def _timed(self, report: DependencyReport, phase: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            report.seconds[phase] = time.monotonic() - started


def _patch_failure(dependency: DependencyConfig, outcome: PatchOutcome, commit: str) -> str:
    head = f"patch {outcome.patch} (sha256 {outcome.sha256}) at {dependency.name} {commit[:12]}"
    if outcome.state == MISSING_TARGET:
        return (f"{head}: it modifies {', '.join(outcome.missing)}, which does not exist at this "
                f"commit, so the patch is probably obsolete for this ref. Update or drop the "
                f"patch, or set `dependencies.{dependency.name}.on-missing-target = \"skip\"`")
    if outcome.state == AMBIGUOUS:
        return (f"{head}: it both applies and reverse-applies, so it is impossible to tell "
                f"whether it is already present; give the patch more context lines")
    assert outcome.state == INCOMPATIBLE
    return (f"{head}: it neither applies nor is already present (fail-closed). Rejected hunks:\n"
            f"{outcome.rejected}\nFix: rebase the patch onto this ref, or name a ref the patch "
            f"supports")


def _read_record(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _recorded_patches(record: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    return [(str(label), str(digest), str(state))
            for label, digest, state in (record or {}).get("patches", [])]


def _tree_fingerprint(git: Git) -> str:
    """What the work tree holds beyond HEAD: the binary diff and the untracked file names."""
    diff = git.check("diff", "--binary", "HEAD", echo=False)
    untracked = git.check("ls-files", "--others", "--exclude-standard", "-z", echo=False)
    return hashlib.sha256(f"{diff}\0\0{untracked}".encode()).hexdigest()


# ---- presentation ----------------------------------------------------------------------


def outputs(report: InstallReport, config: Config) -> dict[str, str]:
    values = {}
    for dependency in config.dependencies:
        installed = report.dependencies.get(dependency.name)
        values[f"{dependency.name}_sha"] = (installed.commit or "") if installed else ""
    patch_states = {name: {outcome.patch: outcome.state for outcome in dep.patches}
                    for name, dep in report.dependencies.items()}
    values["patches"] = json.dumps(patch_states, separators=(",", ":"))
    values["report"] = json.dumps(report.to_json(), separators=(",", ":"))
    return values


def summary_markdown(report: InstallReport) -> str:
    lines = ["### rocm-deps install" + (" (dry run)" if report.dry_run else ""), ""]
    if not report.dependencies:
        lines.append("No dependency is named: every dependency keeps the image's copy.")
        return "\n".join(lines)
    rows = []
    for name, dep in report.dependencies.items():
        patches = ", ".join(f"{o.patch.rsplit('/', 1)[-1]}: {o.state}" for o in dep.patches)
        seconds = [f"{dep.seconds[phase]:.1f}" if phase in dep.seconds else "" for phase in PHASES]
        state = dep.state + (f" at {dep.failed_step}" if dep.failed_step else "")
        rows.append([name, dep.source, markdown_cell(dep.ref), markdown_cell(dep.commit),
                     markdown_cell(patches), state, *seconds])
    lines.append(markdown_table(["dependency", "source", "ref", "SHA", "patches", "state",
                                 *(f"{phase} s" for phase in PHASES)], rows))
    lines += ["", f"Interpreter: `{report.python}`; workspace: {report.workspace}."]
    errors = [(name, dep.error) for name, dep in report.dependencies.items() if dep.error]
    if errors:
        lines += ["", "#### Errors", ""]
        lines += [f"- **{name}**: " + (error or "").replace("\n", " ").replace("<", "&lt;")
                  for name, error in errors]
    return "\n".join(lines)


def text_report(report: InstallReport) -> str:
    if not report.dependencies:
        return "nothing named: no dependency installed"
    lines = []
    for name, dep in report.dependencies.items():
        patches = "; ".join(f"{o.patch}: {o.state}" for o in dep.patches) or "no patches"
        where = f" at step {dep.failed_step}" if dep.failed_step else ""
        lines.append(f"{name}: {dep.state}{where} {dep.commit or dep.ref} ({patches})")
    lines.append(f"workspace: {report.workspace}")
    return "\n".join(lines)


def run(settings: InstallSettings, runner: Runner) -> int:
    overrides = settings.overrides
    if overrides is None:
        resolved = resolve_command.resolve(settings.resolve, runner)
        resolve_command.annotate(resolved, runner)
        runner.add_summary(resolve_command.summary_markdown(resolved, settings.config))
        if resolved.errors:
            return EXIT_FAILURE
        overrides = resolved.overrides
    report = Installer(settings, runner).install(overrides)
    runner.set_outputs(outputs(report, settings.config))
    runner.add_summary(summary_markdown(report))
    if settings.output_format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(text_report(report))
    return EXIT_FAILURE if report.failed else EXIT_OK
