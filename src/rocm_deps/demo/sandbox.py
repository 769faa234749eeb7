"""A throw-away copy of the MI350 image's layout, for `rocm-deps demo` and the tests, built
from the data of `world`: for each dependency an "origin" with history, annotated release
tags and pull-request refs, and a "baked" clone of it as the image left it (complete, at an
older commit, edited by the image build, installed editable into a virtualenv that stands
in for the container's interpreter). A release is tagged *after* the image was built.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import process
from rocm_deps.demo.package import BUILD_REQUIREMENTS_CLOSURE, write_package
from rocm_deps.demo.world import DEPENDENCIES, WORKSPACE_FILES, WORKSPACE_PACKAGE, Dependency
from rocm_deps.runner import Runner

IDENTITY = {"GIT_AUTHOR_NAME": "rocm-deps sandbox", "GIT_AUTHOR_EMAIL": "sandbox@example.invalid",
            "GIT_COMMITTER_NAME": "rocm-deps sandbox",
            "GIT_COMMITTER_EMAIL": "sandbox@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


@dataclass(frozen=True)
class Sandbox:
    root: Path
    workspace: Path
    python: str
    config: Path
    origins: Mapping[str, Path]
    baked: Mapping[str, Path]
    # dependency -> {"old_base", "baked", "main", "pr", "pr_old_base", ...} -> sha
    commits: Mapping[str, Mapping[str, str]]

    def event(self, body: str, path: Path | None = None) -> Path:
        """A `pull_request` event payload with `body`, as the runner would write it."""
        target = path or self.root / "event.json"
        target.write_text(json.dumps({"pull_request": {
            "number": 7, "body": body, "author_association": "MEMBER"}}), encoding="utf-8")
        return target


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: JSON's string escapes are TOML's."""
    return json.dumps(text)


