"""Property tests of the grammar: hostile bodies, real `git check-ref-format`, fence invariance."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rocm_deps.config import load_config
from rocm_deps.contract.resolve import ResolveReport
from rocm_deps.grammar.refs import check_ref_format
from rocm_deps.resolve.resolver import resolve
from rocm_deps.resolve.settings import ResolveSettings
from tests.conftest import generated_examples

CONFIG = load_config(None)
SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"
FRAGMENTS = [
    "ci-sglang-pr: #12", "- ci-megatron-pr: main", "```", "~~~", "````", "<!--", "-->",
    "<!-- x -->", "    ci-sglang-pr: #1", "ci-sgl-pr: x", "> ci-sglang-pr: `abc`", "ci-sglang-pr:",
    "", f"ci-megatron-pr: {SHA}", "* ci-sglang-pr: feature/x trailing", "1. ci-sglang-pr: #3",
    "ci-sglang-pr: 1234", "ci-megatron-pr: https://github.com/radixark/Megatron-LM/pull/9",
    "\tci-sglang-pr: #4", "**ci-megatron-pr**: x", "ci-sglang-pr: #1\u200b", "\ufeff",
]
LINE = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40),
                 st.text(alphabet="ci-sglangmetrop:#`~<!->* \t/.@{}[]^\\0123456789", max_size=30))
BODY = st.lists(LINE, max_size=12).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n", "\r"]).map(lambda newline: newline.join(lines)))
VALUE = st.one_of(
    st.text(alphabet=st.characters(codec="ascii"), max_size=30),
    st.text(alphabet="abcdef0123456789./-_@{}~^:?*[\\#", max_size=45),
    st.text(max_size=12),
)
NUMBERED = re.compile(r"line \d+")
SHELL_INERT = re.compile(r"[A-Za-z0-9._/+:?#=%~-]+")


def resolve_text(body: str | None) -> ResolveReport:
    with tempfile.TemporaryDirectory() as directory:
        event = Path(directory) / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 1, "body": body}}))
        return resolve(ResolveSettings(config=CONFIG, event_name="pull_request",
                                       event_path=event))


def git_accepts(ref: str) -> bool:
    result = subprocess.run(["git", "check-ref-format", "--allow-onelevel", ref],
                            capture_output=True)
    return result.returncode == 0


def shape(report: ResolveReport) -> tuple[dict[str, tuple[str, str, str]], list[str], list[str]]:
    """The result with line numbers taken out (an inserted line shifts them)."""
    return ({name: (o.ref, o.raw, o.kind) for name, o in report.overrides.items()},
            [NUMBERED.sub("line N", f.message) for f in report.errors],
            [NUMBERED.sub("line N", f.message) for f in report.warnings])


@settings(max_examples=generated_examples(400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(BODY)
@example("")
@example("\ufeffci-sglang-pr: #1\r\nci-sglang-pr: #2\rci-megatron-pr: `-x`")
@example("> " * 60 + "ci-sglang-pr: #1")  # nesting past the bound
@example("ci-sglang-pr: #1\u200b\n\u0441i-sglang-pr: #2\nci-sglang-pr: \x1b[31m")
@example("```\n" * 500 + "<!--" * 500)
def test_arbitrary_bodies_never_raise(body: str) -> None:
    """resolve turns every problem of a body into a finding: nothing may raise, not even our
    own errors (an exception would lose the other lines' findings)."""
    report = resolve_text(body)
    for override in report.overrides.values():
        assert override.ref and not override.ref.startswith("-")


@settings(max_examples=generated_examples(400), deadline=None)
@given(VALUE, st.booleans())
@example("refs/heads/$(id)", False)
@example("feature/a..b", True)
@example("https://github.com/sgl-project/sglang/pull/1/files?w=1#r2", False)
@example("-rf", True)
def test_every_emitted_ref_passes_real_git_check_ref_format(value: str, backticks: bool) -> None:
    written = f"`{value}`" if backticks else value
    report = resolve_text(f"ci-sglang-pr: {written}\nci-megatron-pr: {written}")
    # The first line is applied or has a finding: a value never vanishes without a word.
    # (The second may be inside a code span the first opened.)
    findings = [*report.errors, *report.warnings]
    assert "sglang" in report.overrides or any("ci-sglang-pr" in finding.message
                                               for finding in findings), findings
    for override in report.overrides.values():
        assert git_accepts(override.ref), override.ref
        # Nothing a shell would interpret, in anything copied into outputs (architecture §3, §4).
        for text in (override.ref, override.raw):
            assert SHELL_INERT.fullmatch(text), text


# The rules of git check-ref-format one by one: (ref, git accepts it, we accept it).
REF_CORNERS = [
    ("main", True, True), ("feature/x-1.2", True, True), ("v1.2.3", True, True),
    ("", False, False), ("-x", False, False),  # git reads -x as an option
    ("a..b", False, False), ("a/.b", False, False),
    (".a", False, False), ("a.lock", False, False), ("a/b.lock/c", False, False),
    ("a/", False, False), ("/a", False, False), ("a//b", False, False), ("@", False, False),
    ("a@{b", False, False), ("a@b", True, True), ("a b", False, False), ("a~b", False, False),
    ("a^b", False, False), ("a:b", False, False), ("a?b", False, False), ("a*b", False, False),
    ("a[b", False, False), ("a\\b", False, False), ("a.", False, False),
    ("a\x7fb", False, False), ("a\tb", False, False), ("x" * 256, True, False),
]


@pytest.mark.parametrize(("ref", "git_says", "we_say"), REF_CORNERS, ids=repr)
def test_ref_format_corner_cases(ref: str, git_says: bool, we_say: bool) -> None:
    assert (git_accepts(ref), check_ref_format(ref) is None) == (git_says, we_say)


@settings(max_examples=generated_examples(400), deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii", exclude_characters="\x00"), max_size=40))
@example("")
@example("-x")
@example("-")
def test_check_ref_format_agrees_with_git(ref: str) -> None:
    ours = check_ref_format(ref) is None
    if not ref or ref.startswith("-"):
        # Our extra rules: nothing empty, nothing git would read as an option.
        assert not ours, ref
    else:  # otherwise we must agree (40 characters is below our length limit)
        assert ours == git_accepts(ref), ref


@settings(max_examples=generated_examples(300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE.filter(lambda line: not line.strip().startswith("~~~~~~")), max_size=5),
       st.integers(min_value=0, max_value=5), BODY)
def test_directive_inside_fence_never_changes_result(inner: list[str], position: int,
                                                     body: str) -> None:
    with_directive = [*inner]
    with_directive.insert(min(position, len(inner)), "ci-sglang-pr: #777")
    plain = "\n".join(["~~~~~~ example", *inner, "~~~~~~", ""]) + body
    inserted = "\n".join(["~~~~~~ example", *with_directive, "~~~~~~", ""]) + body
    report = resolve_text(inserted)
    refs, errors, warnings = shape(report)
    # The one difference: the inserted line is shown as code, so it is not applied: a notice
    # when the body names SGLang elsewhere (an example), else an error.
    fenced = ("`ci-sglang-pr: #777` — GitHub shows this inside a code block (fenced, indented "
              "or `<pre>`), so it is not applied")
    example = ("line N: `ci-sglang-pr: #777` is shown inside a code block (fenced, indented or "
               "`<pre>`): an example, not applied (sglang is named elsewhere)")
    notices = [NUMBERED.sub("line N", notice) for notice in report.notices]
    if "sglang" in refs:
        assert example in notices
    else:
        [error] = [error for error in errors if fenced in error]
        errors.remove(error)
    assert (refs, errors, warnings) == shape(resolve_text(plain))
