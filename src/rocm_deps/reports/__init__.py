"""How the two reports are shown: step outputs (DESIGN §9), job summaries, annotations and
the text printed on stdout. Data in, strings out; the commands decide when to write them.
"""

from __future__ import annotations

import json

from rocm_deps.config import Config
from rocm_deps.contract import (
    MAX_FINDINGS,
    NAMES_SHOWN,
    PHASES,
    DependencyReport,
    InstallReport,
    MergeCheckReport,
    ResolveReport,
    overrides_to_json,
)
from rocm_deps.github.runner import (
    Runner,
    escape_markdown,
    markdown_cell,
    markdown_code_block,
    markdown_table,
)


def publish(runner: Runner, outputs: dict[str, str], summary: str, document: object,
            text: str, output_format: str) -> None:
    """What every command leaves: step outputs, the job summary, and the report on stdout
    (JSON with `--format json`, else text)."""
    runner.set_outputs(outputs)
    runner.add_summary(summary)
    runner.report(json.dumps(document, indent=2) if output_format == "json" else text)


def compact_json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"))


# ---- resolve ------------------------------------------------------------------------------


def resolve_outputs(report: ResolveReport, config: Config) -> dict[str, str]:
    """The step outputs; empty strings for unnamed dependencies. After an error only `report`:
    a downstream `if: always()` must not read a skip flag from a failed step (fail closed)."""
    if report.errors:
        return {"report": compact_json(report.to_json())}
    values = {
        "skip_dependency_install": "true" if report.skip_dependency_install else "false",
        "named_by": report.named_by,
        "overrides": compact_json(overrides_to_json(report.overrides)),
    }
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        values[f"{dependency.name}_ref"] = override.ref if override else ""
        values[f"{dependency.name}_sha"] = (override.sha or "") if override else ""
    values["report"] = compact_json(report.to_json())
    return values


def resolve_summary(report: ResolveReport, config: Config) -> str:
    lines = ["### rocm-deps resolve", "", f"PR body read from: {report.body_origin}."]
    if report.errors:
        lines += ["", "**Failed**: fix the problems below; no dependency is installed until "
                      "they are fixed."]
    elif report.skip_dependency_install:
        lines += ["", "Nothing names a dependency ref: every dependency keeps the image's copy "
                      "(`skip_dependency_install=true`)."]
    rows = []
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        if override is None:
            rows.append([dependency.name, "image baseline", "", "", "", ""])
            continue
        rows.append([dependency.name, override.source, markdown_cell(override.raw),
                     markdown_cell(override.ref), markdown_cell(override.sha),
                     str(override.line or "")])
    lines += ["", markdown_table(["dependency", "source", "value", "fetch ref", "SHA", "line"],
                                 rows)]
    for title, findings in (("Errors", report.errors), ("Warnings", report.warnings)):
        if findings:
            shown = [finding.message for finding in findings[:MAX_FINDINGS]]
            lines += ["", f"#### {title}", "", markdown_code_block(shown)]
            if len(findings) > MAX_FINDINGS:
                lines += ["", f"and {len(findings) - MAX_FINDINGS:,} more (not shown)"]
    if report.notices:
        lines += ["", "#### Notes", "", markdown_code_block(report.notices)]
    return "\n".join(lines)


def annotate_resolve(report: ResolveReport, runner: Runner) -> None:
    for finding in report.warnings[:MAX_FINDINGS]:
        runner.warning(finding.message, title=finding.title or "rocm-deps: directive warning",
                       line=finding.line or None)
    for finding in report.errors[:MAX_FINDINGS]:
        runner.error(finding.message, title=finding.title or "rocm-deps: invalid directive",
                     line=finding.line or None)
    omitted = max(0, len(report.errors) - MAX_FINDINGS) + max(
        0, len(report.warnings) - MAX_FINDINGS)
    if omitted:
        runner.error(f"{omitted:,} more findings are not shown one by one (at most "
                     f"{MAX_FINDINGS:,} errors and {MAX_FINDINGS:,} warnings are)",
                     title="rocm-deps: too many findings")
    for notice in report.notices:
        runner.notice(notice, title="rocm-deps")


def resolve_text(report: ResolveReport, config: Config) -> str:
    if report.errors:
        # No skip flag or refs: they were not written, and must not look as if they were.
        return f"{len(report.errors)} error(s): see the messages above; no outputs but `report`"
    lines = [f"skip_dependency_install={'true' if report.skip_dependency_install else 'false'}"
             f" named_by={report.named_by or '-'}"]
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        if override is None:
            lines.append(f"  {dependency.name}: image baseline (not named)")
        else:
            where = f", line {override.line}" if override.line else ""
            sha = f" = {override.sha}" if override.sha else ""
            lines.append(f"  {dependency.name}: {override.ref}{sha} "
                         f"(from {override.source}{where}: {override.raw})")
    return "\n".join(lines)


# ---- install ------------------------------------------------------------------------------


def install_outputs(report: InstallReport, config: Config) -> dict[str, str]:
    values = {}
    for dependency in config.dependencies:
        installed = report.dependencies.get(dependency.name)
        values[f"{dependency.name}_sha"] = (installed.commit or "") if installed else ""
    patch_states = {name: {outcome.patch: outcome.state for outcome in dep.patches}
                    for name, dep in report.dependencies.items()}
    values["patches"] = compact_json(patch_states)
    values["report"] = compact_json(report.to_json())
    return values


