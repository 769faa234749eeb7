"""The resolve report: the overrides, the values and every finding of one resolve
(docs/architecture.md, *Command line and the documents*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rocm_deps.contract.overrides import (
    PRECEDENCE,
    REPORT_VERSION,
    Override,
    RunRecord,
    Source,
    overrides_to_json,
    pins_digest,
)
from rocm_deps.grammar.parsed import Finding

# Findings reported one by one (annotations, summary, report); the rest are counted.
MAX_FINDINGS = 1000


def findings_omitted(*lists: list[Finding]) -> int:
    """How many findings of `lists` are counted rather than reported one by one."""
    return sum(max(0, len(findings) - MAX_FINDINGS) for findings in lists)


ValueSource = Literal["explicit", "dispatch", "body", "default"]


@dataclass(frozen=True)
class ResolvedValue:
    """A value directive's outcome (`ci-image-tag`): the value, where it came from, the line."""

    value: str
    source: ValueSource
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "line": self.line}


@dataclass
class ResolveReport:
    overrides: dict[str, Override] = field(default_factory=dict)
    values: dict[str, ResolvedValue] = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    body_origin: str = "none"
    # `Depends-On:` pull requests of this repository: merge-check waits for them
    prerequisites: list[str] = field(default_factory=list)
    run: RunRecord | None = None  # the run and attempt that resolved, in a workflow run
    # The configuration file it read ({"source", "text"}), carried to install: None when it
    # read none (the built-in profile alone).
    carried: dict[str, str] | None = None

    @property
    def digest(self) -> str:
        """What this resolve decided, as `contract.overrides.pins_digest` sums it up."""
        return pins_digest(self.overrides)

    @property
    def named_by(self) -> Source | Literal[""]:
        sources = {override.source for override in self.overrides.values()}
        return next((source for source in PRECEDENCE if source in sources), "")

    @property
    def skip_dependency_install(self) -> bool:
        return not self.overrides

    def add(self, finding: Finding) -> None:
        if finding.level == "notice":
            self.notices.append(finding.message)
        else:
            (self.errors if finding.level == "error" else self.warnings).append(finding)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            # null after an error: a reader of the report cannot take a failure for
            # "nothing named", as a reader of the outputs cannot (they lack the flag).
            "skip_dependency_install": None if self.errors else self.skip_dependency_install,
            "named_by": self.named_by,
            "body_read_from": self.body_origin,
            "prerequisites": self.prerequisites,
            "overrides": overrides_to_json(self.overrides, self.run, self.carried),
            "values": {name: value.to_json() for name, value in self.values.items()},
            "warnings": [finding.to_json() for finding in self.warnings[:MAX_FINDINGS]],
            "errors": [finding.to_json() for finding in self.errors[:MAX_FINDINGS]],
            "findings_omitted": findings_omitted(self.warnings, self.errors),
        }
