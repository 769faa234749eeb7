"""Exactly what was named, or fail, held against GitHub's own engine: on generated bodies
with every construct of a directive's line (entities, emphasis around the key or the line,
headings, task lists, table rows under a table and rows of several cells, `<pre>`, `<code>`,
code spans, strikethrough, code blocks and comments), every line whose text as cmark-gfm
shows it starts with a configured key is applied with the value shown, or the resolve
fails; and nothing is applied that GitHub does not show as text."""

from __future__ import annotations

import html
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rocm_deps.config import load_config
from rocm_deps.contract.resolve import ResolveReport
from rocm_deps.resolve.resolver import resolve
from rocm_deps.resolve.settings import ResolveSettings
from tests.markdown_oracle import render, shown_text_lines

CONFIG = load_config(None)
KEY = re.compile(r"ci-sglang-pr[ \t]*:[ \t]*(?P<value>\S*)", re.IGNORECASE)

KEYS = ["ci-sglang-pr", "ci&#45;sglang-pr", "ci&#x2D;sglang-pr", "CI-SGLang-PR",
        "ci-sglang&#x2d;pr"]
COLONS = [":", "&colon;", "&#58;"]
# How a directive's line is written around the key `{k}`, its colon `{c}` and value `{v}`.
SHAPES = [
    "{k}{c} {v}", "**{k}{c}** {v}", "**{k}**{c} {v}", "*{k}{c} {v}*", "_{k}{c} {v}_",
    "***{k}{c} {v}***", "{k}{c} **{v}**", "~~{k}{c} {v}~~", "~{k}{c} {v}~", "`{k}{c} {v}`",
    "`{k}`{c} {v}", "<code>{k}{c} {v}</code>", "{k}{c} `{v}`", "Please set {k}{c} {v}",
    "{k}{c} {v} (a note)", "| {k}{c} {v} |", "| {k}{c} {v} | x |", "{k}{c} {v} #",
]
PREFIXES = ["", "", "- ", "* ", "> ", "1. ", "## ", "# ", "- [x] ", "- [ ] ", "   ", "    ",
            "> - ", "\t", "Deps:<br>", "<details><summary>CI</summary>", "text <div>",
            "<p>", "a<br/>", "x <span>"]
STRUCTURE = ["", "", "text", "| a | b |", "|---|---|", "| a |", "|---|", "```", "```text",
             "~~~", "<pre>", "</pre>", "---", "===", "<!--", "-->", "<div>", "</div>",
             "## Usage", "- item", "> quote", "<code>", "</code>", "<del>", "</del>", "<s>"]


# Why a line of these bodies can fail the run (every error says one of these).
REASONS = ("does not start with it", "twice with different values", "not a recognised form",
           "needs a space after it", "shows this as code", "inside a code block",
           "one cell of a table row with several cells", "part of this line struck through",
           "as code, so what it names is unclear", "as text, not a list or quote marker",
           "after the value on the same line", "not as plain text")


@st.composite
def bodies(draw: st.DrawFn) -> str:
    lines, number = [], 0
    for _ in range(draw(st.integers(min_value=1, max_value=10))):
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(STRUCTURE)))
            continue
        number += 1
        shape = draw(st.sampled_from(SHAPES))
        line = shape.format(k=draw(st.sampled_from(KEYS)), c=draw(st.sampled_from(COLONS)),
                            v=f"#{number}")
        lines.append(draw(st.sampled_from(PREFIXES)) + line)
    return "\n".join(lines)


def resolve_text(body: str) -> ResolveReport:
    with tempfile.TemporaryDirectory() as directory:
        event = Path(directory) / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 1, "body": body}}))
        return resolve(ResolveSettings(config=CONFIG, event_name="pull_request",
                                       event_path=event))


def shown_values(body: str) -> list[str]:
    """The value of every line GitHub shows starting with the key (its first word)."""
    return [match.group("value") for line in shown_text_lines(body)
            if (match := KEY.match(line)) is not None]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies())
@example("## Usage\n\n```text\nci-megatron-pr: #84\n```")
@example("| a | b |\n|---|---|\n| 1 | 2 |\nci-sglang-pr: #1")
@example("ci&#45;sglang-pr: #1")
# A raw <del> left open in a paragraph or a table cell ends with it (the browser pops it).
@example("text\n<del>\nci-sglang-pr: #1\nci-sglang-pr: #2\nci-sglang-pr: #3\n|---|")
@example("\n\nci-sglang-pr: #1\n<del>\n|---|\n- ci-sglang-pr: #2")
# A `<br>` in a one-cell table row starts a displayed line inside the cell.
@example("Deps:<br>ci-sglang-pr: #1\n|---|")
@example("**ci-sglang-pr:** #30421\n\n## ci-sglang-pr: #30421\n\n- [x] ci-sglang-pr: #30421")
# A raw block's end tag pops a <del> opened inside it: the line after is shown plain.
@example("\n\n<pre>\n<del>\n</pre>\nci-sglang-pr: #1")
# The browser ignores a stray end tag and a table row outside a table: no line starts.
@example("Deps:</div>ci-sglang-pr: #1")
@example("Deps:<tr>ci-sglang-pr: #1")
# What GitHub shows as one line of an HTML block, and a marker or a task box it shows as text.
@example("<div>\nDeps:\nci-sglang-pr: #1\n</div>")
@example("<div>cc</div>\n1. ci-sglang-pr: #1")
@example("- - [ ] ci-sglang-pr: #1")
@example("> - [x] ci-sglang-pr: #1")
@example("_- ci-sglang-pr: #1_")
@example("<details><summary>CI</summary>ci-sglang-pr: #1\nci-sglang-pr: #2\n"
         "<code>ci-sglang-pr: #3</code>\nci-sglang-pr: #4")
