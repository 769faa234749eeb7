"""PyGithub on demand (DESIGN §2): installed only when a token is given, never into the
interpreter under test.

The tool runs on the standard library alone. With a token, PyGithub must be importable: if
it is not (a bare runner or container), its pinned closure is installed from the
hash-checked requirements-github.txt into a private directory (under `$RUNNER_TEMP`, so the
next step of the job finds it ready) and that directory is put first on `sys.path`. uv is
used when it is on PATH, else this interpreter's pip.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from rocm_deps import process
from rocm_deps.errors import FatalError
from rocm_deps.github.runner import Runner

REQUIREMENTS = Path(__file__).with_name("requirements-github.txt")
READY = ".rocm-deps-ready"


def private_directory(base: Path) -> Path:
    """One directory per requirement set and Python version: reused, never mixed."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    return base / f"rocm-deps-github-py{sys.version_info[0]}{sys.version_info[1]}-{digest}"


def install_command(target: Path, uv: str | None) -> list[str]:
    if uv is not None:
        return [uv, "pip", "install", "--quiet", "--python", sys.executable, "--target",
                str(target), "--require-hashes", "--no-deps", "-r", str(REQUIREMENTS)]
    # --no-compile: Python compiles what it imports, a few modules, not the whole closure.
    return [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-input", "--no-compile", "--target", str(target), "--require-hashes",
            "--no-deps", "-r", str(REQUIREMENTS)]


def ensure_github(packages_dir: Path, uv: str | None, runner: Runner) -> None:
    """Make `import github` work: as it is, from the private directory, or after installing
    the pinned closure there."""
    if importlib.util.find_spec("github") is not None:
        return
    target = private_directory(packages_dir)
    if not (target / READY).exists():
        runner.info(f"rocm-deps: installing PyGithub (pinned, hash-checked) into {target}")
        result = process.run(install_command(target, uv), runner, capture=False)
        if not result.ok:
            raise FatalError(
                f"could not install PyGithub into {target} (exit code {result.returncode}; "
                f"the installer's output is above). A github-token needs it; it comes from "
                f"the package index, so the step needs network access to it, and "
                f"{'uv' if uv else 'pip for ' + sys.executable} to install it. Without a "
                f"token no package is needed.", title="rocm-deps: PyGithub")
        (target / READY).write_text("")
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
