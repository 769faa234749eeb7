"""The resolve report as step outputs (docs/architecture.md, *Action outputs*), job summary,
annotations and text."""

from __future__ import annotations

from rocm_deps.config import Config
from rocm_deps.config.loader import origin
from rocm_deps.config.outputs import (
    DISPATCH_INPUTS,
    NAMED_BY,
    OVERRIDES,
    REPORT,
    SKIP,
    ref_output,
    repository_output,
    sha_output,
)
from rocm_deps.contract.overrides import overrides_to_json
from rocm_deps.contract.resolve import MAX_FINDINGS, ResolveReport, findings_omitted
from rocm_deps.options import OutputFormat
from rocm_deps.reports.markdown import (
    escape_text,
    markdown_cell,
    markdown_code_block,
    markdown_table,
)
from rocm_deps.reports.output import compact_json, publish
from rocm_deps.runner import Runner


def show(report: ResolveReport, config: Config, runner: Runner,
         output_format: OutputFormat | None) -> None:
    """What a resolve leaves: annotations and the job summary and, with `output_format` (the
    resolve command), its step outputs and its report on stdout. Single-job install passes
    None: the step's outputs and report are the install's."""
    annotate(report, runner)
    if output_format is None:
        runner.add_summary(summary(report, config))
    else:
        publish(runner, outputs(report, config), summary(report, config), report.to_json(),
                text(report, config), output_format)


def outputs(report: ResolveReport, config: Config) -> dict[str, str]:
    """The step outputs; empty strings for unnamed dependencies. After an error only `report`:
    a downstream `if: always()` must not read a skip flag from a failed step (fail closed)."""
    if report.errors:
        return {REPORT: compact_json(report.to_json())}
    values = {
        SKIP: "true" if report.skip_dependency_install else "false",
        NAMED_BY: report.named_by,
        OVERRIDES: compact_json(overrides_to_json(report.overrides, report.run,
                                                  report.carried)),
    }
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        values[ref_output(dependency.name)] = override.ref if override else ""
        values[sha_output(dependency.name)] = (override.sha or "") if override else ""
        values[repository_output(dependency.name)] = dependency.repository
    for value in config.values:
        resolved = report.values.get(value.name)
        values[value.output] = resolved.value if resolved else ""
    values[DISPATCH_INPUTS] = compact_json(dispatch_inputs(report, config))
    values[REPORT] = compact_json(report.to_json())
    return values


def dispatch_inputs(report: ResolveReport, config: Config) -> dict[str, str]:
    """What the author named (in the body or as dispatch inputs), as the dispatch inputs
    that name the same: a pull request as `#N`, a commit as its SHA, a branch or tag by
    name. A workflow that re-dispatches the suite (a comment command) passes these on."""
    named: dict[str, str] = {}
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        if override is not None and override.source in ("body", "dispatch"):
            named[dependency.dispatch_input] = (
                f"#{override.pr}" if override.kind == "pr" and override.pr is not None
                else override.sha if override.kind in ("commit", "short-commit") and override.sha
                else override.ref)
    for value in config.values:
        resolved = report.values.get(value.name)
        if resolved is not None and resolved.source in ("body", "dispatch"):
            named[value.dispatch_input] = resolved.value
    return named


def summary(report: ResolveReport, config: Config) -> str:
    lines = ["### rocm-deps resolve", "", f"PR body read from: {report.body_origin}."]
    if report.errors:
        lines += ["", "**Failed**: fix the problems below; no dependency is installed until "
                      "they are fixed."]
    elif report.skip_dependency_install:
        lines += ["", "Nothing names a dependency ref: every dependency keeps the image's copy "
                      "(`skip_dependency_install=true`)."]
    if not report.errors:  # after an error nothing was decided: no row may look decided
        rows = []
        for dependency in config.dependencies:
            override = report.overrides.get(dependency.name)
            if override is None:
                rows.append([dependency.name, "image baseline", "", "", "", ""])
                continue
            rows.append([dependency.name, override.source, markdown_cell(override.raw),
                         markdown_cell(override.ref), markdown_cell(override.sha),
                         str(override.line or "")])
        lines += ["", markdown_table(["dependency", "source", "value", "fetch ref", "SHA",
                                      "line"], rows)]
    for title, findings in (("Errors", report.errors), ("Warnings", report.warnings)):
        if findings:
            # Wrapped text, one item each: the fix at the end of a long line stays in view.
            lines += ["", f"#### {title}", "", *(f"- {escape_text(finding.message)}"
                                                 for finding in findings[:MAX_FINDINGS])]
            if len(findings) > MAX_FINDINGS:
                lines += ["", f"and {len(findings) - MAX_FINDINGS:,} more (not shown)"]
    if report.notices:
        lines += ["", "#### Notes", "", markdown_code_block(report.notices)]
    return "\n".join(lines)


def annotate(report: ResolveReport, runner: Runner) -> None:
    for finding in report.warnings[:MAX_FINDINGS]:
        runner.warning(finding.message, title=finding.title or "rocm-deps: directive warning",
                       line=finding.line or None)
    for finding in report.errors[:MAX_FINDINGS]:
        runner.error(finding.message, title=finding.title or "rocm-deps: invalid directive",
                     line=finding.line or None)
    omitted = findings_omitted(report.errors, report.warnings)
    if omitted:
        runner.error(f"{omitted:,} more findings are not shown one by one (at most "
                     f"{MAX_FINDINGS:,} errors and {MAX_FINDINGS:,} warnings are)",
                     title="rocm-deps: too many findings")
    for notice in report.notices:
        runner.notice(notice, title="rocm-deps")


def text(report: ResolveReport, config: Config) -> str:
    if report.errors:
        # No skip flag or refs: they were not written, and must not look as if they were.
        return (f"resolve found {len(report.errors)} error(s), printed above as `error:` lines "
                f"(in a workflow, as annotations). Nothing was decided: the step wrote only "
                f"its `report` output, so no job can install from it")
    lines = [f"skip_dependency_install={'true' if report.skip_dependency_install else 'false'}"
             f" named_by={report.named_by or '-'}", f"  PR body read from: {report.body_origin}"]
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        if override is None:
            lines.append(f"  {dependency.name}: image baseline (not named)")
        else:
            where = f", line {override.line}" if override.line else ""
            sha = f" = {override.sha}" if override.sha and override.sha != override.ref else ""
            # A pull request's commit (its URL names one): the commit, of that pull request.
            of = f" of #{override.pr}" if override.pr is not None and override.kind == "commit" \
                else ""
            source = (_default_of(config, "dependencies", dependency.name)
                      if override.source == "default" else override.source)
            lines.append(f"  {dependency.name}: {override.ref}{sha}{of} "
                         f"(from {source}{where}: {override.raw})")
    for name, resolved in report.values.items():
        where = f", line {resolved.line}" if resolved.line else ""
        source = (_default_of(config, "values", name) if resolved.source == "default"
                  else resolved.source)
        lines.append(f"  {name}: {resolved.value} (from {source}{where})")
    if report.prerequisites:
        lines.append(f"  merges after (Depends-On; merge-check waits for them): "
                     f"{', '.join(report.prerequisites)}")
    return "\n".join(lines)


def _default_of(config: Config, kind: str, name: str) -> str:
    """A default named with its key and, when a built-in profile set it, the profile."""
    said = origin(config, kind, name, "default")
    return f"`{kind}.{name}.default`" + (f" of {said}" if said != "default" else "")
