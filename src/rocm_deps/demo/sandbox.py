"""A throw-away copy of the MI350 image's layout, for `rocm-deps demo` and the tests.

It looks like the real thing where the real thing has bitten us (DESIGN §1):
- Each dependency has an "origin" with history, annotated release tags and pull-request
  refs (`refs/pull/<n>/head`), one PR branched off the current main and one off an older
  base than the image's commit. A release is tagged *after* the image was built.
- The "baked" clones are complete clones (full history, tags), checked out at an older
  commit, installed editable into a separate virtualenv that stands in for the container's
  interpreter.
- SGLang takes its version from git through setuptools-scm (the nearest tag); Megatron-LM
  has a static version, as the real packages do.
- The image build edited SGLang's work tree: the ROCm pyproject swapped in, a compiled part
  (ignored build output), an untracked config file copied in. Megatron-LM carries the ROCm
  patch, applied to `megatron/legacy/fused_kernels/__init__.py`, the file real Megatron
  deleted upstream later.

The packages use a tiny in-tree PEP 660 build backend; pip runs it without build isolation,
so an install needs no network. setuptools-scm (a build requirement, as for the real SGLang)
is installed once into a directory the target interpreter sees through a `.pth` file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import process
from rocm_deps.github.runner import Runner

BACKEND = '''\
"""A tiny PEP 660 build backend: an editable install is a .pth file pointing here."""
import base64, hashlib, os, re, zipfile

NAME = {name!r}
PACKAGE = {package!r}
SCM_ROOT = {scm_root!r}  # the git work tree whose tags give the version; None: static version
HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    if SCM_ROOT is not None:
        from setuptools_scm import get_version

        return get_version(root=os.path.join(HERE, SCM_ROOT))
    with open(os.path.join(HERE, PACKAGE, "version.py")) as handle:
        return re.search(r'__version__ = "([^"]+)"', handle.read()).group(1)


def _metadata(version):
    return "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (NAME, version)


def get_requires_for_build_editable(config_settings=None):
    return ["setuptools-scm>=8"] if SCM_ROOT is not None else []


get_requires_for_build_wheel = get_requires_for_build_editable


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    stem = "%s-%s" % (NAME.replace("-", "_"), version)
    dist_info = stem + ".dist-info"
    files = {{
        NAME + ".pth": HERE + "\\n",
        dist_info + "/METADATA": _metadata(version),
        dist_info + "/WHEEL": "Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\n"
                              "Tag: py3-none-any\\n",
    }}
    record = []
    for path, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = "\\n".join(record) + "\\n"
    wheel = stem + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


build_wheel = build_editable
'''

PYPROJECT = """\
[build-system]
requires = [{requires}]
build-backend = "tiny_backend"
backend-path = ["."]
"""

# The version the package reports is the one pip recorded at install time (as for an
# editable setuptools-scm package: a later checkout changes it only after a reinstall).
INIT_FROM_METADATA = '''\
from importlib.metadata import version as _version

__version__ = _version({distribution!r})
'''
INIT_FROM_VERSION_FILE = "from .version import __version__  # noqa: F401\n"

# The file the ROCm patch targets; real Megatron-LM deleted it upstream in 2026-03.
ROCM_TARGET = "megatron/legacy/fused_kernels/__init__.py"
ROCM_MODULE = '''\
"""Fused kernels: device settings for the accelerator in use.

The ROCm patch switches these from CUDA to ROCm values.
"""

DEVICE = "cuda"
WARP_SIZE = 32


def describe():
    return f"{DEVICE}/{WARP_SIZE}"
'''
# Context lines of a unified diff start with a space; written as a list so that no source
# line ends in whitespace.
ROCM_PATCH = "\n".join([
    f"diff --git a/{ROCM_TARGET} b/{ROCM_TARGET}",
    f"--- a/{ROCM_TARGET}",
    f"+++ b/{ROCM_TARGET}",
    "@@ -3,8 +3,8 @@",
    " The ROCm patch switches these from CUDA to ROCm values.",
    ' """',
    " ",
    '-DEVICE = "cuda"',
    "-WARP_SIZE = 32",
    '+DEVICE = "rocm"',
    "+WARP_SIZE = 64",
    " ",
    " ",
    " def describe():",
    "",
])
PATCH_LABEL = "docker/amd_patch/latest/megatron.patch"

