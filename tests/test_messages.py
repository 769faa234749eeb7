"""The texts several places emit, defined once."""

from __future__ import annotations

import pytest

from rocm_deps.messages import closest, did_you_mean, full_sha_hint, needs_token


def test_needs_token_says_what_for_and_how() -> None:
    assert needs_token("comment writes on the pull request", "pull-requests: write") == (
        "comment writes on the pull request: set the `github-token` input (CLI: "
        "--github-token-env VAR) with `pull-requests: write`")
    assert needs_token("x") == "x: set the `github-token` input (CLI: --github-token-env VAR)"


def test_the_full_sha_hint_names_the_command_when_it_has_the_value() -> None:
    assert full_sha_hint("3f1c0d9") == ("give the full 40-digit SHA (`git rev-parse 3f1c0d9` "
                                        "prints it)")
    assert full_sha_hint() == "give the full 40-digit SHA"


@pytest.mark.parametrize(("word", "hint"), [
    ("remot", "did you mean `remote`? "),
    ("patchs", "did you mean `patches`? "),
    ("zzzz", ""),
], ids=["one-letter-short", "misspelt", "nothing-close"])
def test_did_you_mean(word: str, hint: str) -> None:
    assert did_you_mean(word, ["remote", "patches", "path"]) == hint


@pytest.mark.parametrize(("word", "expected"), [
    ("repo", "repository"), ("remot", "remote"), ("repositry", "repository"), ("re", None),
    ("patchs", "patches"),
])
def test_an_abbreviation_means_the_key_it_begins(word: str, expected: str | None) -> None:
    keys = ("repository", "remote", "path", "patches", "prepare")
    assert closest(word, keys) == expected
