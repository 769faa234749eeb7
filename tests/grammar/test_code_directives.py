"""Directives GitHub shows as code: never applied; an error unless something else names the
same dependency or value (then the code line is an example, and a notice says so)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import code_findings
from tests.conftest import Cli, EventWriter
from tests.markdown_oracle import render

DEPENDENCIES = load_config(None).dependencies

# Shaped like a real Miles description that meant its directive and got a green baseline run:
# a summary, a "## Usage" heading, the directive alone in a ```text block.
USAGE_IN_A_TEXT_BLOCK = """\
Runs the ROCm suite against Megatron-LM pull request 84 before it merges.

## Usage

```text
ci-megatron-pr: #84
```
"""


def test_a_directive_alone_in_a_text_block_fails_the_resolve_naming_line_and_block(
        cli: Cli, tmp_path: Path) -> None:
    body = tmp_path / "description.md"
    body.write_text(USAGE_IN_A_TEXT_BLOCK, encoding="utf-8")
    result = cli("resolve", "--body-file", str(body))
    assert result.code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error title=rocm-deps%3A directive shown as code,line=6::line 6: `ci-megatron-pr: "
        "#84` — GitHub shows this inside a code block (fenced, indented or `<pre>`), so it is "
        "not applied and megatron would stay at the image's copy; to apply it, write "
        "`ci-megatron-pr: #84` on a line of its own outside code (after a blank line), or "
        "delete it"]
    assert set(result.outputs) == {"report"}  # nothing decided: no skip flag


@pytest.mark.parametrize(("body", "kind"), [
    ("```text\nci-megatron-pr: #84\n```", "fenced"),
    ("    ci-megatron-pr: #84", "indented"),
    ("<pre>\nci-megatron-pr: #84\n</pre>", "pre"),
    ("<code>ci-megatron-pr: #84</code>", "code"),
    ("`ci-megatron-pr: #84`", "code span"),
    ("| a | b |\n|---|---|\n| ci-megatron-pr: #84 | c |", "cell"),
    ("<table><tr><td>\nci-megatron-pr: #84\n</td><td>note</td></tr></table>", "cell"),
    ("<table><tr><td>ci-megatron-pr: #84</td><td>note</td></tr></table>", "cell"),
    ("<pre>\nci&#45;megatron-pr: #84\n</pre>", "pre"),
], ids=["fenced", "indented", "pre", "code", "code-span", "cell-of-several",
        "raw-html-cell-of-several", "raw-html-cells-on-one-line", "pre-with-an-entity"])
def test_a_code_line_is_an_example_when_another_line_names_the_dependency(
        body: str, kind: str) -> None:
    alone = parse_body(body, DEPENDENCIES)
    [error] = code_findings(alone, set(alone.directives))
    assert (error.level, alone.directives) == ("error", {})
    with_the_real_one = parse_body(f"ci-megatron-pr: #85\n\n{body}", DEPENDENCIES)
    [notice] = code_findings(with_the_real_one, set(with_the_real_one.directives))
    assert notice.level == "notice"
    assert notice.message.endswith("an example, not applied (megatron is named elsewhere)")
    assert with_the_real_one.directives["megatron"].raw == "#85"


def test_a_dispatch_input_makes_the_code_line_an_example(cli: Cli,
                                                        write_event: EventWriter) -> None:
    path = write_event(USAGE_IN_A_TEXT_BLOCK)
    result = cli("resolve", "--event-name", "pull_request", "--event-path", path,
                 "--input", "ci_megatron_pr=#84")
    assert result.code == 0, result.stderr
    assert result.outputs["megatron_ref"] == "refs/pull/84/head"
    assert "::notice title=rocm-deps::line 6: `ci-megatron-pr: #84` is shown inside a code " \
           "block (fenced, indented or `<pre>`): an example, not applied" in result.stderr


def test_code_directives_warn_downgrades_the_error(cli: Cli, tmp_path: Path) -> None:
    body, config = tmp_path / "description.md", tmp_path / "rocm-deps.toml"
    body.write_text(USAGE_IN_A_TEXT_BLOCK, encoding="utf-8")
    config.write_text('code-directives = "warn"\n', encoding="utf-8")
    result = cli("resolve", "--body-file", str(body), "--config", str(config))
    assert result.code == 0, result.stderr
    assert result.outputs["skip_dependency_install"] == "true"
    assert "::warning title=rocm-deps%3A directive shown as code,line=6::line 6:" in result.stderr


def test_a_value_directive_in_code_is_an_error_too(cli: Cli, tmp_path: Path) -> None:
    body = tmp_path / "description.md"
    body.write_text("Image:\n\n```\nci-image-tag: nightly-20261201\n```\n", encoding="utf-8")
    result = cli("resolve", "--body-file", str(body), "--profile", "cuda")
    assert result.code == 1
    assert "so it is not applied and image-tag would keep its default" in result.stderr
    assert "image_tag" not in result.outputs


def test_a_comment_stays_silent() -> None:
    """PR templates keep commented examples."""
    parsed = parse_body("<!--\nci-megatron-pr: #84\n-->\n`x` text", DEPENDENCIES)
    assert (parsed.findings, parsed.in_code, parsed.directives) == ((), (), {})


def test_merge_check_fails_on_a_code_only_directive(cli: Cli, tmp_path: Path) -> None:
    body = tmp_path / "description.md"
    body.write_text(USAGE_IN_A_TEXT_BLOCK, encoding="utf-8")
    result = cli("merge-check", "--body-file", str(body))
    assert result.code == 1
    assert "GitHub shows this inside a code block (fenced, indented or `<pre>`)" in result.stderr


def test_a_raw_html_row_of_one_cell_is_shown_as_its_line() -> None:
    parsed = parse_body("<table><tr><td>\nci-megatron-pr: #84\n</td></tr></table>",
                        DEPENDENCIES)
    assert {name: directive.spec.ref for name, directive in parsed.directives.items()} == {
        "megatron": "refs/pull/84/head"}
    assert parsed.in_code == ()


def test_an_entity_in_a_fenced_block_is_shown_as_written_not_as_a_key() -> None:
    """Markdown code shows `&#45;` as those five characters: no key there."""
    parsed = parse_body("```\nci&#45;megatron-pr: #84\n```", DEPENDENCIES)
    assert parsed.in_code == ()


# Ways of showing a directive as code that a reader may not spot as code: cmark reads the
# text inside raw `<code>` as Markdown, so an entity, an escape, emphasis, a link or a
# comment in the key still shows `ci-sglang-pr: #1`, as code.
SHOWN_AS_CODE = {
    "entity-in-key": "<code>ci&#45;sglang-pr: #1</code>",
    "backslash-escape-in-key": "<code>ci\\-sglang-pr: #1</code>",
    "bold-key": "<code>**ci-sglang-pr**: #1</code>",
    "emphasised-key": "<code>*ci-sglang-pr*: #1</code>",
    "linked-key": "<code>[ci-sglang-pr](https://example.com): #1</code>",
    "comment-in-key": "<code>ci-sglang<!-- x -->-pr: #1</code>",
    "code-in-emphasis": "*<code>ci-sglang-pr: #1</code>*",
    "code-in-strong": "**<code>ci-sglang-pr: #1</code>**",
    "code-in-details": "<details><summary>Deps</summary><code>ci-sglang-pr: #1</code></details>",
    "two-code-spans": "`ci-sglang-pr:` `#1`",
}


def code_text(body: str) -> str:
    """The text of the (one) <code> element GitHub renders for `body`, as a browser shows
    it: tags and comments gone, entities decoded (cmark-gfm itself renders it)."""
    found = re.findall(r"<code>(.*?)</code>", render(body), re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<!--.*?-->|<[^>]*>", "", text)) for text in found)


@pytest.mark.parametrize("body", SHOWN_AS_CODE.values(), ids=SHOWN_AS_CODE.keys())
def test_a_directive_shown_as_code_in_any_form_is_an_error(body: str) -> None:
    assert code_text(body) == "ci-sglang-pr: #1"  # what GitHub shows, as code
    parsed = parse_body(body, DEPENDENCIES)
    assert parsed.directives == {}
    [finding] = code_findings(parsed, set(), "error")
    assert (finding.level, finding.line) == ("error", 1)
    assert "GitHub shows this" in finding.message and "as code" in finding.message


# Code after markup that shows no text (a task box, emphasis, a link's bracket), a
# look-alike or a task box inside code, and the code of a row's only line: each still a
# directive shown as code (an independent generator of descriptions found them green).
CODE_AFTER_MARKUP = {
    "task-box-code-span": "- [ ] `ci-sglang-pr: #1`",
    "task-box-raw-code": "- [x] <code>ci-sglang-pr: #1</code>",
    "task-box-code-key": "- [x] `ci-sglang-pr`: #1",
    "linked-code-key": "[`ci-sglang-pr`: #1](https://example.com)",
    "strong-code-key": "**`ci-sglang-pr`**: #1",
    "double-back-ticks": "- [ ] ``ci-sglang-pr: #1``",
    "look-alike-in-code": "`ci-sglang\u2010pr: #1`",
    "fullwidth-colon-in-a-fence": "~~~\nci-sglang-pr\uff1a #1\n~~~",
    "task-box-in-a-fence": "~~~\n- [x] ci-sglang-pr: #1\n~~~",
    "zero-width-space-in-a-fence": "```\nci-sglang\u200b-pr: #1\n```",
}


@pytest.mark.parametrize("body", CODE_AFTER_MARKUP.values(), ids=CODE_AFTER_MARKUP.keys())
def test_code_behind_markup_or_a_look_alike_is_still_a_directive_shown_as_code(
        body: str) -> None:
    assert "<code>" in render(body)  # GitHub shows code
    parsed = parse_body(body, DEPENDENCIES)
    assert parsed.directives == {}
    [finding] = code_findings(parsed, set(), "error")
    assert (finding.level, finding.title) == ("error", "rocm-deps: directive shown as code")


def test_a_block_tag_closes_the_paragraph_and_the_del_opened_in_it() -> None:
    """`<del>` is no formatting element the HTML parser reopens: the `<div>` after it closes
    the paragraph and the strikethrough with it, so the line is shown plain and applied."""
    parsed = parse_body("<del><div>ci-sglang-pr: #1</div></del>", DEPENDENCIES)
    assert parsed.directives["sglang"].raw == "#1"
    struck = parse_body("<del>ci-sglang-pr: #1</del>", DEPENDENCIES)
    assert (struck.directives, [f.level for f in struck.findings]) == ({}, ["warning"])


@pytest.mark.parametrize("row", ["| ci-sglang-pr\\: #1 | x |", "| ci-sglang-pr\uff1a #1 | x |",
                                 "| - [ ] ci-sglang-pr: #1 | x |"],
                         ids=["escaped-colon", "fullwidth-colon", "task-box"])
def test_a_cell_of_a_row_with_several_is_not_applied_in_any_spelling(row: str) -> None:
    """The table rule (a cell is side by side, not a line) holds for a key written with an
    escape, a look-alike colon or a task box too: an error when nothing else names it."""
    parsed = parse_body(f"| a | b |\n|---|---|\n{row}\n", DEPENDENCIES)
    assert parsed.directives == {}
    [finding] = code_findings(parsed, set(), "error")
    assert (finding.level, finding.line) == ("error", 3)
    assert "as one cell of a table row with several cells" in finding.message
