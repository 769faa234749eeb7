"""Value classification (architecture §3 value table) and the ref-name rules, directly."""

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
