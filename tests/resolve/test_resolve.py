"""`rocm-deps resolve` through its command line: events, precedence, trust, outputs, summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Cli, CliResult, EventWriter

SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"


def test_pull_request_outputs_and_summary(write_event: EventWriter, cli: Cli) -> None:
    body = "Fix things.\n\n- ci-sglang-pr: #30421\n"
    result: CliResult = cli("resolve", "--event-name", "pull_request",
                            "--event-path", write_event(body))
    assert result.code == 0
    outputs = result.outputs
    assert outputs["skip_dependency_install"] == "false"
    assert outputs["named_by"] == "body"
    assert outputs["sglang_ref"] == "refs/pull/30421/head"
    assert outputs["sglang_sha"] == ""
    assert outputs["megatron_ref"] == "" and outputs["megatron_sha"] == ""
    assert json.loads(outputs["overrides"]) == {"sglang": {
        "ref": "refs/pull/30421/head", "sha": None, "kind": "pr", "source": "body",
        "raw": "#30421",
        "line": 3, "pr": 30421}}
    report = json.loads(outputs["report"])
    assert report["version"] == 1 and report["errors"] == [] and report["named_by"] == "body"
    assert "| sglang | body | `#30421` | `refs/pull/30421/head` |  | 3 |" in result.summary
    assert "| megatron | image baseline |" in result.summary
    assert "pull request #42 (event payload)" in result.summary


def test_environment_defaults_for_event(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", env={"GITHUB_EVENT_NAME": "pull_request",
                                 "GITHUB_EVENT_PATH": write_event("ci-megatron-pr: main")})
    assert result.outputs["megatron_ref"] == "main"


@pytest.mark.parametrize(("name", "payload"), [
    ("pull_request", {"pull_request": {"number": 1, "body": None}}),
    ("pull_request", {"pull_request": {"number": 1, "body": "Just a description."}}),
    ("push", {"ref": "refs/heads/main"}),
    ("schedule", {"schedule": "0 0 * * *"}),
    ("workflow_dispatch", {"inputs": {"ci_sglang_pr": "", "ci_megatron_pr": "   \t"}}),
], ids=["null-body", "no-directive", "push", "schedule", "whitespace-dispatch-inputs"])
def test_nothing_named_skips_install(write_event: EventWriter, cli: Cli, name: str,
                                     payload: dict[str, object]) -> None:
    result = cli("resolve", "--event-name", name, "--event-path", write_event(payload=payload))
    assert result.code == 0
    assert result.outputs["skip_dependency_install"] == "true"
    assert result.outputs["named_by"] == ""
    assert json.loads(result.outputs["overrides"]) == {}
    assert "keeps the image's copy" in result.summary


def test_dispatch_inputs(write_event: EventWriter, cli: Cli) -> None:
    payload = {"inputs": {"ci_megatron_pr": f"  {SHA} ", "ci_sglang_pr": " "}}
    result = cli("resolve", "--event-name", "workflow_dispatch",
                 "--event-path", write_event(payload=payload))
    assert result.code == 0
    assert result.outputs["megatron_ref"] == SHA and result.outputs["megatron_sha"] == SHA
    assert result.outputs["sglang_ref"] == ""  # whitespace-only is unset (defect 4)
    assert result.outputs["named_by"] == "dispatch"


def test_input_flag_beats_body_per_dependency(write_event: EventWriter, cli: Cli) -> None:
    body = "ci-sglang-pr: #1\nci-megatron-pr: #2"
    result = cli("resolve", "--event-name", "pull_request", "--event-path",
                 write_event(body), "--input", "ci_sglang_pr=#9")
    overrides = json.loads(result.outputs["overrides"])
    assert overrides["sglang"]["ref"] == "refs/pull/9/head"
    assert overrides["sglang"]["source"] == "dispatch"
    assert overrides["megatron"]["source"] == "body"
    assert result.outputs["named_by"] == "dispatch"


def test_a_dispatch_input_that_replaces_a_directive_says_so(write_event: EventWriter,
                                                           cli: Cli) -> None:
    body = "intro\n\nci-sglang-pr: #1"
    result = cli("resolve", "--event-name", "pull_request", "--event-path",
                 write_event(body), "--input", "ci_sglang_pr=#9")
    assert result.code == 0, result.stderr
    assert ("::notice title=rocm-deps::sglang: the dispatch input `ci_sglang_pr` (`#9`) "
            "replaces the PR body's `ci-sglang-pr: #1` (line 3)") in result.stderr
    assert (result.outputs["named_by"], result.outputs["sglang_ref"]) == (
        "dispatch", "refs/pull/9/head")


def test_a_dispatch_input_nothing_reads_is_an_error(write_event: EventWriter, cli: Cli) -> None:
    payload = {"inputs": {"ci_vllm_pr": " #12 ", "ci_image_tag": "nightly", "ci_sglang_pr": ""}}
    result = cli("resolve", "--event-name", "workflow_dispatch",
                 "--event-path", write_event(payload=payload))
    assert result.code == 1
    assert ("::error title=rocm-deps%3A unknown dispatch input::the dispatch input `ci_vllm_pr` "
            "(`#12`) is read by no configured dependency (built-in defaults reads ci_image_tag, "
            "ci_megatron_bridge_pr, ci_megatron_pr, ci_sglang_pr); configure the dependency it "
            "names, or leave the "
            "input empty") in result.stderr
    assert set(result.outputs) == {"report"}  # failed closed: no skip flag, no refs
    # ci_image_tag is the built-in image-tag value's input: read, and valid.
    assert "the dispatch input `ci_image_tag`" not in result.stderr
    empty = cli("resolve", "--event-name", "workflow_dispatch", "--event-path",
                write_event(payload={"inputs": {"ci_vllm_pr": "  "}}))
    assert empty.code == 0, empty.stderr
    assert empty.outputs["skip_dependency_install"] == "true"


def test_a_short_hex_dispatch_value_is_a_branch_with_a_warning(write_event: EventWriter,
                                                                cli: Cli) -> None:
    result = cli("resolve", "--event-name", "workflow_dispatch", "--event-path",
                 write_event(payload={"inputs": {"ci_megatron_pr": "3f1c0d"}}))
    assert result.code == 0, result.stderr
    assert result.outputs["megatron_ref"] == "3f1c0d"
    assert ("::warning title=rocm-deps%3A megatron::input `ci_megatron_pr`: `3f1c0d` is "
            "read as a branch name; if you meant a commit, give the full 40-digit SHA "
            "(`git rev-parse 3f1c0d` prints it)") in result.stderr


def test_invalid_dispatch_input_names_the_input(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--event-name", "workflow_dispatch",
                 "--event-path", write_event(payload={"inputs": {"ci_sglang_pr": "1234"}}))
    assert result.code == 1
    assert "input `ci_sglang_pr`: `1234` is a bare number; did you mean `#1234`" in result.stderr
    assert set(result.outputs) == {"report"}


def test_lock_file_and_default_precedence(write_event: EventWriter, tmp_path: Path, cli: Cli) -> None:
    lock = tmp_path / "deps.lock.json"
    lock.write_text(json.dumps({"sglang_commit": SHA, "megatron_commit": SHA, "other": 1}))
    config = tmp_path / "c.toml"
    config.write_text(f'lock-file = "{lock}"\n[dependencies.megatron]\ndefault = "main"\n'
                      f'[dependencies.extra]\nrepository = "a/b"\npath = "/x"\n'
                      f'default = "release"\n')
    result = cli("resolve", "--config", str(config), "--event-name", "pull_request",
                 "--event-path", write_event("ci-megatron-pr: #5"))
    overrides = json.loads(result.outputs["overrides"])
    assert overrides["sglang"]["source"] == "lock" and overrides["sglang"]["sha"] == SHA
    assert overrides["megatron"]["source"] == "body"  # body beats lock and default
    assert overrides["extra"] == {"ref": "release", "sha": None, "kind": "ref",
                                  "source": "default", "raw": "release", "line": None,
                                  "pr": None}
    assert result.outputs["extra_ref"] == "release"
    assert result.outputs["named_by"] == "body"


def test_invalid_directive_fails_closed(write_event: EventWriter, cli: Cli) -> None:
    body = "Intro\n\n* ci-sgl-pr: #12\n"
    result = cli("resolve", "--event-name", "pull_request", "--event-path", write_event(body))
    assert result.code == 1
    # Only the report: no skip flag a later `if: always()` could read as "nothing named".
    assert set(result.outputs) == {"report"}
    assert json.loads(result.outputs["report"])["errors"][0]["line"] == 3
    assert ("::error title=rocm-deps%3A invalid directive,line=3::line 3: `ci-sgl-pr: #12` — "
            "`ci-sgl-pr` is not a known directive; did you mean `sglang`") in result.stderr
    assert "#### Errors" in result.summary and "ci\\-sgl\\-pr" in result.summary
    assert "Traceback" not in result.stderr


def test_warning_annotation_has_line(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--event-name", "pull_request",
                 "--event-path", write_event("x\n\n~~ci-sglang-pr: #1~~"))
    assert result.code == 0
    assert ("::warning title=rocm-deps%3A directive warning,line=3::line 3: "
            "`ci-sglang-pr: #1` — GitHub shows this line struck through") in result.stderr
    assert result.outputs["skip_dependency_install"] == "true"


@pytest.mark.parametrize(("event_name", "association", "trusted", "code"), [
    ("pull_request_target", "CONTRIBUTOR", "OWNER,MEMBER,COLLABORATOR", 1),
    ("pull_request_target", "FIRST_TIME_CONTRIBUTOR", "OWNER,MEMBER,COLLABORATOR", 1),
    ("pull_request_target", "MEMBER", "OWNER,MEMBER,COLLABORATOR", 0),
    ("pull_request_target", "CONTRIBUTOR", "OWNER,MEMBER,COLLABORATOR,CONTRIBUTOR", 0),
    ("pull_request", "NONE", "OWNER", 0),
], ids=["contributor-refused", "first-timer-refused", "member-trusted", "widened-list",
        "pull-request-is-unprivileged"])
def test_trust_under_privileged_events(write_event: EventWriter, cli: Cli, event_name: str,
                                       association: str, trusted: str, code: int) -> None:
    result = cli("resolve", "--event-name", event_name, "--trusted-associations", trusted,
                 "--event-path", write_event("ci-sglang-pr: #1", association=association))
    assert result.code == code
    if code:
        assert "input `trusted-associations`" in result.stderr
        assert f"this author is {association}" in result.stderr
    else:
        assert result.outputs["sglang_ref"] == "refs/pull/1/head"


def test_untrusted_body_without_directives_passes(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--event-name", "pull_request_target",
                 "--event-path", write_event("just a fix", association="NONE"))
    assert result.code == 0 and result.outputs["skip_dependency_install"] == "true"
    assert result.outputs["named_by"] == "" and result.outputs["overrides"] == "{}"


def test_issue_comment_reads_pr_body(write_event: EventWriter, cli: Cli) -> None:
    payload = {"issue": {"number": 3, "body": "ci-megatron-pr: main", "pull_request": {},
                         "author_association": "OWNER"}, "comment": {"body": "/test"}}
    result = cli("resolve", "--event-name", "issue_comment", "--event-path", write_event(payload=payload))
    assert result.code == 0 and result.outputs["megatron_ref"] == "main"
    assert (result.outputs["named_by"], result.outputs["sglang_ref"]) == ("body", "")


def test_json_format_prints_report_on_stdout(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--format", "json", "--event-name", "pull_request",
                 "--event-path", write_event("ci-sglang-pr: #7\nci-sglang-pr: #7"))
    report = json.loads(result.stdout)
    assert set(report) == {"version", "skip_dependency_install", "named_by", "body_read_from",
                           "prerequisites",
                           "overrides", "values", "warnings", "errors", "findings_omitted"}
    assert report["findings_omitted"] == 0
    assert report["overrides"]["sglang"]["pr"] == 7
    assert report["warnings"][0]["line"] == 2
    assert "::warning" in result.stderr and "::warning" not in result.stdout


def test_body_file_lints_locally(tmp_path: Path, cli: Cli) -> None:
    body = tmp_path / "body.md"
    body.write_text("ci-sglang-pr: 99\n")
    result = cli("resolve", "--body-file", str(body), github_actions=False)
    assert result.code == 1
    assert result.stderr.startswith("error: rocm-deps: invalid directive: line 1:")
    assert set(result.outputs) == {"report"}
    assert "did you mean `#99`" in result.stderr


@pytest.mark.parametrize(("argv", "message"), [
    (["--event-path", "/nonexistent/event.json", "--event-name", "pull_request"],
     "does not exist"),
    (["--config", "/nonexistent.toml"],
     "::error title=Invalid configuration::configuration file /nonexistent.toml does not exist"),
    (["--input", "novalue"], "expected NAME=VALUE"),
], ids=["missing-event", "missing-config", "bad-input"])
def test_usage_errors_exit_2(cli: Cli, argv: list[str], message: str) -> None:
    result = cli("resolve", *argv)
    assert result.code == 2
    assert message in result.stderr
    assert result.outputs == {}


def test_unparseable_event_exits_2(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "event.json"
    path.write_text("{not json")
    result = cli("resolve", "--event-name", "pull_request", "--event-path", str(path))
    assert result.code == 2 and f"the event payload {path}: not valid JSON" in result.stderr
    assert result.outputs == {}


def run_subprocess(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rocm_deps", *argv], capture_output=True,
                          text=True, env={**os.environ, **(env or {})})


def test_version_and_usage_exit_codes() -> None:
    assert run_subprocess("--version").stdout.startswith("rocm-deps ")
    unknown = run_subprocess("resolve", "--no-such-flag")
    assert unknown.returncode == 2 and "unrecognized arguments" in unknown.stderr


def test_resolve_without_token_does_not_import_github(tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("ci-sglang-pr: #1\n")
    script = ("import sys; from rocm_deps.cli import main; "
              f"code = main(['resolve', '--body-file', {str(body)!r}]); "
              "print('github' in sys.modules, 'requests' in sys.modules, code)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "False False 0"


@pytest.mark.parametrize(("argv", "message"), [
    (["--event-name", "pull_request"],
     "--event-name pull_request needs --event-path (or GITHUB_EVENT_PATH)"),
    (["--input", "ci_sglan_pr=#1234"],
     "--input ci_sglan_pr: not a configured dispatch input; did you mean `ci_sglang_pr`?"),
], ids=["name-without-path", "input-typo"])
def test_careless_command_lines_are_usage_errors(cli: Cli, argv: list[str], message: str) -> None:
    result = cli("resolve", *argv)
    assert (result.code, result.outputs) == (2, {})
    assert message in result.stderr


def test_event_path_without_event_name_is_a_usage_error(write_event: EventWriter,
                                                        cli: Cli) -> None:
    path = write_event("ci-megatron-pr: #202")
    result = cli("resolve", "--event-path", path)
    assert (result.code, result.outputs) == (2, {})
    assert f"--event-path {path} needs --event-name (or GITHUB_EVENT_NAME)" in result.stderr


def test_an_empty_token_variable_is_a_warning(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--event-name", "pull_request", "--event-path",
                 write_event("ci-sglang-pr: #1"), "--github-token-env", "MY_TOKEN",
                 env={"MY_TOKEN": " "})
    assert result.code == 0
    assert ("::warning title=rocm-deps%3A no token::--github-token-env MY_TOKEN: the variable "
            "is unset or empty; continuing without a token") in result.stderr
    # without a token nothing is pinned: the ref is named, its SHA unknown
    assert (result.outputs["sglang_ref"], result.outputs["sglang_sha"]) == (
        "refs/pull/1/head", "")


def test_after_an_error_the_text_report_shows_no_outputs(write_event: EventWriter,
                                                         cli: Cli) -> None:
    result = cli("resolve", "--event-name", "pull_request", "--event-path",
                 write_event("ci-megatron-pr: abc1234"), github_actions=False)
    assert result.code == 1
    assert result.stdout.strip() == ("resolve found 1 error(s), printed above as `error:` lines (in a workflow, as "
            "annotations). Nothing was decided: the step wrote only its `report` output, so no "
            "job can install from it")
    assert "skip_dependency_install" not in result.stdout and "abc1234" not in result.stdout


def test_the_trust_gate_has_its_own_title(write_event: EventWriter, cli: Cli) -> None:
    result = cli("resolve", "--event-name", "pull_request_target", "--event-path",
                 write_event("ci-sglang-pr: #1", association="NONE"))
    assert result.code == 1
    assert "::error title=rocm-deps%3A untrusted author::" in result.stderr
    assert "invalid directive" not in result.stderr
    assert set(result.outputs) == {"report"}


@pytest.mark.parametrize("which", ["config", "body-file", "lock-file", "event-path"])
def test_endless_inputs_are_read_up_to_a_limit(tmp_path: Path, cli: Cli, which: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text('lock-file = "/dev/zero"\n')
    argv = {"config": ["--config", "/dev/zero"],
            "body-file": ["--body-file", "/dev/zero"],
            "lock-file": ["--config", str(config), "--body-file", str(config)],
            "event-path": ["--event-path", "/dev/zero", "--event-name", "pull_request"]}[which]
    expected = {"config": "configuration file /dev/zero is larger than 1,024 KiB",
                "body-file": "--body-file /dev/zero is larger than 1,024 KiB",
                "lock-file": f"{config}: lock-file /dev/zero is larger than 1,024 KiB",
                "event-path": "the event payload /dev/zero is larger than 25,600 KiB"}[which]
    result = cli("resolve", *argv)
    assert (result.code, result.outputs) == (2, {}), result.stderr
    assert f"::{expected}" in result.stderr


def rendered(markdown: str) -> str:
    """The summary as GitHub renders it (cmark-gfm, its own engine)."""
    import cmarkgfm

    return str(cmarkgfm.github_flavored_markdown_to_html(markdown))


def test_nothing_from_the_body_renders_in_the_summary(write_event: EventWriter,
                                                      cli: Cli) -> None:
    body = ("ci-foo-pr: x` ![pixel](https://attacker.example/p.png) "
            "[Click to re-run CI](https://evil.example/login) `\n"
            "ci-sglang-pr: <img src=https://attacker.example/q.png> ```` **bold**\n")
    result = cli("resolve", "--event-name", "pull_request", "--event-path", write_event(body))
    assert result.code == 1
    html = rendered(result.summary)
    assert "attacker.example/p.png" in html and "evil.example/login" in html  # shown ...
    assert "<img" not in html and "<a " not in html and "<strong>bold" not in html  # inert


def test_a_flood_of_findings_is_capped_in_every_channel(write_event: EventWriter,
                                                        cli: Cli) -> None:
    body = "ci-foo-pr: x\n" * 76_000  # about 1 MB, every line an error
    result = cli("resolve", "--event-name", "pull_request", "--event-path", write_event(body),
                 "--format", "json")
    assert result.code == 1
    report = json.loads(result.stdout)
    assert (len(report["errors"]), report["findings_omitted"]) == (1000, 75_000)
    assert result.stderr.count("::error ") == 1001  # 1,000 findings and one count
    assert "75,000 more findings are not shown one by one" in result.stderr
    assert len(result.summary.encode()) < 1024 * 1024
    assert "and 75,000 more (not shown)" in result.summary
    assert len(result.outputs["report"]) < 400 * 1024


def test_nothing_to_read_says_no_body_was_found(cli: Cli) -> None:
    result = cli("resolve", env={"GITHUB_EVENT_PATH": "", "GITHUB_EVENT_NAME": ""})
    assert result.code == 0, result.stderr
    assert ("::notice title=rocm-deps::no PR body was found: no event was given "
            "(GITHUB_EVENT_PATH is unset). To check a description, use --body-file FILE; in a "
            "workflow, run on pull_request") in result.stderr
    assert result.outputs["skip_dependency_install"] == "true"


def test_an_event_without_a_body_says_so(cli: Cli, write_event: EventWriter) -> None:
    path = write_event(payload={"ref": "refs/heads/main"})
    result = cli("resolve", "--event-name", "push", "--event-path", path)
    assert result.code == 0, result.stderr
    assert "no PR body was found in this `push` event's payload" in result.stderr
    assert result.outputs["skip_dependency_install"] == "true"


@pytest.mark.parametrize("event", ["pull_request", "workflow_dispatch"])
def test_an_empty_description_or_a_dispatch_gets_no_hint(cli: Cli, write_event: EventWriter,
                                                         event: str) -> None:
    path = write_event(None) if event == "pull_request" else write_event(payload={"inputs": {}})
    result = cli("resolve", "--event-name", event, "--event-path", path)
    assert result.code == 0, result.stderr
    assert "no PR body was found" not in result.stderr
    assert result.outputs["skip_dependency_install"] == "true"


@pytest.mark.parametrize(("association", "source"), [("NONE", None), ("MEMBER", "lock")])
def test_an_untrusted_authors_lock_file_is_not_read_under_a_privileged_event(
        write_event: EventWriter, tmp_path: Path, cli: Cli, association: str,
        source: str | None) -> None:
    """Under pull_request_target the working directory may hold the author's checkout."""
    lock = tmp_path / "release-lock.json"
    lock.write_text(json.dumps({"sglang_commit": SHA}))
    config = tmp_path / "lock.toml"
    config.write_text(f'lock-file = "{lock}"\n')
    result = cli("resolve", "--event-name", "pull_request_target", "--event-path",
                 write_event("just a fix", association=association), "--config", str(config),
                 "--format", "json")
    assert result.code == 0, result.stderr
    overrides = json.loads(result.outputs["overrides"])
    assert overrides.get("sglang", {}).get("source") == source
    notice = f"the lock file {lock} is not read: this privileged event's pull request author"
    assert (notice in result.stderr) is (source is None)


