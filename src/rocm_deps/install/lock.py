"""One install at a time per clone (the `lock` step of install, docs/architecture.md *The install
pipeline*): an exclusive `flock` on a file in the clone's git directory, held for the whole install
of that clone.

A second install on the same clone waits a bounded time, then fails naming the holder (the
lock file says which process took it and when). The kernel releases the lock when its holder
dies, so a killed install never leaves the clone locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "rocm-deps.lock"
POLL_SECONDS = 0.2


class LockError(Exception):
    """The lock file could not be created or locked (not: someone else holds it)."""


class LockTimeout(Exception):
    def __init__(self, path: Path, holder: str, waited: float) -> None:
        super().__init__(f"{path} is held by {holder}; waited {waited:g} s")
        self.path, self.holder, self.waited = path, holder, waited


@contextlib.contextmanager
def clone_lock(git_dir: Path, timeout_seconds: float) -> Iterator[Path]:
    """Hold the clone's lock for the duration of the block."""
    path = git_dir / LOCK_NAME
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise LockError(f"cannot create {path}: {error.strerror or error}") from None
    try:
        deadline = time.monotonic() + timeout_seconds
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(path, _holder(path), timeout_seconds) from None
                time.sleep(POLL_SECONDS)
        try:  # who holds it, for the message of whoever waits (best effort)
            os.ftruncate(descriptor, 0)
            os.write(descriptor, f"rocm-deps install, pid {os.getpid()} on "
                                 f"{socket.gethostname()}, since "
                                 f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n".encode())
        except OSError:
            pass
        yield path
    finally:
        os.close(descriptor)  # releases the lock


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()[:200]
    except OSError:
        text = ""
    return text or "another process"
