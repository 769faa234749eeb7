"""`rocm-deps install`: put exactly the named dependency commits into the container
(docs/architecture.md, *The install pipeline*). Without `--overrides*` it resolves the event itself
first (single-job use)."""

from __future__ import annotations

from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.install.pipeline import Installer
from rocm_deps.reports import install as install_report
from rocm_deps.reports import resolve as resolve_report
from rocm_deps.reports.output import publish
from rocm_deps.resolve.resolver import resolve
from rocm_deps.runner import Runner
from rocm_deps.settings import InstallSettings


def run(settings: InstallSettings, runner: Runner) -> int:
    overrides = settings.overrides
    if overrides is None:
        resolved = resolve(settings.resolve)
        resolve_report.show(resolved, settings.config, runner, None)
        if resolved.errors:
            return EXIT_FAILURE
        overrides = resolved.overrides
    report = Installer(settings, runner).install(overrides)
    publish(runner, install_report.outputs(report, settings.config),
                    install_report.summary(report), report.to_json(),
                    install_report.text(report), settings.output_format)
    return EXIT_FAILURE if report.failed else EXIT_OK
