"""The Dockerfile, built and run with a real container engine (podman).

The image is built on a local Debian base (no registry can be reached here; .ci/run makes the
base with debootstrap via scripts/container_base.sh). The scenarios run it the way users do:
resolve on a mounted event, install against bind mounts laid out like the MI350 image.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_deps import __version__
from rocm_deps.demo import sandbox, world
from rocm_deps.demo.package import write_package
from tests.conftest import MEGATRON_PR, git, parse_github_output, require_tool
from tests.container.podman import BASE_IMAGE, IMAGE, build_arguments, podman

pytestmark = [pytest.mark.container, pytest.mark.xdist_group("container")]

@pytest.fixture(scope="session")
def image() -> Iterator[str]:
    require_tool(shutil.which("podman") is not None,
                 "podman is not installed: the container tests need it (apt-get install podman "
                 "runc debootstrap, then scripts/container_base.sh; .ci/run does both)")
    require_tool(podman("image", "exists", BASE_IMAGE).returncode == 0,
                 f"the base image {BASE_IMAGE} is missing: run scripts/container_base.sh")
    built = podman(*build_arguments())
    assert built.returncode == 0, f"podman build failed:\n{built.stdout[-4000:]}{built.stderr[-4000:]}"
    yield IMAGE


def writable_io(tmp_path: Path) -> Path:
    io = tmp_path / "io"
    io.mkdir()
    io.chmod(0o777)  # the image's default user is 10001
    for name in ("output", "summary"):
        (io / name).write_text("")
        (io / name).chmod(0o666)
    return io


def test_image_runs_as_non_root_with_the_tool_on_path(image: str) -> None:
    result = podman("run", "--rm", "--network", "none", "--entrypoint", "/bin/sh", image, "-c",
                    "id -u; command -v rocm-deps; command -v python3; rocm-deps --version; "
                    "ls /opt/rocm-deps/bin | grep -c '^pip' || true")
    assert result.returncode == 0, result.stderr
    uid, tool, python, version, pips = result.stdout.splitlines()
    assert (uid, tool) == ("10001", "/usr/local/bin/rocm-deps")
    assert python == "/usr/bin/python3"  # the image's interpreter, not the tool's venv
    assert version == f"rocm-deps {__version__}"
    assert pips == "0"  # no pip left in the tool's environment


def test_resolve_on_a_mounted_event_writes_outputs(image: str, tmp_path: Path) -> None:
    io = writable_io(tmp_path)
    (io / "event.json").write_text(json.dumps({"pull_request": {
        "number": 9, "body": "- ci-sglang-pr: #30421\n", "author_association": "MEMBER"}}))
    result = podman("run", "--rm", "--network", "none", "--volume", f"{io}:/io",
                    "--env", "GITHUB_ACTIONS=true", "--env", "GITHUB_OUTPUT=/io/output",
                    "--env", "GITHUB_STEP_SUMMARY=/io/summary",
                    "--env", "GITHUB_EVENT_PATH=/io/event.json",
                    "--env", "GITHUB_EVENT_NAME=pull_request", image, "resolve")
    assert result.returncode == 0, result.stderr
    outputs = parse_github_output((io / "output").read_text())
    assert outputs["skip_dependency_install"] == "false"
    assert outputs["sglang_ref"] == "refs/pull/30421/head"
    assert "| sglang | body | `#30421` |" in (io / "summary").read_text()


def test_resolve_rejects_an_invalid_directive_with_exit_1(image: str, tmp_path: Path) -> None:
    io = writable_io(tmp_path)
    (io / "body.md").write_text("ci-megatron-pr: 1234\n")
    result = podman("run", "--rm", "--network", "none", "--volume", f"{io}:/io", image,
                    "resolve", "--body-file", "/io/body.md")
    assert result.returncode == 1
    assert "did you mean `#1234`" in result.stderr


def test_install_with_the_mi350_layout(image: str, box: sandbox.Sandbox, tmp_path: Path) -> None:
    io = writable_io(tmp_path)
    write_package(box.workspace, world.WORKSPACE_PACKAGE, "1.0")
    sglang_head = git(box.baked["sglang"], "rev-parse", "HEAD")
    sglang_status = git(box.baked["sglang"], "status", "--porcelain")  # the image's edits
    document = json.dumps({"megatron": {"ref": "refs/pull/202/head", "sha": None}})
    script = ('set -e; rocm-deps install --overrides "$OVERRIDES"; '
              'python3 -c "import json, megatron, miles; '
              'print(json.dumps([megatron.__version__, miles.__version__]))" > /io/versions; '
              'if python3 -c "import sglang" 2>/dev/null; then echo present; '
              'else echo missing; fi > /io/sglang')
    result = podman(
        "run", "--rm", "--network", "none", "--user", "0",
        "--volume", f"{box.baked['sglang']}:/sgl-workspace/sglang",
        "--volume", f"{box.baked['megatron']}:/root/Megatron-LM",
        # The baked clones' remote is the origin's host path: mount it there, read-only.
        "--volume", f"{box.root / 'origins'}:{box.root / 'origins'}:ro",
        "--volume", f"{box.workspace}:/workspace", "--volume", f"{io}:/io",
        "--env", "GITHUB_WORKSPACE=/workspace", "--env", "GITHUB_OUTPUT=/io/output",
        "--env", f"OVERRIDES={document}", "--entrypoint", "/bin/sh", image, "-c", script)
    assert result.returncode == 0, result.stdout + result.stderr
    # Seen from the host: the named dependency moved and carries the ROCm patch ...
    megatron = box.baked["megatron"]
    assert git(megatron, "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    assert 'DEVICE = "hip"' in (megatron / world.ROCM_TARGET).read_text()
    # ... the unnamed one did not.
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == sglang_head
    assert git(box.baked["sglang"], "status", "--porcelain") == sglang_status
    # Inside: installed into the container's own interpreter (not the tool's venv).
    assert json.loads((io / "versions").read_text()) == [MEGATRON_PR, "1.0"]
    assert (io / "sglang").read_text().strip() == "missing"
    outputs = parse_github_output((io / "output").read_text())
    assert outputs["megatron_sha"] == box.commits["megatron"]["pr"]
    assert json.loads(outputs["patches"]) == {
        "megatron": {"docker/amd_patch/latest/megatron.patch": "applied"}}
