"""One page for both paths: with a token the tool reads GitHub's own HTML (`body_html`), without
one it renders the description with GitHub's engine and passes it through GitHub's sanitizer.
Both must give one verdict. The token path is given what GitHub answers (tests/github_html.py:
GitHub's sanitizer, written independently, then GitHub's own additions); the verdict is what
is applied and every finding. Bodies: every example of the CommonMark spec with a directive
put before, after and into it; the descriptions of the grammar's tables; generated bodies.

And a value is what the page shows, or an error: raised, lowered, annotated or reordered text
touching it fails the run, whichever path reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from rocm_deps.config import load_config
from rocm_deps.demo.world import SCENARIOS
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import ParsedBody, code_findings
from tests.conftest import generated_examples
from tests.github_html import body_html
from tests.grammar.test_directives import CASES
from tests.grammar.test_near_misses import PROSE
from tests.grammar.test_shown_directives import bodies

CONFIG = load_config(None)
MILES = "radixark/miles"
EXAMPLES = json.loads((Path(__file__).parent / "data" / "commonmark_examples.json").read_text(
    encoding="utf-8"))["examples"]
DIRECTIVE = "ci-sglang-pr: #30421"


def verdict(parsed: ParsedBody) -> tuple[Any, ...]:
    """What is applied (each dependency's ref, each value), and the level of each finding:
    whether the run fails, warns or notes. What a message quotes differs with the page it
    quotes (GitHub's shows a link shorter: `#12` for a pull request URL, a short SHA)."""
    findings = [*parsed.findings, *code_findings(parsed, {*parsed.directives, *parsed.values},
                                                 CONFIG.code_directives)]
    return ({name: directive.spec.ref for name, directive in parsed.directives.items()},
            {name: value.raw for name, value in parsed.values.items()},
            sorted(finding.level for finding in findings))


def both(body: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(the token path's verdict, the token-less path's)."""
    token = parse_body(body, CONFIG.dependencies, CONFIG.values, MILES, body_html(body, MILES))
    local = parse_body(body, CONFIG.dependencies, CONFIG.values, MILES)
    return verdict(token), verdict(local)


def with_directive(markdown: str) -> list[str]:
    """The example with the directive before it, after it, and at the start of its last line."""
    lines = markdown.rstrip("\n").split("\n")
    return [f"{DIRECTIVE}\n\n{markdown}", f"{markdown}\n{DIRECTIVE}\n",
            "\n".join([*lines[:-1], f"{DIRECTIVE} {lines[-1]}"]) + "\n"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{item['number']}-{item['section']}"
                                                   for item in EXAMPLES])
def test_the_commonmark_examples_with_a_directive_read_alike_on_both_paths(
        example: dict[str, Any]) -> None:
    for body in with_directive(example["markdown"]):
        token, local = both(body)
        assert token == local, body


@pytest.mark.parametrize("case", [case for case in CASES if case[1]], ids=[
    case[0] for case in CASES if case[1]])
def test_the_grammars_descriptions_read_alike_on_both_paths(case: tuple[Any, ...]) -> None:
    token, local = both(case[1])
    assert token == local


ROOT = Path(__file__).resolve().parents[2]
DESCRIPTIONS = {
    "examples/description.md": (ROOT / "examples" / "description.md").read_text(encoding="utf-8"),
    **{f"demo {name}": body for name, body in SCENARIOS.items()},
    **{f"prose {index}": body for index, body in enumerate(PROSE)},
}


@pytest.mark.parametrize("name", sorted(DESCRIPTIONS))
def test_the_example_and_demo_descriptions_and_prose_read_alike_on_both_paths(
        name: str) -> None:
    token, local = both(DESCRIPTIONS[name])
    assert token == local


@settings(max_examples=generated_examples(150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(bodies())
def test_generated_descriptions_read_alike_on_both_paths(body: str) -> None:
    token, local = both(body)
    assert token == local, body


NOT_PLAIN = "with part of it not as plain text"


@pytest.mark.parametrize(("body", "applied", "error"), [
    # What a reader sees is #3042 with a raised 1: never #30421.
    ("ci-sglang-pr: #3042[^1]\n\n[^1]: a note", None, NOT_PLAIN),
    ("ci-sglang-pr: #3042<sup>1</sup>", None, NOT_PLAIN),
    ("ci-sglang-pr: #3042<sub>1</sub>", None, NOT_PLAIN),
    ("ci-sglang-pr: #<bdo dir=\"rtl\">12403</bdo>", None, NOT_PLAIN),
    ("ci-sglang-pr: #304<span dir=\"rtl\">21</span>", None, NOT_PLAIN),
    ("ci-sglang-pr: #30<ruby>421<rt>x</rt></ruby>", None, NOT_PLAIN),
    # <rp> is never shown: the page shows #30421, which is applied.
    ("ci-sglang-pr: #3042<rp>7</rp>1", "#30421", None),
    # A footnote marker after a blank does not touch the value: a comment after it.
    ("ci-sglang-pr: #30421 [^1]\n\n[^1]: a note", "#30421", None),
    # An author's own `sr-only` is stripped by GitHub's sanitizer: the page shows the text.
    ("<span class=\"sr-only\">ci-sglang-pr: #30421</span>", "#30421", None),
    ("ci-sglang-pr: #304<span class=\"sr-only\">99</span>21", "#3049921", None),
    ("<span data-footnote-backref>ci-sglang-pr: #30421</span>", "#30421", None),
    # A second key on one displayed line: a line written so, or lines the page joins.
    ("ci-megatron-pr: #5008 ci-sglang-pr: #1008", None,
     "GitHub shows `ci-sglang-pr:` after the value on the same line as `ci-megatron-pr:`"),
    ("<!--\nnote\n--> ci-megatron-pr: #5008\n\n<!--\nnote\n--> ci-sglang-pr: #1008", None,
     "GitHub shows `ci-sglang-pr:` after the value on the same line as `ci-megatron-pr:`"),
    ("``foo\nci-sglang-pr: #4321``", None, "as code (a code span or `<code>`)"),
], ids=["footnote-marker", "sup", "sub", "bdo", "dir-rtl", "ruby", "rp-hidden",
        "footnote-after-a-blank", "sr-only-of-the-author", "sr-only-inside-the-value",
        "backref-attribute-of-the-author", "second-key-on-a-line", "joined-by-raw-html",
        "key-inside-a-code-span"])
def test_a_value_is_what_the_page_shows_or_an_error(body: str, applied: str | None,
                                                     error: str | None) -> None:
    token, local = both(body)
    assert token == local
    parsed = parse_body(body, CONFIG.dependencies, CONFIG.values, MILES)
    errors = [finding.message for finding in (*parsed.findings, *code_findings(
        parsed, set(parsed.directives))) if finding.level == "error"]
    if applied is None:
        assert "sglang" not in parsed.directives
        assert any(error in message for message in errors), errors
    else:
        assert parsed.directives["sglang"].raw == applied
        assert errors == []
