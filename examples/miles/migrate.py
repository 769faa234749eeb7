#!/usr/bin/env python3
"""Move a Miles checkout's CI onto rocm-deps, in place: python3 migrate.py MILES --action A@REF

Two kinds of step change. Each step that reads directives from the pull request body (a
`grep` of `ci-<dependency>-pr:` or `ci-image-tag:` in the five workflows) becomes a
rocm-deps `resolve` step, followed (where later steps read the old step's outputs) by a
step of the old name and id that writes those outputs from rocm-deps' ones. The GPU
suites' install steps (ROCm's "Install dependencies", CUDA's "Sync dependency sources")
become `command: install`; the script prints, line by line, which rocm-deps setting does
what each statement of the old step did, and refuses a statement it cannot account for.
With --resolve-only the install steps stay as they are. The comment gateway keeps its
handler; only its body-pin parsing takes rocm-deps' `dispatch_inputs`. Every other job,
step, trigger, input, permission and comment stays byte for byte.

Steps are found at run time by job id and step name in the checkout given, and each must
still hold the text it replaces: when Miles changed, the script names what it cannot find
and exits 1, changing nothing. A second run changes nothing and says so. The standard
library only: the files are edited as text, so the diff is the replaced steps alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

WORKFLOWS = Path(".github/workflows")
GATEWAY_SCRIPT = WORKFLOWS / "scripts" / "comment_ci_command.py"
ACTION = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_./-]+")
# A line that reads a directive from the body: what must be gone afterwards.
# Any dependency's key (`ci-sglang-pr:`, `ci-megatron-bridge-pr:`, `ci-(megatron|sglang)-pr:`).
DIRECTIVE_GREP = re.compile(r"grep.*ci-[a-z()|-]+-pr:|grep.*ci-image-tag:")
# What a refs step writes for the steps after it: `ci_<dependency>_pr=` per dependency.
REF_OUTPUT = re.compile(r'echo "ci_([a-z]+(?:_[a-z]+)*)_pr=')
MIGRATED = "command: resolve"  # the rocm-deps step every migrated job gains


class Unexpected(Exception):
    """The checkout is not shaped as this script expects (Miles changed)."""


@dataclass
class Step:
    start: int  # index of the `- ` line
    end: int  # one past the block's last non-blank line
    indent: int  # column of the `-`
    name: str


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _job_range(lines: list[str], job: str) -> tuple[int, int]:
    try:
        top = lines.index("jobs:")
    except ValueError:
        raise Unexpected("no top-level `jobs:`") from None
    start = next((index for index in range(top + 1, len(lines))
                  if re.fullmatch(rf"  {re.escape(job)}:\s*(#.*)?", lines[index])), None)
    if start is None:
        raise Unexpected(f"no job `{job}`")
    end = next((index for index in range(start + 1, len(lines))
                if lines[index].strip() and _indent(lines[index]) <= 2
                and not lines[index].lstrip().startswith("#")), len(lines))
    return start, end


def steps(lines: list[str], job: str) -> list[Step]:
    """The steps of `job`, each with its line range and name."""
    start, end = _job_range(lines, job)
    header = next((index for index in range(start, end)
                   if re.fullmatch(r"    steps:\s*", lines[index])), None)
    if header is None:
        raise Unexpected(f"job `{job}` has no `steps:`")
    found: list[Step] = []
    index = header + 1
    while index < end:
        line = lines[index]
        if line.lstrip().startswith("- ") and _indent(line) > 4:
            item = _indent(line)
            last = index + 1
            while last < end and (not lines[last].strip() or _indent(lines[last]) > item):
                last += 1
            while not lines[last - 1].strip():
                last -= 1
            found.append(Step(index, last, item, _name(lines[index:last], item)))
            index = last
        else:
            index += 1
    return found


def _name(block: list[str], item: int) -> str:
    line = _field(block, item, "name")
    return line.split(":", 1)[1].strip().strip("'\"") if line else ""


def find_step(lines: list[str], job: str, name: str) -> Step:
    matches = [step for step in steps(lines, job) if step.name == name]
    if len(matches) != 1:
        raise Unexpected(f"job `{job}` has {len(matches)} steps named {name!r}, not one")
    return matches[0]


def _field(block: list[str], item: int, key: str) -> str | None:
    """The line of a step's top-level `key:` (`name:`, `if:`), or None."""
    for position, line in enumerate(block):
        text = line.lstrip()[2:] if position == 0 else line[item + 2:]
        if (position == 0 or _indent(line) == item + 2) and text.startswith(f"{key}:"):
            return text
    return None


