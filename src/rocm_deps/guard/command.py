"""`rocm-deps merge-check`: the merge guard (docs/architecture.md, *The GitHub API and the merge
guard*). Fails while a dependency pull request the description names is not merged, so the default
branch never silently loses it."""

from __future__ import annotations

from rocm_deps.config.outputs import REPORT
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github, offer_renderer
from rocm_deps.guard import report as merge_check_report
from rocm_deps.guard.merge_check import check
from rocm_deps.guard.settings import MergeCheckSettings
from rocm_deps.reports.output import compact_json, publish
from rocm_deps.runner import Runner


def run(settings: MergeCheckSettings, runner: Runner) -> int:
    ensure_github(settings.api, runner)
    offer_renderer(settings.api, runner)  # a description rendered here, not by GitHub
    report = check(settings)
    merge_check_report.annotate(report, runner)
    publish(runner, {REPORT: compact_json(report.to_json())},
                    merge_check_report.summary(report), report.to_json(),
                    merge_check_report.text(report), settings.output_format)
    return EXIT_FAILURE if report.failed else EXIT_OK
