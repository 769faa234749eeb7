"""Every command-line option and every action input, defined once (docs/architecture.md, *Command
line and the documents*, *Action outputs*).

The command line (`cli`) and the composite action (`action`) both read their values through
`read`, which checks each one against its definition here: the allowed choices, `true` /
`false`, which commands it applies to, and its default. `settings` then builds the frozen
settings from what `read` returns, so a default or a set of choices is written in one place.
`action.yml` declares the inputs to GitHub and is the source of the README's input table;
a test keeps its defaults equal to the ones here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from rocm_deps.errors import UsageError

Command = Literal["resolve", "install", "merge-check", "comment", "sweep", "demo"]
COMMANDS: tuple[Command, ...] = get_args(Command)
ACTION_COMMANDS: tuple[Command, ...] = ("resolve", "install", "merge-check", "comment", "sweep")
OutputFormat = Literal["text", "json"]
# auto: merge-check reads the live body when it has a token, resolve and install the event's.
BodySource = Literal["auto", "event", "api"]
Policy = Literal["require-merged", "forbid-overrides", "warn"]
Scenario = Literal["pull-requests", "missing-target"]
Rerun = Literal["none", "moved"]
DEFAULT_TRUSTED = "OWNER,MEMBER,COLLABORATOR"
DEFAULT_BOT = "github-actions[bot]"  # who writes a comment with the job's GITHUB_TOKEN

# The commands that read the event and may ask the API about it.
_EVENT: tuple[Command, ...] = ("resolve", "install", "merge-check", "comment")
_BODY: tuple[Command, ...] = ("resolve", "install")
_TOOL: tuple[Command, ...] = ("resolve", "install", "merge-check", "comment", "sweep")


@dataclass(frozen=True)
class Option:
    """One option: `--NAME` on the command line and, unless `action` is False, the action's
    input NAME. `default` is text, as an action input's default is."""

    name: str
    commands: tuple[Command, ...]
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


OPTIONS: tuple[Option, ...] = (
    Option("config", _TOOL, "TOML file overriding the built-in configuration", "F"),
    Option("profile", _TOOL, "the built-in settings: rocm (the MI350 suite) or cuda (the CUDA "
           "suite: default branches, release-lock.json, no patches, no pip install)",
           default="rocm", choices=("rocm", "cuda")),
    Option("value", ("resolve",), "a value directive's value, above dispatch and body, such "
           "as image-tag=pr-123 (repeatable; action: one per line)", "NAME=VALUE",
           repeatable=True),
    Option("format", (*_TOOL, "demo"), "json prints the report on stdout (logs go to stderr)",
           default="text", choices=get_args(OutputFormat), action=False),
    Option("event-path", _EVENT, "event payload JSON (default: $GITHUB_EVENT_PATH)", "F",
           action=False),
    Option("event-name", _EVENT, "event name (default: $GITHUB_EVENT_NAME)", "N", action=False),
    Option("github-token-env", (*_EVENT, "sweep"), "name of the environment variable "
           "holding a GitHub token", "VAR", action=False),
    Option("input", _BODY, "a dispatch input such as ci_sglang_pr=#123 (repeatable)",
           "NAME=VALUE", repeatable=True, action=False),
    Option("body-file", (*_BODY, "merge-check"), "read the PR body from this file instead of "
           "the event", "F", action=False),
    Option("body-source", (*_BODY, "merge-check"), "api: read the PR body from the GitHub API "
           "(needs a token): a re-run then judges the current description; event: the "
           "payload's; auto: api for merge-check when it has a token, else event",
           default="auto", choices=get_args(BodySource)),
    Option("trusted-associations", _BODY, "author associations whose directives are honoured "
           "under pull_request_target / workflow_run / issue_comment", "LIST",
           default=DEFAULT_TRUSTED),
    Option("overrides", ("install",), "the `overrides` output of resolve (default: resolve "
           "from the event)", "JSON"),
    Option("overrides-file", ("install",), "a file holding the overrides JSON or a whole "
           "resolve report", "F", action=False),
    Option("workspace", ("install",), "checkout of the framework under test, where patch "
           "paths are relative to (default: $GITHUB_WORKSPACE, else the current dir)", "DIR"),
    Option("python", ("install",), "interpreter to pip install into (default: python3 on "
           "PATH)", "EXE"),
    Option("dry-run", ("install",), "print every command in order and change nothing",
           default="false", boolean=True, switch=True),
    Option("workspace-install", ("install",), "override the config's "
           "install.workspace-install", "true|false", boolean=True),
    Option("policy", ("merge-check",), "require-merged (default): fail while a named "
           "dependency pull request is open or closed unmerged; forbid-overrides: fail while "
           "anything is named; warn: annotate only", default="require-merged",
           choices=get_args(Policy)),
    Option("require-tested", ("merge-check",), "also fail when a commit the description names "
           "is not the one the run in the manifest comment tested (a moved pull request head, "
           "another SHA, a branch; no manifest: fail on merge_group, warn on pull_request)",
           default="false", boolean=True, switch=True),
    Option("report", ("comment",), "a report of this run: the resolve report (`--format json` "
           "or the `report` output) and the GPU jobs' install reports; repeatable (action: "
           "one file per line)", "F", repeatable=True, required=True),
    Option("pr", ("comment",), "the pull request to comment on (default: the event's). Under "
           "workflow_run its head must be the run's head commit", "N"),
    Option("run-url", ("comment",), "the run the comment links to (default: the triggering "
           "run under workflow_run, else this one)", "URL"),
    Option("suite", ("comment", "merge-check", "sweep"), "comment: this suite's name, which "
           "names its own manifest comment (default: the workflow's name; under workflow_run "
           "the triggering workflow's). merge-check and sweep: a suite to check, repeatable "
           "(action: one per line; default: every suite that commented)", "NAME",
           repeatable=True),
    Option("bot-login", ("comment", "merge-check", "sweep"), "the login the manifest comment is "
           "written by; a comment with the marker by anyone else is ignored",
           "LOGIN", default=DEFAULT_BOT),
    Option("repository", ("sweep",), "the repository whose open pull requests are judged "
           "(default: $GITHUB_REPOSITORY)", "OWNER/REPO", action=False),
    Option("rerun", ("sweep",), "moved: re-run a suite's recorded run when a dependency pull "
           "request it tested moved; none: only set the statuses", default="none",
           choices=get_args(Rerun)),
    Option("max-reruns", ("sweep",), "at most this many re-runs per sweep, oldest pull "
           "request first", "N", default="5"),
    Option("lookback-minutes", ("sweep",), "a pull request naming nothing is read only when "
           "it was updated this recently (an edited description), to clear an old status",
           "N", default="60"),
    Option("max-seconds", ("sweep",), "stop cleanly after this long, saying how far the sweep "
           "got (secondary rate limits are waited out within it)", "N", default="600"),
    Option("keep", ("demo",), "keep the sandbox directory", default="false", boolean=True,
           switch=True, action=False),
    Option("scenario", ("demo",), "pull-requests (default): SGLang and Megatron-LM pull "
           "requests install; missing-target: a Megatron-LM pull request deleted the file the "
           "ROCm patch changes, and install says how to fix it", default="pull-requests",
           choices=get_args(Scenario), action=False),
)
BY_NAME: Mapping[str, Option] = {option.name: option for option in OPTIONS}
# Inputs of the action that are not options: the command, and the token (passed to the tool
# as the name of the variable that holds it, never as a value).
ACTION_ONLY_INPUTS = ("command", "github-token")
TOKEN_VARIABLE = "INPUT_GITHUB_TOKEN"  # noqa: S105 - a variable name, not a secret
Value = str | bool | tuple[str, ...] | None


