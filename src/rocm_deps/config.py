"""Configuration: built-in defaults (DESIGN §7) overridden field by field by a TOML file.

Pure: reads one file, touches nothing else. Every error names the file, the key and the
expected type, because a typo in a config key must never be silently ignored.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, get_args

from rocm_deps.errors import UsageError
from rocm_deps.files import CONFIG_LIMIT, read_bounded
from rocm_deps.profiles import BUILTIN_DEFAULTS, PROFILES, Profile, ValueKind, check_value

DEPENDENCY_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
# What a directive key is made of, after case folding: the look-alike table
# (scripts/generate_look_alikes.py) folds other characters onto these.
KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
DIRECTIVE_KEY = re.compile(rf"[a-z][{re.escape(KEY_CHARACTERS)}]{{0,63}}", re.IGNORECASE)
INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
# owner/repo, as GitHub allows them: the pattern config, values and event payloads share.
REPOSITORY_NAME = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"
REPOSITORY = re.compile(REPOSITORY_NAME)

MAX_FETCH_DEPTH = 1_000_000
OnMissingTarget = Literal["fail", "skip"]
TagPolicy = Literal["all", "reachable", "none"]
FetchFilter = Literal["", "blob:none"]  # "": every object; "blob:none": a partial fetch
RecipeName = Literal["sglang-rocm"]  # install.recipe.RECIPES
LocalChangesPolicy = Literal["discard", "reapply"]

# Builds the error for a key: fail("dependencies.sglang.path", "expected a string").
Fail = Callable[[str, str], UsageError]



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

    def value(self, name: str) -> ValueConfig:
        return next(value for value in self.values if value.name == name)

    def dependency(self, name: str) -> DependencyConfig:
        for dependency in self.dependencies:
            if dependency.name == name:
                return dependency
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dependency.name for dependency in self.dependencies)


# Expected type of every field: (python type, human description).
_DEPENDENCY_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "enabled": (bool, "a boolean (false drops a built-in dependency)"),
    "repository": (str, "a string 'owner/repo'"),
    "path": (str, "a string (absolute path of the baked checkout)"),
    "remote": (str, "a string (git remote name)"),
    "install-dir": (str, "a string (directory inside the checkout; \"\" = no pip install)"),
    "patches": (list, "an array of strings (patch paths relative to the workspace)"),
    "submodules": (bool, "a boolean"),
    "directive": (str, "a string such as \"ci-sglang-pr\""),
    "dispatch-input": (str, "a string such as \"ci_sglang_pr\""),
    "default": (str, "a string (a ref used when nothing names one)"),
    "fetch-depth": (int, "an integer from 0 (full history) to 1000000"),
    "tags": (str, "\"all\", \"reachable\" or \"none\""),
    "fetch-filter": (str, "\"blob:none\" or \"\""),
    "recipe": (str, "\"sglang-rocm\", or \"\" for none"),
    "on-missing-target": (str, "\"fail\" or \"skip\""),
    "local-changes": (str, "\"discard\" or \"reapply\""),
    "prepare": (list, "an array of argv arrays, e.g. [[\"mv\", \"a\", \"b\"]]"),
    "pip-env": (dict, "a table of strings, e.g. {SETUPTOOLS_SCM_PRETEND_VERSION = \"1.0\"}"),
    "pip-args": (list, "an array of strings"),
    "rebuild-paths": (list, "an array of path prefixes inside the clone"),
}
ENVIRONMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
# Variables an earlier step (or the checked-out pull request, through $GITHUB_ENV) could set
# to run its own code inside pip or a build backend. pip runs without them, and with -I, so
# the working directory (the workspace) cannot shadow a module either.
UNSAFE_PYTHON_VARIABLES = frozenset({"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                                     "PYTHONUSERBASE", "PYTHONINSPECT", "PYTHONBREAKPOINT",
                                     "PYTHONEXECUTABLE"})
# Never set through `pip-env`: they would bring back what the child environment leaves out.
PROTECTED_VARIABLES = UNSAFE_PYTHON_VARIABLES | {"PATH"}
_INSTALL_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "workspace-install": (bool, "a boolean"),
    "pip-args": (list, "an array of strings"),
    "fetch-attempts": (int, "an integer from 1 to 10"),
    "retry-min-seconds": ((int, float), "a number from 0 to 600"),
    "retry-max-seconds": ((int, float), "a number from 0 to 600"),
    "lock-timeout-seconds": ((int, float), "a number from 0 to 3600"),
}
_API_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "timeout-seconds": (int, "an integer from 1 to 300"),
    "attempts": (int, "an integer from 1 to 10"),
    "backoff-seconds": ((int, float), "a number from 0 to 60"),
    "max-rate-limit-wait-seconds": ((int, float), "a number from 0 to 600"),
}
# The sane range of every number (DESIGN §4): a config file is input like any other.
RANGES: dict[str, tuple[float, float]] = {
    "install.fetch-attempts": (1, 10), "install.retry-min-seconds": (0, 600),
    "install.retry-max-seconds": (0, 600), "install.lock-timeout-seconds": (0, 3600),
    "api.timeout-seconds": (1, 300),
    "api.attempts": (1, 10), "api.backoff-seconds": (0, 60),
    "api.max-rate-limit-wait-seconds": (0, 600),
}
_TOP_LEVEL = {"dependencies", "install", "lock-file", "lock-file-required", "api", "values"}
_VALUE_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "enabled": (bool, "a boolean (false drops a built-in value)"),
    "kind": (str, "\"docker-tag\" or \"number\""),
    "directive": (str, "a string such as \"ci-image-tag\""),
    "dispatch-input": (str, "a string such as \"ci_image_tag\""),
    "default": (str, "a string valid for the value's kind"),
    "from-body": (bool, "a boolean (false: only dispatch and --value set it)"),
}
VALUE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


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

    unknown = sorted(set(document) - _TOP_LEVEL)
    if unknown:
        raise fail(unknown[0], _unknown_key(unknown[0], _TOP_LEVEL))
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
        raise fail("lock-file", f"expected a string (path of a JSON file), got {_kind(lock_file)}")
    api_table = merged.get("api", {})
    if not isinstance(api_table, dict):
        raise fail("api", "expected a table")
    required = merged.get("lock-file-required", True)
    if not isinstance(required, bool):
        raise fail("lock-file-required", f"expected a boolean, got {_kind(required)}")
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
    if not VALUE_NAME.fullmatch(name):
        raise fail(where, "a value name is lowercase letters, digits and '-', starting with a "
                          "letter (it becomes the output name, '-' read as '_')")
    if not isinstance(table, Mapping):
        raise fail(where, f"expected a table, got {_kind(table)}")
    values = _table_values(table, _VALUE_FIELDS, where, fail)
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


def _table_values(table: Mapping[str, Any], fields: Mapping[str, tuple[Any, str]], where: str,
                  fail: Fail) -> dict[str, Any]:
    """The table's values, each checked against `fields`; an unknown key is an error."""
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise fail(f"{where}.{unknown[0]}", _unknown_key(unknown[0], fields))
    return {key: _typed(table, key, *fields[key], where, fail) for key in table}


