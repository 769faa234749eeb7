"""One install at a time per clone: the lock in the git directory, held by real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_deps.install.lock import LOCK_NAME, LockError, LockTimeout, clone_lock


def holder(git_dir: Path) -> subprocess.Popen[str]:
    """Another process that takes the lock through clone_lock and keeps it."""
    script = ("import sys, time\n"
              "from pathlib import Path\n"
              "from rocm_deps.install.lock import clone_lock\n"
              "with clone_lock(Path(sys.argv[1]), 5):\n"
              "    print('locked', flush=True)\n"
              "    time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", script, str(git_dir)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "locked\n"
    return process


def test_the_holder_writes_who_it_is(tmp_path: Path) -> None:
    with clone_lock(tmp_path, 1) as path:
        assert path == tmp_path / LOCK_NAME
        assert path.read_text().startswith(f"rocm-deps install, pid {os.getpid()} on ")


def test_a_second_taker_times_out_naming_the_holder(tmp_path: Path) -> None:
    process = holder(tmp_path)
    try:
        with pytest.raises(LockTimeout) as caught, clone_lock(tmp_path, 0.5):
            pytest.fail("the lock was taken twice")
    finally:
        process.kill()
        process.wait()
    assert caught.value.holder.startswith(f"rocm-deps install, pid {process.pid} on ")
    assert (caught.value.path, caught.value.waited) == (tmp_path / LOCK_NAME, 0.5)


def test_a_killed_holder_leaves_the_clone_unlocked(tmp_path: Path) -> None:
    process = holder(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with clone_lock(tmp_path, 2) as path:  # the kernel released it with the process
        assert f"pid {os.getpid()}" in path.read_text()


def test_a_lock_file_that_cannot_be_created_is_a_lock_error(tmp_path: Path) -> None:
    with pytest.raises(LockError, match=f"cannot create {tmp_path / 'missing' / LOCK_NAME}"), \
            clone_lock(tmp_path / "missing", 1):
        pytest.fail("locked a directory that does not exist")
