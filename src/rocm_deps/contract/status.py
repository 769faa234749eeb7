"""The one verdict (docs/architecture.md, *Living results*): whether what a suite tested is still
what the description names, as `success`, `failure` or `pending` with one line of why.
`named_now` reads what the description names (after the config's merge-with-base), `judge`
holds it to the suite's manifest and the named pull requests' heads now, `worst` joins the
verdicts of the pull requests that share a head commit. `comment`'s status, `sweep` and
`merge-check --require-tested` call these and nothing else decides. Pure: the callers read
the API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rocm_deps.contract.manifest import SUITE, Manifest, ManifestEntry
from rocm_deps.grammar.refs import RefSpec, is_merge_ref, merged_onto_base

if TYPE_CHECKING:
    from rocm_deps.config import Config
    from rocm_deps.grammar.parsed import Directive

State = Literal["success", "failure", "pending"]
CONTEXT_PREFIX = "rocm-deps: "
MAX_DESCRIPTION = 140  # GitHub refuses a longer status description
NOTHING_NAMED = "nothing named"
RERUN_REQUESTED = "; re-run requested"
RERUN_REFUSED = "; re-run refused"
# What a failure's description starts with when a named pull request moved since it was
# tested: the sweep re-runs the suite for those (`--rerun moved`).
MOVED = "moved"


def context(suite: str) -> str:
    return f"{CONTEXT_PREFIX}{suite}"


def suite_of(status_context: str) -> str | None:
    """The suite a status context of ours names; None for any other context."""
    suite = status_context.removeprefix(CONTEXT_PREFIX)
    return suite if status_context.startswith(CONTEXT_PREFIX) and SUITE.fullmatch(
        suite) else None


@dataclass(frozen=True)
class Named:
    """One dependency the description names, as the status reads it."""

    dependency: str
    repository: str
    kind: Literal["pr", "commit", "ref"]
    raw: str  # as written, for the description
    pr: int | None = None
    sha: str | None = None  # a commit's full SHA (an abbreviation expanded), else None
    merge: bool = False  # the pull request merged onto its base, not its head


def named_kind(pr: int | None, kind: str) -> Literal["pr", "commit", "ref"]:
    """How the status reads a named ref: a commit (a full SHA, an abbreviation, or one
    commit of a pull request by its URL), a pull request (its head, or its merge), else a
    branch or tag, even when pinned to a SHA."""
    if kind in ("commit", "short-commit"):
        return "commit"
    return "pr" if pr is not None else "ref"


def named_now(directives: Iterable[Directive], config: Config,
              expand: Callable[[str, str], str]) -> tuple[list[Named], list[str]]:
    """What the description's `directives` name, as resolve reads them: a dependency with
    `merge-with-base` names every pull request merged onto its base; an abbreviated SHA is
    the commit `expand(repository, abbreviation)` says it names now (it raises `ValueError`
    with the reason when it cannot say). Returns the named and the errors."""
    named, errors = [], []
    for directive in directives:
        dependency = config.dependency(directive.dependency)
        spec = directive.spec
        if dependency.merge_with_base:
            merged = merged_onto_base(spec)
            assert isinstance(merged, RefSpec)
            spec = merged
        sha = spec.sha
        if spec.kind == "short-commit":
            try:
                sha = expand(dependency.repository, spec.ref)
            except ValueError as error:
                errors.append(f"`{directive.key}: {directive.raw}` could not be expanded: "
                              f"{error}")
                continue
        named.append(Named(directive.dependency, dependency.repository,
                           named_kind(spec.pr, spec.kind), directive.raw, spec.pr, sha,
                           is_merge_ref(spec.ref)))
    return named, errors


@dataclass(frozen=True)
class Head:
    """A named dependency pull request as it is now."""

    sha: str
    merged: bool


@dataclass(frozen=True)
class Judgement:
    state: State
    description: str
    moved: tuple[str, ...] = ()  # `repo#N` of each named pull request that moved

    def __post_init__(self) -> None:
        assert len(self.description) <= MAX_DESCRIPTION


def judge(named: Sequence[Named], manifest: Manifest | None,
          heads: Mapping[tuple[str, int], Head], errors: Sequence[str] = (),
          head: str | None = None) -> Judgement:
    """What `manifest` (the suite's section; None: the suite has not reported) says of the
    description's `named` dependencies, with each named pull request's head now (`heads`, by
    (repository lowercased, number)) and the pull request's own head now (`head`, where the
    status goes). `errors`: the description's own errors."""
    if errors:
        return Judgement("failure", fit(f"the description has {len(errors)} error"
                                        f"{'s' if len(errors) > 1 else ''}: {errors[0]}"))
    if manifest is not None and head is not None and manifest.head != head:
        if not named and not _dropped(named, manifest):
            return Judgement("success", NOTHING_NAMED)
        not_yet = Judgement("pending", fit(
            f"this suite has not reported on {_short(head)} yet" + (
                f" (it tested {_short(manifest.head)})" if manifest.head
                else " (its manifest names no commit: re-run it)")))
        if manifest.head is not None:
            return not_yet  # a later push: the suite's next run decides
        # A manifest that names no commit: what it says is judged, and never green.
        verdict = judge(named, manifest, heads, errors, None)
        return verdict if verdict.state == "failure" else not_yet
    branches = [item for item in named if item.kind == "ref"]
    if branches:
        return Judgement("failure", fit(
            f"{_name(branches[0])} names a branch or tag, which moves without a trace: name "
            f"the pull request or the commit"))
    if manifest is None:
        if not named:
            return Judgement("success", NOTHING_NAMED)
        return Judgement("pending", fit(f"{', '.join(_name(item) for item in named)} named; "
                                        f"not reported by this suite yet"))
    problems: list[str] = []
    moved: list[str] = []
    tested_texts: list[str] = []
    for item in named:
        tested = manifest.tested.get(item.dependency)
        same_repository = tested is not None and (
            tested.repository.lower() == item.repository.lower())
        if item.kind == "commit" and item.sha is None:
            problems.append(f"{_name(item)} was never expanded to a full SHA (resolve ran "
                            f"without a token)")
            continue
        if item.kind == "commit":
            if tested is None or not same_repository or tested.sha != item.sha:
                problems.append(f"{_name(item)} not tested (tested "
                                f"{_short(tested.sha) if tested else 'none'})")
            else:
                tested_texts.append(f"{item.dependency} {_short(item.sha)}")
            continue
        assert item.pr is not None
        target = f"{item.dependency}#{item.pr}"
        pull = heads.get((item.repository.lower(), item.pr))
        if tested is None or not same_repository or tested.pr != item.pr or tested.sha is None:
            problems.append(f"{target} not tested by this run")
            continue
        if is_merge_ref(tested.ref) != item.merge:
            problems.append(f"{target} {'merged onto its base' if item.merge else 'head'} "
                            f"named, its {'head' if item.merge else 'merge'} tested")
            continue
        if is_merge_ref(tested.ref) and tested.head is None:
            problems.append(f"{target} merge tested without its head (no token)")
            continue
        tested_head = tested.head or tested.sha
        if pull is None:
            problems.append(f"{target} could not be read")
        elif pull.sha != tested_head:
            moved.append(target)
            problems.insert(len(moved) - 1, f"{target} {MOVED} {_short(tested_head)}→"
                                            f"{_short(pull.sha)} since tested")
        else:
            tested_texts.append(f"{target} {'merged at' if pull.merged else 'at'} "
                                f"{_short(tested_head)}")
    problems += [f"{name} tested at {_short(entry.sha)}, "
                 + ("a dispatch input the description does not name" if entry.source == "dispatch"
                    else "no longer named") for name, entry in _dropped(named, manifest)]
    if problems:
        return Judgement("failure", fit("; ".join(problems)), tuple(moved))
    if not named:
        return Judgement("success", NOTHING_NAMED)
    return Judgement("success", fit(f"tested {', '.join(tested_texts)}"))


