"""A differential test against the PR-body parsers rocm-deps replaces in Miles' CI.

The old parsers are copied as test data from radixark/miles at 31f1ca9 (2026-08-21) and run
as they run there: the bash `grep -P` lines of `.github/workflows/_run-ci.yml`,
`_run-ci-rocm.yml` and `pr-test.yml` through bash and grep, and the patterns of
`.github/workflows/scripts/comment_ci_command.py` (`PR_BODY_PINS`) through Python's `re`.
On a generated corpus of bodies, every disagreement with rocm-deps must fall into one of the
documented classes of docs/migrating-miles.md, and each class must be seen; an unexplained
disagreement fails the test.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import code_findings
from tests.conftest import require_tool

# --- the old parsers (test data, copied verbatim) ------------------------------------------

# _run-ci.yml, _run-ci-rocm.yml (refs) and pr-test.yml (the image tag):
#   PR_X=$(echo "$PR_BODY" | grep -m1 -oP '^ci-x:\s+\K\S+' || true)
OLD_BASH = """echo "$PR_BODY" | grep -m1 -oP '^{key}:\\s+\\K\\S+' || true"""
# pr-test.yml's check of the tag it found.
OLD_TAG_CHECK = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# comment_ci_command.py, PR_BODY_PINS: (input, pattern over the whole body, value check).
OLD_PINS = {
    "ci-image-tag": (re.compile(r"^ci-image-tag:\s+(\S+)", re.MULTILINE),
                     re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")),
    "ci-megatron-pr": (re.compile(r"^ci-megatron-pr:\s+(\S+)", re.MULTILINE),
                       re.compile(r"#[0-9]+|[A-Za-z0-9_][A-Za-z0-9_./-]*")),
    "ci-sglang-pr": (re.compile(r"^ci-sglang-pr:\s+(\S+)", re.MULTILINE),
                     re.compile(r"#[0-9]+|[A-Za-z0-9_][A-Za-z0-9_./-]*")),
}

KEYS = {"ci-sglang-pr": "sglang", "ci-image-tag": "image-tag"}
CONFIG = load_config(None, "cuda")  # the profile where the body may set the image tag


def old_bash(body: str, key: str) -> str | None:
    result = subprocess.run(["bash", "-c", OLD_BASH.format(key=key)], env={"PR_BODY": body},
                            capture_output=True, text=True, check=True)
    return result.stdout.strip() or None


def old_comment_command(body: str, key: str) -> str | None:
    pattern, check = OLD_PINS[key]
    match = pattern.search(body)
    if match is None:
        return None
    return match.group(1) if check.fullmatch(match.group(1)) else "<refused>"


@dataclass(frozen=True)
class New:
    value: str | None  # the raw value rocm-deps applies
    error: bool  # rocm-deps refuses the body with an error about this key


def new(body: str, key: str) -> New:
    parsed = parse_body(body, CONFIG.dependencies, CONFIG.values)
    name = KEYS[key]
    found = parsed.values.get(name) if name == "image-tag" else parsed.directives.get(name)
    folded = key.replace("-", "[-_]")
    findings = [*parsed.errors, *code_findings(parsed, {*parsed.directives, *parsed.values})]
    error = any(re.search(folded, finding.message, re.IGNORECASE) for finding in findings
                if finding.level == "error")
    return New(found.raw if found is not None else None, error)


# --- the corpus -----------------------------------------------------------------------------

# How a key's line is written, and the class a disagreement on it belongs to (None: the two
# must agree). {key} and {value} are filled in per key.
VARIANTS: dict[str, str | None] = {
    "{key}: {value}": None,
    "{key}:\t{value}   ": None,
    "{key}: {value} (see the thread)": "trailing-text",       # a comment after a PR: fine
    "```\n{key}: {value}\n```": "code",                       # a fenced example
    "<!--\n{key}: {value}\n-->": "hidden",                    # a template's comment
    "    {key}: {value}": "indented-in-list",                 # code, or text in a list item
    "- {key}: {value}": "list-marker",                         # honoured by rocm-deps only
    "> {key}: {value}": "list-marker",
    "{key}: `{value}`": "backticks",
    "{under}: {value}": "near-miss",                           # the dispatch input's spelling
    "{key} {value}": "near-miss",
    "{key}: {bad}": "invalid-value",
    "{key}: {value}\n{key}: {other}": "conflicting-duplicate",
    "{key}:\n{value}": "value-on-next-line",                   # old Python parser: next line
    "{lookalike}: {value}": "look-alike",
}
VALUES = {"ci-sglang-pr": ("#30421", "#30422", "$(id)"),
          "ci-image-tag": ("nightly-20261201", "dev", "rocm/sgl-dev:latest")}
PROSE = "## Motivation\n\nMakes the ROCm suite faster.\n"


def line_for(variant: str, key: str) -> str:
    value, other, bad = VALUES[key]
    return variant.format(key=key, value=value, other=other, bad=bad,
                          under=key.replace("-", "_"), lookalike="\u0441" + key[1:])


def corpus() -> list[tuple[str, dict[str, str]]]:
    """Every pair of variants (one for SGLang, one for the image tag), in both orders, with
    and without CRLF line ends: the body, and each key's variant."""
    bodies = []
    for (first, second), crlf in itertools.product(
            itertools.product(VARIANTS, repeat=2), (False, True)):
        lines = [PROSE, line_for(first, "ci-sglang-pr"), "", line_for(second, "ci-image-tag")]
        body = "\n".join(lines)
        bodies.append((body.replace("\n", "\r\n") if crlf else body,
                       {"ci-sglang-pr": first, "ci-image-tag": second}))
    return bodies


