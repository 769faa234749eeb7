"""One retry policy: git's jittered waits, the API's and the merge wait's doubling ones."""

from __future__ import annotations

import random

from rocm_deps.config import load_config
from rocm_deps.retry import MAX_BACKOFF_SECONDS, RetryPolicy


def test_a_doubling_policy_waits_twice_as_long_each_time_up_to_urllib3s_cap() -> None:
    policy = RetryPolicy(attempts=10, first_seconds=2.0)
    assert [policy.wait(attempt) for attempt in range(1, 8)] == [
        2.0, 4.0, 8.0, 16.0, 32.0, 64.0, MAX_BACKOFF_SECONDS]
    assert list(policy.waits()) == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 120.0, 120.0, 120.0]


def test_a_jittered_policy_waits_between_its_bounds_and_a_deadline_allows_the_longest() -> None:
    policy = RetryPolicy(attempts=3, first_seconds=10.0, jitter_to=20.0)
    random.seed(7)
    waits = [policy.wait(1) for _ in range(200)]
    assert 10.0 <= min(waits) < 11.0 and 19.0 < max(waits) <= 20.0
    assert list(policy.waits()) == [20.0, 20.0]


def test_the_config_gives_git_and_the_api_their_policies() -> None:
    config = load_config(None)
    assert config.install.retry == RetryPolicy(3, 10.0, 20.0)
    assert config.api.retry == RetryPolicy(3, 2.0)
