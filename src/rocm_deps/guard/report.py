"""The merge-check report: one annotation per reason, the job summary and text."""

from __future__ import annotations

from rocm_deps.contract.resolve import MAX_FINDINGS
from rocm_deps.guard.document import Check, MergeCheckReport
from rocm_deps.reports.markdown import (
    escape_markdown,
    markdown_cell,
    markdown_code_block,
    markdown_table,
)
from rocm_deps.runner import Runner


def annotate(report: MergeCheckReport, runner: Runner) -> None:
    """One annotation per reason: an error per failing directive, a warning under the warn
    policy, a notice for what passes."""
    for finding in report.errors[:MAX_FINDINGS]:
        runner.error(finding.message, title=finding.title or "rocm-deps: invalid directive",
                     line=finding.line or None)
    for finding in report.warnings[:MAX_FINDINGS]:
        runner.warning(finding.message, title=finding.title or "rocm-deps: merge check")
    for check in report.checks:
        where = _where(check)
        if check.verdict == "fail":
            runner.error(where + check.reason, title=f"rocm-deps: merge blocked by "
                                                     f"{check.dependency}")
        elif check.verdict == "warn":
            runner.warning(where + check.reason, title=f"rocm-deps: {check.dependency} not "
                                                       f"merged")
        else:
            runner.notice(where + check.reason, title="rocm-deps: merge check")
    for notice in report.notices:
        runner.notice(notice, title="rocm-deps: merge check")


def _where(check: Check) -> str:
    """Where the line is: a stacked pull request's inherited line is in the description of
    the pull request below it, not in its own."""
    line = (f"line {check.line} of #{check.via} (below it in its stack)" if check.via is not None
            else f"line {check.line}")
    return f"pull request #{check.pull}, {line}: " if check.pull is not None else f"{line}: "


def summary(report: MergeCheckReport) -> str:
    verdict = "**blocked**" if report.failed else "passes"
    lines = [f"### rocm-deps merge-check ({escape_markdown(report.policy)}): {verdict}", ""]
    if report.checks:
        rows = [[f"#{check.pull}" if check.pull is not None else "(body file)",
                 check.dependency, markdown_cell(check.raw),
                 str(check.line), escape_markdown(check.state), check.verdict]
                for check in report.checks]
        lines.append(markdown_table(["pull request", "dependency", "value", "line", "state",
                                     "verdict"], rows))
        lines += ["", markdown_code_block([check.reason for check in report.checks])]
    for notice in report.notices:
        lines += ["", escape_markdown(notice)]
    if report.warnings:
        lines += ["", "#### Warnings", "",
                  markdown_code_block([w.message for w in report.warnings[:MAX_FINDINGS]])]
    if report.errors:
        lines += ["", "#### Errors", "",
                  markdown_code_block([error.message for error in report.errors[:MAX_FINDINGS]])]
    return "\n".join(lines)


def text(report: MergeCheckReport) -> str:
    lines = [f"{check.dependency} ({_where(check).removesuffix(': ')}): {check.verdict}: "
             f"{check.reason}" for check in report.checks]
    lines += report.notices
    lines += [f"warning: {warning.message}" for warning in report.warnings]
    lines += [f"error: {error.message}" for error in report.errors]
    lines.append(f"merge-check ({report.policy}): {'blocked' if report.failed else 'passes'}")
    return "\n".join(lines)
