"""A suite's manifest comment (docs/architecture.md, *What was tested*): what the suite's last run
tested, for the author and the reviewers; each suite writes a comment of its own.

Everything quoted from a report (refs, values, patch names, versions, file names) is shown
as an escaped code span: a hostile report can open no link, image or HTML. Links are built
only from validated parts (repository names, numbers, the checked run URL).
"""

from __future__ import annotations

import json
import shlex

from rocm_deps.contract.manifest import (
    Manifest,
    ManifestDocument,
    ManifestRow,
    ManifestRun,
    marker,
)
from rocm_deps.errors import FatalError
from rocm_deps.files import without_lone_surrogates
from rocm_deps.reports.markdown import markdown_cell, markdown_code_block, markdown_table

HEADER = ("dependency", "named by", "pull request", "tested commit", "patches", "install")
LISTED = 10  # patches and install results listed per cell; the rest are counted
MAX_COMMENT = 65_536  # GitHub's limit for a comment body


def _cell(text: str) -> str:
    """A value quoted from a report: no HTML comment can open (a quoted `<!--` could pose as
    the data block), nothing but a code span renders."""
    return markdown_cell(without_lone_surrogates(text).replace("<!--", "<!- -"))


def _listed(cells: list[str]) -> str:
    more = len(cells) - LISTED
    return "<br>".join(cells[:LISTED] + ([f"… and {more} more"] if more > 0 else []))


TITLE = "### What CI tested: dependency overrides (rocm-deps)"


def comment_body(run: ManifestRun) -> str:
    """The suite's whole comment: its marker, its section, and its data block last."""
    document = ManifestDocument({run.suite: run.manifest})
    body = _assemble(run.suite, section(run), document)
    if len(body) > MAX_COMMENT:  # many dependencies with long names: keep the data block
        body = _assemble(run.suite, _from_data(run.manifest), document)
    if len(body) > MAX_COMMENT:
        raise FatalError(f"what suite {run.suite!r} tested does not fit in one comment "
                         f"({len(body):,} characters, GitHub takes {MAX_COMMENT:,}): name "
                         f"fewer dependencies", title="rocm-deps: comment")
    return body


def _assemble(suite: str, section: str, document: ManifestDocument) -> str:
    return "\n\n".join([f"{marker(suite)}\n{TITLE}", f"#### Suite {markdown_cell(suite)}",
                         section, document.data_block()]) + "\n"


def section(run: ManifestRun) -> str:
    """`run`'s suite as its comment shows it: the table, the run, how to reproduce."""
    lines = []
    if not run.rows:
        lines.append("Nothing is named now: this run tested the image's own dependencies.")
    else:
        lines.append(markdown_table(HEADER, [_row(row) for row in run.rows]))
    if run.resolve_errors:
        lines += ["", f"Resolve reported {run.resolve_errors} error(s): see the run."]
    if run.rows and not run.install_labels:
        lines += ["", "No install report was given: the commits are resolve's pins."]
    lines += ["", f"Run: {run.run_url}" if run.run_url else "Run: unknown"]
    if run.rows:
        lines += ["", "Reproduce the install in the container:", "",
                  markdown_code_block([_reproduce(run)])]
    return "\n".join(lines)


def _from_data(manifest: Manifest) -> str:
    """A suite's section from its data alone (its table is too long for a comment)."""
    lines = [f"- {markdown_cell(name)}: {_cell(entry.ref)} tested at "
              f"{markdown_cell(entry.sha[:12]) if entry.sha else 'an unknown commit'}"
              for name, entry in manifest.tested.items()] or ["Nothing was named."]
    lines += ["", f"Run: {_cell(manifest.run)}" if manifest.run else "Run: unknown"]
    return "\n".join(lines)


def _row(row: ManifestRow) -> list[str]:
    override = row.override
    named = (f"inherited from #{override.via}" if override.via is not None else
             override.source) + (f", line {override.line}" if override.line else "")
    if override.raw != override.ref:
        named += f": {override.raw}"
    if row.tested:
        tested = markdown_cell(row.tested[:12])
    elif override.sha:
        tested = (f"not confirmed: resolve pinned {markdown_cell(override.sha[:12])}, no "
                  f"install report says it was installed")
    else:
        tested = "unknown: no install report says it was installed"
    # `named` quotes the report's `raw`: hostile text, escaped like every other quoted value.
    return [markdown_cell(row.name), _cell(named), _pull(row), tested, _patches(row),
            _installs(row)]


def _pull(row: ManifestRow) -> str:
    if row.override.pr is None:
        return f"none ({_cell(row.override.ref)})"
    link = (f"[{row.repository}#{row.override.pr}](https://github.com/{row.repository}/pull/"
            f"{row.override.pr})")
    if row.pull_state is None:
        return link
    moved = (f"; head now {markdown_cell(row.pull_head[:12])}"
             if row.tested and row.pull_head and row.pull_head != row.tested else "")
    return f"{link} {row.pull_state}{moved}"


def _patches(row: ManifestRow) -> str:
    states = {patch: state for _, entry in row.installs for patch, state in entry.patches}
    return _listed([_cell(f"{patch}: {state}") for patch, state in states.items()])


def _installs(row: ManifestRow) -> str:
    return _listed([_cell(f"{label}: {entry.state or 'unknown'}"
                          f"{f', {entry.version}' if entry.version else ''}")
                    for label, entry in row.installs]) or "not reported"


def _reproduce(run: ManifestRun) -> str:
    overrides = {row.name: {"ref": row.override.ref, "sha": row.tested or row.override.sha}
                 for row in run.rows}
    document = json.dumps(overrides, separators=(",", ":"))
    return shlex.join(["rocm-deps", "install", *run.options, "--overrides", document])


def text(action: str, run: ManifestRun, ignored: list[int]) -> str:
    where = f"{run.repository}#{run.number}"
    lines = [f"manifest comment on {where}: {action} (suite {run.suite})"]
    lines += [f"  {row.name}: {row.override.ref} tested at {row.tested or 'unknown'}"
              for row in run.rows]
    if ignored:
        lines.append(f"  ignored look-alike comments (not by the bot): "
                     f"{', '.join(map(str, ignored))}")
    return "\n".join(lines)
