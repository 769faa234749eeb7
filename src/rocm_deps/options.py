"""The one rule for every command-line option and action input (docs/architecture.md, *Command
line and the documents*).

Each command declares its options in its own folder (`<command>/settings.py`, `OPTIONS`),
built from the rows here that several commands share and its own. The command line (`cli`)
and the composite action (`action`) both read values through `read`, which checks each one
against its row: the allowed choices, `true` / `false`, a whole number's range, a pattern.
Every refusal is `messages.invalid_value`, the text config keys use too. `action.yml`
declares the inputs to GitHub and is the source of the README's input table; a test keeps
its defaults equal to the rows'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from rocm_deps.defaults import DEFAULT_BOT as DEFAULT_BOT
from rocm_deps.defaults import DEFAULT_PROFILE, PROFILE_ALIASES, Policy, Profile
from rocm_deps.defaults import DEFAULT_TRUSTED as DEFAULT_TRUSTED
from rocm_deps.defaults import GUARD_CONTEXT as GUARD_STATUS
from rocm_deps.defaults import BodySource as BodySource
from rocm_deps.defaults import OutputFormat as OutputFormat
from rocm_deps.errors import UsageError
from rocm_deps.messages import invalid_value


@dataclass(frozen=True)
class Option:
    """One option: `--NAME` on the command line and, unless `action` is False, the action's
    input NAME. `default` is text, as an action input's default is."""

    name: str
    help: str
    metavar: str = "VALUE"
    default: str = ""
    choices: tuple[str, ...] = ()
    boolean: bool = False  # `true` / `false` in any letter case
    switch: bool = False  # a boolean that the command line writes as a bare `--NAME`
    repeatable: bool = False
    required: bool = False  # shown as required; the settings say what is missing
    cli: bool = True
    action: bool = True
    low: int | None = None  # a whole number from `low` to `high`
    high: int | None = None
    pattern: str = ""  # a regular expression the whole value must match ...
    expected: str = ""  # ... and how a message says it

    @property
    def expectation(self) -> str:
        if self.expected:
            return self.expected
        if self.boolean:
            return "`true` or `false` (any letter case)"
        if self.choices:
            return f"one of: {', '.join(self.choices)}"
        if self.low is not None:
            return f"a whole number from {self.low} to {self.high}"
        return self.expected


@dataclass(frozen=True)
class Help:
    """A command's help: `rocm-deps --help` shows the summary, `rocm-deps COMMAND --help` the
    description, the examples (each runs as written from the repository's root) and the exit
    codes."""

    summary: str
    description: str
    examples: tuple[str, ...]


def default_of(options: Sequence[Option], name: str) -> Any:
    """Row `name`'s default as a settings field holds it (a whole number, a flag, the text):
    the settings dataclasses take their defaults from the rows, never a copy."""
    row = next(option for option in options if option.name == name)
    if row.boolean:
        return row.default == "true"
    if row.low is not None:
        return int(row.default)
    return row.default


# The rows several commands share; each command's `OPTIONS` lists those it reads.
CONFIG = Option("config", "TOML file overriding the built-in configuration (default: "
                "`.github/rocm-deps.toml`, in a workflow as it is on the base branch)", "F")
PROFILE = Option("profile", "the built-in settings, named for whose they are: miles-rocm "
                 "(Miles' MI350 suite), miles-cuda (Miles' CUDA suite: default branches "
                 "miles-main / sglang-miles, release-lock.json, no patches, no pip install), "
                 "none (only what the configuration file declares); rocm and cuda are their "
                 f"former names (default: the file's `profile`, else {DEFAULT_PROFILE})",
                 choices=(*get_args(Profile), *PROFILE_ALIASES))
FORMAT = Option("format", "json prints the report on stdout (logs go to stderr)",
                default=get_args(OutputFormat)[0], choices=get_args(OutputFormat), action=False)
EVENT_PATH = Option("event-path", "event payload JSON (default: $GITHUB_EVENT_PATH)", "F",
                    action=False)
EVENT_NAME = Option("event-name", "event name (default: $GITHUB_EVENT_NAME)", "N",
                    action=False)
TOKEN_ENV = Option("github-token-env", "name of the environment variable holding a GitHub "
                   "token", "VAR", action=False, pattern=r"[A-Za-z_][A-Za-z0-9_]{0,99}",
                   expected="an environment variable's name")
BODY_FILE = Option("body-file", "read the PR body from this file instead of the event", "F",
                   action=False)
BODY_SOURCE = Option("body-source", "api: read the PR body from the GitHub API (needs a "
                     "token): a re-run then judges the current description; event: the "
                     "payload's; auto: api when there is a token, else event",
                     default=get_args(BodySource)[0], choices=get_args(BodySource))
TRUSTED = Option("trusted-associations", "author associations whose directives are honoured "
                 "under pull_request_target / workflow_run / issue_comment (sweep: whose pull "
                 "requests may be re-run)", "LIST", default=DEFAULT_TRUSTED)
BOT_LOGIN = Option("bot-login", "the login the manifest comment is written by; a comment "
                   "with the marker by anyone else is ignored", "LOGIN", default=DEFAULT_BOT,
                   pattern=r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?",
                   expected=f"a GitHub login, e.g. {DEFAULT_BOT}")
SUITES = Option("suite", "a suite to check, repeatable (action: one per line; default: every "
                "suite that commented)", "NAME", repeatable=True)
POLICY = Option("policy", "require-merged: fail while a named dependency pull request (or a "
                "Depends-On prerequisite) is not merged into its default branch; "
                "forbid-overrides: fail while anything is named; warn: annotate only",
                default=get_args(Policy)[0], choices=get_args(Policy))
