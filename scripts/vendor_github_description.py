"""Vendor the part of GitHub's published API description that rocm-deps uses, into
tests/github/description/: the contract the tests hold the product and the fake to.

    python scripts/vendor_github_description.py OPENAPI.json SCHEMA.json FIXTURES

OPENAPI.json is `generated/api.github.com.json` of the npm package @octokit/openapi (GitHub's
REST description, github/rest-api-description, with Octokit's extensions); SCHEMA.json is
`schema.json` of @octokit/graphql-schema (GitHub's GraphQL schema, introspected); FIXTURES is
`scenarios/api.github.com` of @octokit/fixtures (answers recorded from GitHub). All three are
MIT licensed (tests/github/description/LICENSE). Fetch them with `npm pack` and the versions
tests/github/description/README.md names.

REST: the operations in OPERATIONS, with every component they reference. GraphQL: every type
the product's queries reach (github/graphql.py), whole, and the scalar and enum types their
fields name. Run it again when an operation or a query is added: the contract tests refuse a
request or a query the vendored part does not document.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = ROOT / "tests" / "github" / "description"
# Every REST operation the product sends (method, path template), by GitHub's operationId.
OPERATIONS = {
    "pulls/get": ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    "pulls/list": ("get", "/repos/{owner}/{repo}/pulls"),
    "pulls/list-commits": ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/commits"),
    "repos/get-commit": ("get", "/repos/{owner}/{repo}/commits/{ref}"),
    "repos/list-commits": ("get", "/repos/{owner}/{repo}/commits"),
    "git/get-commit": ("get", "/repos/{owner}/{repo}/git/commits/{commit_sha}"),
    "issues/list-comments": ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    "issues/create-comment": ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    "issues/update-comment": ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    "repos/get-combined-status-for-ref": ("get", "/repos/{owner}/{repo}/commits/{ref}/status"),
    "repos/create-commit-status": ("post", "/repos/{owner}/{repo}/statuses/{sha}"),
    "actions/re-run-workflow": ("post", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun"),
    "repos/get-content": ("get", "/repos/{owner}/{repo}/contents/{path}"),
    "pull-request-stacks/list": ("get", "/repos/{owner}/{repo}/stacks"),
}


def references(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        reference = value.get("$ref")
        if isinstance(reference, str):
            found.add(reference)
        for inner in value.values():
            found |= references(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= references(inner)
    return found


def rest_part(description: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for operation_id, (method, template) in OPERATIONS.items():
        operation = description["paths"][template][method]
        if operation["operationId"] != operation_id:
            raise SystemExit(f"{method} {template} is {operation['operationId']}, not "
                             f"{operation_id}")
        paths.setdefault(template, {})[method] = operation
    components: dict[str, dict[str, Any]] = {}
    pending = references(paths)
    seen: set[str] = set()
    while pending:
        reference = pending.pop()
        if reference in seen:
            continue
        seen.add(reference)
        _, _, kind, name = reference.split("/", 3)
        value = description["components"][kind][name]
        components.setdefault(kind, {})[name] = value
        pending |= references(value)
    return {"openapi": description["openapi"], "info": description["info"],
            "paths": paths, "components": {kind: dict(sorted(entries.items()))
                                           for kind, entries in sorted(components.items())}}


def graphql_part(schema: dict[str, Any]) -> dict[str, Any]:
    from rocm_deps.github import graphql
    from tests.github_graphql import Schema, reached_types

    everything = Schema(schema)
    names = set()
    for query, _ in graphql.contract_queries():
        names |= reached_types(everything, query)
    types = [_without_descriptions(everything.types[name]) for name in sorted(names)]
    return {"__schema": {"queryType": {"name": "Query"}, "types": types}}


def _without_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_descriptions(inner) for key, inner in value.items()
                if key != "description"}
    if isinstance(value, list):
        return [_without_descriptions(inner) for inner in value]
    return value


# Recorded answers whose shape the fake serves: (scenario, method, path ending, status).
RECORDED = {
    "validation-failed": ("errors", "post", "/labels", 422),
    "create-status": ("create-status", "post", "/statuses/0000000000000000000000000000000000000001",
                      201),
    "combined-status": ("create-status", "get", "/status", 200),
}


def recorded_part(fixtures: Path) -> dict[str, Any]:
    found = {}
    for name, (scenario, method, ending, status) in RECORDED.items():
        entries = json.loads((fixtures / scenario / "normalized-fixture.json").read_text(
            encoding="utf-8"))
        [entry] = [entry for entry in entries if entry["method"] == method
                   and entry["path"].endswith(ending) and entry["status"] == status][:1]
        found[name] = {"scenario": scenario, "method": method, "path": entry["path"],
                       "status": status, "headers": entry["headers"],
                       "response": entry["response"]}
    return found


def main() -> int:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    rest = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    schema = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
    TARGET.mkdir(parents=True, exist_ok=True)
    (TARGET / "rest.json").write_text(json.dumps(rest_part(rest), indent=1, sort_keys=False)
                                      + "\n", encoding="utf-8")
    graphql = graphql_part(schema.get("data", schema))
    recorded = recorded_part(Path(sys.argv[3]))
    (TARGET / "recorded.json").write_text(json.dumps(recorded, indent=1) + "\n",
                                          encoding="utf-8")
    (TARGET / "graphql.json").write_text(json.dumps(graphql, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {TARGET / 'rest.json'} ({len(rest_part(rest)['paths'])} paths) and "
          f"{TARGET / 'graphql.json'} ({len(graphql['__schema']['types'])} types)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
