"""The `prepare`, `pip` and `rebuild-check` steps of `STEPS` (install/pipeline.py): the `prepare`
commands, `pip install -e` into the container's interpreter and the check of what it now imports,
and the warning about compiled parts that pip does not rebuild."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path

from rocm_deps import process
from rocm_deps.config import DependencyConfig
from rocm_deps.contract.install import DependencyReport, FailedStep
from rocm_deps.environment import pip_environment
from rocm_deps.install import compiled
from rocm_deps.install.git import GitError
from rocm_deps.install.job import Context, Job, StepFailed, first_names
from rocm_deps.install.pip import (
    NO_ISOLATION,
    build_requirements,
    build_requirements_probe_argv,
    editable_probe_argv,
    install_argv,
)


def prepare(context: Context, job: Job) -> None:
    """The dependency's commands (argv lists, no shell), run in its directory."""
    dependency = job.dependency
    for argv in dependency.prepare:
        if context.dry_run:
            context.runner.echo_command(argv, dry_run=True)
            continue
        try:
            result = process.run(argv, context.runner, cwd=dependency.path,
                                 env=context.pip_env(dependency), capture=False,
                                 progress=process.Progress(shlex.join(argv)[:200]))
        except OSError as error:
            raise StepFailed("prepare", f"cannot run `{shlex.join(argv)}` in "
                                        f"{dependency.path}: {error.strerror or error}"
                             ) from None
        if not result.ok:
            raise StepFailed("prepare", f"`{shlex.join(argv)}` in {dependency.path} failed "
                                        f"with exit code {result.returncode} (its output is "
                                        f"above); pip was not run")


def pip_install(context: Context, job: Job) -> None:
    dependency = job.dependency
    if not dependency.install_dir:
        context.runner.info(f"{dependency.name}: install-dir is empty; not pip installing")
        return
    directory = Path(dependency.clone) / dependency.install_dir
    reuse = compiled.plan(context, job)
    if reuse is None:
        editable_install(context, "pip", directory, dependency.name, dependency, job.report)
    else:
        _install_reusing(context, job, directory, reuse)
    if not context.dry_run:
        job.report.version = _installed_from(context, directory, dependency.name)


def _install_reusing(context: Context, job: Job, directory: Path, reuse: compiled.Plan) -> None:
    """pip as always, with the compilers disabled when the extensions may be reused; then
    every extension file must load, or the install is redone once with the compilers."""
    dependency = job.dependency
    job.report.compiled = reuse.why
    if reuse.reuse:
        context.runner.info(f"{dependency.name}: compiled extensions {reuse.why}: pip runs "
                            f"with the compilers disabled")
    if job.build_file is not None:  # a pip that stops half-way leaves no build to trust
        job.build_file.forget(context.environment())
    try:
        editable_install(context, "pip", directory, dependency.name, dependency, job.report,
                         compiled.disabled_compilers() if reuse.reuse else {})
        failed = compiled.failed_to_load(context, compiled.extension_files(context, job)[1])
    except StepFailed as failure:
        if not reuse.reuse:
            raise
        failed = {"pip": failure.message.split("\n", 1)[0]}
    if not failed:
        compiled.record_build(context, job, reuse.inputs)
        return
    why = first_names([f"{path}: {problem}" for path, problem in failed.items()])
    if not reuse.reuse:
        raise StepFailed("pip", f"{dependency.name}'s compiled extension does not load: {why}")
    context.runner.warning(f"{dependency.name}: the reused extension did not work ({why}): "
                           f"building it again from scratch, once",
                           title=f"rocm-deps: {dependency.name} rebuilt")
    compiled.remove(reuse.files)
    editable_install(context, "pip", directory, dependency.name, dependency, job.report)
    failed = compiled.failed_to_load(context, compiled.extension_files(context, job)[1])
    if failed:
        raise StepFailed("pip", f"{dependency.name}'s compiled extension does not load after "
                                f"a rebuild from scratch: {first_names(list(failed))}")
    compiled.record_build(context, job, reuse.inputs)
    job.report.compiled = (f"built (the reused extension did not work: rebuilt from scratch; "
                           f"{reuse.why})")


def editable_install(context: Context, step: FailedStep, directory: Path, what: str,
                     dependency: DependencyConfig | None = None,
                     report: DependencyReport | None = None,
                     environment: Mapping[str, str] | None = None) -> None:
    """`pip install -e directory` into the interpreter under test (shown in a dry run); a
    dependency's, or the workspace (`dependency` None, as `build-isolation = "auto"`),
    without build isolation when the interpreter has what the build needs."""
    python = context.settings.python
    pip_args = context.pip_args(dependency)
    configured = NO_ISOLATION in pip_args  # `pip-args` decided it already
    isolated = not configured and _isolated(context, directory, dependency)
    if report is not None:
        report.build_isolation = "isolated" if isolated else "not isolated"
    added = () if isolated or configured else (NO_ISOLATION,)
    argv = install_argv(python, str(directory), (*added, *pip_args), editable=True)
    if context.dry_run:
        context.runner.echo_command(argv, dry_run=True)
        return
    result = process.run(argv, context.runner,
                         env={**context.pip_env(dependency), **(environment or {})},
                         capture=False, progress=process.Progress(f"pip install -e {directory}"))
    if not result.ok:
        raise StepFailed(step, f"`pip install -e {directory}` for {what} failed with exit "
                               f"code {result.returncode} (pip's output is above); the "
                               f"interpreter was {python}")


