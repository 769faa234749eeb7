"""The sweep's report: the job summary lists each pull request judged (suite, state, why),
the re-runs, and how far the sweep got."""

from __future__ import annotations

from rocm_deps.reports.markdown import escape_markdown, markdown_cell, markdown_table
from rocm_deps.runner import Runner, neutralise
from rocm_deps.sweep.writer import SweepReport


def refusal(report: SweepReport) -> str:
    """Why no status was written: the token may not write them, and what grants it."""
    return (f"sweep could not write commit statuses: {report.refused}; {report.unwritten} "
            f"status(es) that changed were not written. Grant the job `statuses: write` "
            f"(`permissions:`), or give a token that has it") if report.refused else ""


def failed_writes(report: SweepReport) -> str:
    """The statuses GitHub would not take for another reason than the token's permission."""
    failures = report.write_failures
    if not failures:
        return ""
    more = f" and {len(failures) - 10} more" if len(failures) > 10 else ""
    return (f"sweep could not write {len(failures)} status(es) that changed; those commits "
            f"still show what they showed before: {'; '.join(failures[:10])}{more}")


def annotate(report: SweepReport, runner: Runner) -> None:
    if report.refused:
        runner.error(refusal(report), title="rocm-deps: sweep could not write statuses")
    if report.write_failures:
        runner.error(failed_writes(report), title="rocm-deps: sweep could not write statuses")
    for problem in report.problems:
        runner.warning(problem, title="rocm-deps: sweep could not judge a pull request")
    if report.stopped:
        runner.warning("; ".join(filter(None, (report.stopped, _unreached(report)))),
                       title="rocm-deps: sweep stopped early")


def summary(report: SweepReport) -> str:
    lines = [f"### rocm-deps sweep of {escape_markdown(report.repository)}", "",
             escape_markdown(_counts(report)), ""]
    written = "would write" if report.dry_run else "status written"
    if report.judged:
        lines.append(markdown_table(
            ["pull request", "suite", "state", "why", written, "re-run"],
            [[f"#{judged.pull}", markdown_cell(judged.suite), judged.state,
              markdown_cell(judged.description),
              "yes" if judged.written else markdown_cell(
                  f"no: its head gets {judged.status}" if judged.status else "no (unchanged)"),
              markdown_cell(judged.rerun) if judged.rerun else ""]
             for judged in report.judged]))
    if report.skipped_reruns:
        lines += ["", "Re-runs not asked for:", "",
                  *(f"- {escape_markdown(line)}" for line in report.skipped_reruns)]
    for line in (refusal(report), failed_writes(report), *report.problems, report.stopped,
                 _unreached(report)):
        if line:
            lines += ["", escape_markdown(line)]
    lines += ["", escape_markdown(_spent(report))]
    return "\n".join(lines)


def text(report: SweepReport) -> str:
    would = report.dry_run
    lines = [f"#{judged.pull} {judged.suite}: {judged.state}: {judged.description}"
             f"{(' (would write)' if would else ' (written)') if judged.written else ''}"
             f"{f'; its head gets {judged.status}' if judged.status else ''}"
             f"{f'; would re-run {judged.rerun}' if would and judged.rerun else ''}"
             f"{f'; re-ran {judged.rerun}' if not would and judged.rerun else ''}"
             for judged in report.judged]
    lines += [f"re-run not asked: {line}" for line in report.skipped_reruns]
    lines += [f"error: {line}" for line in (refusal(report), failed_writes(report)) if line]
    lines += [f"warning: {line}" for line in (*report.problems, report.stopped,
                                              _unreached(report)) if line]
    lines.append(f"sweep: {_counts(report)}; {_spent(report)}")
    # Descriptions quote the pull requests' text and the API's: never a workflow command.
    return neutralise("\n".join(lines))


def _unreached(report: SweepReport) -> str:
    """The pull requests the sweep did not reach (their statuses are left as they were)."""
    shown = ", ".join(f"#{number}" for number in report.not_reached[:50])
    more = len(report.not_reached) - 50
    parts = []
    if report.not_reached:
        parts.append(f"not judged, not reached: {shown}{f' and {more} more' if more > 0 else ''}")
    if report.not_listed:
        parts.append(f"{report.not_listed} open pull requests were not listed")
    return "; ".join(parts)


def _spent(report: SweepReport) -> str:
    """What the sweep cost: requests, GraphQL points, and the budget GitHub says is left."""
    left = ", ".join(f"{resource} {remaining} of {limit}"
                     for resource, (remaining, limit) in sorted(report.budget.items()))
    return (f"{report.requests} API requests, {report.points} GraphQL points"
            f"{f' (left this hour: {left})' if left else ''}")


def _counts(report: SweepReport) -> str:
    reruns = sum(1 for judged in report.judged if judged.rerun)
    verb = "would be written (dry run: nothing written)" if report.dry_run else "written"
    return (f"{report.listed} open pull requests, {report.naming} naming a dependency, "
            f"{report.dependency_pulls} dependency pull requests read; {len(report.judged)} "
            f"statuses judged, {report.written} {verb}, {reruns} re-runs")
