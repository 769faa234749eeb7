"""Clones with hostile content for the capture and the replay of the image's local changes
(architecture §4, §6 step 3): links that point outside, names with newlines and escape sequences,
binary files, a huge untracked directory. Nothing outside the clone is read or written, and
names are shown safely in every channel."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli, CliResult, git, overrides
from tests.install.test_image_edits import configure, install, sglang_report
from tests.repos import commit, make_repo

UNTOUCHED = "sgl-model-gateway/Cargo.toml"  # a tracked file the pull requests leave alone


def mega_install(cli: Cli, box: Sandbox, ref: str) -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", overrides(megatron=ref),
               "--workspace", str(box.workspace), "--python", box.python)


def test_links_that_point_outside_are_neither_followed_nor_written_through(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("outside-secret-content\n")
    clone = box.baked["sglang"]
    (clone / UNTOUCHED).unlink()
    (clone / UNTOUCHED).symlink_to(secret)  # a tracked file turned into a link outside
    (clone / "outside-dir").symlink_to(secret.parent)  # an untracked link to a directory
    configure(box, 'local-changes = "reapply"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert secret.read_text() == "outside-secret-content\n"
    assert sorted(path.name for path in secret.parent.iterdir()) == ["secret.txt"]
    captured = (clone / ".git" / "rocm-deps-image-changes.patch").read_text()
    assert "outside-secret-content" not in captured + result.stderr + result.summary
    assert f"+{secret}" in captured  # the link's target, as git records a link
    assert os.readlink(clone / UNTOUCHED) == str(secret)  # replayed as the link it was
    assert not (clone / "outside-dir").exists()  # untracked: removed, not followed
    report = sglang_report(result)
    assert report["local_changes"]["replayed"] == "applied"
    assert "outside-dir" in report["local_changes"]["discarded"]["untracked"]["names"]


def test_names_with_newlines_and_escapes_are_shown_safely(cli: Cli, box: Sandbox) -> None:
    clone = box.baked["sglang"]
    (clone / "evil\nname\x1b[31m.txt").write_text("x\n")
    result = install(cli, box)
    assert result.code == 0, result.stderr
    [warning] = [line for line in result.stderr.splitlines()
                 if "local changes discarded" in line]
    assert "evil%0Aname<U+001B>[31m.txt" in warning
    assert "\x1b" not in result.stderr + result.summary
    assert "evil name<U+001B>[31m.txt" in result.summary  # one line in the code block
    assert "evil\nname\x1b[31m.txt" in sglang_report(result)["local_changes"]["discarded"][
        "untracked"]["names"]  # the report is JSON: exact, and escaped by JSON


def test_a_binary_edit_is_captured_and_replayed_byte_for_byte(cli: Cli, box: Sandbox) -> None:
    clone = box.baked["sglang"]
    binary = bytes(range(256)) * 4
    (clone / UNTOUCHED).write_bytes(binary)
    configure(box, 'local-changes = "reapply"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert (clone / UNTOUCHED).read_bytes() == binary
    assert git(clone, "rev-parse", "HEAD") == box.commits["sglang"]["pr"]


def test_a_huge_untracked_directory_is_counted_and_cleaned(cli: Cli, box: Sandbox) -> None:
    clone = box.baked["sglang"]
    huge = clone / "generated"
    huge.mkdir()
    for index in range(3000):
        (huge / f"file-{index:04}.json").write_text("{}\n")
    result = install(cli, box)
    assert result.code == 0, result.stderr
    untracked = sglang_report(result)["local_changes"]["discarded"]["untracked"]
    assert untracked["count"] == 3001  # with the image's copied config file
    assert len(untracked["names"]) == 20
    # 20 names of 3,003 (the image's swap: 1 modified, 1 deleted) shown in the summary
    assert "… and 2983 more" in result.summary
    assert not huge.exists()


def test_edits_inside_a_submodule_are_reported_and_do_not_block_the_update(
        cli: Cli, box: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Local paths as submodule URLs need git's file transport, off by default since 2.38.
    for key, value in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.file.allow",
                       "GIT_CONFIG_VALUE_0": "always"}.items():
        monkeypatch.setenv(key, value)
    library = tmp_path / "library"
    first = make_repo(library, {"kernels.txt": "rocm kernels\n"})
    second = commit(library, {"kernels.txt": "faster rocm kernels\n"}, "faster")
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "-b", "with-submodule", "main")
    git(origin, "submodule", "add", "-q", str(library), "third_party/library")
    git(origin / "third_party" / "library", "checkout", "-q", first)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "add a submodule")
    git(origin, "update-ref", "refs/pull/310/head", "HEAD")
    git(origin / "third_party" / "library", "checkout", "-q", second)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "a newer library")
    git(origin, "update-ref", "refs/pull/311/head", "HEAD")
    git(origin, "checkout", "-q", "main")
    megatron = box.baked["megatron"]
    assert mega_install(cli, box, "refs/pull/310/head").code == 0
    submodule = megatron / "third_party" / "library"
    (submodule / "kernels.txt").write_text("edited inside the container\n")
    (submodule / "scratch\nfile.txt").write_text("x\n")
    result = mega_install(cli, box, "refs/pull/311/head")
    assert result.code == 0, result.stderr
    assert (submodule / "kernels.txt").read_text() == "faster rocm kernels\n"
    assert git(submodule, "rev-parse", "HEAD") == second
    report = json.loads(result.outputs["report"])["dependencies"]["megatron"]
    assert "third_party/library" in report["local_changes"]["discarded"]["modified"]["names"]


@pytest.mark.parametrize("subject", ["fix\r::warning title=X::y",
                                     "fix ##[warning]forged",
                                     "fix\r::add-mask::tok\r::stop-commands::x",
                                     "fix\r\u00a0::warning title=X::y",
                                     "fix\r\u2003::error::y", "fix\r\u3000::add-mask::y",
                                     "fix \u2028::warning::y", "fix \u0085::warning::y",
                                     "fix\r\u2029\u00a0::set-output name=a::b"],
                         ids=["carriage-return-command", "legacy-command", "stop-commands",
                              "no-break-space", "em-space", "ideographic-space",
                              "line-separator", "next-line", "paragraph-separator"])
def test_a_commit_subject_cannot_emit_workflow_commands(cli: Cli, box: Sandbox,
                                                         subject: str) -> None:
    """The install log shows the new commit's subject (`git log --oneline`): it reaches the
    log as text, never as a command the runner would act on."""
    origin = box.origins["megatron"]
    git(origin, "checkout", "-q", "--detach", "main")
    head = commit(origin, {"FORGED.md": "x\n"}, subject)
    git(origin, "update-ref", "refs/pull/777/head", head)
    git(origin, "checkout", "-q", "main")
    result = mega_install(cli, box, "refs/pull/777/head")
    assert result.code == 0, result.stderr
    # As actions/runner reads the log: lines split at CR and LF, every Unicode whitespace
    # trimmed before it looks for `::` (str.strip trims at least what .NET's Trim does).
    lines = re.split(r"\r\n|\r|\n", result.stderr)
    ours = ("::group::", "::endgroup::", "::stop-commands::rocm-deps-", "::rocm-deps-",
            *(f"::{level} title=rocm-deps" for level in ("error", "warning", "notice")))
    assert [line for line in lines if line.strip().startswith("::")
            and not line.startswith(ours)] == []
    assert not re.search("[\x80-\x9f]", result.stderr)  # C1 controls are shown, never raw
    assert not any("##[" in line for line in lines)
    assert any(line.startswith(f"{head[:7]} fix") for line in lines)  # the subject is shown
