"""How the reports are shown: outputs, summaries, annotations and text, from report data."""

from __future__ import annotations

import io
import json

import pytest

from rocm_deps.config import load_config
from rocm_deps.contract.install import (
    PHASES,
    DependencyReport,
    InstallReport,
    LocalChanges,
    PatchOutcome,
)
from rocm_deps.contract.overrides import Override
from rocm_deps.contract.resolve import MAX_FINDINGS, ResolvedValue, ResolveReport
from rocm_deps.grammar.parsed import Finding
from rocm_deps.guard import report as merge_check
from rocm_deps.guard.document import Check, MergeCheckReport
from rocm_deps.install import report as install
from rocm_deps.resolve import report as resolve
from rocm_deps.runner import Runner
from tests.markdown_oracle import render

CONFIG = load_config(None)
SHA = "a" * 40
SGLANG = Override("sglang", "pr", "refs/pull/7/head", "body", "#7", SHA, 3, 7)


def annotations(report: object, annotate: object) -> list[str]:
    log = io.StringIO()
    annotate(report, Runner(github_actions=True, stream=log))  # type: ignore[operator]
    return log.getvalue().splitlines()


def test_resolve_outputs_name_every_dependency() -> None:
    outputs = resolve.outputs(ResolveReport(overrides={"sglang": SGLANG}, values={
        "image-tag": ResolvedValue("nightly", "body", 4)}), CONFIG)
    assert {key: value for key, value in outputs.items() if key != "report"} == {
        "skip_dependency_install": "false", "named_by": "body",
        "overrides": json.dumps({"sglang": SGLANG.to_json()}, separators=(",", ":")),
        "sglang_ref": "refs/pull/7/head", "sglang_sha": SHA, "megatron_ref": "",
        "megatron_sha": "", "image_tag": "nightly",
        "sglang_repository": "sgl-project/sglang", "megatron_repository": "radixark/Megatron-LM",
        "megatron_bridge_ref": "", "megatron_bridge_sha": "",
        "megatron_bridge_repository": "radixark/Megatron-Bridge",
        "dispatch_inputs": '{"ci_sglang_pr":"#7","ci_image_tag":"nightly"}'}
    assert json.loads(outputs["report"])["values"] == {
        "image-tag": {"value": "nightly", "source": "body", "line": 4}}
    assert json.loads(outputs["report"])["overrides"]["sglang"]["pr"] == 7


@pytest.mark.parametrize(("override", "expected"), [
    (Override("sglang", "pr", "refs/pull/7/head", "body", "#7", SHA, 3, 7), "#7"),
    (Override("sglang", "commit", SHA, "dispatch", SHA, SHA), SHA),
    (Override("sglang", "commit", SHA, "body", "https://github.com/sgl-project/sglang/pull/7/"
              f"commits/{SHA}", SHA, 3, 7), SHA),
    (Override("sglang", "short-commit", SHA[:8], "body", SHA[:8], SHA, 3), SHA),
    (Override("sglang", "short-commit", SHA[:8], "body", SHA[:8], None, 3), SHA[:8]),
    (Override("sglang", "ref", "feature-x", "body", "feature-x", None, 3), "feature-x"),
    (Override("sglang", "ref", "sglang-miles", "default", "sglang-miles"), None),
    (Override("sglang", "commit", SHA, "lock", SHA, SHA), None),
], ids=["pr", "dispatch-sha", "pr-commit-url", "short-expanded", "short", "branch", "default",
        "lock"])
def test_dispatch_inputs_name_what_the_author_named(override: Override,
                                                     expected: str | None) -> None:
    outputs = resolve.outputs(ResolveReport(overrides={"sglang": override}), CONFIG)
    assert json.loads(outputs["dispatch_inputs"]) == (
        {} if expected is None else {"ci_sglang_pr": expected})


