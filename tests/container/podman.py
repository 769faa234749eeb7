"""Running podman for the container tests and the image benchmark."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BASE_IMAGE = os.environ.get("ROCM_DEPS_BASE_IMAGE", "localhost/rocm-deps-base:bookworm")
IMAGE = "localhost/rocm-deps:test"


def podman_environment() -> dict[str, str]:
    environ = dict(os.environ)
    environ.setdefault("CONTAINERS_CONF", str(ROOT / ".ci" / "containers.conf"))
    return environ


def podman(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=False,
                          env=podman_environment())


def build_arguments(tag: str = IMAGE, *extra: str) -> list[str]:
    """The machine's CA bundle and pip configuration are mounted into the build, never copied
    into the image: behind a TLS-intercepting proxy pip would otherwise fail."""
    mounts = []
    for path in ("/etc/ssl/certs/ca-certificates.crt", "/etc/pip.conf"):
        if Path(path).is_file():
            mounts += ["--volume", f"{path}:{path}:ro"]
    return ["build", "--network", "host", *mounts, "--build-arg", f"BASE_IMAGE={BASE_IMAGE}",
            "--tag", tag, *extra, str(ROOT)]
