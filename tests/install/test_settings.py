"""install's settings, built at the edge: the interpreter search, booleans, defaults from the
environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rocm_deps.cli import build_parser, given_from_arguments
from rocm_deps.edge import Edge, Interpreter, token_of
from rocm_deps.errors import UsageError
from rocm_deps.install.settings import OPTIONS, build, find_python
from rocm_deps.options import Given, read

OUTSIDE_ANY_VENV = Interpreter("/usr/bin/python3", "/usr", "/usr")


def fake_python(directory: Path) -> Path:
    directory.mkdir(parents=True)
    python = directory / "python3"
    python.symlink_to(sys.executable)
    return python


def test_default_python_is_the_first_python3_on_path(tmp_path: Path) -> None:
    first, second = fake_python(tmp_path / "a"), fake_python(tmp_path / "b")
    path = os.pathsep.join([str(tmp_path / "empty"), str(first.parent), str(second.parent)])
    assert find_python(None, {"PATH": path}, OUTSIDE_ANY_VENV) == str(first)


def test_default_python_skips_the_tools_own_virtualenv(tmp_path: Path) -> None:
    own, container = fake_python(tmp_path / "venv" / "bin"), fake_python(tmp_path / "usr" / "bin")
    path = os.pathsep.join([str(own.parent), str(container.parent)])
    inside_venv = Interpreter(str(own), str(tmp_path / "venv"), "/usr")
    assert find_python(None, {"PATH": path}, inside_venv) == str(container)


def test_no_python3_outside_the_own_venv_is_a_usage_error(tmp_path: Path) -> None:
    own = fake_python(tmp_path / "venv" / "bin")
    inside_venv = Interpreter(str(own), str(tmp_path / "venv"), "/usr")
    with pytest.raises(UsageError, match="no python3 found on PATH outside rocm-deps' own"):
        find_python(None, {"PATH": str(own.parent)}, inside_venv)


def test_requested_python_must_exist(tmp_path: Path) -> None:
    python = fake_python(tmp_path / "bin")
    assert find_python(str(python), {"PATH": ""}, OUTSIDE_ANY_VENV) == str(python)
    with pytest.raises(UsageError, match="--python 'python9': no such interpreter"):
        find_python("python9", {"PATH": str(tmp_path / "bin")}, OUTSIDE_ANY_VENV)


@pytest.mark.parametrize(("value", "expected"), [
    ("true", True), ("TRUE", True), ("True", True), (" false ", False), ("FALSE", False)])
def test_booleans_in_any_case(value: str, expected: bool) -> None:
    assert read("install", OPTIONS, {"workspace-install": value}).flag(
        "workspace-install") is expected


@pytest.mark.parametrize("value", ["yes", "1", "on", "truee"])
def test_other_booleans_are_errors_naming_the_option(value: str) -> None:
    with pytest.raises(UsageError, match=f"--workspace-install has invalid value {value!r}. "
                                         "Expected `true` or `false`"):
        read("install", OPTIONS, {"workspace-install": value})


def arguments(*argv: str) -> Given:
    return given_from_arguments(build_parser().parse_args(["install", *argv]))


def test_environment_defaults_are_read_once_here(tmp_path: Path) -> None:
    environ = {"GITHUB_EVENT_PATH": str(tmp_path / "e.json"), "GITHUB_EVENT_NAME": "push",
               "GITHUB_API_URL": "http://127.0.0.1:1/api", "TOKEN_VAR": " t0ken ",
               "GITHUB_WORKSPACE": str(tmp_path), "PATH": str(fake_python(tmp_path / "bin").parent)}
    parsed = arguments("--github-token-env", "TOKEN_VAR", "--workspace-install", "False")
    # The token is read once, by the command line's edge, and handed over with the rest.
    install = build(parsed, Edge(environ, Path("/nowhere"), OUTSIDE_ANY_VENV,
                                 token_of(parsed, environ)))
    resolve = install.resolve
    assert (resolve.event_path, resolve.event_name) == (tmp_path / "e.json", "push")
    assert (resolve.api.url, resolve.api.token) == ("http://127.0.0.1:1/api", "t0ken")
    assert install.workspace == tmp_path.resolve()
    assert install.python == str(tmp_path / "bin" / "python3")
    assert install.config.install.workspace_install is False
    assert install.resolve.config.install.workspace_install is False
    assert install.overrides is None  # resolve from the event
    without_workspace = {key: value for key, value in environ.items()
                         if key != "GITHUB_WORKSPACE"}
    assert build(parsed, Edge(without_workspace, tmp_path / "bin", OUTSIDE_ANY_VENV)
                 ).workspace == (tmp_path / "bin").resolve()