def _block(text: str, indent: int) -> list[str]:
    pad = " " * indent
    return [pad + line if line else "" for line in text.strip("\n").split("\n")]


# ---- the replacements ----------------------------------------------------------------------

def resolve_step(action: str, name: str, condition: str | None, profile: str,
                 extra: str = "") -> str:
    return "\n".join(line for line in (
        f"- name: {name}",
        f"  {condition}" if condition else "",
        "  id: rocm-deps",
        f"  uses: {action}",
        "  with:",
        "    command: resolve",
        f"    profile: {profile}" if profile != "rocm" else "",
        # Pins refs once for every job, and reads the description as it is now: a re-run
        # (/rerun-failed-ci replays the original event) tests the edited directives.
        "    github-token: ${{ github.token }}",
        extra,
    ) if line)


def refs_step(condition: str | None, names: list[str]) -> str:
    """The old step's id and outputs (the fetch refs later steps read), from rocm-deps'.

    `names` are the dependencies the old step wrote `ci_<name>_pr` for, in its order; each
    rocm-deps output is the dependency's name with `_` for `-` (`megatron_bridge_sha`)."""
    return "\n".join(line for line in (
        "- name: Resolve dependency refs",
        f"  {condition}" if condition else "",
        "  id: resolve-refs",
        "  shell: bash",
        "  env:",
        *(_env(f"{name.upper()}_REF", f"${{{{ steps.rocm-deps.outputs.{name}_sha || "
                                      f"steps.rocm-deps.outputs.{name}_ref }}}}")
          for name in names),
        "  # rocm-deps validated each (shell-safe refs or SHAs); empty: keep the image's copy.",
        "  run: |",
        *(f'    echo "ci_{name}_pr=${name.upper()}_REF" >> "$GITHUB_OUTPUT"' for name in names),
        *(f'    echo "Resolved {name}: ${{{name.upper()}_REF:-the image copy}}"'
          for name in names),
    ) if line)


def _env(name: str, value: str) -> str:
    """An `env:` entry, folded onto a second line when one would pass Miles' 120 columns."""
    line = f"    {name}: {value}"
    return line if len(line) <= 100 else f"    {name}: >-\n      {value}"


Replacement = Callable[[list[str], Step, str], "str | tuple[str, list[str]]"]


@dataclass(frozen=True)
class Edit:
    """One step to replace: where it is, the text it must hold, and what replaces it (with,
    for a step of several commands, where each command went)."""

    file: str
    job: str
    step: str
    holds: str  # a piece of the old step that proves it is the one to replace
    replace: Replacement  # (file lines, the step, action) -> text[, account]
    marker: str = MIGRATED  # a line the job holds once this edit is done
    becomes: str = "rocm-deps resolve"


