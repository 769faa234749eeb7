"""The one subprocess helper: echo, capture, streaming, and stopping a child's whole group."""

from __future__ import annotations

import io
import os
import signal
import subprocess
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


def test_a_streamed_child_with_a_heartbeat_is_waited_for_until_it_exits(tmp_path: Path) -> None:
    """The output goes to the log's file; the exit status and the child's work are there once
    run returns, whether it ended before the first heartbeat or after several."""
    from rocm_deps.process import Progress, _exited

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    assert _exited(child, 0.01) is False and child.returncode is None
    assert _exited(child, 30) is True and child.returncode == 0
    assert _exited(child, 0.01) is True  # reaped already: said once more, not waited on
    log = (tmp_path / "log").open("w")
    marker = tmp_path / "marker"
    result = run([sys.executable, "-c", f"import sys; print('out'); open({str(marker)!r}, 'w')"
                  f".write('done'); sys.exit(5)"], Runner(stream=log), capture=False,
                 echo=False, progress=Progress("the child"))
    log.close()
    assert (result.returncode, marker.read_text()) == (5, "done")
    assert (tmp_path / "log").read_text() == "out\n"


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


def test_a_process_with_a_token_is_undumpable(tmp_path: Path) -> None:
    """After `make_undumpable` the kernel says so (PR_GET_DUMPABLE is 0): same-user children
    cannot read /proc/<pid>/environ, where the runner's token variables still are."""
    script = ("import ctypes, sys\nfrom rocm_deps.process import make_undumpable\n"
              "libc = ctypes.CDLL(None)\nbefore = libc.prctl(3, 0, 0, 0, 0)\n"
              "print(before, make_undumpable(), libc.prctl(3, 0, 0, 0, 0))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["1", "True", "0"]


def test_the_command_line_makes_itself_undumpable_when_it_holds_a_token(
        tmp_path: Path) -> None:
    """Given a token, the command line makes its own process undumpable before it runs the
    command: checked in the process that ran it (a fresh interpreter)."""
    body = tmp_path / "body.md"
    body.write_text("nothing named\n")
    probe = ("import os, subprocess, sys\n"
             "from rocm_deps.cli import main\n"
             "code = main(['resolve', '--body-file', sys.argv[1], '--github-token-env', 'T'],"
             " {**os.environ, 'T': 'ghs_undumpableTEST'})\n"
             "import ctypes\nprint(code, ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n")
    result = subprocess.run([sys.executable, "-c", probe, str(body)], capture_output=True,
                            text=True, check=True)
    assert result.stdout.split()[-2:] == ["0", "0"]  # exit 0, and no longer dumpable
