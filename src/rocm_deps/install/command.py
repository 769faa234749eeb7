"""`rocm-deps install`: put exactly the named dependency commits into the container
(docs/architecture.md, *The install pipeline*). Without `--overrides*` it resolves the event itself
first (single-job use)."""

from __future__ import annotations

from rocm_deps.contract.install import InstallReport
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK
from rocm_deps.github.on_demand import ensure_github, offer_renderer
from rocm_deps.install import report as install_report
from rocm_deps.install.attempts import check_attempt
from rocm_deps.install.pipeline import Installer
from rocm_deps.install.settings import InstallSettings
from rocm_deps.messages import without_token
from rocm_deps.reports.output import publish
from rocm_deps.runner import Runner


def run(settings: InstallSettings, runner: Runner) -> int:
    offer_renderer(settings.resolve.api, runner)  # a description rendered here, not by GitHub
    overrides = settings.overrides
    if overrides is None:  # single-job use: resolve the event first (the API only then)
        if settings.resolve.api.empty_variable:
            runner.warning(without_token(settings.resolve.api.empty_variable),
                           title="rocm-deps: no token")
        ensure_github(settings.resolve.api, runner)
        # Single-job use only: a GPU job given `overrides` does not load the resolver.
        from rocm_deps.resolve import report as resolve_report
        from rocm_deps.resolve.resolver import resolve

        resolved = resolve(settings.resolve)
        resolve_report.show(resolved, settings.config, runner, None)
        if resolved.errors:
            return EXIT_FAILURE
        overrides = resolved.overrides
    else:  # the pins of an earlier attempt of this run must still be what is named
        check_attempt(settings, runner)
    installer = Installer(settings, runner)
    report = InstallReport(settings.dry_run, settings.python)
    # Every configured dependency: what is named is installed; what is not is held to (or
    # returned to) the image's copy, so the report never claims a state it did not check.
    for dependency in settings.config.dependencies:
        report.dependencies[dependency.name] = installer.install_one(
            dependency, overrides.get(dependency.name))
    report.workspace = installer.install_workspace(report)
    report.workspace_commit = installer.workspace_commit()
    publish(runner, install_report.outputs(report, settings.config),
            install_report.summary(report), report.to_json(),
            install_report.text(report), settings.output_format)
    missing = [name for name, dep in report.dependencies.items() if dep.clone_missing]
    if missing:  # the plan is shown, but install as planned would fail on this machine
        runner.error(f"dry run: no clone of {', '.join(missing)} on this machine, so install "
                     f"would stop at its check step here; run it where the image has the "
                     f"clone, or set the dependency's `path` in the configuration",
                     title="rocm-deps: dry run without the clone")
    return EXIT_FAILURE if report.failed else EXIT_OK
