"""PyGithub on demand: the tool runs on the standard library; a token brings PyGithub, pinned
and hash-checked, into a private directory that later steps of the job reuse."""

from __future__ import annotations

import importlib.util
import json
import marshal
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
    locked = on_demand.REQUIREMENTS.read_text()
    assert pins(locked) == pins((ROOT / "constraints.txt").read_text())
    # Every requirement carries hashes (pip --require-hashes refuses any that does not).
    blocks = re.split(r"\n(?=[A-Za-z])", locked.split("\n\n", 1)[1].strip())
    assert all("--hash=sha256:" in block for block in blocks) and len(blocks) == len(
        pins(locked))


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, HEAD)
        yield fake


def bare_resolve(event: str, github: FakeGitHub, runner_temp: Path,
                 path: Path) -> subprocess.CompletedProcess[str]:
    """resolve as the action runs it, on an interpreter that cannot import PyGithub
    (-S: no site-packages at all), with the source tree put on sys.path explicitly; `path`
    is the PATH the step sees (uv is used when it is there)."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
              "raise SystemExit(main(sys.argv[2:]))")
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), "resolve",
         "--event-name", "pull_request", "--event-path", event, "--github-token-env",
         "TEST_TOKEN", "--format", "json"],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "RUNNER_TEMP": str(runner_temp), "GITHUB_API_URL": github.url,
             "TEST_TOKEN": TOKEN, "PATH": str(path), "UV_CACHE_DIR": str(runner_temp / "uv")})


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_a_token_installs_pygithub_once_into_runner_temp(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub, installer: str) -> None:
    path = tmp_path / "bin"  # what the step finds on PATH: uv, or nothing (then pip)
    path.mkdir()
    if installer == "uv":
        uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
        require_tool(uv is not None, "uv is not installed (pip install uv; .ci/run does)")
        (path / "uv").symlink_to(str(uv))
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    event = write_event("ci-sglang-pr: #30421")
    first = bare_resolve(event, github, runner_temp, path)
    assert first.returncode == 0, first.stderr[-3000:]
    assert f'"sha": "{HEAD}"' in first.stdout
    [directory] = runner_temp.glob("rocm-deps-github-py*")
    assert (directory / on_demand.FILES).is_file() and (directory / "github").is_dir()
    assert first.stderr.count("rocm-deps: installing PyGithub") == 1
    echoed = next(line for line in first.stderr.splitlines() if "--require-hashes" in line)
    assert echoed.startswith(f"+ {path / 'uv'} pip install" if installer == "uv"
                             else f"+ {sys.executable} -I -m pip install")
    assert echoed.endswith(f"--require-hashes --no-deps -r {on_demand.REQUIREMENTS}")
    second = bare_resolve(event, github, runner_temp, path)  # a later step of the job
    assert second.returncode == 0, second.stderr[-3000:]
    assert "installing PyGithub" not in second.stderr
    assert TOKEN not in first.stdout + second.stdout


def test_without_a_token_nothing_is_installed(tmp_path: Path, write_event: EventWriter) -> None:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from rocm_deps.cli import main; "
              "code = main(sys.argv[2:]); print(sorted(m for m in sys.modules if m.split('.')[0] "
              "in ('github', 'requests', 'regex', 'tomli', 'urllib3'))); raise SystemExit(code)")
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(ROOT / "src"), "resolve",
         "--event-name", "pull_request", "--event-path", write_event("ci-sglang-pr: #1")],
        capture_output=True, text=True, env={**os.environ, "RUNNER_TEMP": str(runner_temp)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert list(runner_temp.iterdir()) == []


def plant(directory: Path, ran: Path) -> None:
    """A PyGithub (and the requests it needs) that is not: importing it leaves `ran` behind.
    Its file list is signed, with a key that is not this token's."""
    for package in ("github", "requests"):
        (directory / package).mkdir(parents=True)
        (directory / package / "__init__.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    files = on_demand._files(directory)
    (directory / on_demand.FILES).write_text(json.dumps(
        {"files": files, "hmac": on_demand._mac(on_demand._key("ghp_someOtherToken"), files)}))


def test_a_directory_planted_by_another_user_is_never_imported(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub) -> None:
    require_tool(os.geteuid() == 0, "planting a directory of another user needs root "
                                    "(CI runs as root)")
    shared = tmp_path / "shared-tmp"  # like /tmp: sticky and world-writable
    shared.mkdir()
    shared.chmod(0o1777)
    planted, ran = on_demand.private_directory(shared), tmp_path / "planted-code-ran"
    plant(planted, ran)
    for path in (planted, *planted.rglob("*")):
        os.chown(path, 65534, 65534)
    (tmp_path / "bin").mkdir()
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, shared, tmp_path / "bin")
    assert result.returncode == 1, result.stderr[-2000:]
    assert (f"refusing to import PyGithub from {planted}: {planted} belongs to user id 65534, "
            f"not to this user (0)") in result.stderr
    assert not ran.exists()


