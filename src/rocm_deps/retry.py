"""One retry policy for everything the network answers (docs/architecture.md, *The install
pipeline* and *The GitHub API and the merge guard*): git's fetches (the config's `[install]`
`fetch-attempts`, `retry-min-seconds`, `retry-max-seconds`), GitHub API requests and the wait
for GitHub's test merge (`[api]` `attempts`, `backoff-seconds`). A policy is how many attempts
and the wait before each next one; the callers decide what is worth another attempt.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

# urllib3 caps its backoff between API attempts at this many seconds
# (Retry.DEFAULT_BACKOFF_MAX); the policy's waits follow the same cap.
MAX_BACKOFF_SECONDS = 120.0


@dataclass(frozen=True)
class RetryPolicy:
    """`attempts` in all; before attempt n+1, a wait of `first_seconds * 2**(n-1)` (capped at
    `MAX_BACKOFF_SECONDS`) when `jitter_to` is None, else a random one from `first_seconds` to
    `jitter_to` (git's fetches: many runners retrying one server spread out)."""

    attempts: int
    first_seconds: float
    jitter_to: float | None = None

    def wait(self, attempt: int) -> float:
        """The wait after failed attempt `attempt` (from 1), before the next."""
        if self.jitter_to is not None:
            return random.uniform(self.first_seconds, self.jitter_to)  # noqa: S311
        return min(MAX_BACKOFF_SECONDS, self.first_seconds * 2.0 ** (attempt - 1))

    def waits(self) -> Iterator[float]:
        """The longest wait before each next attempt: what a deadline must allow for."""
        for attempt in range(1, self.attempts):
            yield (max(self.first_seconds, self.jitter_to) if self.jitter_to is not None
                   else self.wait(attempt))