def test_after_an_error_resolve_writes_only_its_report() -> None:
    report = ResolveReport(overrides={"sglang": SGLANG},
                           errors=[Finding("error", "line 3: bad", 3)])
    outputs = resolve.outputs(report, CONFIG)
    assert list(outputs) == ["report"]
    assert resolve.text(report, CONFIG) == (
        "resolve found 1 error(s), printed above as `error:` lines (in a workflow, as "
        "annotations). Nothing was decided: the step wrote only its `report` output, so no "
        "job can install from it")


def test_findings_past_the_limit_are_counted_once() -> None:
    report = ResolveReport(warnings=[Finding("warning", f"w{n}", n + 1) for n in range(3)],
                           errors=[Finding("error", f"e{n}", n + 1)
                                   for n in range(MAX_FINDINGS + 2)])
    lines = annotations(report, resolve.annotate)
    assert sum(line.startswith("::error title=rocm-deps%3A invalid directive,") for line in lines
               ) == MAX_FINDINGS
    assert sum(line.startswith("::warning ") for line in lines) == 3
    assert lines[-1] == ("::error title=rocm-deps%3A too many findings::2 more findings are "
                         "not shown one by one (at most 1,000 errors and 1,000 warnings are)")
    assert report.to_json()["findings_omitted"] == 2
    assert "and 2 more (not shown)" in resolve.summary(report, CONFIG)


def test_a_quoted_line_opens_no_markdown_in_the_summary() -> None:
    report = ResolveReport(errors=[Finding("error", "line 1: `<img src=x>` [a](b) ```", 1)])
    shown = render(resolve.summary(report, CONFIG))
    # Wrapped text in a list item (a code block would not wrap: the fix would be cut off).
    assert "<li>line 1: `&lt;img src=x&gt;` [a](b) ```</li>" in shown
    assert "<img" not in shown and "<a " not in shown and "<pre>" not in shown


def test_a_failed_resolve_shows_no_decided_rows() -> None:
    """After an error nothing was decided: no dependency may read as "image baseline"."""
    report = ResolveReport(overrides={"sglang": SGLANG},
                           errors=[Finding("error", "line 3: bad", 3)])
    shown = render(resolve.summary(report, CONFIG))
    assert "<table>" not in shown and "image baseline" not in shown
    assert "<strong>Failed</strong>" in shown and "<li>line 3: bad</li>" in shown


def dependency(**fields: object) -> DependencyReport:
    report = DependencyReport("megatron", "body", "refs/pull/202/head", None)
    for name, value in fields.items():
        setattr(report, name, value)
    return report


def test_install_summary_leads_with_a_narrow_table_and_folds_the_details() -> None:
    report = InstallReport(False, "/usr/bin/python3", {"megatron": dependency(
        state="installed", commit="b" * 40, image_commit="c" * 40, version="0.3.1",
        patches=[PatchOutcome("docker/megatron.patch", "applied", "d" * 64)],
        seconds=dict.fromkeys(PHASES, 1.25), discarded=LocalChanges(("a|b.py",), (), ()),
        rebuild=("sgl-kernel/x.cu",))}, "installed")
    summary = install.summary(report)
    assert ("| dependency | named by | ref → commit | patches | version | state |\n|---|---|"
            "---|---|---|---|\n| megatron | body | `refs/pull/202/head` → `bbbbbbbbbbbb` | "
            "`megatron.patch: applied` | `0.3.1` | installed |") in summary
    assert ("| megatron | `cccccccccccc` → `bbbbbbbbbbbb` | discarded: 1 modified | 1 file(s) "
            "not rebuilt | 1.2 | 1.2 | 1.2 | 1.2 | 1.2 | 1.2 |") in summary
    assert "```text\nmodified  a|b.py\n```" in summary  # names verbatim, in a code block
    assert "```text\nsgl-kernel/x.cu\n```" in summary
    # As GitHub renders it: the first table is the narrow one, everything else folded.
    shown = render(summary)
    first_table = shown[shown.index("<table>"):shown.index("</table>")]
    assert first_table.count("<th>") == 6
    assert shown.index("</table>") < shown.index("<details>")
    assert shown.count("<table>") == 2 and shown.index("<details>") < shown.rindex("<table>")
    assert install.outputs(report, CONFIG)["patches"] == (
        '{"megatron":{"docker/megatron.patch":"applied"}}')
    assert install.text(report) == (f"megatron: installed {'b' * 40} (docker/megatron.patch: "
                                    f"applied)\nworkspace: installed")


