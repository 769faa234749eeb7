"""pip's build isolation (architecture §6 step 9): none when the interpreter under test has
every `[build-system] requires` (so an image without a reachable package index still
installs), else isolated with a notice that names what is missing; `build-isolation`
decides it outright. The package index is a closed port on 127.0.0.1 throughout."""

from __future__ import annotations

import json
import socket

import pytest

from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli, git, overrides

NO_ISOLATION = 'pip-args = ["--no-build-isolation"]\n'  # the sandbox's blanket setting


def closed_port() -> int:
    with socket.socket() as probe:  # nothing listens once it is closed
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pull_request_requiring(box: Sandbox, requires: list[str]) -> str:
    """A Megatron-LM pull request whose pyproject.toml asks for `requires` to build."""
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "-b", "build-requires", "main")
    pyproject = origin / "pyproject.toml"
    text = pyproject.read_text()
    start = text.index("requires = [")
    end = text.index("]", start) + 1
    pyproject.write_text(text[:start] + f"requires = {json.dumps(requires)}" + text[end:])
    git(origin, "commit", "-q", "--allow-empty", "-am", "build requirements")
    git(origin, "update-ref", "refs/pull/320/head", "HEAD")
    git(origin, "checkout", "-q", "main")
    return "refs/pull/320/head"


@pytest.mark.parametrize(("requires", "policy", "code", "isolation", "said"), [
    (["setuptools-scm>=8", "packaging"], "auto", 0, "not isolated",
     "has every build requirement (setuptools-scm>=8, packaging): building without isolation"),
    ([], "auto", 0, "not isolated",  # nothing to ask the interpreter
     "megatron: the build requires nothing ("),
    (["tiny-missing-backend>=1"], "auto", 1, "isolated",
     "lacks `tiny-missing-backend>=1`"),
    (["setuptools-scm>=99"], "auto", 1, "isolated", "lacks `setuptools-scm>=99 ("),
    (["tiny-missing-backend>=1"], "never", 0, "not isolated", None),
    (["packaging"], "always", 1, "isolated", None),
], ids=["has-them", "none-needed", "missing", "too-old", "never", "always"])
def test_build_isolation_follows_what_the_interpreter_has(
        cli: Cli, box: Sandbox, monkeypatch: pytest.MonkeyPatch, requires: list[str],
        policy: str, code: int, isolation: str, said: str | None) -> None:
    config = box.config.read_text()
    assert NO_ISOLATION in config
    box.config.write_text(config.replace(NO_ISOLATION, "").replace(
        "[dependencies.megatron]\n", f'[dependencies.megatron]\nbuild-isolation = "{policy}"\n'))
    ref = pull_request_requiring(box, requires)
    for key, value in {"PIP_INDEX_URL": f"http://127.0.0.1:{closed_port()}/simple",
                       "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}.items():
        monkeypatch.setenv(key, value)
    result = cli("install", "--config", str(box.config), "--overrides",
                 overrides(megatron=ref), "--workspace", str(box.workspace), "--python",
                 box.python)
    assert result.code == code, result.stderr[-3000:]
    megatron = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert megatron["build_isolation"] == isolation
    [pip] = [line for line in result.stderr.splitlines() if " -m pip install -e " in line]
    assert pip.endswith("--no-deps --no-build-isolation") is (isolation == "not isolated")
    notices = [line for line in result.stderr.splitlines()
               if "megatron build isolation" in line]
    if said is None:
        assert notices == []
    elif isolation == "isolated":
        [notice] = notices
        assert "building isolated (pip downloads the build requirements from the package " \
               "index)" in notice and said in notice
    else:
        assert notices == [] and said in result.stderr
    if code == 0:
        assert git(box.baked["megatron"], "rev-parse", "HEAD") == git(
            box.origins["megatron"], "rev-parse", ref)
