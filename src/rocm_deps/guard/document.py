"""The merge-check report: each directive of each pull request and the policy's verdict
(docs/architecture.md, *The GitHub API and the merge guard*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rocm_deps.contract.resolve import MAX_FINDINGS
from rocm_deps.grammar.parsed import Finding
from rocm_deps.guard.settings import Policy

Verdict = Literal["pass", "fail", "warn"]
# What merge-check found of a named dependency pull request ("not asked": the policy refuses
# every directive, so no API call is made).
PullState = Literal["merged", "open", "closed (unmerged)", "not a PR", "not asked"]


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


@dataclass
class MergeCheckReport:
    policy: Policy
    pulls: list[int] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(check.verdict == "fail" for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "pulls": self.pulls, "failed": self.failed,
                "checks": [{"pull": c.pull, "dependency": c.dependency, "value": c.raw,
                            "line": c.line, "state": c.state, "verdict": c.verdict,
                            "reason": c.reason} for c in self.checks],
                "errors": [error.to_json() for error in self.errors[:MAX_FINDINGS]],
                "warnings": [warning.to_json() for warning in self.warnings[:MAX_FINDINGS]],
                "notices": self.notices}
