"""`rocm-deps sweep`: re-judge every open pull request without a push (docs/architecture.md,
*Living results*). A commit status per suite says whether what the suite tested is still what
the description names; `--rerun moved` re-runs a suite whose dependency pull request moved."""

from __future__ import annotations

import time

from rocm_deps.config.outputs import REPORT
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK, UsageError
from rocm_deps.github.on_demand import ensure_github, offer_renderer
from rocm_deps.messages import needs_token
from rocm_deps.reports.output import compact_json, publish
from rocm_deps.runner import Runner
from rocm_deps.sweep import report as sweep_report
from rocm_deps.sweep.settings import SweepSettings
from rocm_deps.sweep.sweeper import sweep


def run(settings: SweepSettings, runner: Runner) -> int:
    if not settings.api.token:
        permissions = "pull-requests: read, statuses: write" + (
            ", actions: write" if settings.rerun == "moved" else "")
        raise UsageError(needs_token("sweep reads the open pull requests and writes commit "
                                     "statuses", permissions, settings.api.empty_variable))
    ensure_github(settings.api, runner)
    offer_renderer(settings.api, runner)  # a description rendered here, not by GitHub
    from rocm_deps.github.api import GitHubApi

    # Every request keeps to the sweep's own deadline too: a rate limit lifting after it is
    # not waited for.
    report = sweep(settings, GitHubApi(settings.api.url, settings.api.token, settings.config.api,
                                       ends=time.monotonic() + settings.max_seconds))
    sweep_report.annotate(report, runner)
    publish(runner, {REPORT: compact_json(report.to_json())}, sweep_report.summary(report),
            report.to_json(), sweep_report.text(report), settings.output_format)
    # Statuses it may not (or could not) write leave verdicts unsaid: not a green sweep.
    return EXIT_FAILURE if report.refused or report.write_failures else EXIT_OK
