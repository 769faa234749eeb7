"""Fetch retries and cancellation against a real git transport on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from rocm_deps.demo import sandbox
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import MEGATRON_PR, Cli, git, installed_version, overrides
from tests.gitserver import Proxy, git_daemon


def serve_through(box: sandbox.Sandbox, name: str, proxy: Proxy) -> None:
    git(box.baked[name], "remote", "set-url", "origin", f"git://127.0.0.1:{proxy.port}/{name}")


def install_argv(box: sandbox.Sandbox, document: str) -> list[str]:
    return ["install", "--config", str(box.config), "--overrides", document,
            "--workspace", str(box.workspace), "--python", box.python]


@pytest.mark.parametrize(("dropped", "connections", "fetch_attempts"), [
    # The fetch fails twice and succeeds on attempt 3; then one connection for the new
    # commit's file contents (Megatron-LM's default fetch is partial).
    ((1, 2), 4, 3),
    # The fetch succeeds; the contents fetch fails once and is retried. Left to git's lazy
    # fetch inside checkout, this dropped connection would fail the job (git does not retry).
    ((2,), 3, 1),
], ids=["fetch", "contents"])
def test_transient_failures_are_retried(cli: Cli, box: Sandbox, mocker: MockerFixture,
                                        dropped: tuple[int, ...], connections: int,
                                        fetch_attempts: int) -> None:
    sleep = mocker.patch("rocm_deps.install.git.sleep")
    with git_daemon(box.root / "origins") as port, Proxy(port, drop=dropped) as proxy:
        serve_through(box, "megatron", proxy)
        result = cli(*install_argv(box, overrides(megatron="refs/pull/202/head")))
        assert proxy.connections == connections
    assert result.code == 0, result.stderr
    assert json.loads(result.outputs["report"])["dependencies"]["megatron"][
        "fetch_attempts"] == fetch_attempts
    assert sleep.call_count == len(dropped)
    assert result.stderr.count("looks transient); retrying in") == len(dropped)
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    assert installed_version(box, "megatron-core") == MEGATRON_PR


def test_transient_failures_give_up_after_configured_attempts(cli: Cli, box: Sandbox, mocker: MockerFixture) -> None:
    sleep = mocker.patch("rocm_deps.install.git.sleep")
    box.config.write_text(box.config.read_text() + "fetch-attempts = 2\n")
    with git_daemon(box.root / "origins") as port, Proxy(port, drop_first=10) as proxy:
        serve_through(box, "megatron", proxy)
        result = cli(*install_argv(box, overrides(megatron="refs/pull/202/head")))
        assert proxy.connections == 2
    assert result.code == 1
    assert sleep.call_count == 1
    assert "(attempt 2 of 2: gave up)" in result.stderr
    assert "check the network and the remote's URL" in result.stderr


def test_missing_ref_is_permanent_one_attempt(cli: Cli, box: Sandbox, mocker: MockerFixture) -> None:
    sleep = mocker.patch("rocm_deps.install.git.sleep")
    with git_daemon(box.root / "origins") as port, Proxy(port) as proxy:
        serve_through(box, "megatron", proxy)
        result = cli(*install_argv(box, overrides(megatron="refs/pull/404/head")))
        assert proxy.connections == 1
    assert result.code == 1
    sleep.assert_not_called()
    assert "couldn't find remote ref refs/pull/404/head" in result.stderr
    assert "(attempt 1 of 3: a permanent failure, not retried)" in result.stderr
    assert ("does that pull request, branch or commit exist in radixark/Megatron-LM?"
            in result.stderr)
    assert json.loads(result.outputs["report"])["dependencies"]["megatron"]["failed_step"] == (
        "fetch")


def processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in command:
            found.append(f"{entry.name}: {command}")
    return found


def test_sigterm_during_slow_fetch_exits_130_and_leaves_no_child(box: Sandbox) -> None:
    log = box.root / "stderr.log"
    with git_daemon(box.root / "origins") as port, Proxy(port, stall=True) as proxy:
        serve_through(box, "megatron", proxy)
        with log.open("w") as stderr:
            tool = subprocess.Popen(
                [sys.executable, "-m", "rocm_deps",
                 *install_argv(box, overrides(megatron="refs/pull/202/head"))],
                stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 30
        while proxy.connections == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proxy.connections == 1, log.read_text()
        assert processes_mentioning(f"{box.baked['megatron']} -c protocol.version=2 fetch")
        tool.send_signal(signal.SIGTERM)
        assert tool.wait(timeout=30) == 130
    assert processes_mentioning(str(box.baked["megatron"])) == []
    assert "received SIGTERM; stopped" in log.read_text()


def test_a_fetch_that_stalls_25_s_says_it_is_alive_at_least_every_10_s(box: Sandbox) -> None:
    """A hung fetch must not be silence until the job's timeout: the heartbeat line, inside
    the dependency's group, every HEARTBEAT_SECONDS (8) while git waits on the server."""
    from rocm_deps.process import HEARTBEAT_SECONDS

    with git_daemon(box.root / "origins") as port, Proxy(port, delay_first=25) as proxy:
        serve_through(box, "megatron", proxy)
        tool = subprocess.Popen(
            [sys.executable, "-m", "rocm_deps",
             *install_argv(box, overrides(megatron="refs/pull/202/head"))],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert tool.stderr is not None
        lines = [(time.monotonic(), line.rstrip("\n")) for line in tool.stderr]
        assert tool.wait(timeout=120) == 0, "\n".join(line for _, line in lines)[-3000:]
    fetch = next(index for index, (_, line) in enumerate(lines)
                 if f"{box.baked['megatron']} -c protocol.version=2 fetch" in line)
    done = next(index for index, (_, line) in enumerate(lines)
                if index > fetch and not line.startswith("  ... "))
    beats = [line for _, line in lines[fetch + 1:done]]
    assert len(beats) == 3, beats  # at 8, 16 and 24 s of the 25 s stall
    assert all(beat.startswith(f"  ... git fetch of refs/pull/202/head in {box.baked['megatron']}: "
                               f"still running after ") for beat in beats), beats
    times = [moment for moment, _ in lines[fetch:done + 1]]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert max(gaps) <= 10 and HEARTBEAT_SECONDS <= 10
