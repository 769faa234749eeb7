"""Configuration: built-in defaults (DESIGN §7) overridden field by field by a TOML file.

Pure: reads one file, touches nothing else. Every error names the file, the key and the
expected type, because a typo in a config key must never be silently ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, get_args

from rocm_deps.config.fields import (
    API_FIELDS,
    DEPENDENCY_FIELDS,
    INSTALL_FIELDS,
    TOP_LEVEL,
    VALUE_FIELDS,
    Fail,
    kind_of,
    number,
    table_values,
    unknown_key,
)
from rocm_deps.config.profiles import BUILTIN_DEFAULTS, PROFILES, Profile, ValueKind, check_value
from rocm_deps.errors import UsageError
from rocm_deps.files import CONFIG_LIMIT, read_bounded

DEPENDENCY_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
# What a directive key is made of, after case folding: the look-alike table
# (scripts/generate_look_alikes.py) folds other characters onto these.
KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
DIRECTIVE_KEY = re.compile(rf"[a-z][{re.escape(KEY_CHARACTERS)}]{{0,63}}", re.IGNORECASE)
INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
# owner/repo, as GitHub allows them: the pattern config, values and event payloads share.
REPOSITORY_NAME = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"
REPOSITORY = re.compile(REPOSITORY_NAME)
VALUE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")

MAX_FETCH_DEPTH = 1_000_000
OnMissingTarget = Literal["fail", "skip"]
TagPolicy = Literal["all", "reachable", "none"]
FetchFilter = Literal["", "blob:none"]  # "": every object; "blob:none": a partial fetch
RecipeName = Literal["sglang-rocm"]  # install.recipe.RECIPES
LocalChangesPolicy = Literal["discard", "reapply"]




@dataclass(frozen=True)
class DependencyConfig:
    name: str
    repository: str
    path: str
    remote: str = "origin"
    install_dir: str = "."
    patches: tuple[str, ...] = ()
    submodules: bool = False
    directive: str = ""
    dispatch_input: str = ""
    default: str | None = None
    fetch_depth: int = 0  # 0: full history (never make a complete clone shallow)
    tags: TagPolicy = "all"  # the tags fetched with the ref (see install.git.Git.fetch)
    fetch_filter: FetchFilter = ""  # "blob:none": commits and trees now, file contents lazily
    recipe: RecipeName | None = None  # the image build's edits, redone (install.recipe)
    on_missing_target: OnMissingTarget = "fail"
    local_changes: LocalChangesPolicy = "discard"  # or "reapply": replay the image's tracked edits
    prepare: tuple[tuple[str, ...], ...] = ()  # argv lists run before pip, in the clone
    pip_env: tuple[tuple[str, str], ...] = ()
    pip_args: tuple[str, ...] = ()
    rebuild_paths: tuple[str, ...] = ()




@dataclass(frozen=True)
class ValueConfig:
    """A directive that carries a value, not a git ref (`ci-image-tag: nightly`)."""

    name: str
    kind: ValueKind
    directive: str
    dispatch_input: str
    default: str | None = None
    from_body: bool = True  # False: the body's line is not applied (a notice says so)

    @property
    def output(self) -> str:
        return self.name.replace("-", "_")


@dataclass(frozen=True)
class InstallConfig:
    workspace_install: bool = True
    pip_args: tuple[str, ...] = ()
    fetch_attempts: int = 3
    retry_min_seconds: float = 10.0
    retry_max_seconds: float = 20.0
    lock_timeout_seconds: float = 600.0  # a second install on one clone waits this long


@dataclass(frozen=True)
class ApiConfig:
    timeout_seconds: int = 10
    attempts: int = 3
    backoff_seconds: float = 2.0
    # A primary rate limit can reset an hour away; never sleep that long in a CI job.
    max_rate_limit_wait_seconds: float = 60.0


@dataclass(frozen=True)
class Config:
    dependencies: tuple[DependencyConfig, ...]
    install: InstallConfig
    lock_file: str | None = None
    api: ApiConfig = ApiConfig()
    source: str = "built-in defaults"
    values: tuple[ValueConfig, ...] = ()
    lock_file_required: bool = True
    profile: Profile = "rocm"

    def dependency(self, name: str) -> DependencyConfig:
        for dependency in self.dependencies:
            if dependency.name == name:
                return dependency
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dependency.name for dependency in self.dependencies)


def load_config(path: str | Path | None, profile: Profile = "rocm") -> Config:
    """A profile's built-in defaults, overridden by the TOML file at `path` when given."""
    if path is None:
        return build_config({}, source="built-in defaults", profile=profile)
    import sys

    # Imported here: most runs use the built-in defaults and never parse TOML.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10 (the MI350 image's): the same parser, carried in the source tree
        from rocm_deps._vendor import tomli as tomllib
    source = str(path)
    if not Path(path).exists():
        where = ("" if Path(path).is_absolute() else
                 f" (a relative path is read from the working directory, {Path.cwd()})")
        raise UsageError(f"configuration file {source} does not exist{where}. In a job, check "
                         f"out the repository that holds it first (actions/checkout) and give "
                         f"its path relative to the workspace", title="Invalid configuration")
    text = read_bounded(Path(path), CONFIG_LIMIT, "configuration file")
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{source}: not valid TOML: {error}") from None
    except RecursionError:
        raise UsageError(f"{source}: not valid TOML: nested too deeply") from None
    return build_config(document, source=source, profile=profile)