def _gpu_refs(profile: str, job: str,
              install: str | None = None) -> Callable[[list[str], Step, str], str]:
    """The refs step: rocm-deps resolve, then a step of the old id that writes the old
    outputs, unless only the `install` step (migrated as well) read them."""
    def replace(lines: list[str], step: Step, action: str) -> str:
        block = lines[step.start:step.end]
        condition = _field(block, step.indent, "if")
        names = list(dict.fromkeys(REF_OUTPUT.findall("\n".join(block))))
        if not names:
            raise Unexpected("the step no longer writes a ci_<dependency>_pr output")
        resolved = resolve_step(action, "Resolve dependency refs (rocm-deps)", condition,
                                profile)
        replaced = find_step(lines, job, install) if install else None
        readers = [line for index, line in enumerate(lines)
                   if "steps.resolve-refs." in line and not step.start <= index < step.end
                   and not (replaced and replaced.start <= index < replaced.end)]
        return resolved if replaced and not readers else (
            resolved + "\n\n" + refs_step(condition, names))
    return replace


def _skip_flag(lines: list[str], step: Step, action: str) -> str:
    # The job's output reads steps.resolve.outputs.skip_dependency_install: same id, same
    # output, now rocm-deps'.
    return resolve_step(action, step.name, None, "rocm").replace("id: rocm-deps", "id: resolve")


def _cuda_image(lines: list[str], step: Step, action: str) -> str:
    old = "\n".join(lines[step.start:step.end])
    image = re.search(r'container_image=([A-Za-z0-9_./-]+:)\$\{CI_IMAGE_TAG\}', old)
    if image is None:
        raise Unexpected("the step no longer writes container_image=<image>:${CI_IMAGE_TAG}")
    # The old precedence: the workflow_call input, then (on a pull request whose image the
    # build published) pr-<number>, then the dispatch input, the body and `dev`: the first
    # two are the `value` input, rocm-deps' cuda profile does the rest.
    value = "\n".join((
        "    # workflow_call's image_tag (a frozen release tag), else the PR's own image when the",
        "    # build published it (tag_available: a reused image counts too)",
        "    value: >-",
        "      ${{ inputs.image_tag && format('image-tag={0}', inputs.image_tag) ||",
        "      (needs.docker-build.outputs.tag_available == 'true' &&",
        "      github.event.pull_request.number) &&",
        "      format('image-tag=pr-{0}', github.event.pull_request.number) || '' }}"))
    return (resolve_step(action, "Resolve CI image (rocm-deps)", None, "cuda", value) + "\n\n"
            + "\n".join((
                "- name: Resolve CI image",
                "  id: resolve",
                "  shell: bash",
                "  env:",
                "    CI_IMAGE_TAG: ${{ steps.rocm-deps.outputs.image_tag }}",
                "  run: |",
                f'    echo "container_image={image.group(1)}${{CI_IMAGE_TAG}}" >> '
                f'"$GITHUB_OUTPUT"',
                f'    echo "Resolved CI image: {image.group(1)}${{CI_IMAGE_TAG}}"')))


def edits(install: bool) -> tuple[Edit, ...]:
    """The steps to replace; with `install`, the GPU suites' install steps too."""
    rocm_install = "Install dependencies" if install else None
    cuda_install = "Sync dependency sources" if install else None
    return (
        Edit("pr-test-rocm.yml", "resolve-ci-deps",
             "Resolve whether the image's baked dependencies are overridden",
             "grep -qP '^ci-(megatron|", _skip_flag),
        Edit("_run-ci-rocm.yml", "run", "Resolve dependency refs",
             "grep -m1 -oP '^ci-sglang-pr:", _gpu_refs("rocm", "run", rocm_install)),
        *((Edit("_run-ci-rocm.yml", "run", "Install dependencies", "git checkout -f FETCH_HEAD",
                _install("rocm"), "command: install", "rocm-deps install"),) if install else ()),
        Edit("_run-ci.yml", "run", "Resolve dependency refs",
             "grep -m1 -oP '^ci-sglang-pr:", _gpu_refs("cuda", "run", cuda_install)),
        *((Edit("_run-ci.yml", "run", "Sync dependency sources", "git checkout -f FETCH_HEAD",
                _install("cuda"), "command: install", "rocm-deps install"),) if install else ()),
        Edit("_run-cpu-ci.yml", "run-cpu", "Resolve dependency refs",
             "grep -m1 -oP '^ci-sglang-pr:", _gpu_refs("cuda", "run-cpu")),
        Edit("pr-test.yml", "resolve-ci-image", "Resolve CI image",
             "grep -m1 -oP '^ci-image-tag:", _cuda_image),
    )


