"""resolve/precedence.py: for each dependency, the first source of `PRECEDENCE` that names it
decides; one that names it in error stops the walk (its error is reported, nothing lower
stands in for it)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from rocm_deps.config import load_config
from rocm_deps.contract.resolve import ResolveReport
from rocm_deps.grammar.parsed import Directive
from rocm_deps.grammar.refs import RefSpec, classify
from rocm_deps.resolve.precedence import Named, choose
from rocm_deps.resolve.stack import Inherited

SGLANG = load_config(None).dependency("sglang")
LOCKED = "a" * 40


def directive(value: str, line: int) -> Directive:
    spec = classify(value, SGLANG.repository)
    assert isinstance(spec, RefSpec)
    return Directive("sglang", "ci-sglang-pr", value, line, spec)


EVERY_SOURCE: dict[str, Any] = {
    "dispatch": {"ci_sglang_pr": "#1"},
    "directives": {"sglang": directive("#2", 3)},
    "inherited": {"sglang": Inherited(directive("#3", 5), via=49)},
    "inherited_source": "stack",
    "lock": {"sglang_commit": LOCKED},
}


@pytest.mark.parametrize(("dropped", "source", "ref"), [
    ((), "dispatch", "refs/pull/1/head"),
    (("dispatch",), "body", "refs/pull/2/head"),
    (("dispatch", "directives"), "stack", "refs/pull/3/head"),
    (("dispatch", "directives", "inherited"), "lock", LOCKED),
    (("dispatch", "directives", "inherited", "lock"), "default", "sglang-miles"),
])
def test_the_first_source_that_names_it_decides(dropped: tuple[str, ...], source: str,
                                                ref: str) -> None:
    given = {key: ({} if key in dropped else value) for key, value in EVERY_SOURCE.items()
             if key != "inherited_source"}
    dependency = dataclasses.replace(SGLANG, default="sglang-miles")
    report = ResolveReport()
    chosen = choose(dependency, Named(**given, inherited_source="stack"), report)
    assert chosen is not None and (chosen.source, chosen.ref) == (source, ref)
    assert report.errors == []
    assert (chosen.via == 49) is (source == "stack")


def test_on_a_merge_group_what_its_pull_requests_name_is_the_queues() -> None:
    named = Named({}, {}, {"sglang": Inherited(directive("#4", 2), via=42)}, "queue", {})
    chosen = choose(SGLANG, named, ResolveReport())
    assert chosen is not None and (chosen.source, chosen.ref, chosen.via) == (
        "queue", "refs/pull/4/head", 42)


def test_a_lock_entry_in_error_stops_the_walk_before_the_default() -> None:
    report = ResolveReport()
    dependency = dataclasses.replace(SGLANG, default="sglang-miles")
    assert choose(dependency, Named({}, {}, {}, "stack", {"sglang_commit": 7}), report) is None
    assert [error.message for error in report.errors] == [
        "lock-file key `sglang_commit`: expected a string, got int"]


def test_an_unread_lock_file_leaves_no_default_standing_in_for_it() -> None:
    report = ResolveReport()
    dependency = dataclasses.replace(SGLANG, default="sglang-miles")
    assert choose(dependency, Named({}, {}, {}, "stack", {}, lock_read=False), report) is None
    [error] = report.errors
    assert "the lock file is not read" in error.message


def test_nothing_named_is_nothing() -> None:
    report = ResolveReport()
    assert choose(SGLANG, Named({}, {}, {}, "stack", {}), report) is None
    assert report.errors == []