REQUIRE_TESTED = Option("require-tested", "also fail when a commit the description names is "
                        "not the one the run in the manifest comment tested (a moved pull "
                        "request head, another SHA, a branch; no manifest: fail on merge_group, "
                        "warn on pull_request)", default="false", boolean=True, switch=True)
GUARD_CONTEXT = Option("guard-context", "the commit status the merge guard's verdict is written "
                       "as, which the sweep keeps true", "CONTEXT",
                       default=GUARD_STATUS,
                       pattern=r"[A-Za-z0-9](?:[A-Za-z0-9 :._()+/-]{0,98}[A-Za-z0-9._()+/-])?",
                       expected="letters, digits, spaces and `:._()+/-`, at most 100")
REPOSITORY = Option("repository", "the repository the description belongs to, which a "
                    "Depends-On prerequisite names (default: the event's, else "
                    "$GITHUB_REPOSITORY)", "OWNER/REPO", action=False)
TOOL = (CONFIG, PROFILE, FORMAT)
EVENT = (EVENT_PATH, EVENT_NAME, TOKEN_ENV)

# Inputs of the action that are not options: the command, and the token (passed to the tool
# as the name of the variable that holds it, never as a value).
ACTION_ONLY_INPUTS = ("command", "github-token")
TOKEN_VARIABLE = "INPUT_GITHUB_TOKEN"  # noqa: S105 - a variable name, not a secret
Value = str | bool | tuple[str, ...] | None


def parse_true_false(value: str) -> bool | None:
    """`true`/`false` in any letter case (surrounding blanks ignored); None for anything else:
    the one definition of a boolean, for the action's inputs, the command line and the config."""
    return {"true": True, "false": False}.get(value.strip().lower())


@dataclass(frozen=True)
class Given:
    """The checked values of one command's options: each name maps to its text, its boolean
    or its repeated values; an option left out has its default."""

    command: str
    options: Mapping[str, Option]
    values: Mapping[str, Value]
    from_action: bool = False

    def text(self, name: str) -> str:
        """The option's text, else its default; "" for an option the command has not."""
        value = self.values.get(name)
        if isinstance(value, str):
            return value
        return self.options[name].default if name in self.options else ""

    def optional(self, name: str) -> str | None:
        return self.text(name) or None

    def number(self, name: str) -> int:
        """A whole-number option's value (checked by `read`; the default by its test)."""
        return int(self.text(name))

    def flag(self, name: str) -> bool | None:
        """A boolean option's value; None when it was not given and has no default."""
        value = self.values.get(name)
        if isinstance(value, bool):
            return value
        return parse_true_false(self.text(name))

    def items(self, name: str) -> tuple[str, ...]:
        value = self.values.get(name)
        return value if isinstance(value, tuple) else ()

    def lines(self, name: str) -> tuple[str, ...]:
        """A repeatable option's values, one per line as the action's input holds them
        (the command line repeats the option): each stripped, blank lines dropped."""
        return tuple(line.strip() for item in self.items(name) for line in item.splitlines()
                     if line.strip())

    def where(self, name: str) -> str:
        """How the user wrote the option, for messages."""
        return where(name, self.from_action)


def where(name: str, from_action: bool) -> str:
    return f"Input '{name}'" if from_action else f"--{name}"


def read(command: str, options: Sequence[Option],
         raw: Mapping[str, str | Sequence[str] | None], *, from_action: bool = False,
         elsewhere: Mapping[str, tuple[str, str]] | None = None) -> Given:
    """Check `raw` (option name -> text as given; absent or None: not given) against
    `command`'s `options`. `elsewhere`: the action's inputs of the other commands, each with
    the commands it belongs to and its default (the runner passes every input, a default
    too). Every problem is a usage error that names the option or input and the expected
    form."""
    by_name = {option.name: option for option in options}
    values: dict[str, Value] = {}
    for name, value in raw.items():
        if value is None:
            continue
        option = by_name.get(name)
        if option is None:
            owners, default = (elsewhere or {}).get(name, ("another command", ""))
            if isinstance(value, str) and value.strip() in ("", default):
                continue  # an action input left at its default
            raise UsageError(f"{where(name, from_action)} applies to `command: {owners}`, not "
                             f"to `command: {command}`; remove it from the {command} step.",
                             title="rocm-deps: invalid input")
        checked = _check(option, value, where(name, from_action))
        if checked is not None:
            values[name] = checked
    return Given(command, by_name, values, from_action)


def _check(option: Option, value: str | Sequence[str], shown_as: str) -> Value:
    if option.repeatable:
        if isinstance(value, str) and not value.strip():
            return None  # an action input left empty: not given
        return tuple([value] if isinstance(value, str) else value)
    assert isinstance(value, str)
    text = value.strip()
    if not text:
        return None  # empty: not given
    if option.boolean:
        parsed = parse_true_false(text)
        if parsed is None:
            raise _invalid(option, shown_as, value)
        return parsed
    if ((option.choices and text not in option.choices)
            or (option.low is not None and not _in_range(text, option))
            or (option.pattern and not re.fullmatch(option.pattern, text))):
        raise _invalid(option, shown_as, value)
    return text


def _in_range(text: str, option: Option) -> bool:
    assert option.low is not None and option.high is not None
    return text.isascii() and text.isdigit() and option.low <= int(text) <= option.high


def _invalid(option: Option, shown_as: str, value: str) -> UsageError:
    return UsageError(invalid_value(shown_as, value, option.expectation),
                      title="rocm-deps: invalid input")