def test_a_directory_others_can_write_is_never_imported(tmp_path: Path, write_event: EventWriter,
                                                        github: FakeGitHub) -> None:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    planted, ran = on_demand.private_directory(runner_temp), tmp_path / "planted-code-ran"
    plant(planted, ran)
    planted.chmod(0o777)
    (tmp_path / "bin").mkdir()
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp,
                          tmp_path / "bin")
    assert result.returncode == 1, result.stderr[-2000:]
    assert f"{planted} can be written by other users (mode 777)" in result.stderr
    assert not ran.exists()


def test_a_runner_temp_others_can_write_falls_back_to_this_users_cache(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub,
        monkeypatch: pytest.MonkeyPatch, installed: Path) -> None:
    runner_temp, cache = tmp_path / "runner-temp", tmp_path / "cache"
    runner_temp.mkdir()
    planted, ran = on_demand.private_directory(runner_temp), tmp_path / "planted-code-ran"
    plant(planted, ran)
    planted.chmod(0o777)
    # This user's own copy (0700), installed by an earlier step with this token.
    (cache / "rocm-deps").mkdir(parents=True, mode=0o700)
    own_dir = on_demand.private_directory(cache / "rocm-deps")
    shutil.copytree(installed, own_dir, symlinks=True)
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp,
                          tmp_path / "bin")
    assert result.returncode == 0, result.stderr[-2000:]
    assert (f"rocm-deps: not using {planted}: {planted} can be written by other users "
            f"(mode 777); using {own_dir}") in result.stderr
    assert "installing PyGithub" not in result.stderr and not ran.exists()


def test_a_runner_temp_below_a_directory_others_can_write_is_refused(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub) -> None:
    # Whoever can write `open` can rename runner-temp away and put their own in its place.
    open_dir = tmp_path / "open"
    runner_temp = open_dir / "runner-temp"
    runner_temp.mkdir(parents=True, mode=0o700)
    open_dir.chmod(0o777)
    (tmp_path / "bin").mkdir()
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp,
                          tmp_path / "bin")
    assert result.returncode == 1, result.stderr[-2000:]
    assert (f"refusing to import PyGithub from {on_demand.private_directory(runner_temp)}: "
            f"{open_dir} above it can be written by other users (mode 777)") in result.stderr
    assert list(runner_temp.iterdir()) == []


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The private directory as a step with TOKEN leaves it: installed (with uv) and signed."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    require_tool(uv is not None, "uv is not installed (pip install uv; .ci/run does)")
    runner_temp = tmp_path_factory.mktemp("installed")
    target = on_demand.private_directory(runner_temp)
    target.mkdir(mode=0o700)
    result = subprocess.run(on_demand.install_command(target, uv), capture_output=True,
                            text=True, cwd=target, timeout=600,
                            env={**os.environ, "UV_CACHE_DIR": str(runner_temp / "uv")})
    assert result.returncode == 0, result.stderr[-2000:]
    on_demand._sign(target, on_demand._key(TOKEN))
    return target


