"""The one subprocess helper: echo, capture, streaming, and stopping a child's whole group."""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from rocm_deps.errors import Interrupted
from rocm_deps.process import CommandFailed, run
from rocm_deps.runner import Runner


def test_capture_echo_and_failure() -> None:
    log = io.StringIO()
    result = run([sys.executable, "-c", "import sys; print('out'); sys.exit(3)"],
                 Runner(stream=log))
    assert (result.returncode, result.stdout, result.ok) == (3, "out\n", False)
    assert log.getvalue() == f"+ {sys.executable} -c 'import sys; print('\"'\"'out'\"'\"'); " \
                             f"sys.exit(3)'\n"
    with pytest.raises(CommandFailed) as caught:
        run([sys.executable, "-c", "import sys; sys.exit(4)"], Runner(stream=log), check=True)
    assert "failed with exit code 4" in str(caught.value)


def test_streamed_output_reaches_a_log_that_is_not_a_file() -> None:
    log = io.StringIO()  # no fileno(): the output is passed on after the child ends
    run([sys.executable, "-c", "print('streamed')"], Runner(stream=log), capture=False,
        echo=False)
    assert log.getvalue() == "streamed\n"


@pytest.fixture
def alarm() -> Iterator[None]:
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted("stopped by the test")

    previous = signal.signal(signal.SIGALRM, interrupt)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}").exists() \
        else "X"
    return status not in ("Z", "X")


def test_an_interrupted_run_stops_the_child_and_its_children(alarm: None, tmp_path: Path) -> None:
    pids, finished = tmp_path / "pids", tmp_path / "finished"
    # The child starts a grandchild, records both pids, then waits: a pip build backend or a
    # git remote helper behaves the same way.
    script = ("import os, subprocess, sys, time\n"
              "grandchild = subprocess.Popen([sys.executable, '-c', 'import time; "
              "time.sleep(60)'])\n"
              f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{grandchild.pid}}')\n"
              "time.sleep(60)\n"
              f"open({str(finished)!r}, 'w').write('waited for')\n")
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    with pytest.raises(Interrupted):
        run([sys.executable, "-c", script], Runner(stream=io.StringIO()))
    assert not finished.exists()  # stopped, not waited for
    child, grandchild = (int(pid) for pid in pids.read_text().split())
    deadline = time.monotonic() + 10
    while (alive(child) or alive(grandchild)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (alive(child), alive(grandchild)) == (False, False)
