"""`rocm-deps resolve`: which dependency refs does this run test? (docs/architecture.md,
*Directives*, *Trust*, *Command line and the documents*, *Action outputs*)"""

from __future__ import annotations

from rocm_deps import settings as edge_settings
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github
from rocm_deps.options import Given
from rocm_deps.resolve import report as resolve_report
from rocm_deps.resolve.resolver import resolve
from rocm_deps.runner import Runner
from rocm_deps.settings import Edge, ResolveSettings


def build(given: Given, edge: Edge) -> ResolveSettings:
    return edge_settings.resolve_settings(given, edge.environ)


def run(settings: ResolveSettings, runner: Runner) -> int:
    """Annotations, outputs, summary and the stdout report; returns the exit code."""
    ensure_github(settings.api, runner)
    report = resolve(settings)
    resolve_report.show(report, settings.config, runner, settings.output_format)
    return EXIT_FAILURE if report.errors else EXIT_OK
