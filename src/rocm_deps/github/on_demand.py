"""PyGithub on demand (architecture §2): installed only when a token is given, never into the
interpreter under test.

The tool runs on the standard library alone. With a token, PyGithub must be importable: if
it is not (a bare runner or container), its pinned closure is installed from the
hash-checked requirements-github.txt into a private directory (under `$RUNNER_TEMP`, so the
next step of the job finds it ready, else under this user's cache) and that directory is put
first on `sys.path`. A directory that another user owns or can write is never imported from. uv is
used when it is on PATH, else this interpreter's pip.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from rocm_deps import process
from rocm_deps.errors import FatalError
from rocm_deps.runner import Runner

REQUIREMENTS = Path(__file__).with_name("requirements-github.txt")
READY = ".rocm-deps-ready"


def private_directory(base: Path) -> Path:
    """One directory per requirement set and Python version: reused, never mixed."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    return base / f"rocm-deps-github-py{sys.version_info[0]}{sys.version_info[1]}-{digest}"


def install_command(target: Path, uv: str | None) -> list[str]:
    # Run in `target` (never the workspace, the checked-out pull request): uv without its
    # configuration files, pip isolated (-I), so nothing there chooses the index or the code.
    if uv is not None:
        return [uv, "pip", "install", "--no-config", "--quiet", "--python", sys.executable,
                "--target", str(target), "--require-hashes", "--no-deps", "-r",
                str(REQUIREMENTS)]
    # --no-compile: Python compiles what it imports, a few modules, not the whole closure.
    return [sys.executable, "-I", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-input", "--no-compile", "--target", str(target), "--require-hashes",
            "--no-deps", "-r", str(REQUIREMENTS)]


def ensure_github(packages_dirs: Sequence[Path], uv: str | None, environ: Mapping[str, str],
                  runner: Runner) -> None:
    """Make `import github` work: as it is, from the private directory, or after installing
    the pinned closure there. The first of `packages_dirs` that is this user's alone is
    used ($RUNNER_TEMP, else this user's cache: in a `container:` job the runner's
    temporary directory belongs to the host's user). `environ` is the installer's (without
    the token)."""
    if importlib.util.find_spec("github") is not None:
        return
    problems = []
    for base in packages_dirs:
        target = private_directory(base)
        problem = _make_private(base, target)
        if problem is None:
            break
        problems.append(f"{target}: {problem}")
    else:
        raise FatalError(f"refusing to import PyGithub from {'; nor from '.join(problems)}. "
                         f"Another user could have put code there that would run with the "
                         f"token. Remove it, or point RUNNER_TEMP (or XDG_CACHE_HOME) at a "
                         f"directory only this user can write.", title="rocm-deps: PyGithub")
    if problems:
        runner.info(f"rocm-deps: not using {'; nor '.join(problems)}; using {target}")
    if not (target / READY).exists():
        runner.info(f"rocm-deps: installing PyGithub (pinned, hash-checked) into {target}")
        result = process.run(install_command(target, uv), runner, cwd=target, env=environ,
                             capture=False)
        if not result.ok:
            raise FatalError(
                f"could not install PyGithub into {target} (exit code {result.returncode}; "
                f"the installer's output is above). A github-token needs it; it comes from "
                f"the package index, so the step needs network access to it, and "
                f"{'uv' if uv else 'pip for ' + sys.executable} to install it. Without a "
                f"token no package is needed.", title="rocm-deps: PyGithub")
        (target / READY).write_text("")
    sys.path.append(str(target))  # after the standard library and the tool's own source
    importlib.invalidate_caches()


def _make_private(base: Path, target: Path) -> str | None:
    """Create `target` for this user alone (0700), or check that the one found is; why it is
    not, or None. A directory another user owns or can write, or below one, could hold code
    planted to run with the token."""
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot create {base}: {error.strerror or error}"
    problem = _above(base) or _not_private(base, shared_ok=True)
    if problem:
        return problem
    try:
        target.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as error:
        return f"cannot create it: {error.strerror or error}"
    return _not_private(target, shared_ok=False)


def _above(base: Path) -> str | None:
    """Why a directory above `base` would let another user swap what is below it: one that
    belongs to another user (root excepted), or others can write without the sticky bit."""
    for directory in base.resolve().parents:
        status = directory.stat()
        if status.st_uid not in (0, os.getuid()):
            return f"{directory} above it belongs to user id {status.st_uid}"
        if _others_can_write(status, sticky_ok=True):
            return (f"{directory} above it can be written by other users (mode "
                    f"{stat.S_IMODE(status.st_mode):o})")
    return None


def _others_can_write(status: os.stat_result, sticky_ok: bool) -> bool:
    """Group or others can write; in a sticky directory (as /tmp) they cannot replace or
    rename what another user made there, so that is fine when `sticky_ok`."""
    shared = bool(status.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
    return shared and not (sticky_ok and status.st_mode & stat.S_ISVTX)


def _not_private(directory: Path, shared_ok: bool) -> str | None:
    """Why `directory` is not this user's alone; None when it is. A shared parent is fine
    when it is sticky (as /tmp is): then no one else can replace what we create in it."""
    status = directory.lstat()
    if stat.S_ISLNK(status.st_mode) or not stat.S_ISDIR(status.st_mode):
        return f"{directory} is not a plain directory"
    if status.st_uid != os.getuid():
        return f"{directory} belongs to user id {status.st_uid}, not to this user ({os.getuid()})"
    if _others_can_write(status, sticky_ok=shared_ok):
        return f"{directory} can be written by other users (mode {stat.S_IMODE(status.st_mode):o})"
    return None