def _dropped(named: Sequence[Named], manifest: Manifest) -> list[tuple[str, ManifestEntry]]:
    """What the suite tested because the author named it, and the description names no
    more: the run tested something other than what the description now asks for."""
    names = {item.dependency for item in named}
    return [(name, entry) for name, entry in manifest.tested.items()
            if name not in names and entry.named]


SEVERITY: Mapping[State, int] = {"success": 0, "pending": 1, "failure": 2}


def worst(judgements: Iterable[Judgement]) -> Judgement:
    """The verdict of a commit several pull requests share: the worst of theirs (`failure` >
    `pending` > `success`), the first of that state. A status belongs to the commit."""
    found: Judgement | None = None
    for judgement in judgements:
        if found is None or SEVERITY[judgement.state] > SEVERITY[found.state]:
            found = judgement
    assert found is not None
    return found


def with_rerun(judgement: Judgement, refused: bool = False) -> Judgement:
    """The judgement, saying that the suite's run was re-run for it (or that GitHub refused
    the re-run: a run older than 30 days, say; it is not asked again for this move)."""
    suffix = RERUN_REFUSED if refused else RERUN_REQUESTED
    return Judgement(judgement.state,
                     fit(judgement.description, MAX_DESCRIPTION - len(suffix)) + suffix,
                     judgement.moved)


def fit(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """`text` as a status description: at most `limit` characters, and only printable ones
    (as the API adapter reads a description back, so an unchanged status compares equal)."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _name(item: Named) -> str:
    if item.kind == "pr":
        return f"{item.dependency}#{item.pr}"
    return f"{item.dependency} {_short(item.sha) if item.sha else item.raw[:40]}"


def _short(sha: str | None) -> str:
    return sha[:7] if sha else "none"
