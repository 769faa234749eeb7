"""The merge-check report: each directive of each pull request and the policy's verdict
(docs/architecture.md, *The GitHub API and the merge guard*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rocm_deps.contract.guard import Policy, PullState, Verdict
from rocm_deps.contract.resolve import MAX_FINDINGS
from rocm_deps.grammar.parsed import Finding


@dataclass(frozen=True)
class Check:
    """One directive of one pull request, and what the policy says of it."""

    pull: int | None  # the pull request whose description names it
    dependency: str
    raw: str
    line: int
    state: PullState
    verdict: Verdict
    reason: str
    via: int | None = None  # inherited: the pull request below whose description has the line


@dataclass
class MergeCheckReport:
    policy: Policy
    pulls: list[int] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    statuses: list[dict[str, str]] = field(default_factory=list)  # the guard statuses written

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(check.verdict == "fail" for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "pulls": self.pulls, "failed": self.failed,
                "checks": [{"pull": c.pull, "dependency": c.dependency, "value": c.raw,
                            "line": c.line, "via": c.via, "state": c.state,
                            "verdict": c.verdict, "reason": c.reason} for c in self.checks],
                "statuses": self.statuses,
                "errors": [error.to_json() for error in self.errors[:MAX_FINDINGS]],
                "warnings": [warning.to_json() for warning in self.warnings[:MAX_FINDINGS]],
                "notices": self.notices}
