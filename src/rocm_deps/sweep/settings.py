"""`rocm-deps sweep`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from rocm_deps import edge
from rocm_deps.config import REPOSITORY, Config
from rocm_deps.contract.guard import Policy
from rocm_deps.edge import ApiSettings, Edge
from rocm_deps.errors import UsageError
from rocm_deps.options import (
    BOT_LOGIN,
    POLICY,
    REQUIRE_TESTED,
    SUITES,
    TOKEN_ENV,
    TOOL,
    TRUSTED,
    Given,
    Help,
    Option,
    OutputFormat,
    default_of,
)
from rocm_deps.options import (
    GUARD_CONTEXT as GUARD_CONTEXT_OPTION,
)

Rerun = Literal["none", "moved"]

ACTION = True  # a step of workflows: `command: sweep`
OPTIONS = (
    *TOOL, TOKEN_ENV, BOT_LOGIN, SUITES, TRUSTED,
    Option("repository", "the repository whose open pull requests are judged (default: "
           "$GITHUB_REPOSITORY)", "OWNER/REPO", action=False),
    Option("rerun", "moved: re-run a suite's recorded run when a dependency pull request it "
           "tested moved (only pull requests of the repository itself or by a trusted "
           "association); none: only set the statuses", default="none",
           choices=get_args(Rerun)),
    Option("max-reruns", "at most this many re-runs per sweep, trusted and oldest pull "
           "request first", "N", default="5", low=0, high=100),
    Option("lookback-minutes", "a pull request naming nothing is read only when it was updated "
           "this recently (an edited description), to clear an old status", "N", default="60",
           low=0, high=7 * 24 * 60),
    Option("max-seconds", "stop cleanly after this long, saying how far the sweep got "
           "(secondary rate limits are waited out within it)", "N", default="600", low=1,
           high=6 * 60 * 60),
    Option("dry-run", "read as a sweep does and write nothing: print each status it would set "
           "and each re-run it would ask for", default="false", boolean=True, switch=True),
    # The merge guard's status (where merge-check wrote one): recomputed as merge-check
    # gives it, so these say what its step says.
    GUARD_CONTEXT_OPTION, POLICY, REQUIRE_TESTED,
)
HELP = Help(
    "re-judge every open pull request: a commit status per suite, re-runs when a dependency "
    "moved",
    "For every open pull request whose description names a dependency, judge each suite's "
    "manifest comment against what the description names now and the named pull requests' "
    "live heads, and set a commit status per suite (`rocm-deps: <suite>`) on the head commit: "
    "the worst verdict of the open pull requests with that head. A status is written only "
    "when it changed. --rerun moved re-runs the suite's recorded run for a moved dependency. "
    "Needs a token (pull-requests: read, statuses: write; actions: write to re-run); "
    "--dry-run writes nothing.",
    ("rocm-deps sweep --repository radixark/miles --dry-run --github-token-env GH_TOKEN",
     "rocm-deps sweep --rerun moved --max-reruns 3 --github-token-env GH_TOKEN"))


@dataclass(frozen=True)
class SweepSettings:
    config: Config
    repository: str
    api: ApiSettings = field(default_factory=ApiSettings)
    suites: tuple[str, ...] = ()  # (): every suite a manifest comment names
    bot_login: str = default_of(OPTIONS, "bot-login")
    rerun: Rerun = default_of(OPTIONS, "rerun")
    max_reruns: int = default_of(OPTIONS, "max-reruns")
    lookback_minutes: int = default_of(OPTIONS, "lookback-minutes")
    max_seconds: int = default_of(OPTIONS, "max-seconds")
    output_format: OutputFormat = default_of(OPTIONS, "format")
    trusted_associations: tuple[str, ...] = tuple(
        default_of(OPTIONS, "trusted-associations").split(","))
    dry_run: bool = default_of(OPTIONS, "dry-run")
    guard_context: str = default_of(OPTIONS, "guard-context")
    policy: Policy = default_of(OPTIONS, "policy")
    require_tested: bool = default_of(OPTIONS, "require-tested")


def build(given: Given, at: Edge) -> SweepSettings:
    repository = given.text("repository") or at.environ.get("GITHUB_REPOSITORY", "")
    if not REPOSITORY.fullmatch(repository):
        raise UsageError(f"{given.where('repository')} {repository[:100]!r} is not OWNER/REPO "
                         f"(default: $GITHUB_REPOSITORY, which is unset outside a run)")
    return SweepSettings(
        config=edge.config_of(given, at), repository=repository,
        api=edge.api_settings(given, at), suites=edge.suites(given),
        bot_login=given.text("bot-login"), rerun=cast(Rerun, given.text("rerun")),
        max_reruns=given.number("max-reruns"),
        lookback_minutes=given.number("lookback-minutes"),
        max_seconds=given.number("max-seconds"), output_format=edge.output_format(given),
        trusted_associations=edge.associations(given), dry_run=bool(given.flag("dry-run")),
        guard_context=given.text("guard-context"), policy=cast(Policy, given.text("policy")),
        require_tested=bool(given.flag("require-tested")))
