"""The one subprocess helper: argv lists only (never a shell), echoed before they run.

Each child runs in its own process group so that a cancelled job (SIGTERM/SIGINT turned into
`Interrupted` by `cli.execute`) can stop the child *and* everything it started (pip's build
backends, git's remote helpers) before the tool exits.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocm_deps.runner import Runner

TERMINATE_GRACE_SECONDS = 5.0
# A long step says it is alive at least this often: a hung fetch must not look like silence
# until the job's timeout.
HEARTBEAT_SECONDS = 8.0


@dataclass(frozen=True)
class Progress:
    """What a long command's heartbeat line says: `what` is running, and `detail()` (bytes
    received so far, say) when it has something to add."""

    what: str
    detail: Callable[[], str] | None = None


@dataclass(frozen=True)
class Result:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class CommandFailed(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result)
        self.result = result

    def __str__(self) -> str:
        result = self.result
        return (f"command {' '.join(result.argv)!r} failed with exit code {result.returncode}\n"
                f"stdout: {result.stdout.strip() or '(empty)'}\n"
                f"stderr: {result.stderr.strip() or '(empty)'}")


def run(
    argv: Sequence[str],
    runner: Runner,
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    capture: bool = True,
    echo: bool = True,
    check: bool = False,
    stdin: str | None = None,
    progress: Progress | None = None,
) -> Result:
    """Run `argv`; with `capture=False` the child's output streams straight to our stderr.
    `stdin`, when given, is written to the child's standard input (otherwise it reads none).
    With `progress`, a line says every HEARTBEAT_SECONDS that the command still runs."""
    if echo:
        runner.echo_command(argv)
    sink = None if capture else _file_descriptor(runner)
    # A child that writes to the log itself could write workflow commands: stopped meanwhile.
    with runner.commands_stopped() if sink is not None else contextlib.nullcontext():
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE if sink is None else sink,
            stderr=subprocess.PIPE if sink is None else sink,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        try:
            stdout, stderr = _communicate(process, stdin, runner, progress)
        except BaseException:
            stop_process_group(process)
            raise
    result = Result(tuple(argv), process.returncode, stdout or "", stderr or "")
    if not capture and sink is None:
        # The log stream is not a real file (tests): pass the output on after the fact.
        for text in (result.stdout, result.stderr):
            if text.strip():
                runner.info(text.rstrip())
    if check and not result.ok:
        raise CommandFailed(result)
    return result


def _communicate(process: subprocess.Popen[str], stdin: str | None, runner: Runner,
                 progress: Progress | None) -> tuple[str | None, str | None]:
    if progress is None:
        return process.communicate(stdin)
    started = time.monotonic()

    def beat() -> None:
        detail = progress.detail() if progress.detail is not None else ""
        runner.info(f"  ... {progress.what}: still running after "
                    f"{time.monotonic() - started:.0f} s{f', {detail}' if detail else ''}")

    if stdin is None and process.stdout is None and process.stderr is None:
        # Nothing to read (the output streams to the log): wait for the exit itself.
        while not _exited(process, HEARTBEAT_SECONDS):
            beat()
        return None, None
    while True:
        try:
            return process.communicate(stdin, timeout=HEARTBEAT_SECONDS)
        except subprocess.TimeoutExpired:
            stdin = None  # sent with the first call; what was read so far is kept
            beat()


def _exited(process: subprocess.Popen[str], timeout: float) -> bool:
    """Whether the child exited (and was reaped) within `timeout`. Where Linux gives a pidfd,
    woken the moment it exits: `Popen.wait` with a timeout polls, sleeping up to 50 ms past
    the exit, which each pip and fetch of an install paid."""
    if process.returncode is not None:  # reaped: its pid may be another process's by now
        return True
    try:
        descriptor = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or the child is gone already
        try:
            process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        ready, _, _ = select.select([descriptor], [], [], timeout)
    finally:
        os.close(descriptor)
    if ready:
        process.wait()
    return bool(ready)


def _file_descriptor(runner: Runner) -> int | None:
    try:
        return runner.stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def stop_process_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM the child's whole group, then SIGKILL whatever is left after a grace period."""
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=TERMINATE_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    # Grandchildren can outlive the group leader; nothing in the group is wanted any more.
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def _signal_group(group: int, sig: signal.Signals) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3


def make_undumpable() -> bool:
    """Linux: make this process undumpable, so its /proc/<pid>/environ (which still holds the
    token the runner gave it) is not readable by its children, which run as the same user
    (a pip build could read it through /proc/$PPID/environ). False where that is not
    available; root can read it anyway."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return False
    try:
        # The running process's own symbols, libc's among them: `ctypes.util.find_library`
        # would start `ldconfig -p` on every run that has a token.
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