def parse_true_false(value: str) -> bool | None:
    """`true`/`false` in any letter case (surrounding blanks ignored); None for anything else:
    the one definition of a boolean, for the action's inputs, the command line and the config."""
    return {"true": True, "false": False}.get(value.strip().lower())


def for_command(command: Command, *, action: bool = False) -> tuple[Option, ...]:
    return tuple(option for option in OPTIONS if command in option.commands
                 and (option.action if action else option.cli))


@dataclass(frozen=True)
class Given:
    """The checked values of one command's options: each name maps to its text, its boolean
    or its repeated values; an option left out has its default."""

    command: Command
    values: Mapping[str, Value]
    from_action: bool = False

    def text(self, name: str) -> str:
        value = self.values.get(name)
        return value if isinstance(value, str) else BY_NAME[name].default

    def optional(self, name: str) -> str | None:
        return self.text(name) or None

    def flag(self, name: str) -> bool | None:
        """A boolean option's value; None when it was not given and has no default."""
        value = self.values.get(name)
        if isinstance(value, bool):
            return value
        return parse_true_false(BY_NAME[name].default)

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
        return f"Input '{name}'" if self.from_action else f"--{name}"


def read(command: Command, raw: Mapping[str, str | Sequence[str] | None], *,
         from_action: bool = False) -> Given:
    """Check `raw` (option name -> text as given; absent or None: not given) for `command`.
    Every problem is a usage error that names the option or input and the expected form."""
    applicable = {option.name for option in OPTIONS if command in option.commands}
    values: dict[str, Value] = {}
    for name, value in raw.items():
        if value is None:
            continue
        option = BY_NAME[name]
        given = Given(command, {}, from_action)
        if name not in applicable:
            if isinstance(value, str) and value.strip() in ("", option.default):
                continue  # an action input left at its default
            raise _misplaced(option, command, given.where(name))
        checked = _check(option, value, given.where(name))
        if checked is not None:
            values[name] = checked
    return Given(command, values, from_action)


def _check(option: Option, value: str | Sequence[str], where: str) -> Value:
    if option.repeatable:
        if isinstance(value, str) and not value.strip():
            return None  # an action input left empty: not given
        return tuple([value] if isinstance(value, str) else value)
    assert isinstance(value, str)
    text = value.strip()
    if option.boolean:
        if not text:
            return None
        parsed = parse_true_false(text)
        if parsed is None:
            raise _invalid(where, value, "`true` or `false` (any letter case)")
        return parsed
    if option.choices and text not in option.choices:
        if not text:
            return None
        raise _invalid(where, value, f"one of: {', '.join(option.choices)}")
    return text or None  # empty: not given


def _invalid(where: str, value: str, expected: str) -> UsageError:
    return UsageError(f"{where} has invalid value {value!r}. Expected {expected}.",
                      title="rocm-deps: invalid input")


def _misplaced(option: Option, command: Command, where: str) -> UsageError:
    if len(option.commands) == 1:
        return UsageError(f"{where} applies to `command: {option.commands[0]}` only; remove it "
                          f"from the {command} step.", title="rocm-deps: invalid input")
    return UsageError(f"{where} does not apply to `command: {command}`; remove it from the "
                      f"{command} step.", title="rocm-deps: invalid input")