def install_summary(report: InstallReport) -> str:
    lines = ["### rocm-deps install" + (" (dry run)" if report.dry_run else ""), ""]
    if not report.dependencies:
        lines.append("No dependency is named: every dependency keeps the image's copy.")
        return "\n".join(lines)
    rows = []
    for name, dep in report.dependencies.items():
        patches = ", ".join(f"{o.patch.rsplit('/', 1)[-1]}: {o.state}" for o in dep.patches)
        seconds = [f"{dep.seconds[phase]:.1f}" if phase in dep.seconds else "" for phase in PHASES]
        state = f"{dep.state}" + (f" at {dep.failed_step}" if dep.failed_step else "")
        rows.append([name, dep.source, markdown_cell(dep.ref), _commits(dep),
                     markdown_cell(dep.version), markdown_cell(patches), _local_changes(dep),
                     f"{len(dep.rebuild)} file(s) not rebuilt" if dep.rebuild else "", state,
                     *seconds])
    lines.append(markdown_table(["dependency", "source", "ref", "image → commit", "version",
                                 "patches", "local changes", "compiled parts", "state",
                                 *(f"{phase} s" for phase in PHASES)], rows))
    lines += ["", f"Interpreter: {markdown_cell(report.python)}; workspace: "
                  f"{escape_markdown(report.workspace)}."]
    lines += _details(report)
    errors = [f"{name}: {dep.error}" for name, dep in report.dependencies.items() if dep.error]
    if errors:
        lines += ["", "#### Errors", "", markdown_code_block(errors)]
    return "\n".join(lines)


def _commits(dep: DependencyReport) -> str:
    new = markdown_cell(dep.commit[:12] if dep.commit else None)
    if dep.image_commit is None:
        return new
    return f"{markdown_cell(dep.image_commit[:12])} → {new or '?'}"


def _local_changes(dep: DependencyReport) -> str:
    parts = []
    if dep.discarded is not None:
        parts.append(f"discarded: {dep.discarded.counts()}")
    if dep.replayed is not None:
        parts.append(f"image's edits replayed: {dep.replayed}")
    return "; ".join(parts)


def _details(report: InstallReport) -> list[str]:
    """The file names behind the table's counts: what the reset discarded, what was not
    rebuilt. Names come from the clone, so they are shown verbatim in a code block."""
    lines = []
    for name, dep in report.dependencies.items():
        if dep.discarded:
            names = [f"{kind:<9} {file}" for kind, files in dep.discarded.by_kind()
                     for file in files]
            lines += ["", f"#### {name}: local changes the reset discarded", "",
                      markdown_code_block(_first_of(names))]
        if dep.rebuild:
            lines += ["", f"#### {name}: compiled parts not rebuilt", "",
                      f"{len(dep.rebuild)} file(s) under the rebuild paths differ from the "
                      f"image's commit; `pip install -e --no-deps` does not rebuild them, so "
                      f"the image's build is used:", "",
                      markdown_code_block(_first_of(list(dep.rebuild)))]
    return lines


def _first_of(names: list[str]) -> list[str]:
    """At most NAMES_SHOWN names, then how many more there are."""
    more = len(names) - NAMES_SHOWN
    return names[:NAMES_SHOWN] + ([f"… and {more} more"] if more > 0 else [])


def install_text(report: InstallReport) -> str:
    if not report.dependencies:
        return "nothing named: no dependency installed"
    lines = []
    for name, dep in report.dependencies.items():
        patches = "; ".join(f"{o.patch}: {o.state}" for o in dep.patches) or "no patches"
        where = f" at step {dep.failed_step}" if dep.failed_step else ""
        lines.append(f"{name}: {dep.state}{where} {dep.commit or dep.ref} ({patches})")
    lines.append(f"workspace: {report.workspace}")
    return "\n".join(lines)


def annotate_merge_check(report: MergeCheckReport, runner: Runner) -> None:
    """One annotation per reason: an error per failing directive, a warning under the warn
    policy, a notice for what passes."""
    for finding in report.errors[:MAX_FINDINGS]:
        runner.error(finding.message, title="rocm-deps: invalid directive",
                     line=finding.line or None)
    for check in report.checks:
        where = f"pull request #{check.pull}, line {check.line}: "
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


def merge_check_summary(report: MergeCheckReport) -> str:
    verdict = "**blocked**" if report.failed else "passes"
    lines = [f"### rocm-deps merge-check ({escape_markdown(report.policy)}): {verdict}", ""]
    if report.checks:
        rows = [[f"#{check.pull}", check.dependency, markdown_cell(check.raw),
                 str(check.line), escape_markdown(check.state), check.verdict]
                for check in report.checks]
        lines.append(markdown_table(["pull request", "dependency", "value", "line", "state",
                                     "verdict"], rows))
        lines += ["", markdown_code_block([check.reason for check in report.checks])]
    for notice in report.notices:
        lines += ["", escape_markdown(notice)]
    if report.errors:
        lines += ["", "#### Errors", "",
                  markdown_code_block([error.message for error in report.errors[:MAX_FINDINGS]])]
    return "\n".join(lines)


def merge_check_text(report: MergeCheckReport) -> str:
    lines = [f"{check.dependency} (#{check.pull}, line {check.line}): {check.verdict}: "
             f"{check.reason}" for check in report.checks]
    lines += report.notices
    lines.append(f"merge-check ({report.policy}): {'blocked' if report.failed else 'passes'}")
    return "\n".join(lines)