class Builder:
    def __init__(self, runner: Runner, environ: Mapping[str, str]) -> None:
        self.runner = runner
        self.env = {**environ, **IDENTITY}

    def run(self, *argv: str, cwd: Path | None = None) -> str:
        return process.run(argv, self.runner, cwd=cwd, env=self.env, echo=False,
                           check=True).stdout.strip()

    def git(self, repository: Path, *args: str) -> str:
        return self.run("git", "-C", str(repository), *args)

    def commit(self, repository: Path, message: str) -> str:
        self.git(repository, "add", "-A")
        self.git(repository, "commit", "-q", "-m", message)
        return self.git(repository, "rev-parse", "HEAD")

    def change(self, repository: Path, dependency: Dependency, label: str) -> str:
        """One ordinary commit: a line appended to the package's change log."""
        package = dependency.package
        log = repository / package.install_dir / package.import_name / "changes.py"
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"# {label}\n")
        return self.commit(repository, f"{dependency.name}: {label}")

    def set_version(self, repository: Path, dependency: Dependency, version: str) -> None:
        """A static version is written into the package; a git version comes from tags."""
        if dependency.versioning == "static":
            write_package(repository, dependency.package, version)

    def release(self, repository: Path, dependency: Dependency, version: str) -> str:
        self.set_version(repository, dependency, version)
        if self.git(repository, "status", "--porcelain"):
            self.commit(repository, f"{dependency.name} {version}")
        self.git(repository, "tag", "-a", "-m", f"release {version}", f"v{version}")
        return self.git(repository, "rev-parse", "HEAD")

    def origin(self, root: Path, dependency: Dependency) -> tuple[Path, dict[str, str]]:
        """v0.1.0 ... v0.2.0 ... an older base ... the image's commit ... main. The release
        after the image and the PRs come later (`after_bake`)."""
        origin = root / "origins" / dependency.name
        origin.mkdir(parents=True)
        self.git(origin, "init", "-q", "-b", "main")
        self.git(origin, "config", "uploadpack.allowFilter", "true")  # as GitHub serves
        static = "0.1.0" if dependency.versioning == "static" else None
        write_package(origin, dependency.package, static)
        write_files(origin, dependency.files)
        self.commit(origin, f"{dependency.name}: initial layout")
        self.release(origin, dependency, "0.1.0")
        for n in range(3):
            self.change(origin, dependency, f"work towards 0.2, part {n + 1}")
        self.release(origin, dependency, "0.2.0")
        commits = {"old_base": self.change(origin, dependency, "the base of an old pull request")}
        for n in range(2):
            self.change(origin, dependency, f"work after 0.2, part {n + 1}")
        commits["baked"] = self.git(origin, "rev-parse", "HEAD")
        for n in range(2):
            commits["main"] = self.change(origin, dependency,
                                          f"merged after the image, part {n + 1}")
        return origin, commits

    def after_bake(self, origin: Path, dependency: Dependency, commits: dict[str, str]) -> None:
        """What happened upstream after the image was built: a release, and the pull
        requests (one off the new main, one off a base older than the image's commit, and
        with a patch target, one that deletes it as upstream did)."""
        number = dependency.pr_number
        commits["main"] = self.release(origin, dependency, "0.3.0")
        self.git(origin, "checkout", "-q", "--detach", "HEAD")
        self.set_version(origin, dependency, f"0.3.1.dev{number}")
        for name, text in dependency.pr_appends.items():
            with (origin / name).open("a", encoding="utf-8") as handle:
                handle.write(text)
        commits["pr"] = self.pull_request(origin, number, lambda: self.change(
            origin, dependency, "the unmerged change under test"))
        self.git(origin, "checkout", "-q", "--detach", commits["old_base"])
        self.set_version(origin, dependency, f"0.2.1.dev{number + 1}")
        commits["pr_old_base"] = self.pull_request(origin, number + 1, lambda: self.change(
            origin, dependency, "a change on an old base"))
        if dependency.release_branch is not None:  # v0.3.1 exists on that branch only
            self.git(origin, "checkout", "-q", "-b", dependency.release_branch, commits["main"])
            commits["release"] = self.change(origin, dependency, "a fix for the 0.3 series")
            self.git(origin, "tag", "-a", "-m", "release 0.3.1", "v0.3.1")
        if dependency.patch_target is not None:
            target = dependency.patch_target
            self.git(origin, "checkout", "-q", "--detach", "main")
            self.set_version(origin, dependency, f"0.3.1.dev{number + 2}")
            (origin / target).unlink()
            commits["pr_target_deleted"] = self.pull_request(origin, number + 2, lambda: (
                self.commit(origin, f"{dependency.name}: remove {target}")))
        self.git(origin, "checkout", "-q", "main")

    def pull_request(self, origin: Path, number: int, make_commit: Callable[[], str]) -> str:
        commit = make_commit()
        self.git(origin, "update-ref", f"refs/pull/{number}/head", commit)
        return commit

    def bake(self, origin: Path, checkout: Path, commit: str) -> None:
        """A complete clone (history and tags) at an older commit, as the image build left it."""
        checkout.parent.mkdir(parents=True, exist_ok=True)
        self.run("git", "clone", "-q", str(origin), str(checkout))
        self.git(checkout, "checkout", "-q", "--detach", commit)

    def build_image(self, checkout: Path, dependency: Dependency, workspace: Path) -> None:
        """The image build's edits of the clone (uncommitted), as `world` describes them."""
        edits = dependency.image_build
        for source, target in edits.moves:
            (checkout / source).replace(checkout / target)
        for name, data in edits.writes.items():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            (checkout / name).write_bytes(data)
        for label in edits.patches:
            self.git(checkout, "apply", str(workspace / label))


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def create_venv(path: Path, base_python: str, runner: Runner,
                environ: Mapping[str, str]) -> str:
    """A virtualenv standing in for the container's interpreter; returns its python.

    Its pip is the creating interpreter's own, linked in: installing a private copy
    (ensurepip) costs seconds per sandbox and changes nothing pip does. Without a pip to
    link, the venv gets its own."""
    def run(*argv: str) -> str:
        return process.run(argv, runner, env=environ, echo=False, check=True).stdout.strip()

    pip_dir = process.run((base_python, "-c", "import os, pip; print(os.path.dirname("
                                              "pip.__file__))"), runner, env=environ,
                          echo=False)
    if not pip_dir.ok:
        run(base_python, "-m", "venv", str(path))
        return str(path / "bin" / "python")
    run(base_python, "-m", "venv", "--without-pip", str(path))
    python = path / "bin" / "python"
    (site_packages(str(python), runner, environ) / "pip").symlink_to(pip_dir.stdout.strip())
    return str(python)


def site_packages(python: str, runner: Runner, environ: Mapping[str, str]) -> Path:
    return Path(process.run((python, "-c", "import sysconfig; "
                                           "print(sysconfig.get_paths()['purelib'])"),
                            runner, env=environ, echo=False, check=True).stdout.strip())


def provide_build_requirements(python: str, directory: Path, runner: Runner,
                               environ: Mapping[str, str]) -> None:
    """Install the packages' build requirements into `directory` (once; reused when it is
    already there) and let `python` see them, as a build environment would."""
    if not (directory / ".complete").exists():
        shutil.rmtree(directory, ignore_errors=True)
        process.run((python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                     "--no-deps", "--target", str(directory), *BUILD_REQUIREMENTS_CLOSURE),
                    runner, env=environ, echo=False, check=True)
        (directory / ".complete").write_text("")
    (site_packages(python, runner, environ) / "rocm_deps_sandbox_build.pth").write_text(
        f"{directory}\n")


