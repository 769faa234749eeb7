"""Near misses are errors, prose is silent, a directive shown as code is a warning (docs/directives.md).

Each row is a whole PR body with the exact finding it gets, so a changed message is a
failing test, not a silent drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body

DEPENDENCIES = load_config(None).dependencies

# (id, body, the one finding: level and message)
NEAR_MISSES = [
    ("dispatch-input-spelling", "ci_sglang_pr: #123", "error",
     "line 1: `ci_sglang_pr: #123` — this is not applied: `ci_sglang_pr` has `_` where the key "
     "has `-` (that is the dispatch input's name). Write `ci-sglang-pr: #123`"),
    ("no-colon", "ci-sglang-pr #123", "error",
     "line 1: `ci-sglang-pr #123` — this is not applied: there is no `:` after the key. Write "
     "`ci-sglang-pr: #123`"),
    ("dash-separator", "ci-sglang-pr - #123", "error",
     "line 1: `ci-sglang-pr - #123` — this is not applied: `-` stands where the key needs `:`. "
     "Write `ci-sglang-pr: #123`"),
    ("equals-separator", "- ci-megatron-pr = main", "error",
     "line 1: `ci-megatron-pr = main` — this is not applied: `=` stands where the key needs "
     "`:`. Write `ci-megatron-pr: main`"),
    ("no-pr-suffix", "ci-sglang: #123", "error",
     "line 1: `ci-sglang: #123` — this is not applied: the key lacks `-pr`. Write "
     "`ci-sglang-pr: #123`"),
    ("no-ci-prefix", "sglang-pr: #123", "error",
     "line 1: `sglang-pr: #123` — this is not applied: the key lacks `ci-`. Write "
     "`ci-sglang-pr: #123`"),
    ("no-colon-branch-alone", "> ci-megatron-pr miles-main", "error",
     "line 1: `ci-megatron-pr miles-main` — this is not applied: there is no `:` after the "
     "key. Write `ci-megatron-pr: miles-main`"),
    ("several-slips", "CI_SGLANG #123", "error",
     "line 1: `CI_SGLANG #123` — this is not applied: `CI_SGLANG` has `_` where the key has "
     "`-`; the key lacks `-pr`; there is no `:` after the key. Write `ci-sglang-pr: #123`"),
    ("no-value", "ci_megatron_pr:", "error",
     "line 1: `ci_megatron_pr:` — this is not applied: `ci_megatron_pr` has `_` where the key "
     "has `-` (that is the dispatch input's name). Write `ci-megatron-pr: #1234`"),
    ("backticked-value", "sglang-pr: `#7`", "error",
     "line 1: `sglang-pr: #7` — this is not applied: the key lacks `ci-`. Write "
     "`ci-sglang-pr: #7`"),
    ("unknown-dependency-underscores", "ci_vllm_pr: #12", "error",
     "line 1: `ci_vllm_pr: #12` — `ci_vllm_pr` is not a known directive; the known directives "
     "are `ci-sglang-pr`, `ci-megatron-pr`, `ci-megatron-bridge-pr` (yours: "
     ".github/rocm-deps.toml). An unknown key is an error so that a typo cannot silently test "
     "the image's baseline instead"),
    ("en-dash-separator", "ci-sglang-pr \u2013 #123", "error",
     "line 1: `ci-sglang-pr \u2013 #123` — this is not applied: `\u2013` stands where the key "
     "needs `:`. Write `ci-sglang-pr: #123`"),
    ("fullwidth-colon-and-underscores", "ci_sglang_pr\uff1a #1", "error",
     "line 1: `ci_sglang_pr\uff1a #1` — this is not applied: `ci_sglang_pr` has `_` where the "
     "key has `-` (that is the dispatch input's name). Write `ci-sglang-pr: #1`"),
    ("one-letter-off", "- ci-sglang-prs: #1234", "error",
     "line 1: `ci-sglang-prs: #1234` — this is not applied: `ci-sglang-prs` is one letter "
     "off `ci-sglang-pr`. Write `ci-sglang-pr: #1234`"),
    ("bullet-without-its-space", "-ci-megatron-pr: #12", "error",
     "line 1: `-ci-megatron-pr: #12` — this is not applied: a list marker needs a space after "
     "it. Write `ci-megatron-pr: #12`"),
    ("value-in-a-link", "ci_sglang_pr: [#1234](https://github.com/sgl-project/sglang/pull/1234)",
     "error", "line 1: `ci_sglang_pr: #1234` "
              "— this is not applied: `ci_sglang_pr` has `_` where the key has `-` (that is the "
              "dispatch input's name). Write `ci-sglang-pr: #1234`"),
    ("em-dash-and-pr-word", "sglang-pr \u2014 PR #1234", "error",
     "line 1: `sglang-pr \u2014 PR #1234` — this is not applied: the key lacks `ci-`; `\u2014` "
     "stands where the key needs `:`. Write `ci-sglang-pr: #1234`"),
    ("bare-number-suggests-hash", "ci-sglang-pr = 1234", "error",
     "line 1: `ci-sglang-pr = 1234` — this is not applied: `=` stands where the key needs `:`. "
     "Write `ci-sglang-pr: #1234`"),
    ("other-repository-said-too", "ci-megatron: https://github.com/sgl-project/sglang/pull/1",
     "error", "line 1: `ci-megatron: https://github.com/sgl-project/sglang/pull/1` — this is not "
              "applied: the key lacks `-pr`. Write `ci-megatron-pr: https://github.com/"
              "sgl-project/sglang/pull/1` (and the value: `https://github.com/sgl-project/sglang/"
              "pull/1` points at sgl-project/sglang, but this dependency is fetched from "
              "radixark/Megatron-LM; only its own pull requests and commits can be tested (if the "
              "image's clone is of sgl-project/sglang, set the dependency's `repository` in "
              "the config))"),
    ("escaped-underscores", "ci\\_sglang\\_pr: #1", "error",  # read as GitHub shows it
     "line 1: `ci_sglang_pr: #1` — this is not applied: `ci_sglang_pr` has `_` where the key "
     "has `-` (that is the dispatch input's name). Write `ci-sglang-pr: #1`"),
    ("invisible-in-a-near-miss", "sglang-pr\u200b: #1", "error",
     "line 1: `sglang-pr<U+200B>: #1` — the line contains the invisible character U+200B ZERO "
     "WIDTH SPACE; retype the line without it"),
    ("placeholder-value", "ci-sglang-pr: N/A", "error",
     "line 1: `ci-sglang-pr: N/A` — `N/A` reads as a placeholder, not a ref: delete the line to "
     "test the image's copy, or write a pull request (`#1234`), a commit SHA or a branch"),
    ("pr-word-before-the-number", "ci-sglang-pr: PR #1234", "error",
     "line 1: `ci-sglang-pr: PR #1234` — `PR #1234` is not a value; write `ci-sglang-pr: #1234`"),
    # A key written almost right, then one word that can only be a ref (a branch with a `/`,
    # a tag with dots, `pull/N`): the author's attempt, as with `#5`.
    ("no-ci-prefix-branch", "sglang-pr: feature/rocm-aiter", "error",
     "line 1: `sglang-pr: feature/rocm-aiter` — this is not applied: the key lacks `ci-`. "
     "Write `ci-sglang-pr: feature/rocm-aiter`"),
    ("no-pr-suffix-tag", "ci-megatron: core_r0.14.0", "error",
     "line 1: `ci-megatron: core_r0.14.0` — this is not applied: the key lacks `-pr`. Write "
     "`ci-megatron-pr: core_r0.14.0`"),
    ("dash-separator-ref", "ci-sglang-pr - refs/heads/dev/rocm7", "error",
     "line 1: `ci-sglang-pr - refs/heads/dev/rocm7` — this is not applied: `-` stands where "
     "the key needs `:`. Write `ci-sglang-pr: refs/heads/dev/rocm7`"),
    ("dash-separator-pull", "ci-sglang-pr - pull/21877", "error",
     "line 1: `ci-sglang-pr - pull/21877` — this is not applied: `-` stands where the key "
     "needs `:`. Write `ci-sglang-pr: pull/21877`"),
    # A default branch's name, or a word with a `-`, after a key written almost right.
    ("branch-word", "sglang-pr: main", "error",
     "line 1: `sglang-pr: main` — this is not applied: the key lacks `ci-`. Write "
     "`ci-sglang-pr: main`"),
    ("dashed-branch", "> ci-megatron: miles-main", "error",
     "line 1: `ci-megatron: miles-main` — this is not applied: the key lacks `-pr`. Write "
     "`ci-megatron-pr: miles-main`"),
    ("heading", "## sglang-pr: main", "error",
     "line 1: `sglang-pr: main` — this is not applied: the key lacks `ci-`. Write "
     "`ci-sglang-pr: main`"),
    ("task-item", "- [x] ci-megatron: miles-main", "error",
     "line 1: `ci-megatron: miles-main` — this is not applied: the key lacks `-pr`. "
     "Write `ci-megatron-pr: miles-main`"),
    ("div-line", "<div>sglang-pr: main</div>", "error",
     "line 1: `sglang-pr: main` — this is not applied: the key lacks `ci-`. Write "
     "`ci-sglang-pr: main`"),
    # radixark/miles#2582: the directive under "## Usage", in a ```text block.
    # A separator that is no colon, drawn as a dash: the key is right, the separator is not.
    ("em-dash-separator", "ci-sglang-pr — #1", "error",
     "line 1: `ci-sglang-pr — #1` — this is not applied: U+2014 EM DASH stands where the key "
     "needs `:`. Write `ci-sglang-pr: #1`"),
    # `Depends-On:` written almost right is an error too, as a `ci-*-pr` key is.
    ("depends-on-no-colon", "Depends-On #49", "error",
     "line 1: `Depends-On #49` — this is not applied: there is no `:` after it. Write "
     "`Depends-On: #49` (one pull request a line) to make merge-check wait for that pull "
     "request"),
    *((f"depends-on-{ident}", f"{key}: #49", "error",
       f"line 1: `{key}: #49` — this is not applied: `{key}` is not the key `Depends-On`. "
       f"Write `Depends-On: #49` (one pull request a line) to make merge-check wait for that "
       f"pull request")
      for ident, key in (("spaced", "Depends on"), ("underscore", "Depends_On"),
                         ("joined", "DependsOn"), ("spaced-capital", "Depends On"))),
    ("depends-on-hyphen-look-alike", "Depends\u2010On: #49", "error",
     "line 1: `Depends\u2010On: #49` — this reads as `depends-on:` but contains look-alike "
     "characters (U+2010 HYPHEN), so it would match nothing; retype the key in plain ASCII"),
    ("depends-on-fullwidth-colon", "Depends-On\uff1a#49", "error",
     "line 1: `Depends-On\uff1a#49` — this is not applied: U+FF1A FULLWIDTH COLON stands where "
     "the key needs `:`. Write `Depends-On: #49`"),
]


@pytest.mark.parametrize(("body", "level", "message"), [row[1:] for row in NEAR_MISSES],
                         ids=[row[0] for row in NEAR_MISSES])
def test_a_near_miss_gets_exactly_this_finding(body: str, level: str, message: str) -> None:
    parsed = parse_body(body, DEPENDENCIES)
    assert parsed.directives == {}
    assert [(finding.level, finding.message) for finding in parsed.findings] == [
        (level, message)]


# Prose considered while choosing the rule: each stays silent.
PROSE = [
    "ci-sglang-pr is broken on main",             # the key followed by words
    "sglang: bumped the defaults",                # the name alone
    "megatron: rebased on the new release",
    "The ci-sglang-pr directive is documented",
    "ci-sglang: bumped the defaults",             # a key variant followed by words
    "sglang-pr #1234 fixes the bug on MI350",     # no colon, and words after the value
    "ci-sglang main",                             # a key variant and one plain word
    "sglang-pr",                                  # a word alone
    "- ci-sglang: passed",                        # status lines of a CI job named ci-sglang
    "ci-megatron: refactor",
    "- sglang-pr: merged",
    "ci-sglang-pr - N/A",
    "ci-sglang: flaky.",
    "ci-megatron: v0.7.0 and later tags",         # words after the ref-shaped one
    "- ci_sglang_pr is what the dispatch form calls it",
    "Fixes: #99",
    "<!--\nci_sglang_pr: #123\n-->",              # commented examples in templates
    "<!-- ci-sglang-pr: #1234 -->",
    "Depends on radixark/miles#3194",             # a sentence, as real Miles bodies write it
    "Depends on #49 being merged first",
    "depends on: the new tokenizer",              # spaced, with a colon, and no pull request
]


@pytest.mark.parametrize("body", PROSE)
def test_prose_stays_silent(body: str) -> None:
    parsed = parse_body(body, DEPENDENCIES)
    assert (parsed.directives, parsed.findings) == ({}, ())


def test_a_configured_directive_gets_the_same_care(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[dependencies.vllm]\nrepository = "vllm-project/vllm"\n'
                      'path = "/vllm"\ndirective = "test-vllm"\n')
    dependencies = load_config(config).dependencies
    parsed = parse_body("test_vllm: #5\nTest-Vllm #6\ntest-vllm is flaky", dependencies)
    assert [finding.message for finding in parsed.findings] == [
        "line 1: `test_vllm: #5` — this is not applied: `test_vllm` has `_` where the key has "
        "`-`. Write `test-vllm: #5`",
        "line 2: `Test-Vllm #6` — this is not applied: there is no `:` after the key. Write "
        "`test-vllm: #6`"]
    assert parse_body("Test-VLLM: #5", dependencies).directives["vllm"].spec.pr == 5