def test_an_unread_lock_file_never_falls_back_to_a_moving_default(
        write_event: EventWriter, tmp_path: Path, cli: Cli) -> None:
    """The cuda profile's defaults are branches (`sglang-miles`): for an untrusted author the
    lock file is not read, and testing the branch's moving tip instead would test a commit
    nobody chose."""
    lock = tmp_path / "release-lock.json"
    lock.write_text(json.dumps({"sglang_commit": SHA}))
    config = tmp_path / "lock.toml"
    config.write_text(f'lock-file = "{lock}"\n')
    result = cli("resolve", "--event-name", "pull_request_target", "--event-path",
                 write_event("just a fix", association="NONE"), "--config", str(config),
                 "--profile", "cuda", "--format", "json")
    assert result.code == 1
    assert ("sglang: the lock file is not read (an untrusted author's pull request under a "
            "privileged event), and the configured default `sglang-miles` is a moving ref"
            ) in result.stderr
    assert set(result.outputs) == {"report"}
    trusted = cli("resolve", "--event-name", "pull_request_target", "--event-path",
                  write_event("just a fix", association="MEMBER"), "--config", str(config),
                  "--profile", "cuda", "--format", "json")
    assert trusted.code == 0, trusted.stderr
    assert json.loads(trusted.outputs["overrides"])["sglang"]["source"] == "lock"


