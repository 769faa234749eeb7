"""The sweep's report: the job summary lists each pull request judged (suite, state, why),
the re-runs, and how far the sweep got."""

from __future__ import annotations

from rocm_deps.reports.markdown import escape_markdown, markdown_cell, markdown_table
from rocm_deps.runner import Runner, neutralise
from rocm_deps.sweep.sweeper import SweepReport


def annotate(report: SweepReport, runner: Runner) -> None:
    for problem in report.problems:
        runner.warning(problem, title="rocm-deps: sweep could not judge a pull request")
    if report.stopped:
        runner.warning(report.stopped, title="rocm-deps: sweep stopped early")


def summary(report: SweepReport) -> str:
    lines = [f"### rocm-deps sweep of {escape_markdown(report.repository)}", "",
             escape_markdown(_counts(report)), ""]
    if report.judged:
        lines.append(markdown_table(
            ["pull request", "suite", "state", "why", "status written", "re-run"],
            [[f"#{judged.pull}", markdown_cell(judged.suite), judged.state,
              markdown_cell(judged.description), "yes" if judged.written else "no (unchanged)",
              markdown_cell(judged.rerun) if judged.rerun else ""]
             for judged in report.judged]))
    for line in (*report.problems, report.stopped):
        if line:
            lines += ["", escape_markdown(line)]
    return "\n".join(lines)


def text(report: SweepReport) -> str:
    lines = [f"#{judged.pull} {judged.suite}: {judged.state}: {judged.description}"
             f"{' (written)' if judged.written else ''}"
             f"{f'; re-ran {judged.rerun}' if judged.rerun else ''}"
             for judged in report.judged]
    lines += [f"warning: {line}" for line in (*report.problems, report.stopped) if line]
    lines.append(f"sweep: {_counts(report)}")
    # Descriptions quote the pull requests' text and the API's: never a workflow command.
    return neutralise("\n".join(lines))


def _counts(report: SweepReport) -> str:
    reruns = sum(1 for judged in report.judged if judged.rerun)
    return (f"{report.listed} open pull requests, {report.naming} naming a dependency, "
            f"{report.dependency_pulls} dependency pull requests read; {len(report.judged)} "
            f"statuses judged, {report.written} written, {reruns} re-runs")
