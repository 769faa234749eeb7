"""Every configuration key, once: one row per key of every table, with its type, default, choices or
range and description (docs/architecture.md, *Configuration*).

The loader's checks and their error texts, the "did you mean" for an unknown key, the
dataclasses' defaults (`model`) and the key tables of docs/configuration.md
(`scripts/render_docs.py`) all come from these rows. A profile overrides rows' defaults for
its built-in dependencies and values, nothing else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from rocm_deps.defaults import DEFAULT_PROFILE, PROFILE_ALIASES, Profile
from rocm_deps.environment import PROTECTED_VARIABLES
from rocm_deps.errors import UsageError
from rocm_deps.grammar.keys import CodeDirectives, ValueKind
from rocm_deps.messages import did_you_mean, invalid_value


@dataclass(frozen=True)
class Fail:
    """Builds the error for a key of one configuration file: `fail(key, problem)`, and
    `fail.invalid(key, value, expected)` for a value that is not what the key takes."""

    source: str

    def __call__(self, key: str, problem: str) -> UsageError:
        return UsageError(f"{self.source}: {key.lstrip('.')}: {problem}",
                          title="Invalid configuration")

    def invalid(self, key: str, value: object, expected: str) -> UsageError:
        return UsageError(invalid_value(f"{self.source}: {key.lstrip('.')}", value, expected),
                          title="Invalid configuration")

OnMissingTarget = Literal["fail", "skip"]
TagPolicy = Literal["all", "reachable", "none"]
FetchFilter = Literal["", "blob:none"]  # "": every object; "blob:none": a partial fetch
RecipeName = Literal["sglang-rocm"]  # install.recipe.RECIPES
BuildIsolation = Literal["auto", "always", "never"]
LocalChangesPolicy = Literal["discard", "reapply"]


class Required:
    """The default of a key every table must give."""

    def __repr__(self) -> str:
        return "(required)"


REQUIRED: Any = Required()


@dataclass(frozen=True)
class Field:
    """One key of a configuration table."""

    key: str
    type: type | tuple[type, ...]
    default: Any  # the dataclass's value when the key is absent; REQUIRED: no default
    description: str  # what it does, for the documentation
    choices: tuple[str, ...] = ()
    low: float | None = None  # the range of a number, both ends included
    high: float | None = None
    expected: str = ""  # what a value must be, when the type, choices and range do not say it
    why: str = ""  # said after a refused value

    @property
    def attribute(self) -> str:
        """The dataclass attribute that holds the key's value."""
        return self.key.replace("-", "_")

    @property
    def expectation(self) -> str:
        """What a value must be, as error messages say it."""
        if self.expected:
            return self.expected
        if self.choices:
            quoted = [f'"{choice}"' for choice in self.choices]
            return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
        if self.low is not None:
            noun = "an integer" if self.type is int else "a number"
            return f"{noun} from {_number(self.low)} to {_number(self.high)}"
        names: dict[type | tuple[type, ...], str] = {
            bool: "a boolean", str: "a string", list: "an array of strings", dict: "a table"}
        return names.get(self.type, "a value")


def _number(value: float | None) -> str:
    return str(int(value)) if value is not None and float(value).is_integer() else f"{value}"


def _rows(*fields: Field) -> dict[str, Field]:
    return {field.key: field for field in fields}


MAX_FETCH_DEPTH = 1_000_000