def test_a_failed_install_says_where_in_wrapped_text_that_opens_nothing() -> None:
    error = ("could not fetch `refs/pull/1/head` from remote `origin`: <img src=x> "
             "[a](https://evil.example) **b** | c\n    Fix: check the network")
    report = InstallReport(False, "py", {"megatron": dependency(
        state="failed", failed_step="fetch", error=error)}, "skipped (a dependency failed)")
    assert report.failed
    shown = render(install.summary(report))
    errors = shown[shown.index("<h4>Errors</h4>"):shown.index("<details>")]
    assert "<pre>" not in errors and "<code>" not in errors  # wrapped text, not a code block
    assert "<img" not in errors and "<a " not in errors and "<strong>b" not in errors
    assert ("<strong>megatron</strong> (step fetch): could not fetch `refs/pull/1/head` from "
            "remote `origin`: &lt;img src=x&gt; [a](https://evil.example) **b** | c<br>\n"
            "Fix: check the network") in errors
    assert install.text(report).startswith("megatron: failed at step fetch refs/pull/202/head")
    # The reason, not "(no patches)": that would read as if none were configured.
    assert install.text(report).splitlines()[0].endswith(
        "(could not fetch `refs/pull/1/head` from remote `origin`: <img src=x> "
        "[a](https://evil.example) **b** | c)")


def merge_report() -> MergeCheckReport:
    return MergeCheckReport("require-merged", [5], [
        Check(5, "sglang", "#7", 3, "open", "fail", "sglang #7 is still open"),
        Check(5, "megatron", "#8", 4, "merged", "pass", "megatron #8 is merged")])


def test_merge_check_annotates_each_reason_at_its_level() -> None:
    assert annotations(merge_report(), merge_check.annotate) == [
        "::error title=rocm-deps%3A merge blocked by sglang::pull request #5, line 3: sglang #7 "
        "is still open",
        "::notice title=rocm-deps%3A merge check::pull request #5, line 4: megatron #8 is merged"]


def test_merge_check_summary_and_text_say_blocked() -> None:
    report = merge_report()
    assert merge_check.summary(report).startswith(
        "### rocm-deps merge-check (require-merged): **blocked**")
    assert merge_check.text(report).splitlines()[-1] == "merge-check (require-merged): blocked"
    assert report.to_json()["checks"][0] == {
        "pull": 5, "dependency": "sglang", "value": "#7", "line": 3, "via": None, "state": "open",
        "verdict": "fail", "reason": "sglang #7 is still open"}


def test_install_text_says_what_a_dependency_nothing_named_is() -> None:
    report = InstallReport(False, "python3", {
        "megatron-bridge": DependencyReport("megatron-bridge", "image", "the image's copy",
                                            None, state="absent"),
        "sglang": DependencyReport("sglang", "image", "the image's copy", None,
                                   commit="a" * 40, state="image"),
        "megatron": DependencyReport("megatron", "body", "3" * 40, "3" * 40, commit="3" * 40,
                                     state="installed")})
    assert install.text(report).splitlines()[:3] == [
        "megatron-bridge: not named, absent",
        f"sglang: not named, image at {'a' * 40}",
        f"megatron: installed {'3' * 40} (no patches)"]
    table = install.summary(report)
    assert "the image's copy" not in table.split("<details>")[0]
    assert f"`{'3' * 40}` → `{'3' * 12}`" not in table  # a SHA is not shown twice
    assert f"| megatron | body | `{'3' * 12}` |" in table
