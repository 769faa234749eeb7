"""`rocm-deps merge-check`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.contract.guard import Policy
from rocm_deps.edge import ApiSettings, Edge
from rocm_deps.options import (
    BODY_FILE,
    BODY_SOURCE,
    BOT_LOGIN,
    EVENT,
    POLICY,
    REPOSITORY,
    REQUIRE_TESTED,
    SUITES,
    TOOL,
    BodySource,
    Given,
    Help,
    Option,
    OutputFormat,
    default_of,
)
from rocm_deps.options import (
    GUARD_CONTEXT as GUARD_CONTEXT_OPTION,
)

ACTION = True  # a step of workflows: `command: merge-check`
OPTIONS = (
    *TOOL, *EVENT, BODY_FILE, BODY_SOURCE, BOT_LOGIN, SUITES, POLICY, REQUIRE_TESTED,
    GUARD_CONTEXT_OPTION, REPOSITORY,
    Option("guard-status", "write the verdict as a commit status (`guard-context`) on the pull "
           "request's head, or on a merge group's commit, which the sweep keeps true (needs a "
           "token with statuses: write); false: only fail the step", default="true",
           boolean=True),
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
    policy: Policy = default_of(OPTIONS, "policy")
    output_format: OutputFormat = default_of(OPTIONS, "format")
    require_tested: bool = default_of(OPTIONS, "require-tested")
    body_file: Path | None = None  # on pull_request: this body instead of the payload's
    bot_login: str = default_of(OPTIONS, "bot-login")
    # With a token: the live body, as a re-run should judge.
    body_source: BodySource = default_of(OPTIONS, "body-source")
    suites: tuple[str, ...] = ()  # --require-tested checks these; (): every suite there is
    # Write the verdict as a commit status (with a token).
    guard_status: bool = default_of(OPTIONS, "guard-status")
    guard_context: str = default_of(OPTIONS, "guard-context")
    repository: str | None = None  # the description's, when the event does not say


def build(given: Given, at: Edge) -> MergeCheckSettings:
    body_file = edge.path(given.optional("body-file"))
    event_name, event_path = edge.event(given, at.environ, body_file)
    return MergeCheckSettings(
        config=edge.config_of(given, at), event_name=event_name, event_path=event_path,
        api=edge.api_settings(given, at), policy=cast(Policy, given.text("policy")),
        output_format=edge.output_format(given),
        require_tested=bool(given.flag("require-tested")), body_file=body_file,
        bot_login=given.text("bot-login"),
        body_source=cast(BodySource, given.text("body-source")), suites=edge.suites(given),
        guard_status=bool(given.flag("guard-status")),
        guard_context=given.text("guard-context"),
        repository=edge.repository(given, at.environ))