DEPENDENCY: Mapping[str, Field] = _rows(
    Field("enabled", bool, True, "`false` drops the dependency (a built-in one too): its "
          "directive is then unknown."),
    Field("repository", str, REQUIRED, "`owner/repo` on GitHub: PR numbers and URLs must name "
          "it.", expected="a string 'owner/repo'"),
    Field("path", str, None, "The image's clone (absolute). Without it the dependency is a git "
          "package: give `distribution`.",
          expected="a string (absolute path of the baked checkout)"),
    Field("distribution", str, None, "A git package (no clone in the image, pip-installed from "
          "git): the name pip records it under. Install fetches the named commit's trees (no "
          "files) into a new private directory, to refuse another commit and to check the "
          "install against, then runs `pip install --no-deps --force-reinstall "
          "git+<url>@<sha>`, so pip's own record names the commit. Keys that act on a clone "
          "(`patches`, `prepare`, `install-dir`, `remote`, ...) are refused for it."),
    Field("url", str, None, "The git URL a git package is fetched from (default "
          "`https://github.com/<repository>.git`)."),
    Field("remote", str, "origin", "The clone's remote to fetch from."),
    Field("install-dir", str, ".", "Directory of the clone to `pip install -e`; `\"\"`: no pip "
          "install."),
    Field("patches", list, (), "Patch files, relative to the workspace, applied in order after "
          "checkout."),
    Field("submodules", bool, False, "`git submodule update --init --recursive --force` after "
          "checkout (edits inside a submodule are discarded; the report lists the submodule as "
          "modified)."),
    Field("directive", str, "ci-{name}-pr", "The PR-body key (case-insensitive)."),
    Field("dispatch-input", str, "ci_{name}_pr", "The `workflow_dispatch` input name."),
    Field("default", str, None, "A ref used when nothing else names one."),
    Field("merge-with-base", bool, False, "`true`: every pull request form (`#N`, its URL, "
          "`owner/repo#N`) means the pull request merged onto its base, as "
          "`refs/pull/N/merge` does; pinned to GitHub's test-merge commit with a token."),
    Field("fetch-depth", int, 0, "0: the whole history (the image's clones are complete, and a "
          "shallow fetch would cut the history setuptools-scm needs: SGLang would report "
          "`0.0.0.dev1+g…`); a clone that is already shallow is fetched with `--depth=1`.",
          low=0, high=MAX_FETCH_DEPTH),
    Field("tags", str, "all", "The tags fetched with the ref: `all` (every tag of the remote: "
          "SGLang's version script takes the highest `v*` tag on any branch, and SGLang tags "
          "its releases on release branches, so a fresh clone's version needs them), "
          "`reachable` (those in the ref's history), `none`.", choices=get_args(TagPolicy)),
    Field("fetch-filter", str, "", "`\"blob:none\"` makes the fetch partial: commits, trees and "
          "tags, then the new commit's file contents in a second fetch before checkout, retried "
          "like the first (git's own lazy fetch inside `checkout` is not). History stays "
          "complete, so versions from git are what a full clone gives. Afterwards the clone is "
          "a partial clone: commands that read old contents (`git log -p`, `git blame`) "
          "download them, and fail without the network. A server that does not filter gets a "
          "full fetch and a notice. Chosen per repository from the figures in "
          "[Benchmarks](benchmarks.md).", choices=("blob:none", "")),
    Field("recipe", str, None, "What the image's build did to the source tree, redone after the "
          "patches whenever the clone moved to a new commit, whether or not pip runs. "
          "`sglang-rocm` is docker/rocm.Dockerfile's pyproject swap: `python/pyproject_other.toml` "
          "replaces `python/pyproject.toml` when the new commit has it (else a line says it is "
          "absent). It does not rebuild what the image compiled (see `rebuild-paths`); "
          "`local-changes = \"reapply\"` never replays the files it rewrites. `\"\"`: none.",
          choices=(*get_args(RecipeName), ""), expected='"sglang-rocm", or "" for none'),
    Field("on-missing-target", str, "fail", "`\"skip\"` tolerates a patch whose target file is "
          "gone at the new commit.", choices=get_args(OnMissingTarget)),
    Field("local-changes", str, "discard", "The reset before checkout discards the image's "
          "edits to the clone; they are always listed (report, summary, one warning). "
          "`\"reapply\"` replays the image's *tracked* edits after checkout, probed like a patch "
          "(`the image's local changes` in the patch states); untracked files are not "
          "replayed.", choices=get_args(LocalChangesPolicy)),
    Field("prepare", list, (), "Commands run in the clone after the recipe and before pip, each "
          "an argv array (no shell). A failing command fails the step before pip.",
          expected='an array of argv arrays, e.g. [["mv", "a", "b"]]'),
    Field("pip-env", dict, (), "Environment for this dependency's `prepare` and `pip install`; "
          "PATH and the PYTHON* variables are refused.",
          expected='a table of strings, e.g. {SETUPTOOLS_SCM_PRETEND_VERSION = "1.0"}'),
    Field("pip-args", list, (), "Arguments added, after `install.pip-args`, to this "
          "dependency's `pip install -e`."),
    Field("build-isolation", str, "auto", "`auto` builds without pip's build isolation when "
          "the interpreter under test already has everything the package's `[build-system] "
          "requires` names (no download, works without the package index), else isolated "
          "with a notice naming what is missing; `always` / `never` decide it outright.",
          choices=get_args(BuildIsolation)),
    Field("rebuild-paths", list, (), "Path prefixes of compiled parts: when the new commit "
          "changes files under them, a warning names them and says the image's build is used.",
          expected="an array of path prefixes inside the clone"),
    Field("compile-inputs", list, (), "What the extensions `pip install -e` compiles are built "
          "from: paths inside the clone, and `pyproject.toml [build-system]` (that table, "
          "compared as a table). When none of them changed (`git diff`, content not "
          "timestamps) since the commit whose build left the clone's extension files for this "
          "interpreter, pip runs with the compilers disabled and the extensions are reused; "
          "else compiled. Only for extensions setuptools may skip (`optional=True`, as "
          "Megatron-LM's): a failed install is redone with the compilers. `[]`: always compile.",
          expected="an array of paths inside the clone"),
)

