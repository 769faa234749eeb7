"""The suite's commit status as `comment` and `sweep` judge it: each state and its one line of
why, and a description GitHub accepts (at most 140 characters) whatever is named."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocm_deps.contract.manifest import Manifest, ManifestEntry
from rocm_deps.contract.status import (
    MAX_DESCRIPTION,
    Head,
    Judgement,
    Named,
    judge,
    named_kind,
    with_rerun,
)

SGLANG = "sgl-project/sglang"
TESTED, MOVED = "1a2b3c4" + "0" * 33, "5d6e7f8" + "0" * 33
PR = Named("sglang", SGLANG, "pr", "#30421", 30421)
MERGE = Named("sglang", SGLANG, "pr", "pull/30421/merge", 30421, merge=True)
RUN = "https://github.com/radixark/miles/actions/runs/42"


def manifest(**tested: ManifestEntry) -> Manifest:
    return Manifest(RUN, tested)


TESTED_PR = manifest(sglang=ManifestEntry(SGLANG, "refs/pull/30421/head", TESTED, 30421))


@pytest.mark.parametrize(("named", "section", "heads", "expected"), [
    ([PR], TESTED_PR, {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("success", "tested sglang#30421 at 1a2b3c4")),
    ([PR], TESTED_PR, {(SGLANG, 30421): Head(TESTED, True)},
     Judgement("success", "tested sglang#30421 merged at 1a2b3c4")),
    ([PR], TESTED_PR, {(SGLANG, 30421): Head(MOVED, False)},
     Judgement("failure", "sglang#30421 moved 1a2b3c4→5d6e7f8 since tested",
               ("sglang#30421",))),
    ([PR], TESTED_PR, {(SGLANG, 30421): Head(MOVED, True)},  # merged, but at another commit
     Judgement("failure", "sglang#30421 moved 1a2b3c4→5d6e7f8 since tested",
               ("sglang#30421",))),
    ([PR], None, {}, Judgement("pending", "sglang#30421 named; not reported by this suite yet")),
    ([PR], manifest(), {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("failure", "sglang#30421 not tested by this run")),
    ([PR], TESTED_PR, {}, Judgement("failure", "sglang#30421 could not be read")),
    ([MERGE], manifest(sglang=ManifestEntry(SGLANG, "refs/pull/30421/merge", TESTED, 30421)),
     {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("failure", "sglang#30421 merge tested without its head (no token)")),
    ([PR], manifest(sglang=ManifestEntry(SGLANG, "refs/pull/30421/merge", MOVED, 30421,
                                         TESTED, "b" * 40)),
     {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("failure", "sglang#30421 head named, its merge tested")),
    ([MERGE], TESTED_PR, {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("failure", "sglang#30421 merged onto its base named, its head tested")),
    ([Named("sglang", SGLANG, "commit", TESTED, 30421, TESTED)], TESTED_PR,  # …/commits/<sha>
     {}, Judgement("success", "tested sglang 1a2b3c4")),
    ([Named("sglang", SGLANG, "commit", MOVED, 30421, MOVED)], TESTED_PR,
     {(SGLANG, 30421): Head(TESTED, False)},
     Judgement("failure", "sglang 5d6e7f8 not tested (tested 1a2b3c4)")),
    ([], TESTED_PR, {}, Judgement("failure", "sglang tested at 1a2b3c4, no longer named")),
    ([], manifest(sglang=ManifestEntry(SGLANG, "sglang-miles", TESTED, None, source="default")),
     {}, Judgement("success", "nothing named")),
    ([Named("sglang", SGLANG, "commit", TESTED, sha=TESTED)],
     manifest(sglang=ManifestEntry(SGLANG, TESTED, TESTED, None)), {},
     Judgement("success", "tested sglang 1a2b3c4")),
    ([Named("sglang", SGLANG, "commit", MOVED, sha=MOVED)],
     manifest(sglang=ManifestEntry(SGLANG, TESTED, TESTED, None)), {},
     Judgement("failure", "sglang 5d6e7f8 not tested (tested 1a2b3c4)")),
    ([Named("sglang", SGLANG, "commit", TESTED, sha=TESTED)],  # another repository's commit
     manifest(sglang=ManifestEntry("someone/sglang", TESTED, TESTED, None)), {},
     Judgement("failure", "sglang 1a2b3c4 not tested (tested 1a2b3c4)")),
    ([Named("sglang", SGLANG, "ref", "main")], TESTED_PR, {},
     Judgement("failure", "sglang main names a branch or tag, which moves without a trace: "
                          "name the pull request or the commit")),
    ([Named("sglang", SGLANG, "commit", "1a2b3c4")], TESTED_PR, {},
     Judgement("failure", "sglang 1a2b3c4 was never expanded to a full SHA (resolve ran "
                          "without a token)")),
    ([], None, {}, Judgement("success", "nothing named")),
], ids=["current", "merged-at-it", "moved", "merged-elsewhere", "not-reported", "not-in-run",
        "unread", "merge-without-head", "head-named-merge-tested", "merge-named-head-tested",
        "commit-url", "commit-url-other", "no-longer-named", "default-tested", "commit", "other-commit", "other-repository", "branch",
        "abbreviated", "nothing"])
def test_each_state_says_why(named: list[Named], section: Manifest | None,
                             heads: dict[tuple[str, int], Head], expected: Judgement) -> None:
    assert judge(named, section, heads) == expected


def test_the_descriptions_own_errors_come_first() -> None:
    assert judge([PR], TESTED_PR, {}, ["`ci-sglang-pr: x y` is followed by words"]) == Judgement(
        "failure", "the description has 1 error: `ci-sglang-pr: x y` is followed by words")


def test_every_moved_pull_request_is_named_before_other_problems() -> None:
    megatron = Named("megatron", "radixark/Megatron-LM", "pr", "#7", 7)
    section = manifest(sglang=TESTED_PR.tested["sglang"],
                       megatron=ManifestEntry("radixark/Megatron-LM", "refs/pull/7/head",
                                              TESTED, 7))
    found = judge([Named("x", "o/x", "commit", MOVED, sha=MOVED), PR, megatron], section,
                  {(SGLANG, 30421): Head(MOVED, False),
                   ("radixark/megatron-lm", 7): Head(MOVED, False)})
    assert found.moved == ("sglang#30421", "megatron#7")
    assert found.description.startswith("sglang#30421 moved 1a2b3c4→5d6e7f8 since tested; "
                                        "megatron#7 moved")


names = st.from_regex(r"[a-z][a-z0-9_-]{0,40}", fullmatch=True)


@given(st.lists(st.tuples(names, st.integers(1, 10**9), st.booleans()), min_size=1,
                max_size=30, unique_by=lambda item: item[0]))
def test_a_description_fits_what_github_accepts(items: list[tuple[str, int, bool]]) -> None:
    named = [Named(name, f"o/{name}", "pr", f"#{number}", number) for name, number, _ in items]
    section = manifest(**{name: ManifestEntry(f"o/{name}", f"refs/pull/{number}/head", TESTED,
                                              number) for name, number, _ in items})
    heads = {(f"o/{name}", number): Head(MOVED if moved else TESTED, False)
             for name, number, moved in items}
    judgement = judge(named, section, heads)
    assert len(judgement.description) <= MAX_DESCRIPTION
    assert len(with_rerun(judgement).description) <= MAX_DESCRIPTION
    assert judgement.state == ("failure" if any(moved for *_, moved in items) else "success")
    assert with_rerun(judgement).description.endswith("; re-run requested")


@pytest.mark.parametrize(("pr", "kind", "expected"), [
    (7, "pr", "pr"),  # #7, its URL, pull/7/head, pull/7/merge
    (7, "commit", "commit"),  # …/pull/7/commits/<sha>: that commit, not the head
    (None, "commit", "commit"), (None, "short-commit", "commit"),
    (None, "ref", "ref"),  # a branch pinned to its SHA still moves
])
def test_what_a_named_ref_is_for_the_status(pr: int | None, kind: str, expected: str) -> None:
    assert named_kind(pr, kind) == expected


def test_a_new_push_is_pending_until_the_suite_reports_on_it() -> None:
    """The suite tested head A of the pull request; the author pushed B."""
    section = Manifest(RUN, TESTED_PR.tested, head="a" * 40)
    heads = {(SGLANG, 30421): Head(TESTED, False)}
    assert judge([PR], section, heads, head="a" * 40).state == "success"
    assert judge([PR], section, heads, head="b" * 40) == Judgement(
        "pending", "this suite has not reported on bbbbbbb yet (it tested aaaaaaa)")
    assert judge([PR], TESTED_PR, heads, head="b" * 40) == Judgement(
        "pending", "this suite has not reported on bbbbbbb yet (its manifest names no "
                   "commit: re-run it)")


def test_a_description_is_printable_as_github_reads_it_back() -> None:
    found = judge([PR], None, {}, ["`ci-sglang-pr: x\ty`\u200b is wrong"])
    assert found.description == "the description has 1 error: `ci-sglang-pr: x?y`? is wrong"
