"""The install report as step outputs, job summary and text."""

from __future__ import annotations

from rocm_deps.config import Config
from rocm_deps.config.outputs import PATCHES, REPORT, sha_output
from rocm_deps.contract.install import NAMES_SHOWN, PHASES, DependencyReport, InstallReport
from rocm_deps.reports.markdown import (
    escape_markdown,
    escape_text,
    markdown_cell,
    markdown_code_block,
    markdown_table,
)
from rocm_deps.reports.output import compact_json


def outputs(report: InstallReport, config: Config) -> dict[str, str]:
    """`<name>_sha` and `patches` for the named dependencies (the unnamed ones keep the
    image's copy: empty, as resolve writes them); every dependency in `report`."""
    named = {name: dep for name, dep in report.dependencies.items() if dep.source != "image"}
    values = {}
    for dependency in config.dependencies:
        installed = named.get(dependency.name)
        values[sha_output(dependency.name)] = (installed.commit or "") if installed else ""
    patch_states = {name: {outcome.patch: outcome.state for outcome in dep.patches}
                    for name, dep in named.items()}
    values[PATCHES] = compact_json(patch_states)
    values[REPORT] = compact_json(report.to_json())
    return values


def summary(report: InstallReport) -> str:
    """One narrow table first; timings, local changes and compiled parts in a collapsed details
    block; errors as wrapped text (docs/architecture.md, *The install pipeline*)."""
    lines = ["### rocm-deps install" + (" (dry run)" if report.dry_run else ""), ""]
    if not report.dependencies:
        lines.append("No dependency is configured.")
        return "\n".join(lines)
    if all(dep.source == "image" for dep in report.dependencies.values()):
        lines += ["No dependency is named: every dependency keeps the image's copy.", ""]
    rows = []
    for name, dep in report.dependencies.items():
        patches = "<br>".join(markdown_cell(f"{o.patch.rsplit('/', 1)[-1]}: {o.state}")
                              for o in dep.patches)
        state = f"{dep.state}" + (f" at {dep.failed_step}" if dep.failed_step else "")
        ref = markdown_cell("(not named)" if dep.source == "image" else dep.ref)
        commit = markdown_cell(dep.commit[:12] if dep.commit else None)
        same = dep.commit is not None and dep.ref in (dep.commit, dep.commit[:12])
        rows.append([name, dep.source, commit if same else (f"{ref} → {commit}" if commit
                                                            else ref), patches,
                     markdown_cell(dep.version), state])
    lines.append(markdown_table(["dependency", "named by", "ref → commit", "patches",
                                 "version", "state"], rows))
    errors = [(name, dep) for name, dep in report.dependencies.items() if dep.error]
    if errors:
        lines += ["", "#### Errors"]
        for name, dep in errors:
            lines += ["", f"**{name}** (step {dep.failed_step or '?'}): "
                          f"{escape_text(dep.error or '')}"]
    lines += ["", "<details><summary>Timings, local changes, compiled parts</summary>", ""]
    lines.append(markdown_table(
        ["dependency", "image → commit", "local changes", "compiled parts",
         *(f"{phase} s" for phase in PHASES)],
        [[name, _commits(dep), _local_changes(dep),
          f"{len(dep.rebuild)} file(s) not rebuilt" if dep.rebuild else "",
          *(f"{dep.seconds[phase]:.1f}" if phase in dep.seconds else "" for phase in PHASES)]
         for name, dep in report.dependencies.items()]))
    lines += ["", f"Interpreter: {markdown_cell(report.python)}; workspace: "
                  f"{escape_markdown(report.workspace)}."]
    lines += _details(report)
    lines += ["", "</details>"]
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
    if dep.undone:
        parts.append(f"the last install's and the image's build: {len(dep.undone)} undone")
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


def text(report: InstallReport) -> str:
    lines = (["nothing named: every dependency at the image's copy"]
             if all(dep.source == "image" for dep in report.dependencies.values()) else [])
    for name, dep in report.dependencies.items():
        patches = "; ".join(f"{o.patch}: {o.state}" for o in dep.patches) or "no patches"
        where = f" at step {dep.failed_step}" if dep.failed_step else ""
        # A failure says why, its whole first line; "no patches" would read as if none were
        # configured.
        detail = (dep.error.split("\n", 1)[0] if dep.state == "failed" and dep.error
                  else patches)
        if dep.source == "image":  # nothing named it: what the step found, and held
            at = f" at {dep.commit}" if dep.commit else ""
            lines.append(f"{name}: not named, {dep.state}{where}{at}"
                         + (f" ({detail})" if dep.state == "failed" or dep.patches else ""))
        else:
            lines.append(f"{name}: {dep.state}{where} {dep.commit or dep.ref} ({detail})")
    lines.append(f"workspace: {report.workspace}")
    return "\n".join(lines)