@pytest.mark.parametrize("profile", ["rocm", "cuda"])
def test_megatron_bridge_is_named_like_every_dependency(
        write_event: EventWriter, cli: Cli, profile: str) -> None:
    """Miles' gateway forwards `ci-megatron-bridge-pr` (#41, a branch, a tag, a SHA) as the
    dispatch input `ci_megatron_bridge_pr`."""
    body = cli("resolve", "--event-name", "pull_request", "--event-path",
               write_event("ci-megatron-bridge-pr: #41"), "--profile", profile)
    assert body.code == 0, body.stderr
    assert (body.outputs["megatron_bridge_ref"], body.outputs["megatron_bridge_repository"]) == (
        "refs/pull/41/head", "radixark/Megatron-Bridge")
    dispatched = cli("resolve", "--event-name", "pull_request", "--event-path",
                     write_event("ci-megatron-bridge-pr: #41"), "--profile", profile,
                     "--input", "ci_megatron_bridge_pr=v0.7.0")
    assert dispatched.code == 0, dispatched.stderr
    assert dispatched.outputs["megatron_bridge_ref"] == "v0.7.0"  # the input wins
    refused = cli("resolve", "--event-name", "pull_request", "--event-path",
                  write_event("ci-megatron-bridge-pr: $(reboot)"), "--profile", profile)
    assert refused.code == 1
