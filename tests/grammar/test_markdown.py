"""Fidelity to GitHub's rendering (architecture §3): a line is a directive candidate exactly when
cmark-gfm, GitHub's own engine, shows it as text outside code."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.markdown import shown_lines
from rocm_deps.grammar.markdown.rules.html_block import MAX_JOINED
from tests.markdown_oracle import render, shown_text

TOKEN = re.compile(r"ci-sglang-pr: #(\d+)")
DEPENDENCIES = load_config(None).dependencies

# Each row: a body with one directive, whether GitHub shows the directive as text and (when
# it differs) whether it is a directive. Every row is checked against cmark-gfm first, with
# GitHub's options, so the table cannot drift from GitHub.
CASES = [
    # the constructs the issue found silently ignored
    ("inline-code-holds-comment-opener", "Use `<!--` to comment.\nci-sglang-pr: #7", True),
    ("indented-code-holds-comment-opener", "    <!-- example\n\nci-sglang-pr: #7", True),
    ("empty-comment", "<!-->\nci-sglang-pr: #7", True),
    ("empty-comment-dash", "<!--->\nci-sglang-pr: #7", True),
    ("text-after-comment-closes", "<!--\nx\n--> ci-sglang-pr: #7", True),
    ("fence-ends-with-quote", "> ```\nci-sglang-pr: #7", True),
    ("fence-ends-with-list-item", "- ```\n\nci-sglang-pr: #7", True),
    ("ordered-list-item", "1. ci-sglang-pr: #7", True),
    ("ordered-list-item-paren", "3) ci-sglang-pr: #7", True),
    # what stays hidden
    ("fenced", "```\nci-sglang-pr: #7\n```", False),
    ("fence-in-quote-continues", "> ```\n> ci-sglang-pr: #7", False),
    ("fence-in-item-continues", "- ```\n\n  ci-sglang-pr: #7", False),
    ("comment", "<!--\nci-sglang-pr: #7\n-->", False),
    ("comment-in-paragraph", "text <!-- hidden\nci-sglang-pr: #7\n-->", False),
    ("comment-reopened-after-close", "<!-- a --> b <!-- c\n\nci-sglang-pr: #7", False),
    ("comment-in-quote-runs-on", "> <!-- x\n\nci-sglang-pr: #7", False),
    ("code-span-across-lines", "a `b\nci-sglang-pr: #7\nc` d", False),
    ("indented", "    ci-sglang-pr: #7", False),
    ("indented-after-setext-heading", "text\n-\n    ci-sglang-pr: #7", False),
    # visible although it looks like code or a comment
    ("indented-paragraph-continuation", "text\n    ci-sglang-pr: #7", True),
    ("indented-in-list-item", "- a\n\n    ci-sglang-pr: #7", True),
    ("unclosed-inline-comment-is-text", "a <!-- b\n\nci-sglang-pr: #7", True),
    ("lazy-quote-continuation", "> quote\nci-sglang-pr: #7", True),
    ("comment-closed-by-bang", "<!-- a --!> ci-sglang-pr: #7", True),
    ("inside-div", "<div>\nci-sglang-pr: #7\n</div>", True),
    # cmark-gfm's own quirks, which GitHub's rendering follows: a stale backtick cache makes
    # the second code span literal; an unterminated comment disables later `<!` constructs.
    ("backtick-cache", "``` `x`\na `b\nci-sglang-pr: #7 a `b", True),
    ("cdata-in-paragraph", "c <![CDATA[ x\nci-sglang-pr: #7 ]]>", False),
    ("cdata-after-unterminated-comment", "a <!-- b\nc <![CDATA[ x\nci-sglang-pr: #7 ]]>", True),
    # link reference definitions render as nothing, over as many lines as they take
    ("reference-title-spans-lines", "[a]: /url '\nci-sglang-pr: #7\n'", False),
    ("reference-label-spans-lines", "[a\nci-sglang-pr: #7]: /url", False),
    ("reference-destination-on-next-line", "[a]:\n/url\nci-sglang-pr: #7", True),
    ("reference-title-must-end-its-line", "[a]: /url 'x' y\nci-sglang-pr: #7", True),
    ("reference-then-setext-underline", "[a]: /url\n===\nci-sglang-pr: #7", True),
    # a tight list writes no <p>: a bogus comment left open runs on into the next paragraph
    ("tight-list-paragraph-after-bogus-comment", "- <!A x\n  y> <!A x\n  ci-sglang-pr: #7",
     False),
    ("loose-list-paragraph-after-bogus-comment",
     "- <!A x\n  y> <!A x\n\n  ci-sglang-pr: #7\n- z", True),
    ("reference-alone-leaves-its-item-empty", "+ [a]: /url\n\n\n \tci-sglang-pr: #7", False),
    # footnotes: shown where referenced (at the end of the document), else not at all
    ("footnote-unreferenced", "[^x]: a\nci-sglang-pr: #7", False),
    ("footnote-referenced", "See [^x].\n\n[^x]: ci-sglang-pr: #7", True),
    ("footnote-referenced-by-itself", "[^x]: ci-sglang-pr: #7 [^x]", True),
    ("footnote-second-of-a-label", "See [^x].\n\n[^x]: a\n\n[^x]: ci-sglang-pr: #7", False),
    ("footnote-after-unclosed-comment", "See [^x].\n\n[^x]: ci-sglang-pr: #7\n\n<!-- open",
     False),
    ("footnote-indented-continuation", "See [^x].\n\n[^x]: a\n\n    ci-sglang-pr: #7", True),
    # tables: rows until a blank line or a block start; cells past the header's are dropped;
    # a row whose only cell is the directive shows it as that line
    ("table-row", "| a |\n|---|\n| ci-sglang-pr: #7 |", True),
    ("table-continuation-row", "| a | b |\n|---|---|\nci-sglang-pr: #7", True),
    ("table-indented-line-after", "| a |\n|---|\n    ci-sglang-pr: #7", False),
    ("table-cell-past-the-header", "| a |\n|---|\nb | ci-sglang-pr: #7", False),
    ("table-header-needs-as-many-cells", "| a | b |\n|---|\nci-sglang-pr: #7 | x", True),
    ("table-refused-once-refused-for-good", "a\n|---|---|\nb | c\n|---|---|\n"
                                             "    ci-sglang-pr: #7", True),
    # GitHub's tag filter: these tags are text, so what they would hide is shown; on the
    # line of the tag's text, as an HTML block's newlines are spaces to a browser
    ("style-block-filtered", "<style\nci-sglang-pr: #7\n  type=\"text/css\">", True, False),
    ("textarea-block-filtered", "<textarea>\n\nci-sglang-pr: #7\n</textarea>", True, False),
    ("script-inline-filtered", "a <script>\nci-sglang-pr: #7", True),
    ("pre-not-filtered", "<pre\nci-sglang-pr: #7", False),
]


def candidates(body: str) -> list[int]:
    return sorted(int(number) for line in shown_lines(body) if not line.code
                  for number in TOKEN.findall(line.prose))


def shown_by_github(body: str) -> list[int]:
    return sorted(int(number) for number in TOKEN.findall(shown_text(body)))


@pytest.mark.parametrize(("body", "shown", "directive"),
                         [(case[1], case[2], case[-1]) for case in CASES],
                         ids=[case[0] for case in CASES])
def test_a_directive_counts_exactly_when_github_shows_it(body: str, shown: bool,
                                                         directive: bool) -> None:
    expected = [7] if shown else []
    assert shown_by_github(body) == expected, render(body)
    assert candidates(body) == expected
    parsed = parse_body(body, DEPENDENCIES)
    assert [found.raw for found in parsed.directives.values()] == (["#7"] if directive else [])
    assert parsed.errors == ()


PREFIXES = ["", " ", "   ", "    ", "\t", "> ", ">", "> > ", ">>", "- ", "* ", "+ ", "1. ",
            "2) ", "  - ", "-   ", "- > ", "> - ", "1.  > ", "  ", "      ", " \t", "-\t", ">\t",
            "1.\t", "  >  ", "-      ", "## ", "###### ", "- [x] ", "- [ ] ", "> ## "]
PIECES = [
    "```", "````", "~~~", "~~~~", "```py", "``` `x`", "~~~ `x`", "<!--", "-->", "<!-- x -->",
    "<!-->", "<!--->", "x <!-- y", "y --> z", "<!-- a --> b <!-- c", "--!>", "<div>",
    "</div>", "<span>", '<a title="<!--">', '<a title="-->">', "Use `<!--` to comment.", "`",
    "``", "a `b", "c` d", "`` x ` y ``", "\\`", "text", "---", "===", "***", "# heading",
    "<?x", "?>", "-", "1.", "<pre>", "</pre>", "<!-- b --->", "<!---->", "<!----->",
    "<![CDATA[", "]]>", "<!A x", ">", "\\<!--", "`` ` ``", "*emphasis*", "<code>", "</code>",
    # link reference definitions: labels, destinations and titles over several lines
    "[a]: /url", "[a]: /url '", "'", "[a]:", "/url", "/url \"t", "\"", "[a", "b]: /u", "[a]",
    "(t)", "[a]: <x y>",
    # footnotes: definitions, and references that make them shown
    "[^x]: a", "[^x]:", "[^x]", "text [^x]", "[^y]: b", "[^X]",
    # tables and what ends them
    "| a | b |", "|---|---|", "| --- | :-: |", "a | b", "--- | ---", "|", "| x",
    # GitHub's tag filter, and the HTML block kinds of the filtered tags
    "<style", "<style>", "</style>", '  type="text/css">', "<textarea>", "</textarea>",
    "<script>", "</script>", "<title>", "<xmp>", "<iframe>", "<noembed>", "<plaintext>",
    # what GitHub shows differently from what is written: entities, emphasis, strikethrough,
    # headings and their closing sequence, task boxes, rows of several cells
    "&#45;", "&colon;", "&amp;lt;!--", "**", "*", "_", "~~", "~", "## x", "x ##", "[x]",
    "[ ]", "| x | y |", "x | y", "<pre>x", "<code>x</code>", "</code> x",
]
# How a line is built from a prefix, a piece and the directive.
SHAPES = ["directive", "piece", "piece directive", "directive piece", "blank"]
LINE = st.tuples(st.sampled_from(PREFIXES), st.sampled_from(SHAPES), st.sampled_from(PIECES))


@st.composite
def bodies(draw: st.DrawFn) -> str:
    lines, number = [], 0
    for prefix, shape, piece in draw(st.lists(LINE, max_size=14)):
        if shape == "blank":
            lines.append("")
            continue
        words = []
        for word in shape.split():
            if word == "directive":
                number += 1
                words.append(f"ci-sglang-pr: #{number}")
            else:
                words.append(piece)
        lines.append(prefix + " ".join(words))
    return "\n".join(lines)


# 200 examples of 10 bodies: the 2,000 bodies architecture §3 asks for, without paying
# hypothesis' per-example cost 2,000 times.
BODIES_PER_EXAMPLE = 10


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bodies(), min_size=BODIES_PER_EXAMPLE, max_size=BODIES_PER_EXAMPLE))
@example(["Use `<!--` to comment.\nci-sglang-pr: #1",
          "> ```\nci-sglang-pr: #1\n- ```\n\nci-sglang-pr: #2"])
# After a task item's box `[^y]: b` defines the link `[^y]`: every `[^y]` is that link, so
# the footnote `[^y]` is referenced by none and not shown.
@example(["[^y]: b\nci-sglang-pr: #1 [^y]: b\n- [x] [^y]: b"])
def test_shown_lines_agree_with_cmark_gfm(batch: list[str]) -> None:
    for body in batch:
        assert candidates(body) == shown_by_github(body), (body, render(body))


def test_nesting_deeper_than_the_bound_is_an_error_not_a_guess() -> None:
    from rocm_deps.grammar.markdown import MAX_DEPTH

    deepest = "> " * (MAX_DEPTH - 1) + "ci-sglang-pr: #7"  # the quotes and their paragraph
    assert [d.raw for d in parse_body(deepest, DEPENDENCIES).directives.values()] == ["#7"]
    parsed = parse_body("x\n" + "> " * MAX_DEPTH + "ci-sglang-pr: #7", DEPENDENCIES)
    assert parsed.directives == {}
    assert [error.line for error in parsed.errors] == [2]
    assert f"nest more than {MAX_DEPTH} deep" in parsed.errors[0].message


@pytest.mark.parametrize("item", ["- ", "5) ", "* > "], ids=["bullet", "ordered-5", "quote-in-item"])
def test_a_heading_inside_a_list_item_keeps_its_own_line_number(item: str) -> None:
    """The list item's number (0 for a bullet) once stood in for the heading's line."""
    lines = shown_lines(f"intro\n\n{item}# heading\n{item}# ci-sglang-pr: #1")
    assert [(line.number, line.text) for line in lines] == [
        (1, "intro"), (3, "heading"), (4, "ci-sglang-pr: #1")]
    parsed = parse_body(f"intro\n\n{item}# ci-sglang-pr: #1", DEPENDENCIES)
    assert [(found.raw, found.line) for found in parsed.directives.values()] == [("#1", 3)]


def test_a_run_on_html_block_line_is_bounded_so_the_parse_stays_linear() -> None:
    """A browser shows the lines of an HTML block as one line: what is kept of it is bounded
    (rules.html_block.MAX_JOINED), else each of many short lines would copy all before it.
    The key at its start is still read."""
    lines = shown_lines("<div>\nci-sglang-pr: #7\n" + "ab\n" * 20_000)
    assert len(lines) == 1
    assert lines[0].text.startswith("ci-sglang-pr: #7 ab ab")
    assert MAX_JOINED <= len(lines[0].text) < MAX_JOINED + 10
    assert len(lines[0].source) < MAX_JOINED + 10
