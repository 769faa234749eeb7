"""What several commands read at the edge: the API's settings, where PyGithub goes, the
associations."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from rocm_deps.edge import Edge, Interpreter, api_settings, associations, install_bases
from rocm_deps.errors import UsageError
from rocm_deps.options import TRUSTED, read


def test_a_uv_planted_in_the_working_directory_is_never_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = tmp_path / "uv"
    planted.write_text("#!/bin/sh\necho planted\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    environ = {"PATH": ":/nonexistent"}  # the empty entry is the working directory
    assert shutil.which("uv", path=environ["PATH"]) == "uv"  # what a plain lookup would run
    api = api_settings(read("resolve", [], {}), Edge(environ, tmp_path, Interpreter.current()))
    assert api.uv is None
    assert api.environ["PATH"] == "/nonexistent"


def test_pygithub_goes_to_runner_temp_else_to_the_temporary_directory() -> None:
    assert install_bases({"RUNNER_TEMP": "/rt", "TMPDIR": "/t"}) == (Path("/rt"), Path("/t"))
    assert install_bases({"TMPDIR": "/t", "HOME": "/h"}) == (Path("/t"),)


def test_an_unknown_association_suggests_the_nearest_with_the_one_did_you_mean() -> None:
    with pytest.raises(UsageError) as caught:
        associations(read("resolve", [TRUSTED], {"trusted-associations": "OWNER,MEMBR"}))
    assert ("'MEMBR' is not an author association GitHub sends; did you mean `MEMBER`? one of: "
            in caught.value.message)


def test_the_token_is_read_once_per_run(tmp_path: Path, mocker: MockerFixture,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The command line reads the variable `--github-token-env` names once, masks it, and
    hands it to the settings builder with the rest of the edge."""
    from rocm_deps import cli, edge

    read_token = mocker.spy(edge, "token_of")
    body = tmp_path / "body.md"
    body.write_text("Nothing named here.\n")
    code = cli.main(["resolve", "--body-file", str(body), "--github-token-env", "T"],
                    {"T": "ghs_secret0", "PATH": os.environ["PATH"], "GITHUB_ACTIONS": "true"})
    assert code == 0
    assert read_token.call_count == 1
    assert "::add-mask::ghs_secret0\n" in capsys.readouterr().err
