"""GitHub's rendering decides, through the local API stand-in: resolve reads `body_html` from the
same answer as `body` (media type full+json) and applies what GitHub shows; `--body-file`
renders with GitHub's engine and agrees. Where GitHub rewrote a value into a link, the link's
target the author wrote is the value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub

TOKEN = "ghp_rocmdepsHTMLtoken0123456789abcdefgh"
MILES = "radixark/miles"
H30421, MEGATRON_SHA = "3" * 40, "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, H30421)
        fake.repository("radixark/Megatron-LM").commits.append(MEGATRON_SHA)
        fake.repository(MILES).add_pull(42, "4" * 40, body="")
        yield fake


def live(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
         body: str, **given: Any) -> CliResult:
    """resolve on PR 42 whose description is `body` now (the payload's is stale)."""
    github.repository(MILES).pulls[42].update(body=body, **given)
    github.log.clear()
    event = write_event("stale", number=42, repository=MILES, head="4" * 40)
    return cli("resolve", "--event-name", "pull_request", "--event-path", event, "--config",
               str(config), "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
               env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})


def local(cli: Cli, tmp_path: Path, body: str) -> CliResult:
    path = tmp_path / "description.md"
    path.write_text(body)
    return cli("resolve", "--body-file", str(path), "--format", "json",
               env={"GITHUB_REPOSITORY": MILES})


def overrides(result: CliResult) -> dict[str, Any]:
    assert result.code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)["overrides"]
    return {name: entry for name, entry in document.items() if name != "_run"}


