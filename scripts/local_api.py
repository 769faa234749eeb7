"""A local GitHub API on 127.0.0.1, to try `sweep`, `comment` and `merge-check` without a real
repository: the stand-in the tests use (tests/fake_github.py), loaded with a scenario.

    python scripts/local_api.py examples/local-api.json

It prints `GITHUB_API_URL=http://127.0.0.1:PORT/api/v3` on its first line, then serves until
its standard input closes (or Ctrl-C). Point the tool at it with that variable and any token
(`--github-token-env`); what the tool wrote (commit statuses, comments, re-runs) and every
request are printed as JSON when it stops. Run it from the repository's root.

The scenario: {"repositories": {"OWNER/REPO": {"pulls": [{"number": 42, "head": "<40 hex>",
"body": "...", and optionally "state", "merged", "base", "author", "head_branch"}]}}}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fake_github import FakeGitHub  # noqa: E402 - the stand-in of the tests

PULL_KEYS = {"state", "merged", "body", "base", "author", "head_branch"}


def load(github: FakeGitHub, scenario: dict[str, Any]) -> None:
    for name, repository in scenario.get("repositories", {}).items():
        for pull in repository.get("pulls", []):
            unknown = set(pull) - PULL_KEYS - {"number", "head"}
            if unknown:
                raise SystemExit(f"{name} #{pull.get('number')}: unknown keys "
                                 f"{sorted(unknown)}; known: number, head, {sorted(PULL_KEYS)}")
            github.repository(name).add_pull(int(pull["number"]), str(pull["head"]), **{
                key: value for key, value in pull.items() if key in PULL_KEYS})


def written(github: FakeGitHub) -> dict[str, Any]:
    return {"requests": github.log, "repositories": {
        repository.full_name: {"statuses": repository.statuses, "comments": repository.comments,
                               "reruns": repository.reruns}
        for repository in github.repositories.values()}}


def main() -> int:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    scenario = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    with FakeGitHub() as github:
        load(github, scenario)
        print(f"GITHUB_API_URL={github.url}", flush=True)
        try:
            sys.stdin.read()  # until the caller closes it
        except KeyboardInterrupt:
            pass
        print(json.dumps(written(github), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
