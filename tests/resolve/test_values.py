"""Value directives (`ci-image-tag`) and the profiles (architecture §3, §7), through the command
line: what Miles' four body parsers did, in one grammar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, CliResult, EventWriter

SGLANG_LOCKED = "a" * 40
MEGATRON_LOCKED = "b" * 40


def resolve(cli: Cli, write_event: EventWriter, body: str, *extra: str,
            inputs: dict[str, str] | None = None) -> tuple[CliResult, dict[str, Any]]:
    if inputs is not None:
        path = write_event(payload={"inputs": inputs})
        result = cli("resolve", "--event-name", "workflow_dispatch", "--event-path", path,
                     "--format", "json", *extra)
    else:
        path = write_event(body)
        result = cli("resolve", "--event-name", "pull_request", "--event-path", path,
                     "--format", "json", *extra)
    return result, json.loads(result.stdout) if result.stdout.strip() else {}


def test_a_body_tag_is_the_image_tag_in_the_cuda_profile(cli: Cli,
                                                         write_event: EventWriter) -> None:
    result, report = resolve(cli, write_event, "Needs the new image.\n\nci-image-tag: "
                                               "nightly-20261201\n", "--profile", "cuda")
    assert result.code == 0, result.stderr
    assert result.outputs["image_tag"] == "nightly-20261201"
    assert report["values"] == {"image-tag": {"value": "nightly-20261201", "source": "body",
                                              "line": 3}}


def test_text_after_an_image_tag_is_told_to_stand_alone_not_to_use_git(
        cli: Cli, write_event: EventWriter) -> None:
    """An image tag is no git ref: the message about a blank says to write the value alone
    (a branch's says to write git's exact name or a SHA)."""
    result, _ = resolve(cli, write_event, "ci-image-tag: pr-123 (new)\n", "--profile", "cuda")
    assert result.code == 1
    assert ("`pr-123` is followed by `(new)`, and a value cannot hold a blank: write the value "
            "alone on the line; if `pr-123` is the value and the rest a comment, quote it: "
            "`ci-image-tag: \\`pr-123\\``") in result.stderr
    assert "git" not in result.stderr.split("invalid directive", 1)[1].splitlines()[0]


def test_a_full_image_name_is_an_error_naming_the_rule(cli: Cli,
                                                       write_event: EventWriter) -> None:
    for profile in ("cuda", "rocm"):
        result, report = resolve(cli, write_event, "ci-image-tag: rocm/sgl-dev:latest",
                                 "--profile", profile)
        assert result.code == 1
        [error] = report["errors"]
        assert error["message"] == (
            "line 1: `ci-image-tag: rocm/sgl-dev:latest` — `rocm/sgl-dev:latest` must be a "
            "Docker tag (letters, digits, `_`, `.`, `-`, at most 128, not starting with `.` or "
            "`-`), not a full image name")
        assert "image_tag" not in result.outputs


@pytest.mark.parametrize(("profile", "default"), [("rocm", "miles-rocm720-mi35x"),
                                                  ("cuda", "dev")])
def test_nothing_named_gives_the_profiles_default(cli: Cli, write_event: EventWriter,
                                                  profile: str, default: str) -> None:
    result, report = resolve(cli, write_event, "A refactor.", "--profile", profile)
    assert result.code == 0, result.stderr
    assert result.outputs["image_tag"] == default
    assert report["values"]["image-tag"] == {"value": default, "source": "default",
                                             "line": None}


@pytest.mark.parametrize("line", ["ci_image_tag: x", "ci-image-tag x", "ci-image-tag = x"])
def test_a_near_miss_is_an_error(cli: Cli, write_event: EventWriter, line: str) -> None:
    result, report = resolve(cli, write_event, line, "--profile", "cuda")
    assert result.code == 1
    [error] = report["errors"]
    assert error["message"].endswith("Write `ci-image-tag: x`")


def test_in_the_rocm_profile_a_body_tag_is_not_applied_and_a_notice_says_why(
        cli: Cli, write_event: EventWriter) -> None:
    result, report = resolve(cli, write_event, "ci-image-tag: nightly")
    assert result.code == 0, result.stderr
    assert result.outputs["image_tag"] == "miles-rocm720-mi35x"
    assert report["values"]["image-tag"]["source"] == "default"
    assert ("::notice title=rocm-deps::line 1: `ci-image-tag: nightly` is not applied: in the "
            "`miles-rocm` profile image-tag comes from the dispatch input `ci_image_tag` only (body "
            "lines name the CUDA suite's image)") in result.stderr


def test_precedence_explicit_then_dispatch_then_body_then_default(
        cli: Cli, write_event: EventWriter) -> None:
    result, report = resolve(cli, write_event, "", "--profile", "cuda",
                             inputs={"ci_image_tag": "from-dispatch"})
    assert (result.outputs["image_tag"], report["values"]["image-tag"]["source"]) == (
        "from-dispatch", "dispatch")
    result, report = resolve(cli, write_event, "", "--profile", "cuda", "--value",
                             "image-tag=pr-7", inputs={"ci_image_tag": "from-dispatch"})
    assert (result.outputs["image_tag"], report["values"]["image-tag"]["source"]) == (
        "pr-7", "explicit")
    result, report = resolve(cli, write_event, "ci-image-tag: from-body", "--profile", "cuda",
                             "--value", "image-tag=")
    assert (result.outputs["image_tag"], report["values"]["image-tag"]["source"]) == (
        "from-body", "body")


@pytest.mark.parametrize(("extra", "inputs", "message"), [
    (("--value", "image-tag=a:b"), None, "image-tag from --value: `a:b` must be a Docker tag"),
    ((), {"ci_image_tag": "x/y"}, "image-tag from the dispatch input `ci_image_tag`: `x/y` must "
                                  "be a Docker tag"),
])
def test_an_invalid_explicit_or_dispatched_value_is_an_error(
        cli: Cli, write_event: EventWriter, extra: tuple[str, ...],
        inputs: dict[str, str] | None, message: str) -> None:
    result, report = resolve(cli, write_event, "", "--profile", "cuda", *extra, inputs=inputs)
    assert result.code == 1
    assert message in report["errors"][0]["message"]


def test_an_unknown_value_name_is_a_usage_error(cli: Cli, write_event: EventWriter) -> None:
    result, _ = resolve(cli, write_event, "", "--value", "image=x")
    assert result.code == 2
    assert "--value 'image=x': expected NAME=VALUE with NAME one of image-tag" in result.stderr
    assert result.outputs == {}  # a usage error decides nothing


def test_a_value_added_by_config_reaches_the_outputs_and_report(
        cli: Cli, write_event: EventWriter, tmp_path: Path) -> None:
    config = tmp_path / "values.toml"
    config.write_text('[values.gpu-count]\nkind = "number"\ndefault = "8"\n')
    result, report = resolve(cli, write_event, "ci-gpu-count: 4", "--config", str(config))
    assert result.code == 0, result.stderr
    assert result.outputs["gpu_count"] == "4"
    assert report["values"]["gpu-count"] == {"value": "4", "source": "body", "line": 1}
    result, report = resolve(cli, write_event, "ci-gpu-count: four", "--config", str(config))
    assert result.code == 1
    assert "`four` must be a number of 1 to 9 digits" in report["errors"][0]["message"]


def test_the_cuda_profile_tests_the_default_branches_or_the_release_lock(
        cli: Cli, write_event: EventWriter, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result, report = resolve(cli, write_event, "", "--profile", "cuda")
    assert result.code == 0, result.stderr
    assert {name: (o["ref"], o["source"]) for name, o in report["overrides"].items()} == {
        "sglang": ("sglang-miles", "default"), "megatron": ("miles-main", "default")}
    (tmp_path / "release-lock.json").write_text(json.dumps(
        {"sglang_commit": SGLANG_LOCKED, "megatron_commit": MEGATRON_LOCKED}))
    result, report = resolve(cli, write_event, "ci-megatron-pr: #202", "--profile", "cuda")
    assert result.code == 0, result.stderr
    assert {name: (o["ref"], o["source"]) for name, o in report["overrides"].items()} == {
        "sglang": (SGLANG_LOCKED, "lock"), "megatron": ("refs/pull/202/head", "body")}


def test_the_rocm_profile_requires_a_configured_lock_file(cli: Cli, write_event: EventWriter,
                                                          tmp_path: Path) -> None:
    config = tmp_path / "lock.toml"
    config.write_text(f'lock-file = "{tmp_path / "missing.json"}"\n')
    result, _ = resolve(cli, write_event, "", "--config", str(config))
    assert result.code == 2
    assert "missing.json does not exist" in result.stderr
    assert result.outputs == {}


def test_an_untrusted_author_cannot_set_a_value_under_a_privileged_event(
        cli: Cli, write_event: EventWriter) -> None:
    path = write_event("ci-image-tag: evil-tag", association="NONE")
    result = cli("resolve", "--event-name", "pull_request_target", "--event-path", path,
                 "--profile", "cuda", "--format", "json")
    assert result.code == 1
    report = json.loads(result.stdout)
    # Not the body's: the default (and no step output but `report`, as after any error).
    assert report["values"]["image-tag"]["source"] == "default"
    assert "image_tag" not in result.outputs
    assert ("the pull request body names dependency refs or values, but under "
            "`pull_request_target` directives are honoured only for authors whose association "
            "is one of") in report["errors"][0]["message"]


@pytest.mark.parametrize(("line", "written"), [
    ("ci-image-tg: nightly-20261201", "`ci-image-tg` is one letter off `ci-image-tag`"),
    ("image-tag: nightly", "the key lacks `ci-`"),
    ("ci-image-tag - nightly", "`-` stands where the key needs `:`"),
])
def test_a_value_line_almost_right_is_an_error_not_silence(
        cli: Cli, write_event: EventWriter, line: str, written: str) -> None:
    result, report = resolve(cli, write_event, line, "--profile", "cuda")
    assert result.code == 1
    [error] = report["errors"]
    assert f"this is not applied: {written}. Write `ci-image-tag: nightly" in error["message"]


def test_prose_about_the_image_tag_stays_silent(cli: Cli, write_event: EventWriter) -> None:
    result, report = resolve(cli, write_event, "image-tag: the new one, once it is built",
                             "--profile", "cuda")
    assert result.code == 0, result.stderr
    assert report["warnings"] == [] and report["values"]["image-tag"]["source"] == "default"


@pytest.mark.parametrize("inputs", [{"ci_image_tag": "bad\ntag"}, {"ci_image_tag": "a/b:c"}],
                         ids=["newline", "image-name"])
def test_a_refused_value_is_not_reported_as_the_value(cli: Cli, write_event: EventWriter,
                                                     inputs: dict[str, str]) -> None:
    path = write_event(payload={"inputs": inputs})
    result = cli("resolve", "--event-name", "workflow_dispatch", "--event-path", path,
                 "--format", "json")
    assert result.code == 1
    report = json.loads(result.outputs["report"])
    assert report["values"] == {}  # not the refused text, and not the default either
    assert "image-tag from the dispatch input `ci_image_tag`" in report["errors"][0]["message"]


def test_an_entity_in_a_value_directives_key_is_read_as_github_shows_it(
        cli: Cli, write_event: EventWriter) -> None:
    """`ci&#45;image-tag:` shows as `ci-image-tag:`: applied, not silently dropped."""
    path = write_event("Image for this PR:\n\nci&#45;image-tag&colon; nightly-20261201\n")
    result = cli("resolve", "--event-name", "pull_request", "--event-path", path,
                 "--profile", "cuda")
    assert result.code == 0, result.stderr
    assert result.outputs["image_tag"] == "nightly-20261201"
    assert json.loads(result.outputs["report"])["values"]["image-tag"] == {
        "value": "nightly-20261201", "source": "body", "line": 3}