VALUE: Mapping[str, Field] = _rows(
    Field("enabled", bool, True, "`false` drops it (the built-in `image-tag` too)."),
    Field("kind", str, REQUIRED, "`docker-tag` (`[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`: not a full "
          "image name) or `number` (1 to 9 digits). A closed set: a config brings no regular "
          "expression.", choices=get_args(ValueKind),
          why="a closed set: no regular expressions from a config"),
    Field("directive", str, "ci-{name}", "The PR-body key."),
    Field("dispatch-input", str, "ci_{name}", "The `workflow_dispatch` input (`-` read as `_`)."),
    Field("default", str, None, "The value when nothing sets it (checked against the kind).",
          expected="a string valid for the value's kind"),
    Field("from-body", bool, True, "`false`: a body line is not applied (a notice says so); "
          "dispatch and `--value` still set it."),
)

INSTALL: Mapping[str, Field] = _rows(
    Field("workspace-install", bool, True, "`pip install -e <workspace>` after (re)installing "
          "dependencies."),
    Field("pip-args", list, (), "Arguments added to every `pip install -e`."),
    Field("fetch-attempts", int, 3, "Attempts of a fetch that fails transiently.", low=1,
          high=10),
    Field("retry-min-seconds", (int, float), 10.0, "The shortest wait before a retry (the wait "
          "is random between the two).", low=0, high=600),
    Field("retry-max-seconds", (int, float), 20.0, "The longest wait before a retry; at least "
          "`retry-min-seconds`.", low=0, high=600),
    Field("lock-timeout-seconds", (int, float), 600.0, "How long a second install on one clone "
          "waits for the first, then fails naming the holder.", low=0, high=3600),
)

API: Mapping[str, Field] = _rows(
    Field("timeout-seconds", int, 10, "Timeout of one read.", low=1, high=300),
    Field("attempts", int, 3, "Attempts of a request that fails transiently, and reads of a "
          "pull request while GitHub computes its test merge (`pull/N/merge`).", low=1,
          high=10),
    Field("backoff-seconds", (int, float), 2.0, "The first wait between attempts (doubled "
          "each time), for requests and the test merge alike.", low=0, high=60),
    # A primary rate limit can reset an hour away; never sleep that long in a CI job.
    Field("max-rate-limit-wait-seconds", (int, float), 60.0, "The longest wait for a rate "
          "limit to reset; one resetting later fails instead.", low=0, high=600),
)