# ---- the install step ------------------------------------------------------------------------

# Miles' image, as the built-in profiles describe it: a bash block must act on these, or the
# script does not know what it does.
CLONES = {"sglang": ("/sgl-workspace/sglang", "python"), "megatron": ("/root/Megatron-LM", ".")}
ROCM_PATCH = "docker/amd_patch/latest/megatron.patch"
# The statements of a step's script and what each is, in the order they are tried.
TOOLCHAIN = re.compile(r"(?:if !? ?command -v (?:rustup|protoc)\b.*|rustc --version|"
                       r"protoc --version)", re.S)
CHECKOUT = re.compile(r"git reset --hard HEAD.*git clean -fd.*git fetch origin .*"
                      r"git checkout -f FETCH_HEAD", re.S)
WORKSPACE_PIP = re.compile(r'cd "?\$\{?GITHUB_WORKSPACE\}?"? && pip install -e \. --no-deps'
                           r'(?: --break-system-packages)?')
EXTRA_PIP = re.compile(r"pip install (?!-e\b)[^\n&|;]+")
# Megatron-Bridge, which the image pip-installed from git (no clone): its pinned install.
BRIDGE_PIP = re.compile(r'if \[ -n "\$(\w+)" \]; then\n\s*pip install '
                        r'"git\+https://github\.com/radixark/Megatron-Bridge\.git@\$\1" '
                        r'--no-deps --no-build-isolation\n\s*fi')


def statements(script: str) -> list[str]:
    """A bash script's top-level statements: one line each, an `if … fi` block as one."""
    found: list[str] = []
    depth = 0
    for line in script.split("\n"):
        text = line.strip()
        if not text:
            continue
        if depth:
            found[-1] += "\n" + line.rstrip()  # as written: a kept block keeps its indent
        else:
            found.append(text)
        depth += len(re.findall(r"(?:^|;\s*|\s)if\s", f" {text}")) - len(
            re.findall(r"(?:^|;\s*|\s)fi\b", f" {text}"))
        if depth < 0:
            raise Unexpected(f"an unbalanced `fi` in the script: {text!r}")
    if depth:
        raise Unexpected("an `if` without its `fi` in the script")
    return found


def _clone_of(statement: str) -> str | None:
    """The dependency whose image clone a statement checks out (None: not a checkout)."""
    if not CHECKOUT.search(statement):
        return None
    for name, (path, _) in CLONES.items():
        if re.search(rf"cd {re.escape(path)}\b", statement):
            return name
    raise Unexpected(f"a checkout of a clone this script does not know: {_first(statement)!r}")


def _first(statement: str) -> str:
    line = statement.split("\n", 1)[0]
    return line if len(line) <= 90 else line[:87] + "..."


def _install_of(name: str, statement: str, profile: str) -> str:
    """What `install` does for a dependency's block, checked against what the block does."""
    path, install_dir = CLONES[name]
    pip = re.search(r"pip install -e (\S+) --no-deps", statement)
    if profile == "rocm":
        if pip is None or pip.group(1) != install_dir:
            raise Unexpected(f"{name}'s block does not `pip install -e {install_dir} --no-deps` "
                             f"as the profile does")
    elif pip is not None:
        raise Unexpected(f"{name}'s block pip-installs, which the cuda profile does not")
    patch = "git apply" in statement
    if patch and (name != "megatron" or ROCM_PATCH not in statement or not re.search(
            r"git apply --reverse --check", statement)):
        raise Unexpected(f"{name}'s block applies a patch this script does not know")
    if profile == "rocm" and name == "megatron" and not patch:
        raise Unexpected("megatron's block no longer applies the ROCm patch")
    done = ["clean", "fetch", "checkout"]
    if patch:
        done.append(f"the ROCm patch {ROCM_PATCH}: applied, or already present, else the job "
                    f"fails")
    done.append(f"pip install -e {install_dir} --no-deps" if pip else "no pip (clone only)")
    return f"install: {name} at {path} ({', '.join(done)})"


