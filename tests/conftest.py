from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from rocm_deps.cli import main
from rocm_deps.config import load_config
from rocm_deps.contract.overrides import overrides_to_json
from rocm_deps.demo import sandbox
from rocm_deps.install.recipe import RECIPES
from rocm_deps.resolve.resolver import resolve
from rocm_deps.resolve.settings import ResolveSettings
from rocm_deps.runner import Runner
from tests.repos import commit, git

__all__ = ["git"]  # re-exported: the tests import it from here

ROOT = Path(__file__).resolve().parent.parent
# .ci/run sets this: there a missing tool (podman) fails the test instead of skipping it.
REQUIRE_ALL = os.environ.get("ROCM_DEPS_REQUIRE_ALL_TESTS") == "1"


def measuring_coverage() -> bool:
    """Whether line coverage is being measured in this process (sys.monitoring on 3.12+,
    the tracer before): every line then costs more, and generated examples are fewer."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None and monitoring.get_tool(monitoring.COVERAGE_ID) is not None:
        return True
    return sys.gettrace() is not None


def generated_examples(count: int) -> int:
    """How many examples a property test generates: `count`, a quarter of it under coverage.
    The corner cases each test must meet are fixed examples and tables, run either way."""
    return max(25, count // 4) if measuring_coverage() else count


def require_tool(available: bool, message: str) -> None:
    """Skip locally with a reason that says how to enable the test; fail in CI."""
    if available:
        return
    if REQUIRE_ALL:
        pytest.fail(message)
    pytest.skip(f"{message} (skipped: ROCM_DEPS_REQUIRE_ALL_TESTS is not 1)")


@pytest.fixture(scope="session")
def pip_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pip cache for the session: what one test downloaded, the next need not."""
    return tmp_path_factory.mktemp("pip-cache")