TOP_LEVEL: Mapping[str, Field] = _rows(
    Field("profile", str, DEFAULT_PROFILE, "The built-in settings this file starts from: "
          "`miles-rocm` (Miles' ROCm suite: SGLang, Megatron-LM with Miles' ROCm patch, "
          "Megatron-Bridge, the image tag), `miles-cuda` (Miles' CUDA suite), or `none` (nothing "
          "but what this file declares). An input `profile` wins over it.",
          choices=(*get_args(Profile), *PROFILE_ALIASES)),
    Field("dependencies", dict, (), "`[dependencies.<name>]` tables, one per dependency."),
    Field("values", dict, (), "`[values.<name>]` tables, one per value directive."),
    Field("install", dict, (), "The `[install]` table."),
    Field("api", dict, (), "The `[api]` table (used only with a github-token)."),
    Field("lock-file", str, None, "A JSON file (at most 1 MiB) whose `<name>_commit` keys pin "
          "dependencies when nothing else names them; each value takes the directive value "
          "forms.", expected="a string (path of a JSON file)"),
    Field("lock-file-required", bool, True, "`false`: a missing lock file is no error (the "
          "defaults apply)."),
    Field("code-directives", str, "error", "A directive GitHub shows as code (a code block, "
          "`<pre>`, `<code>`, a code span over the key, a cell of a row with several cells) is "
          "not applied. `error`: the run fails unless another line or a dispatch input names "
          "that dependency or value (then a notice says the code line is an example). "
          "`warn`: a warning instead of the error.", choices=get_args(CodeDirectives)),
)

ENVIRONMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def table_values(table: Mapping[str, Any], fields: Mapping[str, Field], where: str,
                 fail: Fail) -> dict[str, Any]:
    """The table's values, each checked against its row: type, choices, range; an unknown
    key is an error that suggests the closest known one."""
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise fail(f"{where}.{unknown[0]}", unknown_key(unknown[0], fields))
    return {key: _checked(table[key], fields[key], f"{where}.{key}", fail) for key in table}


def unknown_key(key: str, known: Mapping[str, Field]) -> str:
    names = sorted(known)
    return f"unknown key; {did_you_mean(key, names)}expected one of {', '.join(names)}"


def _checked(value: Any, field: Field, where: str, fail: Fail) -> Any:
    expected = field.expectation
    if not _of_type(value, field.type):
        raise fail.invalid(where, value, f"{expected}, not {kind_of(value)}")
    if field.choices and value not in field.choices:
        raise fail.invalid(where, value, f"{expected}{f' ({field.why})' if field.why else ''}")
    if field.low is not None and field.high is not None and not (
            math.isfinite(value) and field.low <= value <= field.high):  # TOML has nan, inf
        raise fail.invalid(where, value, expected)
    if field.key == "prepare":
        return _argv_lists(value, where, expected, fail)
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise fail(where, f"expected {expected}, got an array with non-strings")
    if isinstance(value, dict) and field.key == "pip-env":
        for name, item in value.items():
            if not ENVIRONMENT_NAME.fullmatch(name) or not isinstance(item, str):
                raise fail(f"{where}.{name}", f"expected {expected}")
            if name.upper() in PROTECTED_VARIABLES:
                raise fail(f"{where}.{name}", "not allowed: PATH and the PYTHON* variables pip "
                                              "runs without would let the checkout choose the "
                                              "code pip and prepare run")
    return value


def _of_type(value: object, expected: type | tuple[type, ...]) -> bool:
    # bool is an int in Python; a TOML `true` must not pass as a fetch depth.
    return isinstance(value, expected) and (expected is bool or not isinstance(value, bool))


def _argv_lists(value: list[Any], where: str, expected: str, fail: Fail) -> list[list[str]]:
    for index, argv in enumerate(value):
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
                and argv[0]):
            raise fail(f"{where}[{index}]", f"expected {expected}: each command is a non-empty "
                                            f"array of strings, run without a shell")
    return value


def kind_of(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