def _install(profile: str) -> Callable[[list[str], Step, str], tuple[str, list[str]]]:
    """The install step, or the step that syncs the clones: `command: install` fed by the
    resolve step's `overrides`, and every other command kept in a step before or after it,
    in its order."""
    def replace(lines: list[str], step: Step, action: str) -> tuple[str, list[str]]:
        block = lines[step.start:step.end]
        condition = _field(block, step.indent, "if")
        run = next((index for index, line in enumerate(block)
                    if line == " " * (step.indent + 2) + "run: |"), None)
        if run is None:
            raise Unexpected("the step has no `run: |` script")
        script = "\n".join(line[step.indent + 4:] for line in block[run + 1:])
        before: list[str] = []
        after: list[str] = []
        account: list[str] = []
        installed: list[str] = []
        workspace = False
        for statement in statements(script):
            name = _clone_of(statement)
            if name is not None:
                if after:
                    raise Unexpected("a checkout after the packages installed after it")
                installed.append(name)
                account.append(f"`{_first(statement)}` -> {_install_of(name, statement, profile)}")
            elif BRIDGE_PIP.fullmatch(statement):
                installed.append("megatron-bridge")
                account.append(f"`{_first(statement)}` -> install: megatron-bridge (pip install "
                               f"git+https://github.com/radixark/Megatron-Bridge.git@<commit> "
                               f"--no-deps --no-build-isolation, after the clones)")
            elif TOOLCHAIN.fullmatch(statement):
                if any(name in CLONES for name in installed) or workspace:
                    raise Unexpected(f"the toolchain set-up {_first(statement)!r} after a "
                                     f"checkout: it can no longer run before install")
                before.append(statement)
                account.append(f"`{_first(statement)}` -> kept, in the step 'Set up the "
                               f"toolchain' before install")
            elif WORKSPACE_PIP.fullmatch(statement):
                if profile != "rocm":
                    raise Unexpected("a workspace install the cuda profile does not do")
                workspace = True
                account.append(f"`{_first(statement)}` -> install: the workspace "
                               f"(workspace-install), after the dependencies")
            elif EXTRA_PIP.fullmatch(statement) and profile == "rocm":
                after.append(statement)
                account.append(f"`{_first(statement)}` -> kept, in the step 'Install the "
                               f"suite's Python packages' after install")
            else:
                raise Unexpected(f"a command this script does not know: {_first(statement)!r}")
        if not any(name in CLONES for name in installed):
            raise Unexpected("the step checks out no clone")
        if profile == "rocm" and not workspace:
            raise Unexpected("the step no longer installs the workspace")
        if "--break-system-packages" in script:
            account.append("`--break-system-packages` -> rocm-deps' own: every pip it runs has "
                           "PIP_BREAK_SYSTEM_PACKAGES=1")
        steps_text = []
        if before:
            steps_text.append(_script_step("Set up the toolchain", condition, before))
        steps_text.append("\n".join(line for line in (
            f"- name: {step.name}",
            f"  {condition}" if condition else "",
            "  id: install",
            f"  uses: {action}",
            "  with:",
            "    command: install",
            "    profile: cuda" if profile == "cuda" else "",
            "    overrides: ${{ steps.rocm-deps.outputs.overrides }}",
            "    # A re-run of failed jobs: install checks its pins against the description.",
            "    github-token: ${{ github.token }}",
        ) if line))
        if after:
            steps_text.append(_script_step("Install the suite's Python packages", condition,
                                           after))
        return "\n\n".join(steps_text), account
    return replace


