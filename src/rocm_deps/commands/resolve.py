"""`rocm-deps resolve`: which dependency refs does this run test? (DESIGN §3, §4, §8, §9)"""

from __future__ import annotations

from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github
from rocm_deps.reports import publish
from rocm_deps.reports import resolve as resolve_report
from rocm_deps.resolve.resolver import resolve
from rocm_deps.runner import Runner
from rocm_deps.settings import ResolveSettings


def run(settings: ResolveSettings, runner: Runner) -> int:
    """Annotations, outputs, summary and the stdout report; returns the exit code."""
    if settings.api.token:
        ensure_github(settings.api.packages_dirs, settings.api.uv, settings.api.environ, runner)
    report = resolve(settings)
    config = settings.config
    resolve_report.annotate(report, runner)
    publish(runner, resolve_report.outputs(report, config),
                    resolve_report.summary(report, config), report.to_json(),
                    resolve_report.text(report, config), settings.output_format)
    return EXIT_FAILURE if report.errors else EXIT_OK
