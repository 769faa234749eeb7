"""A throw-away copy of the MI350 image's layout, for `rocm-deps demo` and the tests.

Per dependency an "origin" repository (with a pull-request ref `refs/pull/<n>/head`) and a
"baked" clone at an older commit, installed editable into a separate virtualenv that stands
in for the container's interpreter, the way the GPU image was built. The packages use a
tiny in-tree PEP 660 build backend, so `pip install -e` needs no network at all.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import process
from rocm_deps.runner import Runner

BACKEND = '''\
"""A tiny PEP 660 build backend: an editable install is a .pth file pointing here."""
import base64, hashlib, os, re, zipfile

NAME = {name!r}
PACKAGE = {package!r}
HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    with open(os.path.join(HERE, PACKAGE, "__init__.py")) as handle:
        return re.search(r'__version__ = "([^"]+)"', handle.read()).group(1)


def _metadata():
    return "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (NAME, _version())


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    stem = "%s-%s" % (NAME.replace("-", "_"), _version())
    dist_info = stem + ".dist-info"
    files = {{
        NAME + ".pth": HERE + "\\n",
        dist_info + "/METADATA": _metadata(),
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
requires = []
build-backend = "tiny_backend"
backend-path = ["."]
"""

ROCM_MODULE = '''\
"""Device settings for the accelerator in use.

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
    "diff --git a/megatron/rocm.py b/megatron/rocm.py",
    "--- a/megatron/rocm.py",
    "+++ b/megatron/rocm.py",
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
    pr_number: int


SGLANG = PackageSpec("sglang", "sglang", "sglang", "python", 101)
MEGATRON = PackageSpec("megatron", "megatron-core", "megatron", ".", 202)


@dataclass(frozen=True)
class Sandbox:
    root: Path
    workspace: Path
    python: str
    config: Path
    origins: Mapping[str, Path]
    baked: Mapping[str, Path]
    commits: Mapping[str, Mapping[str, str]]  # dependency -> {"baked", "main", "pr"} -> sha

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

    def write_package(self, checkout: Path, spec: PackageSpec, version: str) -> None:
        package_root = checkout / spec.install_dir
        (package_root / spec.package).mkdir(parents=True, exist_ok=True)
        (package_root / "pyproject.toml").write_text(PYPROJECT)
        (package_root / "tiny_backend.py").write_text(
            BACKEND.format(name=spec.distribution, package=spec.package))
        (package_root / spec.package / "__init__.py").write_text(f'__version__ = "{version}"\n')
        (checkout / ".gitignore").write_text("__pycache__/\n")
        if spec.name == "megatron":
            (package_root / spec.package / "rocm.py").write_text(ROCM_MODULE)

    def origin(self, root: Path, spec: PackageSpec) -> tuple[Path, dict[str, str]]:
        """An origin with: baked commit (0.1.0) < main (0.2.0); a PR head branching off main."""
        origin = root / "origins" / spec.name
        origin.mkdir(parents=True)
        self.git(origin, "init", "-q", "-b", "main")
        commits = {}
        self.write_package(origin, spec, "0.1.0")
        commits["baked"] = self.commit(origin, f"{spec.name} 0.1.0 (baked into the image)")
        self.write_package(origin, spec, "0.2.0")
        commits["main"] = self.commit(origin, f"{spec.name} 0.2.0")
        self.git(origin, "checkout", "-q", "-b", "pr")
        self.write_package(origin, spec, f"0.3.0.dev{spec.pr_number}")
        commits["pr"] = self.commit(origin, f"{spec.name}: the unmerged change under test")
        self.git(origin, "update-ref", f"refs/pull/{spec.pr_number}/head", "HEAD")
        self.git(origin, "checkout", "-q", "main")
        self.git(origin, "branch", "-q", "-D", "pr")
        return origin, commits

    def bake(self, origin: Path, checkout: Path, commit: str) -> None:
        """Clone at an older commit, the way the image build left it."""
        checkout.parent.mkdir(parents=True, exist_ok=True)
        self.run("git", "clone", "-q", str(origin), str(checkout))
        self.git(checkout, "checkout", "-q", "--detach", commit)


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
    site_packages = Path(run(str(python), "-c", "import sysconfig; "
                                                "print(sysconfig.get_paths()['purelib'])"))
    (site_packages / "pip").symlink_to(pip_dir.stdout.strip())
    return str(python)


def build(root: Path, runner: Runner, environ: Mapping[str, str], *,
          python_for_venv: str | None = None, python: str | None = None) -> Sandbox:
    """Lay out the sandbox under `root` (which must be empty or absent). The target
    interpreter is `python` when given, else a new virtualenv made by `python_for_venv`."""
    builder = Builder(runner, environ)
    root.mkdir(parents=True, exist_ok=True)
    if python is None:
        if python_for_venv is None:
            raise ValueError("build() needs `python` or `python_for_venv`")
        python = create_venv(root / "venv", python_for_venv, runner, environ)
    origins, baked, commits = {}, {}, {}
    image = root / "image"
    locations = {"sglang": image / "sgl-workspace" / "sglang",
                 "megatron": image / "root" / "Megatron-LM"}
    workspace = root / "workspace"
    (workspace / "docker" / "amd_patch" / "latest").mkdir(parents=True)
    (workspace / "docker" / "amd_patch" / "latest" / "megatron.patch").write_text(ROCM_PATCH)
    for spec in (SGLANG, MEGATRON):
        origins[spec.name], commits[spec.name] = builder.origin(root, spec)
        baked[spec.name] = locations[spec.name]
        builder.bake(origins[spec.name], baked[spec.name], commits[spec.name]["baked"])
    # The image installed its baked copies editable into the container's interpreter.
    editables = [arg for spec in (SGLANG, MEGATRON)
                 for arg in ("-e", str(baked[spec.name] / spec.install_dir))]
    builder.run(python, "-m", "pip", "install", "-q", "--no-deps", *editables)
    # The image build applied the ROCm patch to its Megatron-LM copy (uncommitted).
    patch = workspace / "docker" / "amd_patch" / "latest" / "megatron.patch"
    builder.git(baked["megatron"], "apply", str(patch))
    config = root / "rocm-deps.toml"
    config.write_text(
        f'[dependencies.sglang]\npath = "{baked["sglang"]}"\n\n'
        f'[dependencies.megatron]\npath = "{baked["megatron"]}"\n\n'
        f'[install]\nworkspace-install = false\nretry-min-seconds = 0\nretry-max-seconds = 0\n')
    return Sandbox(root, workspace, python, config, origins, baked, commits)


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
    """What the target interpreter imports: {import name: __version__ (file it came from)}."""
    script = ("import json, importlib\n"
              "print(json.dumps({n: importlib.import_module(n).__version__ "
              "for n in ('sglang', 'megatron')}))")
    result = process.run((box.python, "-c", script), runner, env=environ, echo=False, check=True)
    return dict(json.loads(result.stdout))


def remove(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
