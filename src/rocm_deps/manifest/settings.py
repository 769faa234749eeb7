"""`rocm-deps comment`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.contract.manifest import RUN_URL, checked_suite
from rocm_deps.edge import ApiSettings, Edge
from rocm_deps.errors import UsageError
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE
from rocm_deps.options import (
    BOT_LOGIN,
    EVENT,
    TOOL,
    Given,
    Help,
    Option,
    OutputFormat,
    default_of,
)

# The dispatch input a re-test (Miles' `/rerun-test`) carries the commit it tests in.
DISPATCH_HEAD = "head_sha"

ACTION = True  # a step of workflows: `command: comment`
OPTIONS = (
    *TOOL, *EVENT, BOT_LOGIN,
    Option("report", "a report of this run: the resolve report (`--format json` or the "
           "`report` output) and the GPU jobs' install reports; repeatable (action: one file "
           "per line)", "F", repeatable=True, required=True),
    Option("pr", "the pull request to comment on (default: the event's). Under workflow_run "
           "its head must be the run's head commit", "N", low=1, high=10**9 - 1,
           expected="a pull request number"),
    Option("run-url", "the run the comment links to (default: the triggering run under "
           "workflow_run, else this one)", "URL", pattern=RUN_URL.pattern,
           expected="an http(s) URL of letters, digits and `/._~%:-`"),
    Option("head-sha", "the pull request commit this run tested, where the status goes "
           "(default: the event's head; a workflow_dispatch re-test's `head_sha` input)", "SHA",
           pattern=FULL_SHA_ANY_CASE.pattern, expected="a full commit SHA (40 or 64 hex digits)"),
    Option("suite", "this suite's name, which names its own manifest comment (default: the "
           "workflow's name; under workflow_run the triggering workflow's)", "NAME",
           repeatable=True),
)
HELP = Help(
    "put what this run tested on the pull request (one manifest comment)",
    "Read the run's reports (one resolve report, the GPU jobs' install reports) and write "
    "this suite's manifest comment on the pull request (one per suite), with the tested "
    "commits that merge-check --require-tested reads back, and the suite's commit status. "
    "Needs a token with pull-requests: write and statuses: write. --report is required.",
    ("rocm-deps comment --report resolve.json --report install-mi350.json --pr 7 "
     "--suite 'ROCm suite' --github-token-env GH_TOKEN",))


@dataclass(frozen=True)
class CommentSettings:
    config: Config
    reports: tuple[Path, ...]
    event_name: str = ""
    event_path: Path | None = None
    api: ApiSettings = field(default_factory=ApiSettings)
    pr: int | None = None
    run_url: str = ""  # --run-url, else this run's; "" under workflow_run: the payload's
    bot_login: str = default_of(OPTIONS, "bot-login")
    output_format: OutputFormat = default_of(OPTIONS, "format")
    # This suite's section of the manifest; None: under workflow_run, the name of the
    # triggering workflow (read with the payload).
    suite: str | None = None
    head_sha: str | None = None  # --head-sha: the commit the run tested


def build(given: Given, at: Edge) -> CommentSettings:
    event_name, event_path = edge.event(given, at.environ, None)
    # The action's input holds one file per line; the command line repeats --report.
    reports = tuple(Path(line) for line in given.lines("report"))
    if not reports:
        raise UsageError(f"{given.where('report')}: give the run's resolve report (and the GPU "
                         f"jobs' install reports): what the comment says comes from them")
    pr = given.optional("pr")
    # Under workflow_run the run to link is the triggering one, read with the payload.
    run_url = given.text("run-url") or ("" if event_name == "workflow_run" else
                                        _this_run(at.environ))
    return CommentSettings(
        config=edge.config_of(given, at), reports=reports, event_name=event_name,
        event_path=event_path, api=edge.api_settings(given, at),
        pr=int(pr) if pr is not None else None, run_url=run_url,
        bot_login=given.text("bot-login"), output_format=edge.output_format(given),
        suite=_suite(given, at.environ, event_name),
        head_sha=(given.optional("head-sha") or "").lower() or None)


def _suite(given: Given, environ: Mapping[str, str], event_name: str) -> str | None:
    """The suite `comment` writes for: the input, else the workflow's name (under
    workflow_run: None, the triggering workflow's, read with the payload)."""
    named = given.lines("suite")
    if len(named) > 1:
        raise UsageError(f"{given.where('suite')}: comment writes one suite's comment; got "
                         f"{len(named)} names")
    if named:
        return checked_suite(named[0], given.where("suite"))
    if event_name == "workflow_run":
        return None
    workflow = environ.get("GITHUB_WORKFLOW", "")
    if not workflow:
        raise UsageError(f"{given.where('suite')}: give this suite's name (outside a workflow "
                         f"run there is no $GITHUB_WORKFLOW to take it from)")
    return checked_suite(workflow.strip(), f"the workflow's name ($GITHUB_WORKFLOW; give "
                                           f"{given.where('suite')} instead):")


def _this_run(environ: Mapping[str, str]) -> str:
    """This run's URL, from the runner's variables ("" outside a run)."""
    server, repository, run_id = (environ.get(name, "") for name in (
        "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if server and repository and run_id.isdigit():
        return f"{server.rstrip('/')}/{repository}/actions/runs/{run_id}"
    return ""