def test_an_escaped_key_is_applied_as_github_shows_it_also_when_github_linked_the_number(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """GitHub shows `ci\\-sglang\\-pr: #30421` as `ci-sglang-pr: #30421`, and links `#30421` to
    the body's own repository (radixark/miles#30421): the author wrote `#30421`, which names
    SGLang's pull request 30421."""
    body = "Bump.\n\nci\\-sglang\\-pr: #30421\n"
    result = live(cli, write_event, github, config, body)
    entry = overrides(result)["sglang"]
    assert (entry["ref"], entry["sha"], entry["line"]) == ("refs/pull/30421/head", H30421, 3)
    # The one read of the description asked for GitHub's rendering too.
    assert github.log[0] == f"GET /repos/{MILES}/pulls/42"
    assert github.full_json_requests >= 1
    assert [line for line in github.log if "/repos/radixark/miles/" in line] == [
        f"GET /repos/{MILES}/pulls/42"]
    assert overrides(local(cli, tmp_path, body))["sglang"]["ref"] == "refs/pull/30421/head"


def test_githubs_html_as_answered_decides(cli: Cli, write_event: EventWriter,
                                          github: FakeGitHub, config: Path) -> None:
    """A `body_html` written out in GitHub's shapes (the stand-in serves it as given): the line
    GitHub shows is read, whatever the Markdown source looks like."""
    html = ('<p dir="auto">ci-sglang-pr: <a class="issue-link js-issue-link" '
            'href="https://github.com/radixark/miles/pull/30421">#30421</a></p>')
    result = live(cli, write_event, github, config, "ci&#45;sglang&#45;pr: #30421",
                  body_html_as_given=html)
    assert overrides(result)["sglang"]["sha"] == H30421


def test_a_dependency_url_shown_as_owner_repo_number_resolves_to_that_pull_request(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    body = "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421\n"
    entry = overrides(live(cli, write_event, github, config, body))["sglang"]
    assert (entry["pr"], entry["sha"], entry["kind"]) == (30421, H30421, "pr")


@pytest.mark.parametrize("written", [
    MEGATRON_SHA, f"https://github.com/radixark/Megatron-LM/commit/{MEGATRON_SHA}"],
    ids=["sha", "commit-url"])
def test_a_commit_link_shown_as_a_short_sha_resolves_to_the_full_sha(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        written: str) -> None:
    entry = overrides(live(cli, write_event, github, config, f"ci-megatron-pr: {written}\n"))[
        "megatron"]
    assert (entry["ref"], entry["sha"], entry["kind"]) == (MEGATRON_SHA, MEGATRON_SHA, "commit")


def test_an_own_repository_url_shown_as_a_number_is_an_error(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    body = "ci-sglang-pr: https://github.com/radixark/miles/pull/26\n"
    for result in (live(cli, write_event, github, config, body), local(cli, tmp_path, body)):
        assert result.code == 1
        assert "radixark/miles" in result.stderr and "sgl-project/sglang" in result.stderr


@pytest.mark.parametrize(("body", "ref"), [
    # The author's link around the value or the whole line: the text is what is shown.
    ("ci-sglang-pr: [#30421](https://github.com/sgl-project/sglang/pull/68091)\n",
     "refs/pull/30421/head"),
    ("[ci-sglang-pr: #30421](https://github.com/sgl-project/sglang/pull/68091)\n",
     "refs/pull/30421/head"),
    ("ci-sglang-pr: [#30421][r]\n\n[r]: https://github.com/sgl-project/sglang/pull/68091\n",
     "refs/pull/30421/head"),
    # The destination written bare elsewhere does not make the link's text GitHub's rewrite.
    ("ci-sglang-pr: [#30421](https://github.com/sgl-project/sglang/pull/68091)\n\nSee "
     "https://github.com/sgl-project/sglang/pull/68091\n", "refs/pull/30421/head"),
    ("ci-sglang-pr: [main](https://github.com/sgl-project/sglang/tree/evil)\n", "main"),
    # A raw <a> left open around the line: its href is no value.
    ('Foo\n<a href="bar">\nci-sglang-pr: #30421\nbaz\n', "refs/pull/30421/head"),
])
def test_a_link_the_author_wrote_names_its_text_not_its_hidden_target(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path, body: str, ref: str) -> None:
    """Only where GitHub rewrote a URL or SHA the author wrote as text is the link's target the
    value; a link the author wrote shows its text, and the reader sees that text, so that is
    what is applied (a held-out check found the hidden target applied: a run green on a pull
    request nobody was shown)."""
    assert overrides(local(cli, tmp_path, body))["sglang"]["ref"] == ref
    github.repository("sgl-project/sglang").add_pull(68091, "6" * 40)
    github.repository("sgl-project/sglang").branches["main"] = "7" * 40
    assert overrides(live(cli, write_event, github, config, body))["sglang"]["ref"] == ref


def test_the_same_url_elsewhere_in_the_description_does_not_turn_a_number_into_it(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    """GitHub links `#30421` to the description's own repository as `/pull/30421`; the same
    URL written bare on another line is another line's: this line names SGLang's #30421."""
    own = "https://github.com/radixark/miles/pull/30421"
    link = f'<a class="issue-link js-issue-link" href="{own}">#30421</a>'
    html = (f'<p dir="auto">ci-sglang-pr: {link}</p>\n'
            f'<p dir="auto">Follows {link}</p>')
    result = live(cli, write_event, github, config,
                  f"ci-sglang-pr: #30421\n\nFollows {own}\n", body_html_as_given=html)
    assert overrides(result)["sglang"]["ref"] == "refs/pull/30421/head"


def test_a_sha_written_elsewhere_does_not_lengthen_the_short_one_this_line_shows(
        cli: Cli, tmp_path: Path) -> None:
    """The author linked `3f1c0d9` to a commit and wrote the full SHA on another line: this
    line shows a short SHA, which without a token cannot be expanded, so it is an error, not
    the hidden target."""
    body = (f"ci-megatron-pr: [3f1c0d9](https://github.com/radixark/Megatron-LM/commit/"
            f"{MEGATRON_SHA})\n\nPrevious pin: {MEGATRON_SHA}\n")
    result = local(cli, tmp_path, body)
    assert result.code == 1
    assert "`3f1c0d9` (megatron) is an abbreviated commit SHA" in result.stderr


def test_a_description_of_linked_directives_reads_in_linear_time(
        cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A description of 2,000 linked directive lines whose destinations repeat the same URL:
    each line's link is judged on its own line (a search of the whole description per line
    took minutes on a 1 MiB one). Counted in lines read, not seconds."""
    from rocm_deps.grammar import source

    line = "ci-sglang-pr: [#5](https://github.com/sgl-project/sglang/pull/5)\n\n"
    calls: list[int] = []
    original = source.written_as_text

    def counted(line: str, written: str) -> bool:
        calls.append(len(line))
        return original(line, written)

    monkeypatch.setattr(source, "written_as_text", counted)
    result = local(cli, tmp_path, line * 2000)
    assert result.code == 0, result.stderr[-500:]
    assert max(calls) == len(line) - 2 and sum(calls) <= 2000 * len(line)