def _unknown_key(key: str, known: Iterable[str]) -> str:
    names = sorted(known)
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = f"did you mean `{close[0]}`? " if close else ""
    return f"unknown key; {hint}expected one of {', '.join(names)}"


def _typed(table: Mapping[str, Any], key: str, expected: type | tuple[type, ...],
           description: str, where: str, fail: Fail) -> Any:
    value = table[key]
    # bool is an int in Python; a TOML `true` must not pass as a fetch depth.
    if isinstance(value, bool) and expected is not bool:
        raise fail(f"{where}.{key}", f"expected {description}, got {_kind(value)}")
    if not isinstance(value, expected):
        raise fail(f"{where}.{key}", f"expected {description}, got {_kind(value)}")
    if key == "prepare" and isinstance(value, list):
        return _argv_lists(value, f"{where}.{key}", description, fail)
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise fail(f"{where}.{key}", f"expected {description}, got an array with non-strings")
    if isinstance(value, dict):
        for name, item in value.items():
            if not ENVIRONMENT_NAME.fullmatch(name) or not isinstance(item, str):
                raise fail(f"{where}.{key}.{name}", f"expected {description}")
            if name.upper() in PROTECTED_VARIABLES:
                raise fail(f"{where}.{key}.{name}", "not allowed: PATH and the PYTHON* "
                                                    "variables pip runs without would let the "
                                                    "checkout choose the code pip and prepare "
                                                    "run")
    return value


def _argv_lists(value: list[Any], key: str, description: str, fail: Fail) -> list[list[str]]:
    for index, argv in enumerate(value):
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
                and argv[0]):
            raise fail(f"{key}[{index}]", f"expected {description}: each command is a "
                                          f"non-empty array of strings, run without a shell")
    return value


def _dependency(name: str, table: Any, fail: Fail) -> DependencyConfig:
    where = f"dependencies.{name}"
    if not DEPENDENCY_NAME.fullmatch(name):
        raise fail(where, "a dependency name is lowercase letters, digits and '_', "
                          "starting with a letter (it becomes output names like <name>_sha)")
    if not isinstance(table, Mapping):
        raise fail(where, f"expected a table, got {_kind(table)}")
    values = _table_values(table, _DEPENDENCY_FIELDS, where, fail)
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


def _number(values: Mapping[str, Any], table: str, key: str, default: float,
            fail: Fail) -> float:
    """A configured number, finite and within RANGES (TOML has nan and inf)."""
    value = values.get(key, default)
    low, high = RANGES[f"{table}.{key}"]
    if not (math.isfinite(value) and low <= value <= high):
        raise fail(f"{table}.{key}", f"expected a number from {low:g} to {high:g}, got {value}")
    return float(value)


def _install(table: Mapping[str, Any], fail: Fail) -> InstallConfig:
    values = _table_values(table, _INSTALL_FIELDS, "install", fail)
    defaults = InstallConfig()
    low = _number(values, "install", "retry-min-seconds", defaults.retry_min_seconds, fail)
    high = _number(values, "install", "retry-max-seconds", defaults.retry_max_seconds, fail)
    if high < low:
        raise fail("install.retry-max-seconds",
                   f"expected 0 <= retry-min-seconds <= retry-max-seconds, got {low} and {high}")
    return InstallConfig(
        workspace_install=values.get("workspace-install", True),
        pip_args=tuple(values.get("pip-args", ())),
        fetch_attempts=int(_number(values, "install", "fetch-attempts",
                                   defaults.fetch_attempts, fail)),
        retry_min_seconds=low,
        retry_max_seconds=high,
        lock_timeout_seconds=_number(values, "install", "lock-timeout-seconds",
                                     defaults.lock_timeout_seconds, fail),
    )


def _api(table: Mapping[str, Any], fail: Fail) -> ApiConfig:
    values = _table_values(table, _API_FIELDS, "api", fail)
    defaults = ApiConfig()
    return ApiConfig(
        timeout_seconds=int(_number(values, "api", "timeout-seconds", defaults.timeout_seconds,
                                    fail)),
        attempts=int(_number(values, "api", "attempts", defaults.attempts, fail)),
        backoff_seconds=_number(values, "api", "backoff-seconds", defaults.backoff_seconds,
                                fail),
        max_rate_limit_wait_seconds=_number(values, "api", "max-rate-limit-wait-seconds",
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


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