def _isolated(context: Context, directory: Path, dependency: DependencyConfig | None) -> bool:
    """Whether pip builds `directory` in an isolated environment (downloading the build requirements
    from the index): `build-isolation`, and for `auto` (the workspace's) whether the interpreter
    under test has every requirement already (the `pip` step)."""
    policy, name = (dependency.build_isolation, dependency.name) if dependency else (
        "auto", "workspace")
    if policy != "auto":
        return policy == "always"
    if not directory.is_dir():  # a dry run without the clone: nothing to read yet
        context.runner.info(f"{name}: {directory} is not here: whether the build "
                            f"needs isolation is decided when it is")
        return True
    return needs_isolation(context, name, *build_requirements(directory))


def needs_isolation(context: Context, name: str, requirements: tuple[str, ...] | None,
                    source: str) -> bool:
    """For `build-isolation = "auto"`: whether the interpreter under test lacks one of the
    build `requirements` (a clone's or a git package's commit declares them), so that pip
    must build in an isolated environment downloading them."""
    python = context.settings.python

    def isolated(why: str) -> bool:
        context.runner.notice(f"{name}: building isolated{why}",
                              title=f"rocm-deps: {name} build isolation")
        return True

    if requirements is None:
        return isolated(f": {source}")
    if not requirements:  # a backend that needs nothing: nothing to ask the interpreter
        context.runner.info(f"{name}: the build requires nothing ({source}): building without "
                            f"isolation")
        return False
    result = process.run(build_requirements_probe_argv(python), context.runner,
                         env=pip_environment(context.settings.environ), echo=False,
                         stdin=json.dumps(list(requirements)))
    try:
        missing = json.loads(result.stdout.strip() or "null")
    except ValueError:
        missing = None
    if not result.ok or not isinstance(missing, list):
        return isolated(f": {python} could not say whether it has the build requirements "
                        f"(exit code {result.returncode})")
    if missing:
        shown = ", ".join(f"`{str(item)[:100]}`" for item in missing[:5])
        return isolated(f" (pip downloads the build requirements from the package index): "
                        f"{python} lacks {shown}"
                        f"{f' and {len(missing) - 5} more' if len(missing) > 5 else ''} "
                        f"({source})")
    context.runner.info(f"{name}: {python} has every build requirement "
                        f"({', '.join(requirements) or 'none'}): building without isolation")
    return False


def _installed_from(context: Context, directory: Path, what: str) -> str:
    """The version the interpreter reports for what it now imports from `directory`; each of
    its top-level modules must be found there (a `.pth` file or an earlier entry of sys.path
    that makes `import` find another copy fails the step, naming the copy)."""
    python = context.settings.python
    name, version, found = imported_from(context, directory)
    if name is None:
        raise StepFailed("pip", f"pip reported success, but {python} has no distribution "
                                f"installed editable from {directory}; {what} is not what it "
                                f"imports. Is `python` the container's interpreter?")
    elsewhere = shadowed(found, directory)
    if elsewhere:
        raise StepFailed("pip", f"pip installed {what} editable from {directory}, but {python} "
                                f"imports {elsewhere}: a `.pth` file or an earlier entry of "
                                f"sys.path wins over the install. Remove that copy (or the "
                                f"`.pth` file that adds it), or use a fresh container")
    checked = (f"{', '.join(sorted(found))} found there" if found else
               "it lists no top-level module: where `import` finds it is not checked")
    context.runner.info(f"{what}: {python} imports {name} {version} from {directory} "
                        f"({checked})")
    return version


def imported_from(context: Context, directory: Path
                  ) -> tuple[str | None, str, dict[str, str]]:
    """The distribution installed editable from `directory` (None when there is none), its
    version, and where `import` finds each of its top-level modules."""
    result = process.run(editable_probe_argv(context.settings.python, directory),
                         context.runner, env=pip_environment(context.settings.environ),
                         echo=False)
    try:
        name, version, found = json.loads(result.stdout.strip() or "null")
        return str(name), str(version), {str(top): str(where) for top, where in found.items()}
    except (TypeError, ValueError, AttributeError):
        return None, "", {}


def shadowed(found: dict[str, str], directory: Path) -> str:
    """The modules `import` finds outside `directory` (or not at all), said as such; "" when
    every one is found inside it."""
    root = directory.resolve()
    outside = []
    for top, where in sorted(found.items()):
        if where.startswith("error: "):
            outside.append(f"`{top}` not at all ({where[7:]})")
        elif not Path(where).resolve().is_relative_to(root):
            outside.append(f"`{top}` from {where}")
    return ", ".join(outside)


def rebuild_warning(context: Context, job: Job) -> None:
    """Files under `rebuild-paths` that differ from the image's commit: the image's build of
    them is what runs, not this commit's."""
    dependency, report, image = job.dependency, job.report, job.image
    if context.dry_run or not dependency.rebuild_paths or report.commit is None or not image:
        return
    try:
        files = job.git.changed_files(image.commit, report.commit, dependency.rebuild_paths)
    except GitError as error:
        context.runner.warning(f"{dependency.name}: cannot compare the rebuild paths with the "
                               f"image's commit {image.commit[:12]}: {error.message}",
                               title=f"rocm-deps: {dependency.name} rebuild check")
        return
    report.rebuild = tuple(files)
    if files:
        context.runner.warning(
            f"{dependency.name}: {len(files)} file(s) under "
            f"{', '.join(dependency.rebuild_paths)} differ between the image's commit "
            f"{image.commit[:12]} and {report.commit[:12]} ({first_names(files)}). "
            f"`pip install -e --no-deps` does not rebuild these compiled parts: the "
            f"image's build is what runs, not this commit's",
            title=f"rocm-deps: {dependency.name} compiled parts not rebuilt")
