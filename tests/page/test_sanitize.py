"""GitHub's sanitizer for HTML rendered here (page/sanitize.py): html-pipeline's allowlist, as
GitHub applies it to a description's raw HTML before the page shows it."""

from __future__ import annotations

import pytest

from rocm_deps.page.lines import shown_lines
from rocm_deps.page.sanitize import sanitized
from rocm_deps.page.tree import Element, parse


def tree(page: str) -> str:
    """The sanitized tree written compactly: elements with their kept attributes, text."""

    def written(node: Element | str) -> str:
        if isinstance(node, str):
            return node
        attributes = "".join(f" {key}={value!r}" for key, value in node.attributes.items())
        return f"<{node.name}{attributes}>{''.join(map(written, node.children))}</{node.name}>"

    return "".join(map(written, sanitized(parse(page)).children))


@pytest.mark.parametrize(("page", "expected"), [
    ('<span class="sr-only" data-x="1" title="t">a</span>', "<span title='t'>a</span>"),
    ('<a href="javascript:alert(1)">x</a><a href="/pull/1">y</a>',
     "<a>x</a><a href='/pull/1'>y</a>"),
    ('<a href="HTTPS://github.com/o/r">z</a>', "<a href='HTTPS://github.com/o/r'>z</a>"),
    ("<script>ci-sglang-pr: #1</script>b", "b"),
    ("<style>ci-sglang-pr: #1</style>", "ci-sglang-pr: #1"),  # unwrapped: its text shows
    ("a<section>b</section>c", "a b c"),  # removed with a blank, as Sanitize removes it
    ("<font color='red'>d</font>", "d"),
    ("<li>e</li>", " e "),  # a list item outside a list: removed with a blank
    ("<td>f</td>", "f"),  # a table cell outside a table
    ('<bdo dir="rtl">12</bdo>', "<bdo dir='rtl'>12</bdo>"),
    ("<ruby>g<rp>(</rp><rt>h</rt><rp>)</rp></ruby>",
     "<ruby>g<rp>(</rp><rt>h</rt><rp>)</rp></ruby>"),
], ids=["class-and-data-attributes", "javascript-href", "scheme-in-capitals", "script",
        "style", "section", "unknown-element", "stray-list-item", "stray-cell", "bdo", "ruby"])
def test_what_githubs_sanitizer_keeps(page: str, expected: str) -> None:
    assert tree(page) == expected


def test_a_page_rendered_here_shows_what_github_shows() -> None:
    """The author's `sr-only` hides nothing on GitHub's page; rendered here it must not
    either; `<rp>` is never shown."""
    page = '<p><span class="sr-only">ci-sglang-pr: #1</span><br>#30<rp>9</rp>421</p>'
    assert [line.text for line in shown_lines(page, sanitize=True)] == [
        "ci-sglang-pr: #1", "#30421"]
    assert [line.text for line in shown_lines(page)] == ["#30421"]  # GitHub's own sr-only
