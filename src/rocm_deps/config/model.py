"""The configuration as the rest of the tool reads it: frozen dataclasses whose defaults are the
rows of `fields` (docs/architecture.md, *Configuration*)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocm_deps.config.fields import (
    API,
    DEPENDENCY,
    INSTALL,
    TOP_LEVEL,
    VALUE,
    BuildIsolation,
    FetchFilter,
    LocalChangesPolicy,
    OnMissingTarget,
    RecipeName,
    TagPolicy,
)
from rocm_deps.config.profiles import Profile
from rocm_deps.defaults import DEFAULT_PROFILE
from rocm_deps.grammar.keys import REPOSITORY_NAME, CodeDirectives, RefKey, ValueKey
from rocm_deps.retry import RetryPolicy

DEPENDENCY_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
DISTRIBUTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")
GIT_URL = re.compile(r"(?:https://|file:///)[A-Za-z0-9._~/%+-]+(?::[0-9]{1,5})?[A-Za-z0-9._~/%+-]*")
VALUE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")
REPOSITORY = re.compile(REPOSITORY_NAME)


@dataclass(frozen=True)
class DependencyConfig(RefKey):
    """A configured dependency: its directive (`RefKey`: name, repository, directive and
    dispatch input, the directive's default from DEPENDENCY["directive"]) and its install."""

    path: str | None = DEPENDENCY["path"].default  # None: a git package (`distribution`)
    distribution: str | None = DEPENDENCY["distribution"].default
    url: str | None = DEPENDENCY["url"].default  # a git package's; loader: GitHub's by default
    remote: str = DEPENDENCY["remote"].default
    install_dir: str = DEPENDENCY["install-dir"].default
    patches: tuple[str, ...] = DEPENDENCY["patches"].default
    submodules: bool = DEPENDENCY["submodules"].default
    default: str | None = DEPENDENCY["default"].default
    fetch_depth: int = DEPENDENCY["fetch-depth"].default  # 0: never make a clone shallow
    tags: TagPolicy = DEPENDENCY["tags"].default  # see install.git.Git.fetch
    fetch_filter: FetchFilter = DEPENDENCY["fetch-filter"].default
    recipe: RecipeName | None = DEPENDENCY["recipe"].default  # install.recipe
    on_missing_target: OnMissingTarget = DEPENDENCY["on-missing-target"].default
    local_changes: LocalChangesPolicy = DEPENDENCY["local-changes"].default
    prepare: tuple[tuple[str, ...], ...] = DEPENDENCY["prepare"].default  # argv lists
    pip_env: tuple[tuple[str, str], ...] = DEPENDENCY["pip-env"].default
    pip_args: tuple[str, ...] = DEPENDENCY["pip-args"].default
    build_isolation: BuildIsolation = DEPENDENCY["build-isolation"].default  # install.build
    merge_with_base: bool = DEPENDENCY["merge-with-base"].default  # PR forms mean the merge

    @property
    def clone(self) -> str:
        """The clone's path; only a clone dependency has one (a git package has none)."""
        if self.path is None:
            raise ValueError(f"{self.name} is a git package: it has no clone")
        return self.path
    rebuild_paths: tuple[str, ...] = DEPENDENCY["rebuild-paths"].default
    compile_inputs: tuple[str, ...] = DEPENDENCY["compile-inputs"].default


@dataclass(frozen=True)
class ValueConfig(ValueKey):
    """A directive that carries a value, not a git ref (`ci-image-tag: nightly`)."""

    default: str | None = VALUE["default"].default
    from_body: bool = VALUE["from-body"].default  # False: a body line is only a notice

    @property
    def output(self) -> str:
        return self.name.replace("-", "_")


@dataclass(frozen=True)
class InstallConfig:
    workspace_install: bool = INSTALL["workspace-install"].default
    pip_args: tuple[str, ...] = INSTALL["pip-args"].default
    fetch_attempts: int = INSTALL["fetch-attempts"].default
    retry_min_seconds: float = INSTALL["retry-min-seconds"].default
    retry_max_seconds: float = INSTALL["retry-max-seconds"].default
    lock_timeout_seconds: float = INSTALL["lock-timeout-seconds"].default

    @property
    def retry(self) -> RetryPolicy:
        """git's fetches: jittered waits, so that runners retrying one server spread out."""
        return RetryPolicy(self.fetch_attempts, self.retry_min_seconds, self.retry_max_seconds)


@dataclass(frozen=True)
class ApiConfig:
    timeout_seconds: int = API["timeout-seconds"].default
    attempts: int = API["attempts"].default
    backoff_seconds: float = API["backoff-seconds"].default
    max_rate_limit_wait_seconds: float = API["max-rate-limit-wait-seconds"].default

    @property
    def retry(self) -> RetryPolicy:
        """API requests and the wait for GitHub's test merge: exponential backoff."""
        return RetryPolicy(self.attempts, self.backoff_seconds)


@dataclass(frozen=True)
class Config:
    dependencies: tuple[DependencyConfig, ...]
    install: InstallConfig
    lock_file: str | None = TOP_LEVEL["lock-file"].default
    api: ApiConfig = ApiConfig()
    source: str = "built-in defaults"
    values: tuple[ValueConfig, ...] = ()
    lock_file_required: bool = TOP_LEVEL["lock-file-required"].default
    profile: Profile = DEFAULT_PROFILE
    code_directives: CodeDirectives = TOP_LEVEL["code-directives"].default
    text: str | None = None  # the file's TOML as read (carried to install with `overrides`)
    profile_from: str = "default"  # what chose the profile: "input", "file" or "default"
    path: str | None = None  # the file as a command line names it (`--config`): a reproduction's

    @property
    def profile_origin(self) -> str:
        """What chose the profile, as `rocm-deps config` and the step's log say it."""
        return {"input": "input `profile`", "file": "the file's `profile`",
                "default": "the default"}[self.profile_from]

    @property
    def options(self) -> tuple[str, ...]:
        """The command-line options that make another command read this configuration: its
        file, and the profile when an input chose it."""
        return ((("--config", self.path) if self.path else ())
                + (("--profile", self.profile) if self.profile_from == "input" else ()))

    def dependency(self, name: str) -> DependencyConfig:
        for dependency in self.dependencies:
            if dependency.name == name:
                return dependency
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dependency.name for dependency in self.dependencies)
