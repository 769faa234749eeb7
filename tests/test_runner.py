"""The runner protocol: escaping, heredoc outputs, summary, masking, local mode."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest

from rocm_deps.reports.markdown import markdown_cell
from rocm_deps.runner import (
    Runner,
    escape_data,
    escape_property,
    format_command,
    format_output,
    parse_outputs,
)
from tests.conftest import parse_github_output


@pytest.mark.parametrize(("raw", "data", "prop"), [
    ("plain", "plain", "plain"),
    ("100%", "100%25", "100%25"),
    ("a\nb", "a%0Ab", "a%0Ab"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("k: v, w", "k: v, w", "k%3A v%2C w"),
    ("%0A", "%250A", "%250A"),
], ids=["plain", "percent", "newline", "crlf", "colon-comma", "already-escaped-looking"])
def test_escaping(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop


def test_format_command_escapes_message_and_properties() -> None:
    line = format_command("error", "line 3: bad\nvalue 50%", {"title": "a: b, c", "line": "3"})
    assert line == "::error title=a%3A b%2C c,line=3::line 3: bad%0Avalue 50%25"


def test_empty_properties_are_left_out() -> None:
    assert format_command("warning", "m", {"title": "", "line": ""}) == "::warning::m"


def test_outputs_round_trip_through_heredoc(tmp_path: Path) -> None:
    output = tmp_path / "out"
    runner = Runner(github_actions=True, output_path=output, stream=io.StringIO())
    values = {"simple": "true", "multi": "line 1\nline 2", "json": '{"a": "b=c<<d"}', "empty": ""}
    runner.set_outputs(values)
    runner.set_outputs({"second": "call"})
    text = output.read_text()
    assert parse_github_output(text) == {**values, "second": "call"}
    assert parse_outputs(text) == {**values, "second": "call"}
    # A fresh random delimiter per call.
    delimiters = set(re.findall(r"^\w+<<(ghadelimiter_\w+)$", text, flags=re.MULTILINE))
    assert len(delimiters) == 2


def test_output_value_containing_delimiter_is_refused() -> None:
    with pytest.raises(ValueError, match="heredoc delimiter"):
        format_output("name", "x\nghadelimiter_abc\ninjected=1", "ghadelimiter_abc")


@pytest.mark.parametrize("name", ["", "has space", "new\nline", "a<<b", "1starts-with-digit"])
def test_invalid_output_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid output name"):
        format_output(name, "v", "ghadelimiter_x")


def test_without_files_outputs_and_summary_go_nowhere(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # where a relative default would land
    stream = io.StringIO()
    runner = Runner(stream=stream)
    runner.set_outputs({"a": "b"})
    runner.add_summary("# hi")
    runner.error("bad thing", title="Title", line=4)
    assert list(tmp_path.iterdir()) == []
    assert stream.getvalue() == "error: Title: bad thing\n"


def test_annotation_under_github_actions() -> None:
    stream = io.StringIO()
    Runner(github_actions=True, stream=stream).error("line 4: x", title="T", line=4)
    assert stream.getvalue() == "::error title=T,line=4::line 4: x\n"


def test_mask_hides_secret_everywhere_after(tmp_path: Path) -> None:
    stream = io.StringIO()
    summary = tmp_path / "summary.md"
    runner = Runner(github_actions=True, summary_path=summary, stream=stream)
    runner.mask("s3cr3t-token")
    runner.info("using s3cr3t-token now")
    runner.add_summary("token: s3cr3t-token")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "::add-mask::s3cr3t-token"
    assert lines[-1] == "using *** now"
    # Each form of the token is masked in the runner's log too (its hex, its base64, ...).
    assert f"::add-mask::{b's3cr3t-token'.hex()}" in lines[1:-1]
    assert all(line.startswith("::add-mask::") for line in lines[1:-1])
    assert "s3cr3t-token" not in summary.read_text()


@pytest.mark.parametrize("echoed", [
    base64.b64encode(b"ghp_rocmdepsTESTtoken0123456789abcdef").decode(),
    base64.b64encode(b"x-access-token:ghp_rocmdepsTESTtoken0123456789abcdef").decode(),
    base64.encodebytes(b"p" * 50 + b"x-access-token:ghp_rocmdepsTESTtoken0123456789abcdef"
                       ).decode(),
    "rocmdepsTESTtoken0123456789abcdef",
    b"ghp_rocmdepsTESTtoken0123456789abcdef".hex(),
], ids=["base64", "basic-auth-base64", "base64-wrapped-76", "without-prefix", "hex"])
def test_a_message_echoing_the_token_in_another_form_is_masked(tmp_path: Path,
                                                               echoed: str) -> None:
    log = io.StringIO()
    summary = tmp_path / "summary.md"
    runner = Runner(github_actions=False, stream=log, summary_path=summary)
    runner.mask("ghp_rocmdepsTESTtoken0123456789abcdef")
    runner.error(f"Bad credentials: {echoed}", title="api")
    runner.add_summary(f"Bad credentials: {echoed}")
    for channel in (log.getvalue(), summary.read_text()):
        assert "Bad credentials: " in channel
        assert "rocmdepsTESTtoken" not in channel
        compact = "".join(channel.split())
        assert "".join(echoed.split())[8:-8] not in compact


def test_group_markers() -> None:
    stream = io.StringIO()
    with Runner(github_actions=True, stream=stream).group("megatron: #1"):
        pass
    assert stream.getvalue() == "::group::megatron: #1\n::endgroup::\n"


def test_echo_quotes_for_display() -> None:
    stream = io.StringIO()
    Runner(stream=stream).echo_command(["git", "fetch", "--", "a b", "it's"])
    assert stream.getvalue() == "+ git fetch -- 'a b' 'it'\"'\"'s'\n"


def test_markdown_cell_cannot_break_table() -> None:
    assert markdown_cell("a|b\nc`d") == "`a\\|b c'd`"
    assert markdown_cell(None) == ""


def test_control_characters_reach_no_channel_as_raw_bytes(tmp_path: Path) -> None:
    log = io.StringIO()
    runner = Runner(github_actions=True, stream=log, summary_path=tmp_path / "summary.md")
    runner.error("line 1: `a\x00b\x1b[31m`", title="t")
    runner.info("name\x07.txt")
    runner.add_summary("| `a\x00b` |")
    assert log.getvalue() == ("::error title=t::line 1: `a<U+0000>b<U+001B>[31m`\n"
                              "name<U+0007>.txt\n")
    assert (tmp_path / "summary.md").read_text() == "| `a<U+0000>b` |\n\n"


def test_a_masked_token_is_hidden_in_the_summarys_escaped_text_too(tmp_path: Path) -> None:
    """The summary escapes punctuation (`ghp\\_…`): the mask must know that spelling."""
    from rocm_deps.reports.markdown import escape_text

    summary = tmp_path / "summary.md"
    runner = Runner(github_actions=True, stream=io.StringIO(), summary_path=summary)
    token = "ghp_abc_DEF0123456789"
    runner.mask(token)
    runner.add_summary(f"raw {token}; escaped {escape_text(token)}")
    assert summary.read_text() == "raw ***; escaped ***\n\n"