# --- the classes of docs/migrating-miles.md --------------------------------------------------

Old = str | None


def _explains() -> dict[str, Callable[[Old, New, str], bool]]:
    def clean(value: str) -> str:
        return value.strip("`")

    return {
        # GitHub does not show the line (a template's comment): rocm-deps stays silent.
        "hidden": lambda old, now, key: old is not None and now.value is None and not now.error,
        # GitHub shows the line as code: not applied, and an error, since nothing else names
        # the key here (the author most likely meant it).
        "code": lambda old, now, key: old is not None and now.value is None and now.error,
        # Indented 4 spaces: after a list item GitHub shows it as that item's text (applied);
        # elsewhere it is code (an error: neither parser applies it).
        "indented-in-list": lambda old, now, key: old is None and (
            now.value is not None or now.error),
        # Text after a name (the image tag): an error, it may name something else; after a
        # PR number or a SHA it is a comment and both parsers agree.
        "trailing-text": lambda old, now, key: now.error and now.value is None,
        # A list or quote marker before the key: rocm-deps applies the line, the old did not.
        "list-marker": lambda old, now, key: old is None and now.value is not None,
        # Back-ticks around the value: rocm-deps takes the value inside.
        # (The old comment command refused the back-ticked value and forwarded nothing.)
        "backticks": lambda old, now, key: now.value is not None and (
            old is None or now.value == clean(old)),
        # An almost-right key: an error in rocm-deps, silence before.
        "near-miss": lambda old, now, key: old is None and now.error,
        # A value that is no ref or no Docker tag: an error in rocm-deps (the old bash took it).
        "invalid-value": lambda old, now, key: now.error and now.value is None,
        # The same key twice with different values: an error, where the old took the first.
        "conflicting-duplicate": lambda old, now, key: now.error,
        # `key:` with the value on the next line: comment_ci_command.py's \s+ crossed the line.
        "value-on-next-line": lambda old, now, key: now.value is None,
        # A look-alike character in the key: an error in rocm-deps, silence before.
        "look-alike": lambda old, now, key: old is None and now.error,
    }


EXPLAINS = _explains()


def agree(old: Old, now: New) -> bool:
    return not now.error and old == now.value


@pytest.mark.parametrize("parser", ["bash", "comment-command"])
def test_every_disagreement_with_the_old_parsers_has_a_documented_class(parser: str) -> None:
    require_tool(shutil.which("bash") is not None and shutil.which("grep") is not None,
                 "bash and grep run the old parsers")
    bodies = corpus()
    seen: set[str] = set()
    unexplained = []
    for body, variants in bodies:
        for key in KEYS:
            old = (old_bash(body, key) if parser == "bash" else old_comment_command(body, key))
            if old == "<refused>":
                old = None  # the old comment command refused the value too: it forwards nothing
            now = new(body, key)
            if agree(old, now):
                continue
            kind = VARIANTS[variants[key]]
            if kind is not None and EXPLAINS[kind](old, now, key):
                seen.add(kind)
            else:
                unexplained.append((variants[key], key, old, now, body))
    assert unexplained == [], unexplained[:5]
    # Each documented class shows up: the corpus exercises all of them.
    assert seen == set(EXPLAINS)


def test_the_documented_classes_are_the_ones_in_the_migration_guide() -> None:
    from tests.conftest import ROOT

    guide = (ROOT / "docs" / "migrating-miles.md").read_text()
    for kind in EXPLAINS:
        assert f"`{kind}`" in guide, kind