def build_config(document: Mapping[str, Any], *, source: str,
                 profile: Profile = "rocm") -> Config:
    def fail(key: str, problem: str) -> UsageError:
        return UsageError(f"{source}: {key}: {problem}", title="Invalid configuration")

    unknown = sorted(set(document) - TOP_LEVEL)
    if unknown:
        raise fail(unknown[0], unknown_key(unknown[0], TOP_LEVEL))
    merged = _merge(_merge(BUILTIN_DEFAULTS, PROFILES[profile]), document)
    dependency_tables = merged["dependencies"]
    if not isinstance(dependency_tables, dict):
        raise fail("dependencies", "expected a table")
    dependencies = tuple(
        _dependency(name, table, fail) for name, table in dependency_tables.items()
        if not (isinstance(table, Mapping) and table.get("enabled") is False)
    )
    _check_unique(dependencies, fail)
    install_table = merged.get("install", {})
    if not isinstance(install_table, dict):
        raise fail("install", "expected a table")
    install = _install(install_table, fail)
    lock_file = merged.get("lock-file")
    if lock_file is not None and not isinstance(lock_file, str):
        raise fail("lock-file", f"expected a string (path of a JSON file), got "
                                f"{kind_of(lock_file)}")
    api_table = merged.get("api", {})
    if not isinstance(api_table, dict):
        raise fail("api", "expected a table")
    required = merged.get("lock-file-required", True)
    if not isinstance(required, bool):
        raise fail("lock-file-required", f"expected a boolean, got {kind_of(required)}")
    value_tables = merged.get("values", {})
    if not isinstance(value_tables, dict):
        raise fail("values", "expected a table")
    values = tuple(_value(name, table, fail) for name, table in value_tables.items()
                   if not (isinstance(table, Mapping) and table.get("enabled") is False))
    _check_unique((*dependencies, *values), fail)
    _check_outputs(dependencies, values, fail)
    return Config(dependencies, install, lock_file or None, _api(api_table, fail), source,
                  values, required, profile)


def _value(name: str, table: Any, fail: Fail) -> ValueConfig:
    where = f"values.{name}"
    values = _entry(name, VALUE_NAME, "a value name is lowercase letters, digits and '-', "
                    "starting with a letter (it becomes the output name, '-' read as '_')",
                    table, VALUE_FIELDS, where, fail)
    kind = cast(ValueKind, values.get("kind"))
    if kind not in get_args(ValueKind):
        raise fail(f"{where}.kind", f"expected \"docker-tag\" or \"number\", got {kind!r} "
                                    f"(a closed set: no regular expressions from a config)")
    directive, dispatch_input = _keys(values, where, f"ci-{name}",
                                      f"ci_{name.replace('-', '_')}", fail)
    default = values.get("default") or None
    if default is not None:
        problem = check_value(default, kind)
        if problem is not None:
            raise fail(f"{where}.default", problem)
    return ValueConfig(name, kind, directive, dispatch_input, default,
                       values.get("from-body", True))


