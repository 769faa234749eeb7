"""GitHub's published description is the contract: every request the product sends is an
operation the vendored REST description documents (method, path, query, media type, API
version, body), every query the sweep sends is one GitHub's schema takes within its limits, and
every answer the fake gives has the documented shape. Each method of `GitHubApi` is driven once
against the fake, which checks every request and answer (tests/fake_github.py)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests import github_graphql, github_rest
from tests.fake_github import FakeGitHub

TOKEN = "ghp_rocmdepsCONTRACTtoken0123456789ab"
HEAD = "a" * 40


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository("sgl-project/sglang")
        sglang.add_pull(30421, HEAD, merge_commit_sha="c" * 40, base_sha="b" * 40)
        sglang.branches["main"] = "d" * 40
        miles = fake.repository("radixark/miles")
        miles.add_pull(7, "7" * 40, body="ci-sglang-pr: #30421\n")
        miles.add_comment(7, "github-actions[bot]", "<!-- rocm-deps:manifest -->")
        miles.comparisons[f"{'1' * 40}...{'2' * 40}"] = ["Add it (#7)"]
        miles.files[".github/rocm-deps.toml"] = "[dependencies.sglang]\n"
        miles.stacks = [[7]]
        yield fake


def calls() -> dict[str, Callable[[Any], object]]:
    """One call of each public method of GitHubApi (its name -> the call)."""
    from rocm_deps.github.answers import CommitStatus

    return {
        "pull": lambda api: api.pull("sgl-project/sglang", 30421),
        "pull_with_head": lambda api: api.pull_with_head("radixark/miles", "feature-7"),
        "pull_of_run": lambda api: api.pull_of_run("radixark/miles", "radixark/miles",
                                                   "feature-7", "7" * 40),
        "commit": lambda api: api.commit("sgl-project/sglang", "main"),
        "parents": lambda api: api.parents("sgl-project/sglang", "c" * 40),
        "pull_commits": lambda api: api.pull_commits("sgl-project/sglang", 30421),
        "first_parents": lambda api: api.first_parents("radixark/miles", "1" * 40, "2" * 40),
        "comments": lambda api: api.comments("radixark/miles", 7),
        "statuses": lambda api: api.statuses("radixark/miles", "7" * 40),
        "contents": lambda api: api.contents("radixark/miles", ".github/rocm-deps.toml",
                                             "main", 65_536),
        "create_status": lambda api: api.create_status(
            "radixark/miles", "7" * 40, CommitStatus("rocm-deps: x", "success", "ok", "")),
        "rerun": lambda api: api.rerun("radixark/miles", 99),
        "create_comment": lambda api: api.create_comment("radixark/miles", 7, "hello"),
        "edit_comment": lambda api: api.edit_comment("radixark/miles", 1000, "edited"),
        "stacks": lambda api: api.stacks("radixark/miles"),
        "open_pulls_page": lambda api: api.open_pulls_page("radixark/miles", None),
        "comment_authors": lambda api: api.comment_authors("radixark/miles", [7], {}),
        "comment_bodies": lambda api: api.comment_bodies(["IC_1000"]),
        "named_pulls": lambda api: api.named_pulls([("sgl-project/sglang", 30421)]),
        "reread": lambda api: api.reread("radixark/miles", [7]),
        "query": lambda api: api.query("query Q { rateLimit { cost } }", {}, "the cost"),
    }


def test_every_request_of_every_method_is_a_documented_operation(
        github: FakeGitHub, mocker: Any) -> None:
    from rocm_deps.config import load_config
    from rocm_deps.github.api import GitHubApi

    mocker.patch("time.sleep")  # the second apart between writes
    api = GitHubApi(github.url, TOKEN, load_config(None, "rocm").api)
    public = {name for name, _ in inspect.getmembers(GitHubApi, inspect.isfunction)
              if not name.startswith("_")}
    assert public == set(calls())  # a new method is driven here too
    for name, call in calls().items():
        before = len(github.log)
        call(api)
        assert len(github.log) > before, f"{name} sent nothing"
    # Every REST operation vendored is one the product sends, and it sends no other: the fake
    # routes only documented operations and checks each request and answer by the description.
    assert set(github.operations) == {
        operation["operationId"] for path in github_rest.description()["paths"].values()
        for operation in path.values()}
    assert github.violations == []
    assert {headers.get("X-GitHub-Api-Version") for headers in github.headers} == {"2022-11-28"}
    assert "*/*" not in {headers.get("Accept") for headers in github.headers}


def test_an_undocumented_route_or_verb_is_refused_as_github_refuses_it(
        github: FakeGitHub) -> None:
    import urllib.error
    import urllib.request

    for method, path in (("POST", "/repos/radixark/miles/pulls/7"),
                         ("GET", "/repos/radixark/miles/compare/a...b")):
        request = urllib.request.Request(f"{github.url}{path}", method=method, data=b"{}"
                                         if method == "POST" else None, headers={
            "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 404
        assert json.loads(refused.value.read())["message"] == "Not Found"
    assert [violation.split(":")[0] for violation in github.violations] == [
        "POST /repos/radixark/miles/pulls/7", "GET /repos/radixark/miles/compare/a...b"]
    github.violations.clear()


def test_every_query_the_sweep_sends_is_one_githubs_schema_takes() -> None:
    from rocm_deps.github import graphql

    schema = github_graphql.Schema()
    for query, variables in graphql.contract_queries():
        checked = github_graphql.validate(schema, query, variables)
        assert checked.points >= 1
    # The largest batches the sweep sends stay within GitHub's node limit and cost a point.
    numbers = list(range(1, 101))
    repository = {"owner": "o", "name": "r"}
    for query, variables in (graphql.comments_query(numbers), graphql.reread_query(numbers),
                             graphql.pulls_query([("o/r", number) for number in numbers]),
                             graphql.bodies_query([f"IC_{number}" for number in numbers])):
        if "$owner" in query:
            variables = {**repository, **variables}
        checked = github_graphql.validate(schema, query, variables)
        assert checked.nodes <= github_graphql.MAX_NODES
        assert checked.points == 1
    page = github_graphql.validate(schema, graphql.OPEN_PULLS,
                                   {"owner": "o", "name": "r", "after": None})
    assert (page.nodes, page.points) == (200, 1)  # 100 pull requests, a head commit each


@pytest.mark.parametrize(("query", "variables", "refusal"), [
    ("query Q($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
     "pullRequests(states: [OPEN]) { totalCount } } }", {"owner": "o", "name": "r"},
     "GitHub needs `first` or `last`"),
    ("query Q($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
     "pullRequests(first: 101) { totalCount } } }", {"owner": "o", "name": "r"},
     "GitHub takes 1 to 100"),
    ("query Q { rateLimit { costs } }", {}, "RateLimit has no field `costs`"),
    ("query Q($n: Int!) { rateLimit { cost } }", {"n": 1}, "declared but not used"),
    ("query Q($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { "
     "pullRequest(number: \"7\") { number } } }", {"owner": "o", "name": "r"}, "is not a Int"),
], ids=["no-first", "over-100", "unknown-field", "unused-variable", "wrong-type"])
def test_the_schema_checker_refuses_what_github_refuses(query: str, variables: dict[str, Any],
                                                        refusal: str) -> None:
    with pytest.raises(github_graphql.GraphQLError, match=refusal.replace("(", r"\(")):
        github_graphql.validate(github_graphql.Schema(), query, variables)


def test_the_description_checker_refuses_a_wrong_shape() -> None:
    route = github_rest.route("POST", "/repos/o/r/statuses/" + HEAD)
    assert route is not None and route.operation_id == "repos/create-commit-status"
    assert github_rest.check_request(route, {}, {
        "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"},
        {"state": "green"}) == [
        "POST /repos/{owner}/{repo}/statuses/{sha} (repos/create-commit-status) body.state: "
        "'green' is not one of ['error', 'failure', 'pending', 'success']"]
    entry = github_rest.example("pull-request-simple-items")[0]
    entry["requested_teams"] = []  # the example's team predates the schema's required `type`
    schema = github_rest.answer_schema(github_rest.route("GET", "/repos/o/r/pulls"), 200)
    assert schema is not None
    del entry["head"]["sha"]
    assert github_rest.check(schema, [entry], "pulls") == ["pulls[0].head: `sha` is required"]
