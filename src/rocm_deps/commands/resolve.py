"""`rocm-deps resolve`: which dependency refs does this run test? (docs/architecture.md,
*Directives*, *Trust*, *Command line and the documents*, *Action outputs*)"""

from __future__ import annotations

from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.reports import resolve as resolve_report
from rocm_deps.resolve.resolver import resolve
from rocm_deps.runner import Runner
from rocm_deps.settings import ResolveSettings


def run(settings: ResolveSettings, runner: Runner) -> int:
    """Annotations, outputs, summary and the stdout report; returns the exit code."""
    report = resolve(settings)
    resolve_report.show(report, settings.config, runner, settings.output_format)
    return EXIT_FAILURE if report.errors else EXIT_OK
