"""The merge guard's verdict (contract/guard.py): what each policy says of each state a named
dependency pull request or a prerequisite can be in, and the status merge-check writes and
the sweep recomputes."""

from __future__ import annotations

import pytest

from rocm_deps.contract.guard import (
    Policy,
    PullState,
    Verdict,
    Waited,
    guard_judgement,
    policy_verdict,
    state_of,
)
from rocm_deps.contract.status import Judgement

REPOSITORY = "sgl-project/sglang"


@pytest.mark.parametrize(("policy", "state", "number", "verdict", "reason"), [
    ("require-merged", "merged", 7, "pass", "`ci-sglang-pr: #7`: sgl-project/sglang#7 is merged"),
    ("require-merged", "open", 7, "fail", "`ci-sglang-pr: #7`: sgl-project/sglang#7 is still "
                                          "open. Merged now"),
    ("require-merged", "closed (unmerged)", 7, "fail", "was closed without being merged"),
    ("require-merged", "merged into another branch", 7, "fail",
     "was merged into `release`, not into its repository's default branch, so it has not "
     "landed"),
    ("require-merged", "not a PR", None, "pass", "names no pull request (not a PR); nothing "
                                                 "to wait for"),
    ("warn", "open", 7, "warn", "is still open"),
    ("warn", "merged into another branch", 7, "warn", "has not landed"),
    ("warn", "merged", 7, "pass", "is merged"),
    ("forbid-overrides", "not asked", 7, "fail", "the forbid-overrides policy merges only pull "
                                                 "requests that test the image's baseline"),
    ("forbid-overrides", "not a PR", None, "fail", "delete the line"),
], ids=lambda value: str(value).replace(" ", "-"))
def test_each_policy_and_state(policy: Policy, state: PullState, number: int | None,
                               verdict: Verdict, reason: str) -> None:
    given, why = policy_verdict(policy, "ci-sglang-pr", "#7", state, REPOSITORY, number,
                                "release")
    assert given == verdict
    assert reason in why


def test_an_open_prerequisite_says_the_pull_request_merges_after_it_not_a_baseline() -> None:
    verdict, why = policy_verdict("require-merged", "Depends-On", "#49", "open",
                                  "radixark/miles", 49, prerequisite=True)
    assert verdict == "fail"
    assert why == ("`Depends-On: #49`: radixark/miles#49 is still open, and this pull request "
                   "says it merges after it: merge radixark/miles#49 first, or delete the line")
    assert "baseline" not in why


@pytest.mark.parametrize(("merged", "state", "base", "default", "expected"), [
    (True, "closed", "main", "main", "merged"),
    (True, "closed", "feature-49", "main", "merged into another branch"),
    (True, "closed", "main", None, "merged into another branch"),  # unknown default: not believed
    (False, "open", "main", "main", "open"),
    (False, "closed", "main", "main", "closed (unmerged)"),
])
def test_merged_means_merged_into_the_default_branch(merged: bool, state: str, base: str,
                                                     default: str | None,
                                                     expected: PullState) -> None:
    assert state_of(merged, state, base, default) == expected


def waited(label: str, state: PullState, verdict: Verdict) -> Waited:
    return Waited("sglang", "#1", 1, label, state, verdict, f"{label} is {state}")


@pytest.mark.parametrize(("items", "errors", "suites", "expected"), [
    ([], [], [], ("success", "nothing to wait for")),
    ([waited("sglang#30421", "open", "fail")], [], [],
     ("failure", "waits for sglang#30421 (open)")),
    ([waited("sglang#30421", "merged", "pass"), waited("#49", "closed (unmerged)", "fail")], [],
     [], ("failure", "waits for #49 (closed unmerged)")),
    ([waited("sglang#30421", "merged", "pass")], [], [], ("success", "sglang#30421 merged")),
    ([waited("sglang#1", "merged into another branch", "fail")], [], [],
     ("failure", "waits for sglang#1 (merged elsewhere)")),
    ([waited("sglang#30421", "open", "warn")], [], [],
     ("success", "warn policy: sglang#30421 not merged")),
    ([], ["line 3: a typo"], [], ("failure", "the description has 1 error: line 3: a typo")),
    ([waited("sglang#30421", "merged", "pass")], [],
     [("ROCm", Judgement("pending", "not reported yet"))],
     ("pending", "suite ROCm: not reported yet")),
    ([waited("sglang#30421", "merged", "pass")], [],
     [("A", Judgement("pending", "x")), ("B", Judgement("failure", "y moved"))],
     ("failure", "suite B: y moved")),
], ids=["nothing", "open", "closed-prerequisite", "merged", "merged-elsewhere", "warn",
        "errors", "suite-pending", "suite-failure-first"])
def test_the_guards_status(items: list[Waited], errors: list[str],
                           suites: list[tuple[str, Judgement]],
                           expected: tuple[str, str]) -> None:
    judgement = guard_judgement(items, errors, suites)
    assert (judgement.state, judgement.description) == expected
