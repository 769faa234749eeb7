"""`rocm-deps resolve`: which dependency refs does this run test? (DESIGN §3, §4, §8, §9)"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_deps.config import Config, DependencyConfig
from rocm_deps.directives import Directive, Finding, ParsedBody, parse_body
from rocm_deps.errors import EXIT_FAILURE, EXIT_OK, UsageError
from rocm_deps.event import EventContext, event_context, read_event, read_json_object
from rocm_deps.refs import RefSpec, ValueProblem, classify
from rocm_deps.runner import Runner, markdown_cell, markdown_table

SOURCES = ("dispatch", "body", "lock", "default")
DEFAULT_TRUSTED = ("OWNER", "MEMBER", "COLLABORATOR")
REPORT_VERSION = 1


@dataclass(frozen=True)
class ResolveSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    body_file: Path | None = None
    token: str | None = None
    body_source: str = "event"
    trusted_associations: tuple[str, ...] = DEFAULT_TRUSTED
    output_format: str = "text"
    api_url: str = "https://api.github.com"


@dataclass
class Override:
    name: str
    ref: str
    source: str
    raw: str
    kind: str
    sha: str | None = None
    line: int | None = None
    pr: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "sha": self.sha, "source": self.source, "raw": self.raw,
                "line": self.line, "pr": self.pr}


@dataclass
class ResolveReport:
    overrides: dict[str, Override] = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    body_origin: str = "none"

    @property
    def named_by(self) -> str:
        sources = {override.source for override in self.overrides.values()}
        return next((source for source in SOURCES if source in sources), "")

    @property
    def skip_dependency_install(self) -> bool:
        return not self.overrides

    def overrides_json(self) -> dict[str, Any]:
        return {name: override.to_json() for name, override in self.overrides.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "skip_dependency_install": self.skip_dependency_install,
            "named_by": self.named_by,
            "overrides": self.overrides_json(),
            "warnings": [_finding_json(finding) for finding in self.warnings],
            "errors": [_finding_json(finding) for finding in self.errors],
        }


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {"message": finding.message, "line": finding.line or None}


def resolve(settings: ResolveSettings, runner: Runner) -> ResolveReport:
    """Parse, validate and (with a token) pin every directive. Never raises for bad input in
    the body or the inputs: those become `errors` in the report."""
    config = settings.config
    context = event_context(settings.event_name, read_event(settings.event_path))
    report = ResolveReport()
    context, body = _body(settings, context, report, runner)
    parsed = parse_body(body, config.dependencies)
    for finding in parsed.findings:
        (report.errors if finding.level == "error" else report.warnings).append(finding)
    directives = parsed.directives if _trusted(settings, context, parsed, report) else {}
    dispatch = {**context.dispatch_inputs, **settings.inputs}
    lock = _read_lock(config)
    for dependency in config.dependencies:
        override = _choose(dependency, dispatch, directives, lock, report)
        if override is not None:
            report.overrides[dependency.name] = override
    if settings.token and not report.errors:
        from rocm_deps import github_api  # PyGithub is imported only when a token is given

        github_api.pin_overrides(settings, config, report, runner)
    for override in report.overrides.values():
        if override.kind == "short-commit" and override.sha is None:
            report.errors.append(Finding("error", _short_sha_message(override), override.line or 0))
    return report


def _body(settings: ResolveSettings, context: EventContext, report: ResolveReport,
          runner: Runner) -> tuple[EventContext, str | None]:
    """The PR body to parse, and the context updated with what the API said of the PR."""
    if settings.body_file is not None:
        report.body_origin = f"file {settings.body_file}"
        try:
            return context, settings.body_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read --body-file {settings.body_file}: {error}") from None
    if settings.body_source == "api" and context.pr_number is not None:
        if not settings.token:
            raise UsageError("body-source `api` needs a token: set the `github-token` input "
                             "(CLI: --github-token-env VAR)")
        from rocm_deps import github_api  # PyGithub is imported only when a token is given

        pull = github_api.read_pull(settings, context)
        report.body_origin = (f"pull request #{context.pr_number} of {context.repository}, "
                              f"read from the API (the current description)")
        association = pull.author_association or context.author_association
        return dataclasses.replace(context, author_association=association), pull.body
    if context.pr_number is not None:
        report.body_origin = f"pull request #{context.pr_number} (event payload)"
    return context, context.body


def _trusted(settings: ResolveSettings, context: EventContext, parsed: ParsedBody,
             report: ResolveReport) -> bool:
    """DESIGN §4: under privileged events only trusted authors' directives are honoured."""
    if not context.privileged or not (parsed.directives or parsed.errors):
        return True
    trusted = {association.upper() for association in settings.trusted_associations}
    association = (context.author_association or "UNKNOWN").upper()
    if association in trusted:
        return True
    report.errors.append(Finding(
        "error",
        f"the pull request body names dependency refs, but under `{context.event_name}` "
        f"directives are honoured only for authors whose association is one of "
        f"{', '.join(sorted(trusted))} (input `trusted-associations`); this author is "
        f"{association}. This event runs with the repository's secrets, so an untrusted body "
        f"must not choose the code that runs. A maintainer can start a `workflow_dispatch` run "
        f"with the ci_<name>_pr inputs instead."))
    return False


