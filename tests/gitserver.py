"""A real git transport on 127.0.0.1: `git daemon`, behind a TCP proxy that can misbehave.

The proxy counts connections, can drop the first N of them (the way a flaky network or a
restarting load balancer does) and can stall every connection (a hung server).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Collection, Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[int]:
    port = free_port()
    # Its own session: `git daemon` runs git-daemon as a child, which must not outlive the test.
    daemon = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", f"--port={port}",
         f"--base-path={base}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(daemon.pid, signal.SIGTERM)
        daemon.wait(timeout=10)


class Proxy:
    def __init__(self, target_port: int, *, drop_first: int = 0,
                 drop: Collection[int] = (), stall: bool = False,
                 delay_first: float = 0.0) -> None:
        self.target_port = target_port
        self.drop_first = drop_first
        self.drop = drop  # connection numbers (from 1) to hang up on, beside the first ones
        self.stall = stall
        self.delay_first = delay_first  # seconds the first connection waits for an answer
        self.connections = 0
        self.bytes_to_client = 0  # what the client received: the fetch's transfer size
        self.listener = socket.create_server(("127.0.0.1", 0))
        # accept() wakes up regularly, so the thread ends when the test leaves the block
        # instead of lingering in a blocked accept on a closed socket.
        self.listener.settimeout(0.1)
        self.port = int(self.listener.getsockname()[1])
        self.held: list[socket.socket] = []
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed.set()
        self.thread.join(timeout=10)
        self.listener.close()
        for held in self.held:
            held.close()

    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            self.connections += 1
            if self.connections <= self.drop_first or self.connections in self.drop:
                hang_up(client)  # the client sees the remote end hang up
            elif self.stall:
                self.held.append(client)  # never answer
            else:
                threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _forward(self, client: socket.socket) -> None:
        if self.connections == 1 and self.delay_first:
            self.closed.wait(self.delay_first)  # a server that stalls, then answers
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
        except OSError:
            hang_up(client)
            return
        upstream.settimeout(None)

        def pump(source: socket.socket, sink: socket.socket) -> None:
            with contextlib.suppress(OSError):
                while data := source.recv(65536):
                    sink.sendall(data)
                    if sink is client:
                        self.bytes_to_client += len(data)
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

        threads = [threading.Thread(target=pump, args=pair, daemon=True)
                   for pair in ((client, upstream), (upstream, client))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.close()
        upstream.close()


def hang_up(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)
    connection.close()
