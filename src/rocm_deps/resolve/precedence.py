"""Which source names a dependency's ref, per dependency: the first of `PRECEDENCE`
(contract/overrides.py; docs/architecture.md, *Directives*) that names it.

Each source has one step here, and `choose` walks them in that order, so the list in the
contract is the order the code applies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rocm_deps.config import DependencyConfig
from rocm_deps.contract.overrides import PRECEDENCE, VIA_SOURCES, Override, Source
from rocm_deps.contract.resolve import ResolveReport
from rocm_deps.grammar.parsed import Directive, Finding
from rocm_deps.grammar.refs import RefSpec, ValueProblem, classify, merged_onto_base
from rocm_deps.resolve.stack import Inherited

WHITESPACE = " \t\n\r\f\v"  # ASCII only: a non-ASCII space in a value is an error, not trimmed


@dataclass(frozen=True)
class Named:
    """What could name a dependency in this run. `inherited` is what another description
    names: the pull requests below in the stack (`inherited_source` "stack") or, on a merge
    group, the group's pull requests ("queue"). Without the lock file read (`lock_read`
    False), the default is not a stand-in for what it would have pinned."""

    dispatch: Mapping[str, str]
    directives: Mapping[str, Directive]
    inherited: Mapping[str, Inherited]
    inherited_source: Source
    lock: Mapping[str, Any]
    lock_read: bool = True


class _Unnamed:
    """This source says nothing of the dependency: ask the next one."""


UNNAMED = _Unnamed()
Step = Callable[[DependencyConfig, Named, ResolveReport], "Override | _Unnamed | None"]


def choose(dependency: DependencyConfig, named: Named,
           report: ResolveReport) -> Override | None:
    """The override of the first source in `PRECEDENCE` that names `dependency`; None when
    none does, or when the one that does is in error (the error is in `report`)."""
    for source in PRECEDENCE:
        if source in VIA_SOURCES and source != named.inherited_source:
            continue  # what another description names: the stack's, or the merge group's
        chosen = STEPS[source](dependency, named, report)
        if not isinstance(chosen, _Unnamed):
            return chosen
    return None


def _dispatch(dependency: DependencyConfig, named: Named,
              report: ResolveReport) -> Override | _Unnamed | None:
    raw_input = named.dispatch.get(dependency.dispatch_input, "").strip(WHITESPACE)
    if not raw_input:
        return UNNAMED
    directive = named.directives.get(dependency.name)
    if directive is not None:
        report.notices.append(
            f"{dependency.name}: the dispatch input `{dependency.dispatch_input}` "
            f"(`{raw_input}`) replaces the PR body's `{directive.key}: {directive.raw}` "
            f"(line {directive.line})")
    return _from_value(dependency, raw_input, "dispatch",
                       f"input `{dependency.dispatch_input}`", report)


def _body(dependency: DependencyConfig, named: Named,
          report: ResolveReport) -> Override | _Unnamed | None:
    directive = named.directives.get(dependency.name)
    if directive is None:
        return UNNAMED
    return override_of(dependency, directive.spec, "body", directive.raw, directive.line)


def _inherited(dependency: DependencyConfig, named: Named,
               report: ResolveReport) -> Override | _Unnamed | None:
    below = named.inherited.get(dependency.name)
    if below is None:
        return UNNAMED
    return dataclasses.replace(override_of(dependency, below.directive.spec,
                                           named.inherited_source, below.directive.raw,
                                           below.directive.line), via=below.via)


def _lock(dependency: DependencyConfig, named: Named,
          report: ResolveReport) -> Override | _Unnamed | None:
    lock_key = f"{dependency.name}_commit"
    if lock_key not in named.lock:
        return UNNAMED
    value = named.lock[lock_key]
    if not isinstance(value, str):
        report.errors.append(Finding("error", f"lock-file key `{lock_key}`: expected a "
                                              f"string, got {type(value).__name__}"))
        return None
    return _from_value(dependency, value.strip(WHITESPACE), "lock",
                       f"lock-file key `{lock_key}`", report)


def _default(dependency: DependencyConfig, named: Named,
             report: ResolveReport) -> Override | _Unnamed | None:
    if not dependency.default:
        return UNNAMED
    if not named.lock_read:
        report.errors.append(Finding(
            "error", f"{dependency.name}: the lock file is not read (an untrusted author's "
                     f"pull request under a privileged event), and the configured default "
                     f"`{dependency.default}` is a moving ref, not the commit the lock file "
                     f"pins: the run would test a commit nobody chose. Run the suite on "
                     f"`pull_request`, or name {dependency.name}'s commit with a dispatch "
                     f"input", title=f"rocm-deps: {dependency.name}"))
        return None
    return _from_value(dependency, dependency.default, "default",
                       f"config `dependencies.{dependency.name}.default`", report)


STEPS: Mapping[Source, Step] = {"dispatch": _dispatch, "body": _body, "queue": _inherited,
                                "stack": _inherited, "lock": _lock, "default": _default}


def _from_value(dependency: DependencyConfig, value: str, source: Source, where: str,
                report: ResolveReport) -> Override | None:
    spec = classify(value, dependency.repository)
    if isinstance(spec, ValueProblem):
        report.errors.append(Finding("error", f"{where}: {spec.message}",
                                     title=f"rocm-deps: {dependency.name}"))
        return None
    if spec.caution:
        report.warnings.append(Finding("warning", f"{where}: {spec.caution}",
                                       title=f"rocm-deps: {dependency.name}"))
    return override_of(dependency, spec, source, value, None)


def override_of(dependency: DependencyConfig, spec: RefSpec, source: Source, raw: str,
                line: int | None) -> Override:
    if dependency.merge_with_base:  # every pull request form means its merge onto its base
        merged = merged_onto_base(spec)
        assert isinstance(merged, RefSpec)
        spec = merged
    return Override(name=dependency.name, kind=spec.kind, ref=spec.ref, source=source, raw=raw,
                    sha=spec.sha, line=line, pr=spec.pr)
