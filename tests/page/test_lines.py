"""The lines GitHub's page displays (page/lines.py), read from `body_html` as GitHub's API
answers it: `dir="auto"`, `notranslate` code, issue and commit links, heading anchors with their
`svg`, task-list inputs, footnotes with their hidden heading and back-links, `<details>`. The
fixtures are GitHub's shapes, written out (not produced by the tool or the test's renderer)."""

from __future__ import annotations

from rocm_deps.page.lines import ShownLine, shown_lines

ISSUE_LINK = ('<a class="issue-link js-issue-link" data-error-text="Failed to load title" '
              'data-id="3456789012" data-permission-text="Title is private" '
              'data-url="https://github.com/radixark/miles/issues/30421" '
              'data-hovercard-type="pull_request" '
              'data-hovercard-url="/radixark/miles/pull/30421/hovercard" '
              'href="https://github.com/radixark/miles/pull/30421">#30421</a>')
BODY_HTML = f"""<div class="markdown-heading" dir="auto"><h2 tabindex="-1" class="heading-element" dir="auto">Summary</h2><a id="user-content-summary" class="anchor" aria-label="Permalink: Summary" href="#summary"><svg class="octicon octicon-link" viewBox="0 0 16 16" version="1.1" width="16" height="16" aria-hidden="true"><path d="m7.775 3.275 1.25-1.25a3.5"></path></svg></a></div>
<p dir="auto">Bumps SGLang.<br>
ci-sglang-pr: {ISSUE_LINK}<br>
ci-megatron-pr: <a class="commit-link" data-hovercard-type="commit" data-hovercard-url="https://github.com/radixark/Megatron-LM/commit/3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e/hovercard" href="https://github.com/radixark/Megatron-LM/commit/3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e">radixark/Megatron-LM@<tt>3f1c0d9</tt></a></p>
<ul class="contains-task-list">
<li class="task-list-item"><input type="checkbox" id="" disabled="" class="task-list-item-checkbox" checked=""> ci-image-tag: <code class="notranslate">nightly</code></li>
</ul>
<details><summary>Usage</summary>
<div class="snippet-clipboard-content notranslate position-relative overflow-auto"><pre class="notranslate"><code>ci-sglang-pr: #1
ci-megatron-pr: main
</code></pre></div>
</details>
<p dir="auto">See the note<sup><a href="#user-content-fn-1-4b0e" id="user-content-fnref-1-4b0e" data-footnote-ref="" aria-describedby="footnote-label">1</a></sup>.</p>
<section data-footnotes="" class="footnotes"><h2 id="footnote-label" class="sr-only" dir="auto">Footnotes</h2>
<ol dir="auto">
<li id="user-content-fn-1-4b0e">
<p dir="auto">ci-sglang-pr: #2 <a href="#user-content-fnref-1-4b0e" class="data-footnote-backref" aria-label="Back to reference 1"><g-emoji class="g-emoji" alias="leftwards_arrow_with_hook">↩</g-emoji></a></p>
</li>
</ol>
</section>"""


def texts(lines: list[ShownLine]) -> list[str]:
    return [line.text for line in lines]


def test_githubs_shapes_read_as_the_page_shows_them() -> None:
    lines = shown_lines(BODY_HTML)
    assert texts(lines) == [
        "Summary", "Bumps SGLang.", "ci-sglang-pr: #30421",
        "ci-megatron-pr: radixark/Megatron-LM@3f1c0d9", "ci-image-tag: nightly", "Usage",
        "ci-sglang-pr: #1", "ci-megatron-pr: main", "See the note1.", "ci-sglang-pr: #2"]
    by_text = {line.text: line for line in lines}
    # A link's characters carry its target; the rest none.
    issue = by_text["ci-sglang-pr: #30421"]
    assert set(issue.links[:14]) == {None}
    assert set(issue.links[14:]) == {"https://github.com/radixark/miles/pull/30421"}
    commit = by_text["ci-megatron-pr: radixark/Megatron-LM@3f1c0d9"]
    assert commit.code[-7:] == (True,) * 7 and not any(commit.code[:-7])  # the <tt>
    # A task box shows no text; a code span is code, the key before it text.
    tag = by_text["ci-image-tag: nightly"]
    assert (tag.code[:14], tag.code[14:]) == ((False,) * 14, (True,) * 7)
    # A code block: all code, a block; the footnote's hidden heading and back-link: nothing.
    assert by_text["ci-sglang-pr: #1"].block and all(by_text["ci-sglang-pr: #1"].code)
    assert "Footnotes" not in texts(lines) and not any("↩" in text for text in texts(lines))


def test_cells_of_a_row_with_several_cells_are_marked() -> None:
    lines = shown_lines('<table dir="auto"><thead><tr><th>a</th><th>b</th></tr></thead><tbody>'
                        "<tr><td>ci-sglang-pr: #1</td><td>x</td></tr></tbody></table>"
                        '<table><tbody><tr><td>ci-sglang-pr: #2</td></tr></tbody></table>')
    assert [(line.text, line.cell) for line in lines] == [
        ("a", True), ("b", True), ("ci-sglang-pr: #1", True), ("x", True),
        ("ci-sglang-pr: #2", False)]


def test_struck_text_white_space_and_line_starts() -> None:
    lines = shown_lines("<p>a  \n b<del>c</del></p><div>d<br/>e</div>f<span>g</span>"
                        "<center>h</center><q>i</q>")
    assert texts(lines) == ["a bc", "d", "e", "fgh\u201ci\u201d"]  # <center> unwrapped
    assert lines[0].struck == (False, False, False, True)


def test_what_the_sanitizer_hides_is_not_read() -> None:
    assert texts(shown_lines("<style>ci-sglang-pr: #1</style><script>x</script>"
                             "<template>y</template><p>z</p>")) == ["z"]