def step_after(installed: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A runner temp holding a copy of `installed` (timestamps kept, so its bytecode is
    used), and a bin directory without uv."""
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    shutil.copytree(installed, on_demand.private_directory(runner_temp), symlinks=True)
    (tmp_path / "bin").mkdir()
    return runner_temp, tmp_path / "bin"


@pytest.mark.parametrize("change", ["edit a module", "add a module", "add bytecode"])
def test_files_changed_after_the_install_are_never_imported(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub, installed: Path,
        change: str) -> None:
    # An earlier step of the job, as this user but without the token, plants code where
    # the next step imports PyGithub from: requests imports simplejson when it is there.
    runner_temp, path = step_after(installed, tmp_path)
    target, ran = on_demand.private_directory(runner_temp), tmp_path / "planted-code-ran"
    code = f"open({str(ran)!r}, 'w').write('ran')\n"
    planted = {"edit a module": "github/__init__.py", "add a module": "simplejson.py",
               "add bytecode": "simplejson.pyc"}[change]
    if change == "edit a module":
        (target / planted).write_text(code + (target / planted).read_text())
    elif change == "add a module":
        (target / planted).write_text(code)
    else:
        (target / planted).write_bytes(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(
            compile(code, "simplejson.py", "exec")))
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp, path)
    assert result.returncode == 1, result.stderr[-2000:]
    assert (f"refusing to import PyGithub from {target}: {planted!r} changed since it was "
            f"installed") in result.stderr
    assert not ran.exists()


def test_an_unchanged_install_is_imported_and_left_as_it_was(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub, installed: Path) -> None:
    runner_temp, path = step_after(installed, tmp_path)
    target = on_demand.private_directory(runner_temp)
    before = on_demand._files(target)
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp, path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f'"sha": "{HEAD}"' in result.stdout and "installing PyGithub" not in result.stderr
    assert on_demand._files(target) == before  # no bytecode written beside the list


def test_a_list_another_token_signed_means_a_fresh_install(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub) -> None:
    # A planted directory whose list is signed, but not with this token's key (whoever
    # planted it has not the token): nothing of it is imported; it is emptied and
    # installed afresh.
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    target, ran = on_demand.private_directory(runner_temp), tmp_path / "planted-code-ran"
    plant(target, ran)
    path = tmp_path / "bin"
    path.mkdir()
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    require_tool(uv is not None, "uv is not installed (pip install uv; .ci/run does)")
    (path / "uv").symlink_to(str(uv))
    result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp, path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (f"rocm-deps: {target} holds no file list this token signed (another token's "
            f"install, or an unfinished one): installing afresh") in result.stderr
    assert f'"sha": "{HEAD}"' in result.stdout and not ran.exists()
    assert on_demand._changed(target, on_demand._key(TOKEN)) == []


@pytest.mark.parametrize("planted", ["non-ascii hmac", "fifo", "link to the list"])
def test_a_list_that_is_not_a_plain_signed_file_reads_as_unsigned(tmp_path: Path,
                                                                  planted: str) -> None:
    """Unsigned means a fresh install: never a crash, never a hang on a FIFO."""
    target = tmp_path / "target"
    target.mkdir()
    (target / "github").mkdir()
    listed = target / on_demand.FILES
    if planted == "non-ascii hmac":
        listed.write_text('{"files": {}, "hmac": "\\u00e9"}')
    elif planted == "fifo":
        os.mkfifo(listed)
    else:
        signed = tmp_path / "signed.json"
        files = on_demand._files(target)
        signed.write_text(json.dumps({"files": files,
                                      "hmac": on_demand._mac(on_demand._key(TOKEN), files)}))
        listed.symlink_to(signed)
    assert on_demand._changed(target, on_demand._key(TOKEN)) is None


def test_an_added_empty_directory_is_a_change(tmp_path: Path) -> None:
    target = tmp_path / "target"
    (target / "github").mkdir(parents=True)
    on_demand._sign(target, on_demand._key(TOKEN))
    assert on_demand._changed(target, on_demand._key(TOKEN)) == []
    (target / "simplejson").mkdir()
    assert on_demand._changed(target, on_demand._key(TOKEN)) == ["simplejson"]


@pytest.mark.parametrize(("hidden", "planted"), [("simplejson", True), ("github", True),
                                                ("github", False)])
def test_a_directory_made_unlistable_is_a_change(
        tmp_path: Path, write_event: EventWriter, github: FakeGitHub, installed: Path,
        hidden: str, planted: bool) -> None:
    """`chmod 100` hides a package from a walk by a runner's (unprivileged) user, not from
    `import`, which looks names up: a planted `simplejson/` (requests imports it), or a
    module planted in PyGithub's own directory before it is made unlistable. The mode is
    part of the list, so the change shows even to root, who can list it anyway; a walk
    that cannot list a directory fails the step (os.walk's errors are not skipped)."""
    runner_temp, path = step_after(installed, tmp_path)
    target, ran = on_demand.private_directory(runner_temp), tmp_path / "planted-code-ran"
    package = target / hidden
    package.mkdir(exist_ok=True)
    if planted:
        (package / "planted.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    package.chmod(0o100)  # alone, as root sees it: what it holds is still listed
    try:
        result = bare_resolve(write_event("ci-sglang-pr: #30421"), github, runner_temp, path)
    finally:
        package.chmod(0o700)
    assert result.returncode == 1, result.stderr[-2000:]
    changed = f"{hidden!r}" + (f", '{hidden}/planted.py'" if planted else "")
    assert (f"refusing to import PyGithub from {target}: {changed} changed since it was "
            f"installed") in result.stderr
    assert not ran.exists()
