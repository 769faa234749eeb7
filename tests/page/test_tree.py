"""HTML parsed as a browser parses it (page/tree.py): the WHATWG rules a description's raw HTML
can meet, each checked on the tree it builds."""

from __future__ import annotations

import pytest

from rocm_deps.page.tree import Element, parse


def shape(node: Element | str) -> str:
    """The tree as a compact string: `name(children)`, text quoted."""
    if isinstance(node, str):
        return repr(node)
    return f"{node.name}({','.join(shape(child) for child in node.children)})"


@pytest.mark.parametrize(("html", "tree"), [
    # Comments, as the tokenizer ends them: `<!-->` and `<!--->` at once, `--!>` too.
    ("a<!-- b -->c", "body('ac')"),
    ("a<!-->b", "body('ab')"),
    ("a<!--->b", "body('ab')"),
    ("a<!-- b --!>c", "body('ac')"),
    ("a<!-- never closed", "body('a')"),
    ("a<?php x ?>b<!x>c", "body('abc')"),
    ("a < b", "body('a < b')"),
    # Raw text: no tags inside.
    ("<script>x<p>y</p></script>z", "body(script('x<p>y</p>'),'z')"),
    ("<textarea>&amp;<b></textarea>", "body(textarea('&<b>'))"),
    # Implied ends.
    ("<p>a<div>b</div>", "body(p('a'),div('b'))"),
    ("</p>", "body(p())"),
    ("<ul><li>a<li>b</ul>", "body(ul(li('a'),li('b')))"),
    ("<h1>a<h2>b", "body(h1('a'),h2('b'))"),
    ("<div>a</span>b</div>", "body(div('ab'))"),
    ("a</br>b", "body('a',br(),'b')"),
    ("<pre>\nx</pre>", "body(pre('x'))"),
    # Tables: a cell and row implied, text and elements fostered out before the table.
    ("<table><td>a</td></table>", "body(table(tbody(tr(td('a')))))"),
    ("<table>x<tr><td>a</td></tr></table>", "body('x',table(tbody(tr(td('a')))))"),
    ("<table><tr><td>a</td></tr><div>b</div></table>",
     "body(div('b'),table(tbody(tr(td('a')))))"),
    ("<table><tr><td>a<td>b</table>", "body(table(tbody(tr(td('a'),td('b')))))"),
    # Formatting elements reopen in the next block.
    ("<p><code>a</p><p>b</p>", "body(p(code('a')),p(code('b')))"),
    ("<p><b>a</p>c</b>d", "body(p(b('a')),b('c'),'d')"),
    ("<del><p>a</p></del>b", "body(del(p('a')),'b')"),  # del is no formatting element
], ids=lambda value: value if len(value) < 40 else value[:40])
def test_a_browser_builds_this_tree(html: str, tree: str) -> None:
    assert shape(parse(html)) == tree


def test_deep_nesting_is_bounded_and_keeps_the_text() -> None:
    tree = parse("<div>" * 5000 + "deep" + "</div>" * 5000)
    depth, node = 0, tree
    while node.children and isinstance(node.children[-1], Element):
        node, depth = node.children[-1], depth + 1
    assert depth < 600
    assert "deep" in str(node.children)


def test_attributes_are_read_as_a_browser_reads_them() -> None:
    [link] = parse('<a HREF="https://x/&amp;y" class=issue-link data-id=\'5\' hidden>t</a>'
                   ).children
    assert isinstance(link, Element)
    assert link.attributes == {"href": "https://x/&y", "class": "issue-link", "data-id": "5",
                               "hidden": ""}