def _script_step(name: str, condition: str | None, commands: list[str]) -> str:
    return "\n".join(line for line in (
        f"- name: {name}", f"  {condition}" if condition else "", "  shell: bash", "  run: |",
        *("    " + line for statement in commands for line in statement.split("\n")),
    ) if line)


GATEWAY = ("comment-ci-command.yml", "actions-command", "Authorize and run the actions command")
PINS_STEP = """- name: Read the pull request's dependency pins (rocm-deps)
  id: body-pins
  # Only /rerun-test forwards them; the handler refuses it when this step failed.
  continue-on-error: true
  uses: {action}
  with:
    command: resolve
    profile: cuda
    # The handler decides who may: a commenter of the prior-contributor tier (its
    # author_association, no permission lookup), a listed user id, or live write; fork
    # heads included, re-verified against their one open pull request.
    trusted-associations: """ + ",".join((
    "OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER",
    "NONE"))
PINS_ENV = ("CI_COMMAND_BODY_PINS: ${{ steps.body-pins.outputs.dispatch_inputs }}",
            "CI_COMMAND_BODY_PINS_OUTCOME: ${{ steps.body-pins.outcome }}")
PINS_FUNCTION = '''def _pr_body_pins(body):
    # rocm-deps reads the body (the workflow's "Read the pull request's dependency pins"
    # step) exactly as the suites do; its dispatch_inputs output arrives here.
    outcome = os.environ.get("CI_COMMAND_BODY_PINS_OUTCOME")
    if outcome != "success":
        raise CommentCommandError(
            "rocm-deps could not read the PR body's dependency pins "
            f"(step outcome {outcome!r}): see the run's pins step"
        )
    try:
        named = json.loads(os.environ.get("CI_COMMAND_BODY_PINS") or "{}")
    except ValueError as error:
        raise CommentCommandError(f"rocm-deps' dispatch_inputs is not JSON: {error}") from error
    if not isinstance(named, dict):
        raise CommentCommandError("rocm-deps' dispatch_inputs is not an object")
    pins = {}
    for input_name, _, value_pattern in PR_BODY_PINS:
        if input_name not in named:
            continue
        value = named.pop(input_name)
        if not isinstance(value, str) or value_pattern.fullmatch(value) is None:
            raise CommentCommandError(
                f"PR body pin {input_name.replace('_', '-')} has an unsupported value: {value!r}"
            )
        pins[input_name] = value
    if named:
        raise CommentCommandError(f"unexpected PR body pins: {sorted(named)}")
    return pins
'''


# ---- applying them ---------------------------------------------------------------------------

def migrate_workflow(root: Path, edit: Edit, action: str, pending: dict[Path, str]) -> str:
    path = root / WORKFLOWS / edit.file
    text = pending.get(path) or _read(path)
    lines = text.split("\n")
    where = f"{WORKFLOWS / edit.file}: job {edit.job}: step {edit.step!r}"
    try:
        job_start, job_end = _job_range(lines, edit.job)
        if any(line.strip() == edit.marker for line in lines[job_start:job_end]):
            return f"{where}: already migrated"
        step = find_step(lines, edit.job, edit.step)
        old = "\n".join(lines[step.start:step.end])
        if edit.holds not in old:
            raise Unexpected(f"the step no longer holds {edit.holds!r}")
        replaced = edit.replace(lines, step, action)
        text, account = replaced if isinstance(replaced, tuple) else (replaced, [])
        new = _block(text, step.indent)
    except Unexpected as problem:
        raise Unexpected(f"{where}: {problem}") from None
    pending[path] = "\n".join(lines[:step.start] + new + lines[step.end:])
    return "\n  ".join((f"{where}: replaced by {edit.becomes}", *account))


