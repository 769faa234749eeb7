"""PyGithub for a step that has a token, and GitHub's engine (cmarkgfm) for a step that must
render a description itself, installed plainly: fresh, for this step alone.

The tool runs on the standard library alone (the action starts it with `python3 -I -S`, so
no site-packages of the runner's interpreter can answer `import github`). With a token,
PyGithub's pinned closure is installed from the hash-checked requirements-github.txt into a
new directory (`mkdtemp`: mode 0700, a name nobody could have chosen before) under
`$RUNNER_TEMP`, else the user's temporary directory, and imported from there. cmarkgfm comes
the same way from requirements-render.txt, and only when a description is rendered here
(no token, `--body-file`, a payload's body: `offer_renderer` hands the install to
page/render.py, which asks for it at its first render); a run that reads GitHub's own HTML
installs nothing more. Nothing is reused, so nothing needs a tamper check: no earlier step
could have written that directory. When the tool is itself installed with them (`pip install
rocm-deps[github]`, the container image), those copies are the package's own and are used
as they are.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_deps import process
from rocm_deps.errors import FatalError
from rocm_deps.page import render
from rocm_deps.runner import Runner

if TYPE_CHECKING:
    from rocm_deps.edge import ApiSettings

REQUIREMENTS = Path(__file__).with_name("requirements-github.txt")
RENDER_REQUIREMENTS = Path(__file__).with_name("requirements-render.txt")
PREFIX = "rocm-deps-github-"


def install_command(target: Path, uv: str | None,
                    requirements: Path = REQUIREMENTS) -> list[str]:
    # Run in `target` (never the workspace, the checked-out pull request): uv without its
    # configuration files, pip isolated (-I), so nothing there chooses the index or the code.
    if uv is not None:
        return [uv, "pip", "install", "--no-config", "--quiet", "--python", sys.executable,
                "--target", str(target), "--require-hashes", "--no-deps", "-r",
                str(requirements)]
    # --no-compile: the step imports a few modules once; byte-compiling every file of the
    # closure costs more than that (about 0.5 s of a 2 s install).
    return [sys.executable, "-I", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-input", "--no-compile", "--target", str(target), "--require-hashes",
            "--no-deps", "-r", str(requirements)]


def ensure_github(api: ApiSettings, runner: Runner) -> Path | None:
    """With a token, make `import github` work; returns the directory it was installed into
    for this step (None without a token, or when the tool's own environment has it). The
    directory is made in the first of `api.install_bases` ($RUNNER_TEMP, the temporary
    directory) that no other user can swap; the installer gets `api.environ` (no token)."""
    if not api.token or importlib.util.find_spec("github") is not None:
        return None
    return _install("PyGithub", REQUIREMENTS, api, runner,
                    "A github-token needs it; without a token no package is needed")


def offer_renderer(api: ApiSettings, runner: Runner) -> None:
    """Let page/render.py install cmarkgfm for this step the first time it renders a
    description, when the tool's own environment has no cmarkgfm."""
    if importlib.util.find_spec("cmarkgfm") is not None:
        return
    render.provide(lambda: _install(
        "cmarkgfm (GitHub's engine)", RENDER_REQUIREMENTS, api, runner,
        "A description rendered here (no github-token, or a body file) needs it; with a "
        "token GitHub's own rendering is read and nothing is installed"))


def _install(what: str, requirements: Path, api: ApiSettings, runner: Runner,
             why: str) -> Path:
    bases, uv, environ = api.install_bases, api.uv, api.environ
    problems = []
    for base in bases:
        try:
            problem = _above(base) or _not_private(base, shared_ok=True)
        except OSError as error:
            problem = f"{base}: {error.strerror or error}"
        if problem is None:
            break
        problems.append(problem)
    else:
        raise FatalError(f"refusing to install {what}: {'; '.join(problems)}. Another user "
                         f"could swap what is installed there for code that runs with the "
                         f"token. Point RUNNER_TEMP (or TMPDIR) at a directory only this user "
                         f"can write.", title="rocm-deps: on-demand install")
    target = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    runner.info(f"rocm-deps: installing {what} (pinned, hash-checked) into {target}, for "
                f"this step")
    result = process.run(install_command(target, uv, requirements), runner, cwd=target,
                         env=environ, capture=False)
    if not result.ok:
        raise FatalError(
            f"could not install {what} into {target} (exit code {result.returncode}; the "
            f"installer's output is above). {why}; it comes from the package index, so the "
            f"step needs network access to it, and "
            f"{'uv' if uv else 'pip for ' + sys.executable} to install it.",
            title="rocm-deps: on-demand install")
    sys.dont_write_bytecode = True  # nothing is written there after the install
    sys.path.insert(0, str(target))  # before any site-packages: imported from there alone
    importlib.invalidate_caches()
    return target


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