def _read_lock(config: Config) -> Mapping[str, Any]:
    if config.lock_file is None:
        return {}
    return read_json_object(Path(config.lock_file), f"{config.source}: lock-file",
                            "a JSON object with <name>_commit keys")


def _choose(dependency: DependencyConfig, dispatch: Mapping[str, str],
            directives: Mapping[str, Directive], lock: Mapping[str, Any],
            report: ResolveReport) -> Override | None:
    """Precedence, per dependency: dispatch input > body directive > lock file > default."""
    raw_input = dispatch.get(dependency.dispatch_input, "")
    if raw_input.strip(" \t\n\r\f\v"):
        value = raw_input.strip(" \t\n\r\f\v")
        return _from_value(dependency, value, "dispatch", f"input `{dependency.dispatch_input}`",
                           report)
    directive = directives.get(dependency.name)
    if directive is not None:
        return _override(dependency, directive.spec, "body", directive.raw, directive.line)
    lock_key = f"{dependency.name}_commit"
    if lock_key in lock:
        value = lock[lock_key]
        if not isinstance(value, str):
            report.errors.append(Finding("error", f"lock-file key `{lock_key}`: expected a "
                                                  f"string, got {type(value).__name__}"))
            return None
        return _from_value(dependency, value.strip(), "lock", f"lock-file key `{lock_key}`",
                           report)
    if dependency.default:
        return _from_value(dependency, dependency.default, "default",
                           f"config `dependencies.{dependency.name}.default`", report)
    return None


def _from_value(dependency: DependencyConfig, value: str, source: str, where: str,
                report: ResolveReport) -> Override | None:
    spec = classify(value, dependency.repository)
    if isinstance(spec, ValueProblem):
        report.errors.append(Finding("error", f"{where}: {spec.message}"))
        return None
    return _override(dependency, spec, source, value, None)


def _override(dependency: DependencyConfig, spec: RefSpec, source: str, raw: str,
              line: int | None) -> Override:
    return Override(dependency.name, spec.ref, source, raw, spec.kind, spec.sha, line, spec.pr)


def _short_sha_message(override: Override) -> str:
    where = f"line {override.line}: " if override.line else ""
    return (f"{where}`{override.raw}` ({override.name}) is an abbreviated commit SHA; give the "
            f"full 40-digit SHA (`git rev-parse {override.raw}` prints it), or pass a "
            f"`github-token` so the action can expand it through the GitHub API")


# ---- presentation -------------------------------------------------------------------------


def outputs(report: ResolveReport, config: Config) -> dict[str, str]:
    """The step outputs of DESIGN §9; empty strings for unnamed dependencies."""
    values = {
        "skip_dependency_install": "true" if report.skip_dependency_install else "false",
        "named_by": report.named_by,
        "overrides": json.dumps(report.overrides_json(), separators=(",", ":")),
    }
    for dependency in config.dependencies:
        override = report.overrides.get(dependency.name)
        values[f"{dependency.name}_ref"] = override.ref if override else ""
        values[f"{dependency.name}_sha"] = (override.sha or "") if override else ""
    values["report"] = json.dumps(report.to_json(), separators=(",", ":"))
    return values


def summary_markdown(report: ResolveReport, config: Config) -> str:
    lines = ["### rocm-deps resolve", ""]
    lines.append(f"PR body read from: {report.body_origin}.")
    if report.errors:
        lines.append("")
        lines.append("**Failed**: fix the problems below; no dependency is installed until "
                     "they are fixed.")
    elif report.skip_dependency_install:
        lines.append("")
        lines.append("Nothing names a dependency ref: every dependency keeps the image's copy "
                     "(`skip_dependency_install=true`).")
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
            lines += ["", f"#### {title}", ""]
            lines += [f"- {_escape_markdown(finding.message)}" for finding in findings]
    if report.notices:
        lines += ["", "#### Notes", ""] + [f"- {_escape_markdown(n)}" for n in report.notices]
    return "\n".join(lines)


def _escape_markdown(text: str) -> str:
    # Findings quote PR-body text; keep it from injecting HTML or links into the summary.
    return text.replace("<", "&lt;").replace(">", "&gt;")


def annotate(report: ResolveReport, runner: Runner) -> None:
    for finding in report.warnings:
        runner.warning(finding.message, title="rocm-deps: directive warning",
                       line=finding.line or None)
    for finding in report.errors:
        runner.error(finding.message, title="rocm-deps: invalid directive",
                     line=finding.line or None)
    for notice in report.notices:
        runner.notice(notice, title="rocm-deps")


def publish(report: ResolveReport, settings: ResolveSettings, runner: Runner) -> int:
    """Annotations, outputs, summary and stdout report; returns the exit code."""
    annotate(report, runner)
    values = outputs(report, settings.config)
    if report.errors:
        # Fail closed: a downstream `if: always()` must not read a skip flag from a failed step.
        values = {"report": values["report"]}
    runner.set_outputs(values)
    runner.add_summary(summary_markdown(report, settings.config))
    if settings.output_format == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(text_report(report, settings.config))
    return EXIT_FAILURE if report.errors else EXIT_OK


def text_report(report: ResolveReport, config: Config) -> str:
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
    if report.errors:
        lines.append(f"{len(report.errors)} error(s): see the messages above")
    return "\n".join(lines)


def run(settings: ResolveSettings, runner: Runner) -> int:
    return publish(resolve(settings, runner), settings, runner)
