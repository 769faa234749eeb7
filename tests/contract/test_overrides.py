"""The overrides document: the contract between the resolve job and the GPU job."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocm_deps.contract.overrides import (
    REPORT_VERSION,
    Override,
    overrides_from_json,
    overrides_to_json,
)
from rocm_deps.errors import UsageError

SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"
NAMES = ("sglang", "megatron")

EXAMPLES = [
    Override("sglang", "pr", "refs/pull/30421/head", "body", "#30421", None, 3, 30421),
    Override("sglang", "pr", "refs/pull/30421/head", "body", "#30421", SHA, 3, 30421),
    Override("megatron", "commit", SHA, "dispatch", SHA.upper(), SHA),
    Override("megatron", "short-commit", SHA, "body", "3f1c0d9", SHA, 1),
    Override("megatron", "ref", "feature/rocm", "lock", "feature/rocm"),
    Override("megatron", "ref", "refs/tags/v0.5.1", "default", "refs/tags/v0.5.1", SHA),
]


@pytest.mark.parametrize("override", EXAMPLES, ids=lambda o: f"{o.kind}-{o.source}-{o.sha}")
def test_round_trip_is_exact_through_json_text(override: Override) -> None:
    text = json.dumps(overrides_to_json({override.name: override}))
    assert overrides_from_json(json.loads(text), NAMES, "test") == {override.name: override}


@given(st.sampled_from(EXAMPLES), st.integers(min_value=1, max_value=10**6),
       st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30))
def test_round_trip_keeps_line_and_raw(override: Override, line: int, raw: str) -> None:
    changed = Override(override.name, override.kind, override.ref, override.source, raw,
                       override.sha, line, override.pr)
    document = json.loads(json.dumps(overrides_to_json({"x": changed})))["x"]
    assert Override.from_json(changed.name, document, "test") == changed


def test_a_whole_resolve_report_is_accepted() -> None:
    report = {"version": REPORT_VERSION, "overrides": overrides_to_json({"sglang": EXAMPLES[0]})}
    assert overrides_from_json(report, NAMES, "test") == {"sglang": EXAMPLES[0]}


def test_document_without_kind_is_read_as_commit_or_ref() -> None:
    parsed = overrides_from_json({"megatron": {"ref": SHA}, "sglang": {"ref": "main"}},
                                 NAMES, "test")
    assert (parsed["megatron"].kind, parsed["megatron"].sha) == ("commit", SHA)
    assert (parsed["sglang"].kind, parsed["sglang"].sha, parsed["sglang"].source) == (
        "ref", None, "overrides")


@pytest.mark.parametrize(("document", "message"), [
    ([], "test: expected a JSON object mapping dependency names to overrides"),
    ({"version": 2, "overrides": {}}, "test: report version 2 is not supported"),
    ({"vllm": {"ref": "main"}}, "test: `vllm` is not a configured dependency"),
    ({"sglang": "main"}, "test: `sglang`: needs an object with a string `ref`"),
    ({"sglang": {"ref": "-x"}}, "test: `sglang`: ref '-x' is not valid: it starts with '-'"),
    ({"sglang": {"ref": "main", "sha": "ABC"}}, "`sha` must be a full lowercase hex SHA"),
    ({"sglang": {"ref": "main", "kind": "tag"}}, "`kind` must be one of pr, commit, "),
    ({"sglang": {"ref": "main", "kind": "commit"}}, "a `commit` override fetches a full SHA"),
    ({"sglang": {"ref": "abc1234", "kind": "short-commit"}},
     "a `short-commit` override fetches a full SHA"),
    ({"sglang": {"ref": SHA, "sha": "f" * 40, "kind": "commit"}}, "`sha` null or equal to it"),
    ({"sglang": {"ref": "main", "source": "comment"}}, "`source` must be one of dispatch"),
    ({"sglang": {"ref": "main", "raw": 5}}, "`raw` must be a string"),
    ({"sglang": {"ref": "main", "line": True}}, "`line` must be a positive integer or null"),
    ({"sglang": {"ref": "main", "pr": 0}}, "`pr` must be a positive integer or null"),
    ({"sglang": {"ref": "main", "kind": "pr", "pr": 5}}, "a `pr` override fetches"),
    ({"sglang": {"ref": "refs/pull/6/head", "kind": "pr", "pr": 5}}, "a `pr` override fetches"),
    ({"sglang": {"ref": "refs/pull/5/head", "kind": "pr"}}, "a `pr` override fetches"),
    ({"sglang": {"ref": "main", "kind": "ref", "pr": 5}}, "never a pull request"),
    ({"sglang": {"ref": "refs/pull/5/head", "kind": "ref"}}, "never a pull request"),
    ({"sglang": {"ref": "image", "source": "image"}}, "`source` must be one of dispatch"),
], ids=["not-an-object", "report-version", "unknown-dependency", "entry-not-object",
        "option-ref", "uppercase-sha", "unknown-kind", "commit-not-sha", "short-not-expanded",
        "commit-sha-differs", "unknown-source", "raw-type", "line-bool", "pr-zero",
        "pr-kind-branch-ref", "pr-kind-other-number", "pr-kind-no-number", "ref-kind-with-pr",
        "ref-kind-pull-ref", "image-source"])
def test_invalid_documents_are_usage_errors(document: object, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        overrides_from_json(document, NAMES, "test")
    assert message in caught.value.message
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("ref", ["feature/$(id)", "a;b", "x`y`", "a'b", 'a"b', "a&b", "a|b",
                                 "a\\b"],
                         ids=["subshell", "semicolon", "backtick", "quote", "double-quote",
                              "ampersand", "pipe", "backslash"])
def test_a_shell_unsafe_ref_in_an_overrides_document_is_refused(ref: str) -> None:
    """The document crosses jobs through workflow outputs: it is checked again, as strictly as
    resolve checks a directive, before a ref reaches install's outputs."""
    with pytest.raises(UsageError) as caught:
        overrides_from_json({"sglang": {"ref": ref}}, ("sglang",), "--overrides")
    assert caught.value.message.startswith(f"--overrides: `sglang`: ref {ref!r} is not valid")


def test_a_document_without_kind_reads_a_pull_requests_ref_as_that_pull_request() -> None:
    parsed = overrides_from_json({"megatron": {"ref": "refs/pull/202/head"}}, NAMES, "test")
    assert (parsed["megatron"].kind, parsed["megatron"].pr) == ("pr", 202)