@pytest.fixture(scope="session", autouse=True)
def _nothing_left_in_the_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite's own temporary directory stands in for the system's (TMPDIR, for this
    process and every child): no `rocm-deps*` entry (a sandbox, a PyGithub install, a lock)
    may stay there. Another rocm-deps run on the machine (a README demo) cannot fail it."""
    temporary = tmp_path_factory.mktemp("tmpdir")
    saved = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = str(temporary), str(temporary)
    yield
    os.environ.pop("TMPDIR")
    if saved[0] is not None:
        os.environ["TMPDIR"] = saved[0]
    tempfile.tempdir = saved[1]
    left = sorted(name for name in os.listdir(temporary) if name.startswith("rocm-deps"))
    assert left == [], f"left in the temporary directory: {left}"


@pytest.fixture(autouse=True)
def _guard_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                pip_cache: Path) -> None:
    """Accidental writes to $HOME (git config, pip caches) fail loudly: HOME lies below a
    regular file, so even root cannot create anything there."""
    blocker = tmp_path_factory.mktemp("guard") / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("HOME", str(blocker / "home"))
    monkeypatch.setenv("PIP_CACHE_DIR", str(pip_cache))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # importing must not add files to a tree
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH",
                 "GITHUB_EVENT_NAME", "GITHUB_WORKSPACE", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def parse_github_output(text: str) -> dict[str, str]:
    """An independent reader of the `$GITHUB_OUTPUT` heredoc format (the test oracle; it does
    not reuse the product's parser): `name<<DELIM` / lines / `DELIM`."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        assert "<<" in line, f"not heredoc form: {line!r}"
        name, delimiter = line.split("<<", 1)
        assert delimiter.startswith("ghadelimiter_") and len(delimiter) > 20
        body = []
        for inner in lines:
            if inner == delimiter:
                break
            body.append(inner)
        else:
            raise AssertionError(f"{name}: delimiter never closed")
        values[name] = "\n".join(body)
    return values


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


class Cli(Protocol):
    def __call__(self, *argv: str, env: Mapping[str, str] | None = None,
                 github_actions: bool = True) -> CliResult: ...


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run the real command line in-process, with step output and summary files."""

    def invoke(*argv: str, env: Mapping[str, str] | None = None,
               github_actions: bool = True) -> CliResult:
        output = tmp_path / f"output-{len(list(tmp_path.glob('output-*')))}"
        summary = output.with_name(output.name.replace("output", "summary"))
        output.write_text("")
        summary.write_text("")
        environ = {**os.environ, "GITHUB_OUTPUT": str(output),
                   "GITHUB_STEP_SUMMARY": str(summary), **(env or {})}
        if github_actions:
            environ["GITHUB_ACTIONS"] = "true"
        capsys.readouterr()
        code = main(list(argv), environ)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err,
                         parse_github_output(output.read_text()), summary.read_text())

    return invoke


class EventWriter(Protocol):
    def __call__(self, body: str | None = None, *, association: str = "MEMBER",
                 number: int = 42, repository: str | None = None,
                 payload: Mapping[str, object] | None = None, head: str | None = None) -> str: ...


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A configuration for talking to the local API stand-in: short timeouts, no backoff."""
    path = tmp_path / "api.toml"
    path.write_text("[api]\ntimeout-seconds = 5\nbackoff-seconds = 0\n")
    return path


@pytest.fixture
def write_event(tmp_path: Path) -> EventWriter:
    """The one writer of event payloads: a `pull_request` event with `body` (as the runner
    writes it), or any `payload`. Returns the file's path, for `--event-path`."""

    def write(body: str | None = None, *, association: str = "MEMBER", number: int = 42,
              repository: str | None = None, payload: Mapping[str, object] | None = None,
              head: str | None = None) -> str:
        document: dict[str, object] = dict(payload) if payload is not None else {
            "pull_request": {"number": number, "body": body, "author_association": association,
                             **({"head": {"sha": head}} if head else {})}}
        if repository is not None:
            document["repository"] = {"full_name": repository}
        path = tmp_path / f"event-{len(list(tmp_path.glob('event-*')))}.json"
        path.write_text(json.dumps(document))
        return str(path)

    return write


def quiet_runner() -> Runner:
    return Runner(stream=io.StringIO())


@pytest.fixture(scope="session")
def box_template(tmp_path_factory: pytest.TempPathFactory) -> sandbox.Sandbox:
    """The MI350 layout in miniature, built once per session: origins, baked clones, target
    venv, workspace patch. Tests get their own copy (`box`)."""
    root = tmp_path_factory.mktemp("template") / "sandbox"
    return sandbox.build(root, quiet_runner(), dict(os.environ), python_for_venv=sys.executable,
                         build_requirements=root.parent / "build-requirements")


@pytest.fixture
def box(tmp_path: Path, box_template: sandbox.Sandbox) -> sandbox.Sandbox:
    """A fresh, independent copy of the sandbox for one test."""
    return sandbox.copy(box_template, tmp_path / "sandbox")


def snapshot(repository: Path) -> dict[str, object]:
    """HEAD, index bytes and every work-tree file's bytes: what 'unchanged' means."""
    files = {}
    for path in sorted(repository.rglob("*")):
        if ".git" in path.relative_to(repository).parts or not path.is_file():
            continue
        files[str(path.relative_to(repository))] = path.read_bytes()
    return {"head": git(repository, "rev-parse", "HEAD"),
            "index": (repository / ".git" / "index").read_bytes(), "files": files}


def add_pull_request(box: sandbox.Sandbox, name: str, number: int, files: Mapping[str, str | None],
                     base: str = "main") -> str:
    """Commit `files` (path -> text, None deletes) on top of `base` in the origin of `name` and
    publish it as refs/pull/<number>/head. Returns the commit."""
    origin = box.origins[name]
    git(origin, "checkout", "-q", "--detach", base)
    head = commit(origin, files, f"pull request {number}")
    git(origin, "update-ref", f"refs/pull/{number}/head", head)
    git(origin, "checkout", "-q", "main")
    return head


# Megatron-LM's static versions in the sandbox (demo.sandbox.Builder.origin / after_bake).
MEGATRON_BAKED, MEGATRON_MAIN, MEGATRON_PR = "0.2.0", "0.3.0", "0.3.1.dev202"


def scm_version(box: sandbox.Sandbox, name: str, commit: str, tmp: Path) -> str:
    """The oracle for a git-derived version: what setuptools-scm computes in a fresh, full
    clone of the origin checked out at `commit`, after the image's build did its recipe there
    (SGLang's pyproject swap: the tree is then dirty, as the image's is)."""
    from setuptools_scm import get_version

    clone = tmp / f"fresh-{name}-{commit[:12]}"
    if not clone.exists():
        subprocess.run(["git", "clone", "-q", str(box.origins[name]), str(clone)], check=True,
                       env={**os.environ, **sandbox.IDENTITY})
        git(clone, "checkout", "-q", "--detach", commit)
        recipe = load_config(None).dependency(name).recipe
        for source, target in RECIPES[recipe] if recipe else ():
            if (clone / source).is_file():
                (clone / source).replace(clone / target)
    return str(get_version(root=str(clone)))


def installed_version(box: sandbox.Sandbox, distribution: str) -> str:
    script = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    return subprocess.run([box.python, "-c", script], check=True, text=True,
                          capture_output=True).stdout.strip()


def overrides(**refs: str | tuple[str, str]) -> str:
    """The `overrides` document resolve writes for a PR body that names `refs` (name=value,
    or name=(value, sha) as resolve writes it after pinning the value to `sha` through the
    API): the real resolver and the real writer, not a copy of the format."""
    config = load_config(None)
    body = "\n".join(f"{config.dependency(name).directive}: "
                     f"{value if isinstance(value, str) else value[0]}"
                     for name, value in refs.items())
    with tempfile.TemporaryDirectory() as directory:
        body_file = Path(directory) / "body.md"
        body_file.write_text(body)
        report = resolve(ResolveSettings(config=config, body_file=body_file))
    assert not report.errors, report.errors
    pinned = {name: dataclasses.replace(override, sha=refs[name][1])
              if isinstance(refs[name], tuple) else override
              for name, override in report.overrides.items()}
    return json.dumps(overrides_to_json(pinned))
