"""PyGithub on demand (docs/architecture.md, *Shape*): installed only when a token is given, never
into the
interpreter under test.

The tool runs on the standard library alone. With a token, PyGithub must be importable: if
it is not (a bare runner or container), its pinned closure is installed from the
hash-checked requirements-github.txt into a private directory (under `$RUNNER_TEMP`, so the
next step of the job finds it ready, else under this user's cache) and that directory is put
on `sys.path`. A directory that another user owns or can write is never imported from. uv is
used when it is on PATH, else this interpreter's pip.

An earlier step of the same job runs as the same user and could rewrite that directory, so
its contents are checked before every import: the install ends with a list of every file's
sha256, signed with a key derived from the token (HMAC). A list this token did not sign (an
older token's, a planted one) means a fresh install; a signed list that the files no longer
match means someone changed them, and the step fails. A step without the token cannot sign;
one with it has the token already.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import shutil
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from rocm_deps import process
from rocm_deps.errors import FatalError
from rocm_deps.runner import Runner

REQUIREMENTS = Path(__file__).with_name("requirements-github.txt")
# Every installed file's sha256, and the list's HMAC under the token's key.
FILES = ".rocm-deps-files.json"
MAX_FILES = 20_000  # the pinned closure installs about 1,000 (with bytecode)
MAX_LIST = 4 * 1024 * 1024


def private_directory(base: Path) -> Path:
    """One directory per requirement set and Python version: reused, never mixed."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    return base / f"rocm-deps-github-py{sys.version_info[0]}{sys.version_info[1]}-{digest}"


def install_command(target: Path, uv: str | None) -> list[str]:
    # Run in `target` (never the workspace, the checked-out pull request): uv without its
    # configuration files, pip isolated (-I), so nothing there chooses the index or the code.
    if uv is not None:
        return [uv, "pip", "install", "--no-config", "--quiet", "--compile-bytecode",
                "--python", sys.executable,
                "--target", str(target), "--require-hashes", "--no-deps", "-r",
                str(REQUIREMENTS)]
    # Bytecode is compiled at install (and listed with the sources): importing PyGithub
    # from sources alone costs about a second a step.
    return [sys.executable, "-I", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-input", "--target", str(target), "--require-hashes", "--no-deps", "-r",
            str(REQUIREMENTS)]


def ensure_github(packages_dirs: Sequence[Path], uv: str | None, environ: Mapping[str, str],
                  runner: Runner, token: str) -> None:
    """Make `import github` work: as it is, from the private directory once its files are
    the ones this token's install listed, or after installing the pinned closure there. The
    first of `packages_dirs` that is this user's alone is used ($RUNNER_TEMP, else this
    user's cache: in a `container:` job the runner's temporary directory belongs to the
    host's user). `environ` is the installer's (without the token)."""
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
    key = _key(token)
    changed = _changed(target, key)
    if changed:
        raise FatalError(
            f"refusing to import PyGithub from {target}: {_listed(changed)} changed since it "
            f"was installed (by a step of this job, as this user). The code there would run "
            f"with the token. Remove the directory to install it afresh, and find the step "
            f"that wrote there.", title="rocm-deps: PyGithub")
    if changed is None:
        if any(target.iterdir()):
            runner.info(f"rocm-deps: {target} holds no file list this token signed (another "
                        f"token's install, or an unfinished one): installing afresh")
            _empty(target)
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
        _sign(target, key)
    # Nothing new is written there: a module compiled now would be a file the list lacks.
    sys.dont_write_bytecode = True
    sys.path.append(str(target))  # after the standard library and the tool's own source
    importlib.invalidate_caches()


def _key(token: str) -> bytes:
    return hashlib.sha256(b"rocm-deps: the PyGithub file list\0" +
                          token.encode("utf-8", "surrogatepass")).digest()


def _files(target: Path) -> dict[str, str]:
    """Every entry below `target` but the list itself: a file's sha256, a link's target, a
    directory (empty ones too) with its mode, `other` for anything else. A directory that
    cannot be listed is refused: Python imports from it by name all the same."""

    def unreadable(error: OSError) -> None:
        raise FatalError(f"refusing to import PyGithub from {target}: cannot list "
                         f"{error.filename!r} ({error.strerror or error}), so what it holds "
                         f"cannot be checked. Remove the directory to install it afresh.",
                         title="rocm-deps: PyGithub")

    found: dict[str, str] = {}
    for root, directories, names in os.walk(target, onerror=unreadable):
        for path in (Path(root) / name for name in [*names, *directories]):
            relative = str(path.relative_to(target))
            if relative == FILES:
                continue
            if len(found) >= MAX_FILES:
                raise FatalError(f"{target} holds more than {MAX_FILES:,} files; the PyGithub "
                                 f"install has about a thousand. Remove it.",
                                 title="rocm-deps: PyGithub")
            status = path.lstat()
            if stat.S_ISLNK(status.st_mode):
                found[relative] = f"link:{path.readlink()}"
            elif stat.S_ISDIR(status.st_mode):  # its mode too: `chmod 100` hides what it holds
                found[relative] = f"directory {stat.S_IMODE(status.st_mode):o}"
            elif stat.S_ISREG(status.st_mode):
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[relative] = "other"
    return found


def _mac(key: bytes, files: Mapping[str, str]) -> str:
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, canonical.encode("ascii"), hashlib.sha256).hexdigest()


def _sign(target: Path, key: bytes) -> None:
    files = _files(target)
    (target / FILES).write_text(json.dumps({"files": files, "hmac": _mac(key, files)}))


def _changed(target: Path, key: bytes) -> list[str] | None:
    """The entries that differ from the list this token signed ([] when none do); None when
    there is no such list."""
    try:
        # Not following a link, not blocking on a FIFO: only a plain file is read.
        descriptor = os.open(target / FILES, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_LIST + 1)
        document = json.loads(data) if len(data) <= MAX_LIST else None
    except (OSError, ValueError, RecursionError):
        return None
    listed = document.get("files") if isinstance(document, dict) else None
    mac = document.get("hmac") if isinstance(document, dict) else None
    if not (isinstance(listed, dict) and isinstance(mac, str) and all(
            isinstance(value, str) for value in listed.values())) or not hmac.compare_digest(
            _mac(key, listed).encode(), mac.encode("utf-8", "surrogatepass")):
        return None
    found = _files(target)
    return sorted(name for name in listed.keys() | found.keys()
                  if listed.get(name) != found.get(name))


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _empty(target: Path) -> None:
    for entry in target.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


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
