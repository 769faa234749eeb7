"""Pins of an earlier attempt (docs/architecture.md, *Every path a suite runs along*).

GitHub's "re-run failed jobs" (Miles' `/rerun-failed-ci`) keeps the outputs of the jobs it does
not re-run: the GPU job of attempt 2 receives the `overrides` attempt 1's resolve job wrote. The
document records the run and attempt that wrote it (`contract.overrides.RunRecord`); in a later
attempt of the same run, install resolves again, as the resolve job would now, and goes on only
when the digest of what that decides is the recorded one. Otherwise it fails before any GPU
work, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping

from rocm_deps.contract.overrides import Override
from rocm_deps.errors import FatalError
from rocm_deps.github.on_demand import ensure_github
from rocm_deps.install.settings import InstallSettings
from rocm_deps.messages import needs_token
from rocm_deps.runner import Runner

TITLE = "rocm-deps: pins of an earlier attempt"


def check_attempt(settings: InstallSettings, runner: Runner) -> None:
    """Go on when the overrides were resolved in this attempt of this run (or outside a run),
    or when resolving now decides what they say; else raise, naming both."""
    record, now = settings.pinned_by, settings.resolve.run
    if record is None or now.run_id != record.run_id or now.attempt == record.attempt:
        return
    pins = f"pins of attempt {record.attempt} ({describe(settings.overrides or {})})"
    if record.api and not settings.resolve.api.token:
        raise FatalError(needs_token(
            f"this is attempt {now.attempt} of run {now.run_id}, and install got the {pins}: "
            f"GitHub keeps the outputs of the jobs a re-run of failed jobs does not re-run. "
            f"Whether they are still what the description names is read through the API", "",
            settings.resolve.api.empty_variable) + "; or re-run all jobs", title=TITLE)
    ensure_github(settings.resolve.api, runner)
    from rocm_deps.resolve.resolver import resolve  # a later attempt only: not every install

    resolved = resolve(settings.resolve)
    if resolved.errors:
        raise FatalError(f"install got the {pins}, and the description now has "
                         f"{len(resolved.errors)} error(s) (first: "
                         f"{resolved.errors[0].message[:300]}): fix it, then re-run all jobs",
                         title=TITLE)
    if resolved.digest != record.digest:
        raise FatalError(f"install got the {pins}; the description now names "
                         f"{describe(resolved.overrides)}: re-run all jobs (a re-run of failed "
                         f"jobs keeps attempt {record.attempt}'s resolve outputs)", title=TITLE)
    runner.notice(f"attempt {now.attempt}: the {pins} are still what the description names",
                  title="rocm-deps")


def describe(overrides: Mapping[str, Override]) -> str:
    """What a set of pins names, for a message: `sglang #30421 at 3f1c0d9, megatron 1a2b3c4`."""
    if not overrides:
        return "no dependency: the image's copies"
    return ", ".join(_pin(name, override) for name, override in sorted(overrides.items()))


def _pin(name: str, override: Override) -> str:
    commit = (override.sha or "")[:7]
    if override.pr is not None:
        return f"{name} #{override.pr}" + (f" at {commit}" if commit else "")
    return f"{name} {commit or override.ref}"