def _entry(name: str, pattern: re.Pattern[str], rule: str, table: Any,
           fields: Mapping[str, tuple[Any, str]], where: str, fail: Fail) -> dict[str, Any]:
    """A dependency's or a value's table: its name checked, then every key and type."""
    if not pattern.fullmatch(name):
        raise fail(where, rule)
    if not isinstance(table, Mapping):
        raise fail(where, f"expected a table, got {kind_of(table)}")
    return table_values(table, fields, where, fail)


def _keys(values: Mapping[str, Any], where: str, directive: str, dispatch_input: str,
          fail: Fail) -> tuple[str, str]:
    """The PR-body key and the dispatch input of a dependency or a value, checked."""
    directive = values.get("directive", directive)
    if not DIRECTIVE_KEY.fullmatch(directive):
        raise fail(f"{where}.directive", f"expected letters, digits, '-', '_' or '.', "
                                         f"got {directive!r}")
    dispatch_input = values.get("dispatch-input", dispatch_input)
    if not INPUT_NAME.fullmatch(dispatch_input):
        raise fail(f"{where}.dispatch-input", f"not a valid input name: {dispatch_input!r}")
    return directive, dispatch_input


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _dependency(name: str, table: Any, fail: Fail) -> DependencyConfig:
    where = f"dependencies.{name}"
    values = _entry(name, DEPENDENCY_NAME, "a dependency name is lowercase letters, digits and "
                    "'_', starting with a letter (it becomes output names like <name>_sha)",
                    table, DEPENDENCY_FIELDS, where, fail)
    for required in ("repository", "path"):
        if required not in values:
            raise fail(f"{where}.{required}", "missing; every dependency needs it")
    if not REPOSITORY.fullmatch(values["repository"]):
        raise fail(f"{where}.repository",
                   f"expected the form 'owner/repo', got {values['repository']!r}")
    directive, dispatch_input = _keys(values, where, f"ci-{name}-pr", f"ci_{name}_pr", fail)
    fetch_depth = values.get("fetch-depth", 0)
    if not 0 <= fetch_depth <= MAX_FETCH_DEPTH:
        raise fail(f"{where}.fetch-depth", f"expected an integer from 0 (full history) to "
                                          f"{MAX_FETCH_DEPTH}, got {fetch_depth}")
    tags = values.get("tags", "all")
    if tags not in get_args(TagPolicy):
        raise fail(f"{where}.tags", f"expected \"all\", \"reachable\" or \"none\", got {tags!r}")
    fetch_filter = values.get("fetch-filter", "")
    if fetch_filter not in get_args(FetchFilter):
        raise fail(f"{where}.fetch-filter", f"expected \"blob:none\" or \"\", got "
                                           f"{fetch_filter!r}")
    recipe = values.get("recipe") or None
    if recipe is not None and recipe not in get_args(RecipeName):
        raise fail(f"{where}.recipe", f"expected \"sglang-rocm\" or \"\", got {recipe!r}")
    on_missing = values.get("on-missing-target", "fail")
    if on_missing not in get_args(OnMissingTarget):
        raise fail(f"{where}.on-missing-target",
                   f"expected \"fail\" or \"skip\", got {on_missing!r}")
    local_changes = values.get("local-changes", "discard")
    if local_changes not in get_args(LocalChangesPolicy):
        raise fail(f"{where}.local-changes",
                   f"expected \"discard\" or \"reapply\", got {local_changes!r}")
    for prefix in values.get("rebuild-paths", ()):
        if not prefix or prefix.startswith(("/", "-")) or ".." in prefix.split("/"):
            raise fail(f"{where}.rebuild-paths", f"expected paths inside the clone, got "
                                                 f"{prefix!r}")
    remote = values.get("remote", "origin")
    if not remote or remote.startswith("-"):
        raise fail(f"{where}.remote", f"not a valid remote name: {remote!r}")
    return DependencyConfig(
        name=name,
        repository=values["repository"],
        path=values["path"],
        remote=remote,
        install_dir=values.get("install-dir", "."),
        patches=tuple(values.get("patches", ())),
        submodules=values.get("submodules", False),
        directive=directive,
        dispatch_input=dispatch_input,
        default=values.get("default") or None,
        fetch_depth=fetch_depth,
        tags=tags,
        fetch_filter=fetch_filter,
        recipe=recipe,
        on_missing_target=on_missing,
        local_changes=local_changes,
        prepare=tuple(tuple(argv) for argv in values.get("prepare", ())),
        pip_env=tuple(sorted(values.get("pip-env", {}).items())),
        pip_args=tuple(values.get("pip-args", ())),
        rebuild_paths=tuple(values.get("rebuild-paths", ())),
    )


