"""PyGithub for a step with a token: the tool runs on the standard library; a token brings
PyGithub, pinned and hash-checked, into a new private directory for that step alone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_deps.github import on_demand
from tests.conftest import ROOT, EventWriter, require_tool
from tests.fake_github import FakeGitHub

TOKEN = "ghp_onDemandTESTtoken0123456789abcdef"
HEAD = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"


def pins(text: str) -> list[str]:
    return re.findall(r"^([A-Za-z0-9_.-]+==[^\s;\\]+)", text, flags=re.MULTILINE)


def test_the_locked_requirements_pin_what_constraints_pins() -> None:
    github = pins(on_demand.REQUIREMENTS.read_text())
    render = pins(on_demand.RENDER_REQUIREMENTS.read_text())
    constraints = pins((ROOT / "constraints.txt").read_text())
    assert sorted({*github, *render}) == sorted(constraints)
    assert render == ["cffi==2.1.1", "cmarkgfm==2025.10.22"]  # pycparser: building only
    assert "cmarkgfm==2025.10.22" not in github  # a token's step needs GitHub's HTML only
    for locked in (on_demand.REQUIREMENTS.read_text(),
                   on_demand.RENDER_REQUIREMENTS.read_text()):
        # Every requirement carries hashes (pip --require-hashes refuses any that does not).
        blocks = re.split(r"\n(?=[A-Za-z])", locked.split("\n\n", 1)[1].strip())
        assert all("--hash=sha256:" in block for block in blocks) and len(blocks) == len(
            pins(locked))


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, HEAD)
        # The pull request's description now, read with GitHub's rendering of it.
        fake.repository("radixark/miles").add_pull(42, "4" * 40, body="ci-sglang-pr: #30421")
        yield fake


def bare_resolve(event: str, github: FakeGitHub, runner_temp: Path, path: Path,
                 tmpdir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """resolve as the action runs it, on an interpreter that cannot import PyGithub
    (-S: no site-packages at all), with the source tree put on sys.path explicitly; `path`
    is the PATH the step sees (uv is used when it is there)."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
              "code = main(sys.argv[2:]); import github; "
              "print('github imported from', github.__file__, file=sys.stderr); "
              "raise SystemExit(code)")
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), "resolve",
         "--event-name", "pull_request", "--event-path", event, "--github-token-env",
         "TEST_TOKEN", "--format", "json"],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "RUNNER_TEMP": str(runner_temp), "GITHUB_API_URL": github.url,
             "TEST_TOKEN": TOKEN, "PATH": str(path), "UV_CACHE_DIR": str(tmp_path_of(runner_temp)),
             "TMPDIR": str(tmpdir or runner_temp)})


def tmp_path_of(runner_temp: Path) -> Path:
    return runner_temp.parent / "uv-cache"


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_a_token_installs_pygithub_fresh_for_each_step_and_imports_it_from_there(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub, installer: str) -> None:
    path = tmp_path / "bin"  # what the step finds on PATH: uv, or nothing (then pip)
    path.mkdir()
    if installer == "uv":
        uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
        require_tool(uv is not None, "uv is not installed (pip install uv; .ci/run does)")
        (path / "uv").symlink_to(str(uv))
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    event = write_event("ci-sglang-pr: #30421", repository="radixark/miles")
    steps = [bare_resolve(event, github, runner_temp, path) for _ in range(2)]
    directories = []
    for step in steps:
        assert step.returncode == 0, step.stderr[-3000:]
        assert f'"sha": "{HEAD}"' in step.stdout
        [line] = [line for line in step.stderr.splitlines() if "installing PyGithub" in line]
        directory = line.split(" into ", 1)[1].split(", for this step")[0]
        directories.append(directory)
        # The module that ran came from that directory, not from any site-packages.
        assert f"github imported from {directory}/github/__init__.py" in step.stderr
        echoed = next(line for line in step.stderr.splitlines() if "--require-hashes" in line)
        assert echoed.startswith(f"+ {path / 'uv'} pip install" if installer == "uv"
                                 else f"+ {sys.executable} -I -m pip install")
        assert echoed.endswith(f"--require-hashes --no-deps -r {on_demand.REQUIREMENTS}")
        assert TOKEN not in step.stdout
        # GitHub's own HTML came with the description: nothing else is installed.
        assert "installing cmarkgfm" not in step.stderr
    assert directories[0] != directories[1]  # nothing reused: each step its own install
    assert all(Path(directory).parent == runner_temp for directory in directories)
    assert list(runner_temp.glob(f"{on_demand.PREFIX}*")) == []  # removed when the step ends


