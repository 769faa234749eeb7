"""The demo's packages: a tiny in-tree PEP 660 build backend, so that pip installs them
editable without network (the sandbox provides setuptools-scm, the one build requirement of a
package versioned from git, as the real SGLang is)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
        dist_info + "/top_level.txt": PACKAGE + "\\n",  # as setuptools writes it
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

ROCM_PYPROJECT_NOTE = "# ROCm build: the pyproject the image swaps in (one Rust extension)\n"
# setuptools-scm and what its `get_version` imports (not setuptools: only its setuptools
# integration needs that, and it is most of the download), installed without resolving.
BUILD_REQUIREMENTS = ("setuptools-scm>=8",)
BUILD_REQUIREMENTS_CLOSURE = (*BUILD_REQUIREMENTS, "vcs-versioning>=2.5", "packaging>=26.2",
                              "tomli>=1; python_version < '3.11'",
                              "typing-extensions>=4.1; python_version < '3.11'")


@dataclass(frozen=True)
class Package:
    """A Python package inside a checkout."""

    distribution: str  # pip's name
    import_name: str
    install_dir: str  # "." or a directory of the checkout, as `install-dir` in the config


def pyproject(*, scm: bool) -> str:
    requires = ", ".join(f'"{requirement}"' for requirement in BUILD_REQUIREMENTS) if scm else ""
    return PYPROJECT.format(requires=requires)


def write_package(checkout: Path, package: Package, version: str | None) -> None:
    """The package at `checkout`: versioned from the checkout's git tags when `version` is
    None, else with that static version."""
    root = checkout / package.install_dir
    (root / package.import_name).mkdir(parents=True, exist_ok=True)
    scm_root = None
    if version is None:
        scm_root = "/".join(".." for _ in Path(package.install_dir).parts) or "."
    (root / "pyproject.toml").write_text(pyproject(scm=scm_root is not None))
    (root / "tiny_backend.py").write_text(BACKEND.format(
        name=package.distribution, package=package.import_name, scm_root=scm_root))
    init = root / package.import_name / "__init__.py"
    if version is None:
        init.write_text(INIT_FROM_METADATA.format(distribution=package.distribution))
    else:
        init.write_text(INIT_FROM_VERSION_FILE)
        (root / package.import_name / "version.py").write_text(f'__version__ = "{version}"\n')
    (checkout / ".gitignore").write_text("__pycache__/\nbuild/\n")