def _install(table: Mapping[str, Any], fail: Fail) -> InstallConfig:
    values = table_values(table, INSTALL_FIELDS, "install", fail)
    defaults = InstallConfig()
    low = number(values, "install", "retry-min-seconds", defaults.retry_min_seconds, fail)
    high = number(values, "install", "retry-max-seconds", defaults.retry_max_seconds, fail)
    if high < low:
        raise fail("install.retry-max-seconds",
                   f"expected 0 <= retry-min-seconds <= retry-max-seconds, got {low} and {high}")
    return InstallConfig(
        workspace_install=values.get("workspace-install", True),
        pip_args=tuple(values.get("pip-args", ())),
        fetch_attempts=int(number(values, "install", "fetch-attempts",
                                   defaults.fetch_attempts, fail)),
        retry_min_seconds=low,
        retry_max_seconds=high,
        lock_timeout_seconds=number(values, "install", "lock-timeout-seconds",
                                     defaults.lock_timeout_seconds, fail),
    )


def _api(table: Mapping[str, Any], fail: Fail) -> ApiConfig:
    values = table_values(table, API_FIELDS, "api", fail)
    defaults = ApiConfig()
    return ApiConfig(
        timeout_seconds=int(number(values, "api", "timeout-seconds", defaults.timeout_seconds,
                                    fail)),
        attempts=int(number(values, "api", "attempts", defaults.attempts, fail)),
        backoff_seconds=number(values, "api", "backoff-seconds", defaults.backoff_seconds,
                                fail),
        max_rate_limit_wait_seconds=number(values, "api", "max-rate-limit-wait-seconds",
                                            defaults.max_rate_limit_wait_seconds, fail))


def _check_unique(keyed: tuple[DependencyConfig | ValueConfig, ...], fail: Fail) -> None:
    """Directive keys and dispatch inputs name one dependency or value each."""
    seen_directives: dict[str, str] = {}
    seen_inputs: dict[str, str] = {}
    for item in keyed:
        table = "dependencies" if isinstance(item, DependencyConfig) else "values"
        for seen, value, key in (
            (seen_directives, item.directive.casefold(), "directive"),
            (seen_inputs, item.dispatch_input, "dispatch-input"),
        ):
            if value in seen:
                raise fail(f"{table}.{item.name}.{key}",
                           f"{value!r} is already used by {seen[value]}")
            seen[value] = (f"dependency {item.name!r}" if table == "dependencies"
                           else f"value {item.name!r}")


# The action's outputs that are not a value's: a value named after one would overwrite it.
FIXED_OUTPUTS = frozenset({"skip_dependency_install", "named_by", "overrides", "patches",
                           "report", "comment"})


def _check_outputs(dependencies: tuple[DependencyConfig, ...],
                   values: tuple[ValueConfig, ...], fail: Fail) -> None:
    taken = FIXED_OUTPUTS | {f"{dependency.name}_{suffix}" for dependency in dependencies
                             for suffix in ("ref", "sha")}
    for value in values:
        if value.output in taken:
            raise fail(f"values.{value.name}", f"its output `{value.output}` is already an "
                                               f"output of the action or of a dependency; "
                                               f"choose another name")
