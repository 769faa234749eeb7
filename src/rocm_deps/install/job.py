"""What the install steps share: the run's context and one dependency's job in progress.

A step is a function `(Context, Job) -> None` (see `pipeline.STEPS`). It reads the job, does
its part or, in a dry run, prints it, records what it learnt in `job.report`, and raises
`StepFailed` with a message that says what failed and how to fix it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rocm_deps import __version__, process
from rocm_deps.config import DependencyConfig
from rocm_deps.contract.install import REPLAY_LABEL, DependencyReport, FailedStep, Phase
from rocm_deps.contract.overrides import Override
from rocm_deps.environment import pip_environment
from rocm_deps.install.git import Git
from rocm_deps.install.record import (
    BuildFile,
    ImageState,
    ImageStateFile,
    RecordFile,
    Request,
    sha256_of,
)
from rocm_deps.install.settings import InstallSettings
from rocm_deps.retry import RetryPolicy
from rocm_deps.runner import Runner

ENVIRONMENT_PROBE = "import sys; print(sys.prefix); print(sys.version)"
NAMES_IN_MESSAGE = 5  # file names a warning lists before "…"


class StepFailed(Exception):
    def __init__(self, step: FailedStep, message: str) -> None:
        super().__init__(message)
        self.step = step
        self.message = message


@dataclass(frozen=True)
class PatchFile:
    label: str  # as configured, relative to the workspace
    path: Path


@dataclass
class Context:
    """The run: settings, where to report, and what every dependency's install shares."""

    settings: InstallSettings
    runner: Runner
    retry: RetryPolicy = field(init=False)
    _environment: str | None = None
    # What the interpreter under test answered to a probe that pip cannot change (its
    # extension suffix): asked once a run.
    answers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.retry = self.settings.config.install.retry

    @property
    def dry_run(self) -> bool:
        return self.settings.dry_run

    def environment(self) -> str:
        """Where pip installs: the target's `sys.prefix` and version, asked of it. Two venvs
        on one base interpreter resolve to one binary but are two environments."""
        if self._environment is None:
            python = self.settings.python
            result = process.run((python, "-I", "-c", ENVIRONMENT_PROBE), self.runner,
                                 env=pip_environment(self.settings.environ), echo=False)
            if not result.ok:
                raise StepFailed("check", f"the interpreter {python} does not run (exit code "
                                          f"{result.returncode}): "
                                          f"{result.stderr.strip()[-500:]}")
            self._environment = result.stdout.strip()
        return self._environment

    def pip_args(self, dependency: DependencyConfig | None) -> tuple[str, ...]:
        extra = dependency.pip_args if dependency else ()
        return (*self.settings.config.install.pip_args, *extra)

    def pip_env(self, dependency: DependencyConfig | None) -> dict[str, str]:
        return pip_environment(self.settings.environ,
                               dict(dependency.pip_env) if dependency else None)


@dataclass
class Job:
    """One dependency's install in progress. `record` is None in a dry run without the
    clone: the plan is printed for a path this machine does not have."""

    dependency: DependencyConfig
    override: Override
    report: DependencyReport
    git: Git
    record: RecordFile | None
    configured_patches: list[PatchFile]
    image: ImageState | None = None
    # Not named: the install returns the clone and the interpreter to the image's copy, the
    # image's commit with the image's own edits (and none of the configured patches).
    restoring: bool = False

    @property
    def build_file(self) -> BuildFile | None:
        return BuildFile(self.record.path.parent) if self.record else None

    @property
    def image_file(self) -> ImageStateFile | None:
        return ImageStateFile(self.record.path.parent) if self.record else None

    @property
    def patches(self) -> list[PatchFile]:
        """The configured patches, then the image's replayed edits when asked for; when
        restoring the image's copy, its edits alone."""
        image = self.image
        replay = ([PatchFile(REPLAY_LABEL, image.changes)]
                  if image is not None and image.changes is not None else [])
        if self.restoring:
            return replay
        if self.dependency.local_changes != "reapply":
            return self.configured_patches
        return [*self.configured_patches, *replay]

    def request(self, context: Context) -> Request:
        """What this install is asked to do: equal requests give equal results."""
        dependency = self.dependency
        return Request(tool=__version__, ref=self.override.ref,
                       python=context.environment(), install_dir=dependency.install_dir,
                       pip_args=context.pip_args(dependency),
                       patch_files=tuple((patch.label, sha256_of(patch.path))
                                         for patch in self.patches),
                       pip_env=dependency.pip_env, prepare=dependency.prepare)


@contextlib.contextmanager
def timed(report: DependencyReport, phase: Phase | None) -> Iterator[None]:
    """Count the block's seconds towards `phase` of `report` (a clone's job, a git package)."""
    started = time.monotonic()
    try:
        yield
    finally:
        if phase is not None:
            report.seconds[phase] = report.seconds.get(phase, 0.0) + time.monotonic() - started


def first_names(names: list[str]) -> str:
    return ", ".join(names[:NAMES_IN_MESSAGE]) + (", …" if len(names) > NAMES_IN_MESSAGE else "")