def build(root: Path, runner: Runner, environ: Mapping[str, str], *,
          python_for_venv: str | None = None, python: str | None = None,
          build_requirements: Path | None = None) -> Sandbox:
    """Lay out the sandbox under `root` (which must be empty or absent). The target
    interpreter is `python` when given, else a new virtualenv made by `python_for_venv`.
    `build_requirements` may name a directory shared between sandboxes (default: in root)."""
    builder = Builder(runner, environ)
    root.mkdir(parents=True, exist_ok=True)
    if python is None:
        if python_for_venv is None:
            raise ValueError("build() needs `python` or `python_for_venv`")
        python = create_venv(root / "venv", python_for_venv, runner, environ)
    provide_build_requirements(python, build_requirements or root / "build-requirements",
                               runner, environ)
    workspace = root / "workspace"
    write_files(workspace, WORKSPACE_FILES)
    origins, baked, commits = {}, {}, {}
    for dependency in DEPENDENCIES:
        name = dependency.name
        origins[name], commits[name] = builder.origin(root, dependency)
        baked[name] = root / "image" / dependency.location
        builder.bake(origins[name], baked[name], commits[name]["baked"])
        builder.after_bake(origins[name], dependency, commits[name])
    for dependency in DEPENDENCIES:
        builder.build_image(baked[dependency.name], dependency, workspace)
    # ... and the image installed every dependency editable into the container's interpreter.
    editables = [argument for dependency in DEPENDENCIES for argument in
                 ("-e", str(baked[dependency.name] / dependency.package.install_dir))]
    builder.run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                *editables)
    config = root / "rocm-deps.toml"
    config.write_text(sandbox_config(baked), encoding="utf-8")
    return Sandbox(root, workspace, python, config, origins, baked, commits)


def sandbox_config(baked: Mapping[str, Path]) -> str:
    """The configuration for the sandbox: the defaults with its paths, no retry delays, and
    the build requirements it provides (no network)."""
    tables = [f"[dependencies.{name}]\npath = {toml_string(str(path))}\n"
              for name, path in baked.items()]
    return "\n".join([*tables, "[install]\nworkspace-install = false\nretry-min-seconds = 0\n"
                                "retry-max-seconds = 0\n# The build requirements are provided "
                                "(see provide_build_requirements): no network.\n"
                                'pip-args = ["--no-build-isolation"]\n'])


def add_workspace_package(box: Sandbox) -> None:
    """Make the workspace an installable package (the framework whose CI this is)."""
    write_package(box.workspace, WORKSPACE_PACKAGE, "0.1.0")


def copy(box: Sandbox, destination: Path) -> Sandbox:
    """An independent copy of a built sandbox at `destination`: much cheaper than building
    one (no git history to write, no pip). Absolute paths that name the old root (remote
    URLs, the config, the venv's editable-install links) are rewritten."""
    shutil.copytree(box.root, destination, symlinks=True)  # the venv's pip stays a link
    old, new = str(box.root), str(destination)
    files = [destination / box.config.relative_to(box.root)]
    files += [destination / path.relative_to(box.root) / ".git" / "config"
              for path in box.baked.values()]
    venv = destination / "venv"
    files += [*venv.glob("lib/python*/site-packages/*.pth"),
              *venv.glob("lib/python*/site-packages/*.dist-info/direct_url.json")]
    for path in files:
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    def moved(path: Path) -> Path:
        return destination / path.relative_to(box.root)

    python = str(moved(Path(box.python))) if Path(box.python).is_relative_to(box.root) \
        else box.python
    return Sandbox(destination, moved(box.workspace), python, moved(box.config),
                   {name: moved(path) for name, path in box.origins.items()},
                   {name: moved(path) for name, path in box.baked.items()}, box.commits)


def installed_versions(box: Sandbox, runner: Runner, environ: Mapping[str, str]) -> dict[str, str]:
    """What the target interpreter imports: {import name: __version__}."""
    names = [dependency.package.import_name for dependency in DEPENDENCIES]
    script = ("import json, importlib, sys\n"
              "print(json.dumps({n: importlib.import_module(n).__version__ "
              "for n in sys.argv[1:]}))")
    result = process.run((box.python, "-c", script, *names), runner, env=environ, echo=False,
                         check=True)
    return dict(json.loads(result.stdout))


def remove(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
