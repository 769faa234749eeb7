"""`rocm-deps install`: put exactly the named dependency commits into the container
(DESIGN §6). Without `--overrides*` it resolves the event itself first (single-job use)."""

from __future__ import annotations

from rocm_deps import reports
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github
from rocm_deps.github.runner import Runner
from rocm_deps.install.pipeline import Installer
from rocm_deps.resolve.resolver import resolve
from rocm_deps.settings import InstallSettings


def run(settings: InstallSettings, runner: Runner) -> int:
    overrides = settings.overrides
    if overrides is None:
        if settings.resolve.api.token:
            ensure_github(settings.resolve.api.packages_dir, settings.resolve.api.uv, runner)
        resolved = resolve(settings.resolve)
        reports.annotate_resolve(resolved, runner)
        runner.add_summary(reports.resolve_summary(resolved, settings.config))
        if resolved.errors:
            return EXIT_FAILURE
        overrides = resolved.overrides
    report = Installer(settings, runner).install(overrides)
    reports.publish(runner, reports.install_outputs(report, settings.config),
                    reports.install_summary(report), report.to_json(),
                    reports.install_text(report), settings.output_format)
    return EXIT_FAILURE if report.failed else EXIT_OK