@example("`ci-sglang-pr: #1` ci-sglang-pr: #2")
# A raw <div> closes the paragraph: a <del> opened after it outlives the paragraph's end.
@example("text <div>~~ci-sglang-pr: #1~~\n<del>\nci-sglang-pr: #2\n- ci-sglang-pr: #3")
@example("ci-sglang-pr: #1\n<details><summary>CI</summary><code>ci-sglang-pr: #2</code>\n"
         "ci-sglang-pr: #3")
@example("<details><summary>CI</summary>ci-sglang-pr: #1\n<del>\nci-sglang-pr: #2")
@example("</pre>\n**ci-sglang-pr:** #1\nci-sglang-pr: #2\n</pre>\nci-sglang-pr: #3")
@example("\n<p>ci-sglang-pr: #1\n<del>\nci-sglang-pr: #2\n\nci-sglang-pr: #3")
@example("<p>ci-sglang-pr: #1\n<del>\nci-sglang-pr: #2\n\n<details><summary>CI</summary>"
         "ci-sglang-pr: #3")
def test_every_shown_directive_is_applied_as_shown_or_the_run_fails(body: str) -> None:
    report = resolve_text(body)
    shown = shown_values(body)
    # When the run fails, each error names a line that writes the key and says why: what
    # the line shows, or which other line names the dependency too. It quotes the line as
    # written (or the lines of an HTML block a browser shows as one, from its first).
    source = body.split("\n")
    erred = []
    for error in report.errors:
        assert 0 < error.line <= len(source), (body, error)
        assert error.message.startswith(f"line {error.line}: `"), error.message
        written = html.unescape(error.message.split(" — ", 1)[0])
        assert re.search(r"sglang|megatron", written, re.IGNORECASE), (body, error)
        assert any(reason in error.message for reason in REASONS), error.message
        erred.append(written)
    applied = report.overrides.get("sglang")
    # Every line GitHub shows with the key at its start is applied, with the value shown
    # (back-ticks quote a value: in Markdown it is shown as code, so the oracle sees the key
    # and nothing after it; in raw HTML the back-ticks are shown), or an error names that
    # very line (each generated line's `#N` is its own).
    for value in shown:
        if applied is not None and value.strip("`") in ("", applied.raw):
            continue
        assert any(re.search(re.escape(value.strip("`*_")) + r"(?![0-9])", line)
                   for line in erred), (body, value, applied, report.errors)
    # Nothing is applied that GitHub does not show as text (outside code, not struck out)
    # at the start of a line.
    anywhere = [match.group("value").strip("`*_") for line in shown_text_lines(body)
                if (match := KEY.match(line)) is not None]
    # ("" where the value is a code span: `ci-sglang-pr: `#1`` shows the key, then code)
    assert applied is None or applied.raw in anywhere or "" in anywhere, (
        body, render(body), applied)


# Tags a browser drops (an end tag with no open element of its name, a table part outside a
# table): GitHub shows one line, `Deps:ci-sglang-pr: #1`, a key after other text: refused.
STRAY_TAGS = ["</div>", "</section>", "</details>", "</summary>", "</article>", "</dl>",
              "</table>", "<tr>", "</tr>", "<tbody>", "<thead>", "<caption>"]


@pytest.mark.parametrize("tag", STRAY_TAGS)
def test_a_tag_the_browser_drops_starts_no_line(tag: str) -> None:
    body = f"Deps:{tag}ci-sglang-pr: #1"
    assert shown_text_lines(body) == ["Deps:ci-sglang-pr: #1"]  # cmark-gfm's HTML, read
    report = resolve_text(body)
    assert report.overrides == {}
    [error] = report.errors
    assert "`ci-sglang-pr:` follows other text on the line" in error.message


@pytest.mark.parametrize("tag", ["<div>", "<br>", "</p>", "<section>", "<details>"])
def test_a_tag_that_opens_a_block_starts_a_line(tag: str) -> None:
    report = resolve_text(f"Deps:{tag}ci-sglang-pr: #1")
    assert report.overrides["sglang"].raw == "#1"


def test_text_glued_after_a_back_ticked_value_is_one_word_and_an_error() -> None:
    report = resolve_text("ci-sglang-pr: `v0.5`.1")
    assert report.overrides == {}
    [error] = report.errors
    assert "GitHub shows one word, `v0.5.1`" in error.message
    assert resolve_text("ci-sglang-pr: `v0.5`.").overrides["sglang"].raw == "v0.5"
