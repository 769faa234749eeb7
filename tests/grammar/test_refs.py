"""Value classification (docs/directives.md, the value table) and the ref-name rules, directly."""

from __future__ import annotations

import pytest

from rocm_deps.grammar.refs import RefSpec, ValueProblem, check_ref_format, classify

SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"
REPO = "sgl-project/sglang"


@pytest.mark.parametrize(("value", "expected"), [
    ("#12", RefSpec("pr", "refs/pull/12/head", pr=12)),
    ("pull/12", RefSpec("pr", "refs/pull/12/head", pr=12)),
    ("SGL-Project/SGLang#12", RefSpec("pr", "refs/pull/12/head", pr=12)),
    (f"https://github.com/{REPO}/pull/12/files", RefSpec("pr", "refs/pull/12/head", pr=12)),
    (SHA.upper(), RefSpec("commit", SHA, sha=SHA)),
    (f"https://github.com/{REPO}/commit/{SHA}", RefSpec("commit", SHA, sha=SHA)),
    ("ABC1234", RefSpec("short-commit", "abc1234")),
    ("refs/tags/v0.5.0", RefSpec("ref", "refs/tags/v0.5.0")),
    ("feature/rocm", RefSpec("ref", "feature/rocm")),
], ids=["hash", "pull-slash", "cross-case", "url-files", "sha-upper", "commit-url", "short",
        "tag", "branch"])
def test_accepted_values(value: str, expected: RefSpec) -> None:
    assert classify(value, REPO) == expected


@pytest.mark.parametrize(("value", "message"), [
    ("", "the value is empty"),
    ("1234", "did you mean `#1234` (pull request 1234 of sgl-project/sglang)?"),
    ("other/sglang#1", "points at other/sglang, but this dependency is fetched from"),
    ("#0", "is not a valid pull request number"),
    ("refs/remotes/x", "is not a supported ref"),
    ("https://gitlab.com/x/y", "is not a supported URL"),
    ("x\u200b", "invisible character U+200B ZERO WIDTH SPACE"),
    ("caf\u00e9", "non-ASCII character U+00E9"),
], ids=["empty", "bare-number", "other-repo", "pr-zero", "refs-remotes",
        "other-host", "invisible", "non-ascii"])
def test_refused_values(value: str, message: str) -> None:
    result = classify(value, REPO)
    assert isinstance(result, ValueProblem)
    assert message in result.message


PULL = f"https://github.com/{REPO}/pull/30421"


@pytest.mark.parametrize(("value", "expected", "caution"), [
    (f"{PULL}/commits/{SHA}.", RefSpec("commit", SHA, pr=30421, sha=SHA), "ends before `.`"),
    (f"{PULL}/changes/{SHA}.", RefSpec("commit", SHA, pr=30421, sha=SHA), "ends before `.`"),
    (f"{PULL}/files/{SHA}", RefSpec("commit", SHA, pr=30421, sha=SHA), None),
    (f"{PULL}/commits/{SHA}),", RefSpec("commit", SHA, pr=30421, sha=SHA), "ends before `),`"),
    (f"{PULL}/commits/{SHA}#diff-1", RefSpec("commit", SHA, pr=30421, sha=SHA), None),
    (f"{PULL}.", RefSpec("pr", "refs/pull/30421/head", pr=30421), "ends before `.`"),
    ("pull/30421/head", RefSpec("pr", "refs/pull/30421/head", pr=30421), None),
    (f"https://github.com/{REPO}/tree/pull/30421/head",
     RefSpec("pr", "refs/pull/30421/head", pr=30421), None),
], ids=["commits-period", "changes-period", "files-sha", "paren-comma", "anchor",
        "pull-period", "pull-head", "tree-pull-head"])
def test_a_url_ends_where_githubs_autolinker_ends_it(value: str, expected: RefSpec,
                                                     caution: str | None) -> None:
    """A PR commit URL with a sentence's period is that commit, never the PR's moving head;
    `pull/N/head` is pull request N (the merge guard applies), not a branch."""
    result = classify(value, REPO)
    assert isinstance(result, RefSpec), result
    assert (result.kind, result.ref, result.pr, result.sha) == (
        expected.kind, expected.ref, expected.pr, expected.sha)
    assert (caution in (result.caution or "")) if caution else result.caution is None


@pytest.mark.parametrize("value", [
    f"{PULL}/commits/{SHA}.patch", f"{PULL}/commits/{SHA}~1", f"{PULL}/commits/{SHA}^",
    f"{PULL}/files/{SHA}..{SHA}", f"{PULL}/changes/{SHA}.diff", f"{PULL}/commits/{SHA}/x",
    "pull/30421/heads", "pull/30421/merge/x", "refs/pull/30421/merged",
])
def test_anything_glued_to_a_pull_requests_commit_is_an_error_never_its_head(value: str) -> None:
    assert isinstance(classify(value, REPO), ValueProblem)


@pytest.mark.parametrize(("ref", "reason"), [
    ("main", None),
    ("-x", "it starts with '-'"),
    ("a..b", "it contains '..'"),
    ("a.lock", "ends with '.lock'"),
    ("x" * 256, "longer than 255 bytes"),
    ("a b", "it contains a space"),
])
def test_check_ref_format(ref: str, reason: str | None) -> None:
    result = check_ref_format(ref)
    if reason is None:
        assert result is None
    else:
        assert result is not None and reason in result


@pytest.mark.parametrize("value", ["pull/30421/merge", "refs/pull/30421/merge"])
def test_the_merge_forms_are_the_pull_request_merged_onto_its_base(value: str) -> None:
    assert classify(value, REPO) == RefSpec("pr", "refs/pull/30421/merge", pr=30421)