# What the SGLang image build does to the work tree (docker/rocm.Dockerfile).
ROCM_PYPROJECT_NOTE = "# ROCm build: the pyproject the image swaps in (one Rust extension)\n"
IMAGE_CONFIG_FILE = "python/sglang/srt/layers/moe/configs/MI300X_VF.json"
COMPILED_PART = "sgl-kernel/build/sgl_kernel_rocm.so"
KERNEL_SOURCE = "sgl-kernel/csrc/kernels.cu"  # SGLang's PR changes it: a rebuild warning
# The demo's workspace: the framework whose CI this is, installed after its dependencies.
WORKSPACE_PACKAGE = "miles"

# setuptools-scm and what its `get_version` imports (not setuptools: only its setuptools
# integration needs that, and it is most of the download), installed without resolving.
BUILD_REQUIREMENTS = ("setuptools-scm>=8",)
BUILD_REQUIREMENTS_CLOSURE = (*BUILD_REQUIREMENTS, "vcs-versioning>=2.5", "packaging>=26.2",
                              "tomli>=1; python_version < '3.11'",
                              "typing-extensions>=4.1; python_version < '3.11'")

IDENTITY = {"GIT_AUTHOR_NAME": "rocm-deps sandbox", "GIT_AUTHOR_EMAIL": "sandbox@example.invalid",
            "GIT_COMMITTER_NAME": "rocm-deps sandbox",
            "GIT_COMMITTER_EMAIL": "sandbox@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


@dataclass(frozen=True)
class PackageSpec:
    """One dependency of the sandbox: where its package lives inside the checkout."""

    name: str          # dependency name (sglang, megatron)
    distribution: str  # pip distribution name
    package: str       # import name
    install_dir: str   # "." or "python"
    # The PR branched off main; pr_number + 1 branches off an older base; pr_number + 2
    # (Megatron-LM) deletes the file the ROCm patch targets, as upstream did.
    pr_number: int
    versioned_by_git: bool = False


SGLANG = PackageSpec("sglang", "sglang", "sglang", "python", 101, versioned_by_git=True)
MEGATRON = PackageSpec("megatron", "megatron-core", "megatron", ".", 202)


@dataclass(frozen=True)
class Sandbox:
    root: Path
    workspace: Path
    python: str
    config: Path
    origins: Mapping[str, Path]
    baked: Mapping[str, Path]
    # dependency -> {"baked", "main", "pr", "pr_old_base"} -> sha
    commits: Mapping[str, Mapping[str, str]]

    def event(self, body: str, path: Path | None = None) -> Path:
        """A `pull_request` event payload with `body`, as the runner would write it."""
        target = path or self.root / "event.json"
        target.write_text(json.dumps({"pull_request": {
            "number": 7, "body": body, "author_association": "MEMBER"}}), encoding="utf-8")
        return target


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

    @staticmethod
    def write_package(checkout: Path, spec: PackageSpec, version: str) -> None:
        """The package at `checkout`; `version` is its static version (unused when the
        version comes from git)."""
        package_root = checkout / spec.install_dir
        (package_root / spec.package).mkdir(parents=True, exist_ok=True)
        scm_root = None
        if spec.versioned_by_git:
            scm_root = "/".join(".." for _ in Path(spec.install_dir).parts) or "."
        requires = ", ".join(f'"{r}"' for r in BUILD_REQUIREMENTS) if scm_root else ""
        (package_root / "pyproject.toml").write_text(PYPROJECT.format(requires=requires))
        (package_root / "tiny_backend.py").write_text(
            BACKEND.format(name=spec.distribution, package=spec.package, scm_root=scm_root))
        init = package_root / spec.package / "__init__.py"
        if spec.versioned_by_git:
            init.write_text(INIT_FROM_METADATA.format(distribution=spec.distribution))
        else:
            init.write_text(INIT_FROM_VERSION_FILE)
            (package_root / spec.package / "version.py").write_text(
                f'__version__ = "{version}"\n')
        (checkout / ".gitignore").write_text("__pycache__/\nbuild/\n")

    def write_layout(self, checkout: Path, spec: PackageSpec) -> None:
        """Files of the real repository the tests and the demo care about."""
        if spec.name == "sglang":
            rocm = checkout / "python" / "pyproject_other.toml"
            rocm.write_text(ROCM_PYPROJECT_NOTE + (checkout / "python" / "pyproject.toml")
                            .read_text())
            (checkout / "sgl-kernel" / "csrc").mkdir(parents=True, exist_ok=True)
            (checkout / "sgl-kernel" / "csrc" / "kernels.cu").write_text("// kernels\n")
            (checkout / "sgl-model-gateway").mkdir(exist_ok=True)
            (checkout / "sgl-model-gateway" / "Cargo.toml").write_text(
                '[package]\nname = "sgl-model-gateway"\n')
        else:
            target = checkout / ROCM_TARGET
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(ROCM_MODULE)
            (checkout / "megatron" / "legacy" / "__init__.py").write_text("")

    def change(self, repository: Path, spec: PackageSpec, label: str) -> str:
        """One ordinary commit: a line appended to the package's change log."""
        log = repository / spec.install_dir / spec.package / "changes.py"
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"# {label}\n")
        return self.commit(repository, f"{spec.name}: {label}")

    def release(self, repository: Path, spec: PackageSpec, version: str) -> str:
        if not spec.versioned_by_git:
            self.write_package(repository, spec, version)
            if self.git(repository, "status", "--porcelain"):
                self.commit(repository, f"{spec.name} {version}")
        self.git(repository, "tag", "-a", "-m", f"release {version}", f"v{version}")
        return self.git(repository, "rev-parse", "HEAD")

    def origin(self, root: Path, spec: PackageSpec) -> tuple[Path, dict[str, str]]:
        """v0.1.0 ... v0.2.0 ... an older base ... the image's commit ... main. The release
        after the image and the PRs come later (`after_bake`)."""
        origin = root / "origins" / spec.name
        origin.mkdir(parents=True)
        self.git(origin, "init", "-q", "-b", "main")
        self.write_package(origin, spec, "0.1.0")
        self.write_layout(origin, spec)
        self.commit(origin, f"{spec.name}: initial layout")
        self.release(origin, spec, "0.1.0")
        for n in range(3):
            self.change(origin, spec, f"work towards 0.2, part {n + 1}")
        self.release(origin, spec, "0.2.0")
        commits = {"old_base": self.change(origin, spec, "the base of an old pull request")}
        for n in range(2):
            self.change(origin, spec, f"work after 0.2, part {n + 1}")
        commits["baked"] = self.git(origin, "rev-parse", "HEAD")
        for n in range(2):
            commits["main"] = self.change(origin, spec, f"merged after the image, part {n + 1}")
        return origin, commits

    def after_bake(self, origin: Path, spec: PackageSpec, commits: dict[str, str]) -> None:
        """What happened upstream after the image was built: a release, and two pull
        requests (one off the new main, one off a base older than the image's commit)."""
        commits["main"] = self.release(origin, spec, "0.3.0")
        self.git(origin, "checkout", "-q", "--detach", "HEAD")
        if not spec.versioned_by_git:
            self.write_package(origin, spec, f"0.3.1.dev{spec.pr_number}")
        else:  # SGLang's PR changes a kernel the image compiled
            with (origin / KERNEL_SOURCE).open("a", encoding="utf-8") as kernels:
                kernels.write("// a faster kernel\n")
        commits["pr"] = self.change(origin, spec, "the unmerged change under test")
        self.git(origin, "update-ref", f"refs/pull/{spec.pr_number}/head", "HEAD")
        self.git(origin, "checkout", "-q", "--detach", commits["old_base"])
        if not spec.versioned_by_git:
            self.write_package(origin, spec, f"0.2.1.dev{spec.pr_number + 1}")
        commits["pr_old_base"] = self.change(origin, spec, "a change on an old base")
        self.git(origin, "update-ref", f"refs/pull/{spec.pr_number + 1}/head", "HEAD")
        if not spec.versioned_by_git:  # Megatron-LM: a PR that deletes the patch's target
            self.git(origin, "checkout", "-q", "--detach", "main")
            self.write_package(origin, spec, f"0.3.1.dev{spec.pr_number + 2}")
            (origin / ROCM_TARGET).unlink()
            commits["pr_target_deleted"] = self.commit(
                origin, f"{spec.name}: remove the legacy fused kernels")
            self.git(origin, "update-ref", f"refs/pull/{spec.pr_number + 2}/head", "HEAD")
        self.git(origin, "checkout", "-q", "main")

    def bake(self, origin: Path, checkout: Path, commit: str) -> None:
        """A complete clone (history and tags) at an older commit, as the image build left it."""
        checkout.parent.mkdir(parents=True, exist_ok=True)
        self.run("git", "clone", "-q", str(origin), str(checkout))
        self.git(checkout, "checkout", "-q", "--detach", commit)

    def edit_like_the_image(self, checkout: Path) -> None:
        """SGLang's docker/rocm.Dockerfile, in miniature: swap in the ROCm pyproject, build
        a compiled part (ignored build output), copy a config file in (untracked)."""
        python = checkout / "python"
        (python / "pyproject_other.toml").replace(python / "pyproject.toml")
        compiled = checkout / COMPILED_PART
        compiled.parent.mkdir(parents=True, exist_ok=True)
        compiled.write_bytes(b"\x7fELF compiled by the image build\n")
        config = checkout / IMAGE_CONFIG_FILE
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('{"1": {"BLOCK_SIZE_M": 16}}\n')


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
    origins, baked, commits = {}, {}, {}
    image = root / "image"
    locations = {"sglang": image / "sgl-workspace" / "sglang",
                 "megatron": image / "root" / "Megatron-LM"}
    workspace = root / "workspace"
    patch = workspace / PATCH_LABEL
    patch.parent.mkdir(parents=True)
    patch.write_text(ROCM_PATCH)
    for spec in (SGLANG, MEGATRON):
        origins[spec.name], commits[spec.name] = builder.origin(root, spec)
        baked[spec.name] = locations[spec.name]
        builder.bake(origins[spec.name], baked[spec.name], commits[spec.name]["baked"])
        builder.after_bake(origins[spec.name], spec, commits[spec.name])
    # The image build edited SGLang's tree and patched Megatron-LM (both uncommitted) ...
    builder.edit_like_the_image(baked["sglang"])
    builder.git(baked["megatron"], "apply", str(patch))
    # ... and installed both editable into the container's interpreter.
    editables = [arg for spec in (SGLANG, MEGATRON)
                 for arg in ("-e", str(baked[spec.name] / spec.install_dir))]
    builder.run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                *editables)
    config = root / "rocm-deps.toml"
    config.write_text(
        f'[dependencies.sglang]\npath = "{baked["sglang"]}"\n\n'
        f'[dependencies.megatron]\npath = "{baked["megatron"]}"\n\n'
        f'[install]\nworkspace-install = false\nretry-min-seconds = 0\nretry-max-seconds = 0\n'
        f'# The build requirements are provided (see provide_build_requirements): no network.\n'
        f'pip-args = ["--no-build-isolation"]\n')
    return Sandbox(root, workspace, python, config, origins, baked, commits)


def add_workspace_package(box: Sandbox) -> None:
    """Make the workspace an installable package (the framework whose CI this is)."""
    Builder.write_package(box.workspace, PackageSpec(WORKSPACE_PACKAGE, WORKSPACE_PACKAGE,
                                                           WORKSPACE_PACKAGE, ".", 0), "0.1.0")


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
    script = ("import json, importlib\n"
              "print(json.dumps({n: importlib.import_module(n).__version__ "
              "for n in ('sglang', 'megatron')}))")
    result = process.run((box.python, "-c", script), runner, env=environ, echo=False, check=True)
    return dict(json.loads(result.stdout))


def remove(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
