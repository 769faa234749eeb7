"""Loading the configuration: a profile's built-in defaults, overridden key by key by a TOML file
(docs/architecture.md, *Configuration*).

Pure: reads one file, touches nothing else. Every key is checked against its row in
`fields`; the checks here are the ones that relate keys to each other or to a name. Every
error names the file and the key, because a typo in a config must never be silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from rocm_deps.config.fields import (
    API,
    DEPENDENCY,
    INSTALL,
    REQUIRED,
    TOP_LEVEL,
    VALUE,
    Fail,
    Field,
    kind_of,
    table_values,
)
from rocm_deps.config.model import (
    DEPENDENCY_NAME,
    DISTRIBUTION,
    GIT_URL,
    REPOSITORY,
    VALUE_NAME,
    ApiConfig,
    Config,
    DependencyConfig,
    InstallConfig,
    ValueConfig,
)
from rocm_deps.config.outputs import FIXED_OUTPUTS, dependency_outputs
from rocm_deps.config.profiles import PROFILES, Profile, profile_named
from rocm_deps.defaults import CONFIG_FILE, DEFAULT_PROFILE, PROFILE_ALIASES
from rocm_deps.errors import UsageError
from rocm_deps.files import CONFIG_LIMIT, read_bounded, toml_parser
from rocm_deps.grammar.keys import DIRECTIVE_KEY, INPUT_NAME
from rocm_deps.grammar.values import check_value


def load_config(path: str | Path | None, profile: Profile | None = None, *,
                text: str | None = None, source: str | None = None,
                named: str | None = None) -> Config:
    """A profile's built-in settings, overridden by a TOML file: the one at `path`, or `text`
    (a file read elsewhere: by convention, through the API), described by `source`. The
    profile: `profile` when given (an input), else the file's own `profile` key, else
    DEFAULT_PROFILE. `named`: how a command line would name the file read elsewhere."""
    if path is not None:
        source = named = str(path)
        if not Path(path).exists():
            where = ("" if Path(path).is_absolute() else
                     f" (a relative path is read from the working directory, {Path.cwd()})")
            raise UsageError(f"configuration file {source} does not exist{where}. In a job, "
                             f"check out the repository that holds it first (actions/checkout) "
                             f"and give its path relative to the workspace",
                             title="Invalid configuration")
        text = read_bounded(Path(path), CONFIG_LIMIT, "configuration file")
    if text is None:
        return build_config({}, source=source or "built-in defaults", profile=profile)
    source = source or "the configuration"
    tomllib = toml_parser()
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{source}: not valid TOML: {error}") from None
    except RecursionError:
        raise UsageError(f"{source}: not valid TOML: nested too deeply") from None
    return replace(build_config(document, source=source, profile=profile, text=text),
                   path=named)


def build_config(document: Mapping[str, Any], *, source: str, profile: Profile | None = None,
                 text: str | None = None) -> Config:
    fail = Fail(source)
    own = document.get("profile")
    profile_from = "input" if profile is not None else "file" if own is not None else "default"
    if profile is not None:  # an input (an older name too)
        profile = profile_named(profile) or DEFAULT_PROFILE
    if profile is None and own is not None:
        named = profile_named(own) if isinstance(own, str) else None
        if named is None:
            names, former = ", ".join(PROFILES), ", ".join(PROFILE_ALIASES)
            raise fail("profile", f"must be one of {names} (or {former}, their former names)")
        profile = named
    profile = profile or DEFAULT_PROFILE
    if profile_from == "default":
        _check_not_another(document, profile, fail)
    merged = _merge(PROFILES[profile], {key: value for key, value in document.items()
                                        if key != "profile"})
    top = table_values(merged, TOP_LEVEL, "", fail)
    dependencies = tuple(
        _dependency(name, table, fail) for name, table in top.get("dependencies", {}).items()
        if not (isinstance(table, Mapping) and table.get("enabled") is False))
    values = tuple(_value(name, table, fail) for name, table in top.get("values", {}).items()
                   if not (isinstance(table, Mapping) and table.get("enabled") is False))
    _check_unique((*dependencies, *values), fail)
    _check_outputs(dependencies, values, fail)
    # The top level's own keys (not its tables), with their rows' defaults.
    scalars = {key: row for key, row in TOP_LEVEL.items() if row.type is not dict
               and key != "profile"}
    return Config(dependencies=dependencies, install=_install(top.get("install", {}), fail),
                  api=ApiConfig(**_fields(table_values(top.get("api", {}), API, "api", fail),
                                          API)),
                  source=source, values=values, profile=profile, text=text,
                  profile_from=profile_from,
                  **_fields({key: top[key] for key in scalars if key in top}, scalars))


def shown(config: Config) -> list[tuple[str, Any, str]]:
    """Every key of the configuration in effect, its value as the commands use it and where it
    comes from: the file (its source), the built-in profile, or the key's default; as
    `rocm-deps config` prints them, in the order of the rows."""
    document = toml_parser().loads(config.text) if config.text is not None else {}

    def rows(prefix: tuple[str, ...], fields: Mapping[str, Field],
             holder: object) -> list[tuple[str, Any, str]]:
        return [(".".join((*prefix, key)), _plain(row, holder),
                 origin(config, *prefix, key, document=document))
                for key, row in fields.items()
                if not (row.type is dict and key in ("dependencies", "values", "install", "api"))
                and key != "profile"]

    return [*rows((), TOP_LEVEL, config), *rows(("install",), INSTALL, config.install),
            *rows(("api",), API, config.api),
            *(row for dependency in config.dependencies
              for row in rows(("dependencies", dependency.name), DEPENDENCY, dependency)),
            *(row for value in config.values
              for row in rows(("values", value.name), VALUE, value))]


def origin(config: Config, *path: str, document: Mapping[str, Any] | None = None) -> str:
    """Where the key at `path` (`dependencies`, `megatron`, `patches`) got its value: the
    file (its source), "the built-in profile <name>", or "default"."""
    if document is None:
        document = toml_parser().loads(config.text) if config.text is not None else {}
    for table, said in ((document, config.source),
                        (PROFILES[config.profile], f"the built-in profile {config.profile}")):
        for part in path:
            table = table.get(part) if isinstance(table, Mapping) else None
        if table is not None:
            return said
    return "default"


def from_profile(config: Config, *path: str) -> str | None:
    """For a message that explains a value: which profile gave it and the key that changes
    it (None when the value is not a built-in profile's)."""
    said = origin(config, *path)
    if not said.startswith("the built-in profile"):
        return None
    return (f"`{'.'.join(path)}` is {said}'s (Miles' setting): set it in "
            f"{config.source if config.text is not None else CONFIG_FILE}, or "
            f"choose `profile = \"none\"` there to bring nothing of Miles'")


def _plain(row: Field, holder: object) -> Any:
    """A key's value as TOML would write it (arrays as lists, tables as tables); `enabled` is
    true for every dependency and value in effect."""
    if row.key == "enabled":
        return True
    value = getattr(holder, row.attribute)
    if row.type is dict:
        return dict(value)
    if isinstance(value, tuple):
        return [list(item) if isinstance(item, tuple) else item for item in value]
    return value


def _check_not_another(document: Mapping[str, Any], profile: Profile, fail: Fail) -> None:
    """A file that chose no profile and gives one of the profile's dependencies another
    repository would still get the rest of Miles' settings for it (its patch, submodules,
    fetch filter): the file must say which it means."""
    tables = document.get("dependencies")
    for name, built_in in PROFILES[profile].get("dependencies", {}).items():
        table = tables.get(name) if isinstance(tables, Mapping) else None
        if not isinstance(table, Mapping):
            continue
        repository = table.get("repository")
        if not isinstance(repository, str) or not REPOSITORY.fullmatch(repository) or (
                repository.casefold() == str(built_in.get("repository", "")).casefold()):
            continue  # the same repository; or not one, which its own check refuses
        kept = ", ".join(f"`{key}`" for key in built_in if key not in table)
        raise fail(f"dependencies.{name}.repository",
                   f"{repository} is not the built-in profile {profile}'s "
                   f"{built_in['repository']}, whose other settings for `{name}` would still "
                   f"apply ({kept}): add `profile = \"none\"` at the top of the file to "
                   f"start from nothing of Miles', or `profile = \"{profile}\"` to keep "
                   f"them")


def _fields(values: Mapping[str, Any], rows: Mapping[str, Field], *,
            name: str = "") -> dict[str, Any]:
    """The dataclass's keyword arguments: each row's value or default, as the dataclass holds
    it (arrays as tuples, tables as sorted pairs, "" as None where the default is None)."""
    arguments = {}
    for row in rows.values():
        if row.key == "enabled" or (row.key not in values and row.default is REQUIRED):
            continue
        value = values.get(row.key, row.default)
        if isinstance(value, str) and "{name}" in value and row.key not in values:
            value = value.format(name=name)
        elif isinstance(value, list):
            value = tuple(tuple(item) if isinstance(item, list) else item for item in value)
        elif isinstance(value, dict):
            value = tuple(sorted(value.items()))
        elif value == "" and row.default is None:
            value = None
        elif isinstance(value, int) and not isinstance(value, bool) and row.type == (int, float):
            value = float(value)
        arguments[row.attribute] = value
    return arguments


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _entry(name: str, pattern: Any, rule: str, table: Any, rows: Mapping[str, Field],
           where: str, fail: Fail) -> dict[str, Any]:
    """A dependency's or a value's table: its name checked, then every key, and the keys
    without a default present."""
    if not pattern.fullmatch(name):
        raise fail(where, rule)
    if not isinstance(table, Mapping):
        raise fail(where, f"expected a table, got {kind_of(table)}")
    values = table_values(table, rows, where, fail)
    for row in rows.values():
        if row.default is REQUIRED and row.key not in values:
            raise fail(f"{where}.{row.key}", "missing; every entry of this table needs it")
    _check_keys(values, where, fail)
    return values


def _check_keys(values: Mapping[str, Any], where: str, fail: Fail) -> None:
    """The PR-body key and the dispatch input of a dependency or a value."""
    if "directive" in values and not DIRECTIVE_KEY.fullmatch(values["directive"]):
        raise fail.invalid(f"{where}.directive", values["directive"],
                           "letters, digits, '-', '_' or '.'")
    if "dispatch-input" in values and not INPUT_NAME.fullmatch(values["dispatch-input"]):
        raise fail.invalid(f"{where}.dispatch-input", values["dispatch-input"],
                           "an input name: letters, digits, '-' and '_'")


def _dependency(name: str, table: Any, fail: Fail) -> DependencyConfig:
    where = f"dependencies.{name}"
    values = _entry(name, DEPENDENCY_NAME, "a dependency name is lowercase letters, digits, "
                    "'_' and '-', starting with a letter (it becomes output names like "
                    "<name>_sha, '-' read as '_')", table, DEPENDENCY, where, fail)
    _git_package(name, values, where, fail)
    if not REPOSITORY.fullmatch(values["repository"]):
        raise fail.invalid(f"{where}.repository", values["repository"], "the form 'owner/repo'")
    for key in ("rebuild-paths", "compile-inputs"):
        for prefix in values.get(key, ()):
            if not prefix or prefix.startswith(("/", "-")) or ".." in prefix.split("/"):
                raise fail.invalid(f"{where}.{key}", prefix, "paths inside the clone")
    remote = values.get("remote", DEPENDENCY["remote"].default)
    if not remote or remote.startswith("-"):
        raise fail.invalid(f"{where}.remote", remote, "a remote name, not starting with '-'")
    arguments = _fields(values, DEPENDENCY, name=name)
    if "dispatch-input" not in values:
        arguments["dispatch_input"] = arguments["dispatch_input"].replace("-", "_")
    if arguments.get("distribution") and not arguments.get("url"):
        arguments["url"] = f"https://github.com/{values['repository']}.git"
    return DependencyConfig(name=name, **arguments)


# What acts on the image's clone: not on a git package, which has none.
CLONE_ONLY = ("remote", "install-dir", "patches", "submodules", "fetch-depth", "tags",
              "fetch-filter", "recipe", "on-missing-target", "local-changes", "prepare",
              "rebuild-paths", "compile-inputs")


def _git_package(name: str, values: Mapping[str, Any], where: str, fail: Fail) -> None:
    """A dependency is a clone (`path`) or a git package (`distribution`, from `url`)."""
    if ("path" in values) == ("distribution" in values):
        raise fail(where, "give `path` (the image's clone) or `distribution` (a package the "
                          "image pip-installed from git, with no clone), not both and not "
                          "neither")
    if "distribution" in values and not DISTRIBUTION.fullmatch(values["distribution"]):
        raise fail.invalid(f"{where}.distribution", values["distribution"],
                           "a distribution name such as megatron-bridge")
    # A git package is installed by pip from a commit, not from a work tree the tool could
    # patch: what the clone-only keys would do is not done, so they are refused, not ignored.
    clone_only = [key for key in CLONE_ONLY if "distribution" in values and key in values]
    if clone_only:
        raise fail(f"{where}.{clone_only[0]}", "applies to a clone (`path`) only; a git package "
                                               "(`distribution`) is pip-installed from the "
                                               "named commit as it is")
    if "url" in values and not GIT_URL.fullmatch(values["url"]):
        raise fail.invalid(f"{where}.url", str(values["url"]),
                           "an https:// or file:/// git URL of letters, digits and `._~/%+-`")


def _value(name: str, table: Any, fail: Fail) -> ValueConfig:
    where = f"values.{name}"
    values = _entry(name, VALUE_NAME, "a value name is lowercase letters, digits and '-', "
                    "starting with a letter (it becomes the output name, '-' read as '_')",
                    table, VALUE, where, fail)
    arguments = _fields(values, VALUE, name=name)
    if "dispatch-input" not in values:
        arguments["dispatch_input"] = arguments["dispatch_input"].replace("-", "_")
    default = arguments.get("default")
    if default is not None:
        problem = check_value(default, values["kind"])
        if problem is not None:
            raise fail(f"{where}.default", problem)
    return ValueConfig(name=name, **arguments)


def _install(table: Mapping[str, Any], fail: Fail) -> InstallConfig:
    values = table_values(table, INSTALL, "install", fail)
    arguments = _fields(values, INSTALL)
    low, high = arguments["retry_min_seconds"], arguments["retry_max_seconds"]
    if high < low:
        raise fail("install.retry-max-seconds",
                   f"expected 0 <= retry-min-seconds <= retry-max-seconds, got {low} and {high}")
    return InstallConfig(**arguments)


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


def _check_outputs(dependencies: tuple[DependencyConfig, ...],
                   values: tuple[ValueConfig, ...], fail: Fail) -> None:
    """A value named after another output would overwrite it."""
    taken = FIXED_OUTPUTS | {output for dependency in dependencies
                             for output in dependency_outputs(dependency.name)}
    for value in values:
        if value.output in taken:
            raise fail(f"values.{value.name}", f"its output `{value.output}` is already an "
                                               f"output of the action or of a dependency; "
                                               f"choose another name")
