"""The configuration's schema: every key of every table with its type and range, and the
checks that hold a table to it. Every error names the key, the expected type and, for an
unknown key, the closest known one."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rocm_deps.errors import UsageError
from rocm_deps.messages import did_you_mean

# Builds the error for a key: fail("dependencies.sglang.path", "expected a string").
Fail = Callable[[str, str], UsageError]

# Expected type of every field: (python type, human description).
DEPENDENCY_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
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
INSTALL_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "workspace-install": (bool, "a boolean"),
    "pip-args": (list, "an array of strings"),
    "fetch-attempts": (int, "an integer from 1 to 10"),
    "retry-min-seconds": ((int, float), "a number from 0 to 600"),
    "retry-max-seconds": ((int, float), "a number from 0 to 600"),
    "lock-timeout-seconds": ((int, float), "a number from 0 to 3600"),
}
API_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
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
TOP_LEVEL = {"dependencies", "install", "lock-file", "lock-file-required", "api", "values"}
VALUE_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "enabled": (bool, "a boolean (false drops a built-in value)"),
    "kind": (str, "\"docker-tag\" or \"number\""),
    "directive": (str, "a string such as \"ci-image-tag\""),
    "dispatch-input": (str, "a string such as \"ci_image_tag\""),
    "default": (str, "a string valid for the value's kind"),
    "from-body": (bool, "a boolean (false: only dispatch and --value set it)"),
}


def table_values(table: Mapping[str, Any], fields: Mapping[str, tuple[Any, str]], where: str,
                  fail: Fail) -> dict[str, Any]:
    """The table's values, each checked against `fields`; an unknown key is an error."""
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise fail(f"{where}.{unknown[0]}", unknown_key(unknown[0], fields))
    return {key: _typed(table, key, *fields[key], where, fail) for key in table}


def unknown_key(key: str, known: Iterable[str]) -> str:
    names = sorted(known)
    return f"unknown key; {did_you_mean(key, names)}expected one of {', '.join(names)}"


def _typed(table: Mapping[str, Any], key: str, expected: type | tuple[type, ...],
           description: str, where: str, fail: Fail) -> Any:
    value = table[key]
    # bool is an int in Python; a TOML `true` must not pass as a fetch depth.
    if isinstance(value, bool) and expected is not bool:
        raise fail(f"{where}.{key}", f"expected {description}, got {kind_of(value)}")
    if not isinstance(value, expected):
        raise fail(f"{where}.{key}", f"expected {description}, got {kind_of(value)}")
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


def number(values: Mapping[str, Any], table: str, key: str, default: float,
            fail: Fail) -> float:
    """A configured number, finite and within RANGES (TOML has nan and inf)."""
    value = values.get(key, default)
    low, high = RANGES[f"{table}.{key}"]
    if not (math.isfinite(value) and low <= value <= high):
        raise fail(f"{table}.{key}", f"expected a number from {low:g} to {high:g}, got {value}")
    return float(value)


def kind_of(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