def test_without_a_token_only_githubs_engine_is_installed(tmp_path: Path,
                                                          write_event: EventWriter) -> None:
    """The payload's description is rendered here: cmarkgfm is installed for the step (hash
    checked, a new private directory), PyGithub is not."""
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
              "code = main(sys.argv[2:]); print(sorted(m for m in sys.modules if m.split('.')[0] "
              "in ('github', 'requests', 'regex', 'tomli', 'urllib3', 'cmarkgfm') and '.' not "
              "in m)); raise SystemExit(code)")
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), "resolve",
         "--event-name", "pull_request", "--event-path", write_event("ci-sglang-pr: #1")],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "RUNNER_TEMP": str(runner_temp)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "['cmarkgfm']"
    assert "sglang: refs/pull/1/head" in result.stdout
    [line] = [line for line in result.stderr.splitlines() if "installing cmarkgfm" in line]
    assert f"into {runner_temp}/{on_demand.PREFIX}" in line
    assert f"-r {on_demand.RENDER_REQUIREMENTS}" in result.stderr
    assert list(runner_temp.iterdir()) == []  # removed when the step ends


def test_a_body_without_directives_costs_no_install(tmp_path: Path,
                                                    write_event: EventWriter) -> None:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
              "raise SystemExit(main(sys.argv[2:]))")
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), "resolve",
         "--event-name", "workflow_dispatch", "--event-path",
         write_event(payload={"inputs": {"ci_sglang_pr": "#1"}})],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "RUNNER_TEMP": str(runner_temp)})
    assert result.returncode == 0, result.stderr
    assert "installing" not in result.stderr


def test_a_runner_temp_others_can_write_falls_back_to_the_temporary_directory(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub) -> None:
    runner_temp, own_temp = tmp_path / "runner-temp", tmp_path / "own-temp"
    runner_temp.mkdir()
    runner_temp.chmod(0o777)  # not sticky: anyone could rename our directory away
    own_temp.mkdir(mode=0o700)
    (tmp_path / "bin").mkdir()
    result = bare_resolve(write_event("ci-sglang-pr: #30421", repository="radixark/miles"), github, runner_temp,
                          tmp_path / "bin", tmpdir=own_temp)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"installing PyGithub (pinned, hash-checked) into {own_temp}/{on_demand.PREFIX}" in (
        result.stderr)
    assert list(runner_temp.iterdir()) == []


def test_no_directory_only_this_user_controls_is_an_error(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub) -> None:
    # Whoever can write `open` can rename runner-temp away and put their own in its place.
    open_dir = tmp_path / "open"
    runner_temp = open_dir / "runner-temp"
    runner_temp.mkdir(parents=True, mode=0o700)
    open_dir.chmod(0o777)
    (tmp_path / "bin").mkdir()
    result = bare_resolve(write_event("ci-sglang-pr: #30421", repository="radixark/miles"), github, runner_temp,
                          tmp_path / "bin", tmpdir=runner_temp)
    assert result.returncode == 1, result.stderr[-2000:]
    assert (f"refusing to install PyGithub: {open_dir} above it can be written by other users "
            f"(mode 777); {open_dir} above it can be written by other users (mode 777)"
            ) in result.stderr
    assert list(runner_temp.iterdir()) == []