def migrate_gateway(root: Path, action: str, pending: dict[Path, str]) -> list[str]:
    file, job, name = GATEWAY
    path = root / WORKFLOWS / file
    lines = _read(path).split("\n")
    where = f"{WORKFLOWS / file}: job {job}: step {name!r}"
    done = []
    try:
        step = find_step(lines, job, name)
        block = lines[step.start:step.end]
        if any("CI_COMMAND_BODY_PINS" in line for line in block):
            done.append(f"{where}: already migrated")
        else:
            env = next((index for index, line in enumerate(block)
                        if line == " " * (step.indent + 2) + "env:"), None)
            if env is None:
                raise Unexpected("the step has no `env:`")
            block[env + 1:env + 1] = [" " * (step.indent + 4) + line for line in PINS_ENV]
            pins = _block(PINS_STEP.replace("{action}", action), step.indent)
            lines[step.start:step.end] = [*pins, "", *block]
            pending[path] = "\n".join(lines)
            done.append(f"{where}: reads the pins from a rocm-deps resolve step before it")
    except Unexpected as problem:
        raise Unexpected(f"{where}: {problem}") from None
    script = root / GATEWAY_SCRIPT
    source = _read(script)
    function = re.search(r"^def _pr_body_pins\(body\):\n.*?(?=^\S)", source, re.M | re.S)
    if function is None:
        raise Unexpected(f"{GATEWAY_SCRIPT}: no `def _pr_body_pins(body):`")
    if "CI_COMMAND_BODY_PINS" in function.group(0):
        done.append(f"{GATEWAY_SCRIPT}: _pr_body_pins: already migrated")
    else:
        if "PR_BODY_PINS" not in function.group(0) or not re.search(
                r"^import json$", source, re.M) or not re.search(r"^import os$", source, re.M):
            raise Unexpected(f"{GATEWAY_SCRIPT}: _pr_body_pins no longer reads PR_BODY_PINS "
                             f"(or the module does not import json and os)")
        pending[script] = (source[:function.start()] + PINS_FUNCTION + "\n\n"
                           + source[function.end():])
        done.append(f"{GATEWAY_SCRIPT}: _pr_body_pins: takes rocm-deps' dispatch_inputs "
                    f"instead of its own patterns")
    return done


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise Unexpected(f"{path}: {error.strerror or error}") from None


def remaining_greps(root: Path, pending: dict[Path, str]) -> list[str]:
    found = []
    for path in sorted((root / WORKFLOWS).glob("*.y*ml")):
        text = pending.get(path) or path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(root)}:{number}: {line.strip()}"
                  for number, line in enumerate(text.split("\n"), 1)
                  if DIRECTIVE_GREP.search(line)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("checkout", type=Path, help="a checkout of radixark/miles")
    parser.add_argument("--action", required=True,
                        help="the rocm-deps action to use, OWNER/REPO@REF (pin a SHA)")
    parser.add_argument("--resolve-only", action="store_true",
                        help="replace only the steps that read directives; the install steps "
                             "stay Miles' bash (the smallest diff)")
    options = parser.parse_args(argv)
    if not ACTION.fullmatch(options.action):
        parser.error(f"--action {options.action!r} is not OWNER/REPO@REF")
    pending: dict[Path, str] = {}
    try:
        report = [migrate_workflow(options.checkout, edit, options.action, pending)
                  for edit in edits(install=not options.resolve_only)]
        report += migrate_gateway(options.checkout, options.action, pending)
    except Unexpected as problem:
        print(f"migrate: {problem}; nothing was changed", file=sys.stderr)
        return 1
    left = remaining_greps(options.checkout, pending)
    if left:
        print("migrate: these lines still read a directive from the body, and this script "
              "does not know them; nothing was changed:\n  " + "\n  ".join(left),
              file=sys.stderr)
        return 1
    for path, text in pending.items():
        path.write_text(text, encoding="utf-8")
    print("\n".join(report))
    print(f"migrate: {len(pending)} file(s) changed" if pending else
          "migrate: already migrated; nothing changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
