"""What each merge policy says of each state a named dependency pull request can be in."""

from __future__ import annotations

import pytest

from rocm_deps.guard.document import PullState, Verdict
from rocm_deps.guard.merge_check import policy_verdict as judge
from rocm_deps.guard.settings import Policy

REPOSITORY = "sgl-project/sglang"


@pytest.mark.parametrize(("policy", "state", "number", "verdict", "reason"), [
    ("require-merged", "merged", 7, "pass", "`ci-sglang-pr: #7`: sgl-project/sglang#7 is merged"),
    ("require-merged", "open", 7, "fail", "`ci-sglang-pr: #7`: sgl-project/sglang#7 is still "
                                          "open. Merged now"),
    ("require-merged", "closed (unmerged)", 7, "fail", "was closed without being merged"),
    ("require-merged", "not a PR", None, "pass", "names no pull request (not a PR); nothing "
                                                 "to wait for"),
    ("warn", "open", 7, "warn", "is still open"),
    ("warn", "merged", 7, "pass", "is merged"),
    ("forbid-overrides", "not asked", 7, "fail", "the forbid-overrides policy merges only pull "
                                                 "requests that test the image's baseline"),
    ("forbid-overrides", "not a PR", None, "fail", "delete the line"),
], ids=lambda value: str(value).replace(" ", "-"))
def test_each_policy_and_state(policy: Policy, state: PullState, number: int | None,
                               verdict: Verdict, reason: str) -> None:
    given, why = judge(policy, "ci-sglang-pr", "#7", state, state == "merged", REPOSITORY,
                       number)
    assert given == verdict
    assert reason in why
