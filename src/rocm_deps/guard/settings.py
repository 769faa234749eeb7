"""`rocm-deps merge-check`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast, get_args

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.edge import ApiSettings, Edge
from rocm_deps.options import (
    BODY_FILE,
    BODY_SOURCE,
    BOT_LOGIN,
    DEFAULT_BOT,
    EVENT,
    SUITES,
    TOOL,
    BodySource,
    Given,
    Help,
    Option,
    OutputFormat,
)

Policy = Literal["require-merged", "forbid-overrides", "warn"]

OPTIONS = (
    *TOOL, *EVENT, BODY_FILE, BODY_SOURCE, BOT_LOGIN, SUITES,
    Option("policy", "require-merged: fail while a named dependency pull request is open or "
           "closed unmerged; forbid-overrides: fail while anything is named; warn: annotate "
           "only", default="require-merged", choices=get_args(Policy)),
    Option("require-tested", "also fail when a commit the description names is not the one "
           "the run in the manifest comment tested (a moved pull request head, another SHA, a "
           "branch; no manifest: fail on merge_group, warn on pull_request)", default="false",
           boolean=True, switch=True),
)
HELP = Help(
    "fail while a dependency pull request the description names is not merged "
    "(merge guard)",
    "The merge guard: fail while a dependency pull request the description names is open or "
    "closed unmerged (--policy), and with --require-tested while a named commit is not the "
    "one each suite's manifest comment says was tested. Reading pull requests needs a token; "
    "--policy forbid-overrides on a body file needs none.",
    ("rocm-deps merge-check --body-file examples/description.md --policy forbid-overrides",
     "rocm-deps merge-check --body-file examples/description.md --github-token-env GH_TOKEN",
     "rocm-deps merge-check --require-tested --suite 'ROCm suite' --github-token-env GH_TOKEN"))


@dataclass(frozen=True)
class MergeCheckSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    api: ApiSettings = field(default_factory=ApiSettings)
    policy: Policy = "require-merged"
    output_format: OutputFormat = "text"
    require_tested: bool = False
    body_file: Path | None = None  # on pull_request: this body instead of the payload's
    bot_login: str = DEFAULT_BOT
    body_source: BodySource = "auto"  # with a token: the live body, as a re-run should judge
    suites: tuple[str, ...] = ()  # --require-tested checks these; (): every suite there is


def build(given: Given, at: Edge) -> MergeCheckSettings:
    body_file = edge.path(given.optional("body-file"))
    event_name, event_path = edge.event(given, at.environ, body_file)
    return MergeCheckSettings(
        config=edge.config_of(given), event_name=event_name, event_path=event_path,
        api=edge.api_settings(given, at.environ), policy=cast(Policy, given.text("policy")),
        output_format=edge.output_format(given),
        require_tested=bool(given.flag("require-tested")), body_file=body_file,
        bot_login=given.text("bot-login"),
        body_source=cast(BodySource, given.text("body-source")), suites=edge.suites(given))
