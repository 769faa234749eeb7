"""Markup GitHub shows no text for at a line's start, and a line that starts with code."""

from __future__ import annotations

import pytest

from rocm_deps.grammar.markup import (
    code_first,
    without_code_boxes,
    without_markup,
    without_text_markers,
)


@pytest.mark.parametrize(("text", "left"), [
    ("**ci-x-pr:** #1", "ci-x-pr:** #1"),
    ("- [ ] `ci-x-pr`: #1", "`ci-x-pr`: #1"),
    ("\\- ci-x-pr: #1", "ci-x-pr: #1"),
    ("1\\. ci-x-pr: #1", "ci-x-pr: #1"),
    ("[ci-x-pr](u): #1", "ci-x-pr](u): #1"),
    ("Deps: ci-x-pr: #1", "Deps: ci-x-pr: #1"),  # text: nothing to take
])
def test_markup_that_shows_no_text_is_taken_off(text: str, left: str) -> None:
    assert without_markup(text) == left


def test_text_markers_are_list_markers_and_boxes_only() -> None:
    assert without_text_markers("- [ ] *ci-x-pr: #1*") == "*ci-x-pr: #1*"
    assert without_text_markers("*ci-x-pr: #1*") == "*ci-x-pr: #1*"


def test_every_box_after_the_markers_of_a_code_line_is_dropped() -> None:
    assert without_code_boxes("- [ ] - [x] ci-x-pr: #1") == "- - ci-x-pr: #1"
    assert without_code_boxes("[ ] ci-x-pr: #1") == "ci-x-pr: #1"
    assert without_code_boxes("see [x] ci-x-pr: #1") == "see [x] ci-x-pr: #1"


def test_code_first_is_the_code_then_the_text_after_it() -> None:
    assert code_first("`ci-x-pr`: #1", "ci-x-pr", raw_html=False) == ("ci-x-pr: #1", ": #1")
    assert code_first("_1. `ci-x-pr`: #1_", "ci-x-pr", raw_html=False) == (
        "ci-x-pr: #1_", ": #1_")
    # raw HTML's text leaves its code out already
    assert code_first("ci-x-pr: #2", "ci-x-pr: #1", raw_html=True) == (
        "ci-x-pr: #1ci-x-pr: #2", "ci-x-pr: #2")
    assert code_first("Deps: `ci-x-pr: #1`", "", raw_html=False) == ("", "")
