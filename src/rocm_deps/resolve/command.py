"""`rocm-deps resolve`: which dependency refs does this run test? (docs/architecture.md,
*Directives*, *Trust*, *Command line and the documents*, *Action outputs*)"""

from __future__ import annotations

from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github, offer_renderer
from rocm_deps.messages import without_token
from rocm_deps.resolve import report as resolve_report
from rocm_deps.resolve.resolver import resolve
from rocm_deps.resolve.settings import ResolveSettings
from rocm_deps.runner import Runner


def run(settings: ResolveSettings, runner: Runner) -> int:
    """Annotations, outputs, summary and the stdout report; returns the exit code."""
    if settings.api.empty_variable:
        runner.warning(without_token(settings.api.empty_variable), title="rocm-deps: no token")
    ensure_github(settings.api, runner)
    offer_renderer(settings.api, runner)  # a description rendered here, not by GitHub
    report = resolve(settings)
    resolve_report.show(report, settings.config, runner, settings.output_format)
    return EXIT_FAILURE if report.errors else EXIT_OK
