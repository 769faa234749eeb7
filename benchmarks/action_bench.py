"""What a first use of the action costs in a fresh job: the current approach against the
previous one, interleaved in the same run.

Each measurement is the whole composite action, run the way the runner runs it (`bash -c`
on each `run:` script, with the inputs as INPUT_* variables), on a fresh `RUNNER_TEMP` and an
empty pip cache, as on a new runner or job container:

  current   action.yml of this checkout: the tool runs from its source tree on the standard
            library (`python3 -I`); PyGithub is installed on demand, only with a token
  previous  the action before that change, kept here so the comparison stays reproducible:
            check python3 and ensurepip, create a private virtualenv, pip install the pinned
            closure (PyGithub, regex, ...), run the tool from that virtualenv

Three uses:
  (i)   resolve without a token
  (ii)  resolve with a token, against a local stand-in of the GitHub API on 127.0.0.1
  (iii) install with overrides, on a small real repository (the demo's sandbox): the
        checkout and the patch, without the dependency's own `pip install -e`
        (`install-dir = ""`), which costs both approaches the same; (iv) with it

Usage: python benchmarks/action_bench.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from rocm_deps.demo import sandbox  # noqa: E402
from rocm_deps.runner import Runner  # noqa: E402
from tests.fake_github import FakeGitHub  # noqa: E402

# The previous action's pins and steps, as they were (commit d445890), and cmarkgfm: the
# previous approach runs this checkout's code, which renders a description with it since 1.1.0.
PREVIOUS_PINS = """\
certifi==2026.10.19.post1
cffi==2.1.1
charset-normalizer==3.5.3
cmarkgfm==2025.10.22
cryptography==50.0.2
idna==3.20
pycparser==3.11
PyGithub==2.10.0
PyJWT==2.15.1
PyNaCl==1.6.2
regex==2026.9.29
requests==2.34.2
tomli==2.5.0 ; python_version < "3.11"
typing_extensions==4.16.0
urllib3==2.8.0
"""
PREVIOUS_STEPS = [
    """set -euo pipefail
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then exit 1; fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then exit 1; fi
""",
    """set -euo pipefail
venv="${RUNNER_TEMP}/rocm-deps-previous"
if [ ! -f "$venv/.rocm-deps-ready" ]; then
  requirements=(install --quiet --disable-pip-version-check --requirement "$PINS")
  if python3 -m pip --help 2>/dev/null | grep -q -- '--python <python>'; then
    python3 -m venv --without-pip "$venv"
    python3 -m pip --python "$venv/bin/python" "${requirements[@]}"
  else
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip "${requirements[@]}"
  fi
  purelib="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$ACTION_PATH/src" > "$purelib/rocm_deps_action.pth"
  touch "$venv/.rocm-deps-ready"
fi
""",
    """set -euo pipefail
args=("$INPUT_COMMAND" --github-token-env INPUT_GITHUB_TOKEN)
if [ -n "$INPUT_CONFIG" ]; then args+=(--config "$INPUT_CONFIG"); fi
if [ "$INPUT_COMMAND" = install ]; then
  args+=(--overrides "$INPUT_OVERRIDES" --python "$INPUT_PYTHON" --workspace "$INPUT_WORKSPACE")
fi
exec "${RUNNER_TEMP}/rocm-deps-previous/bin/python" -m rocm_deps "${args[@]}"
""",
]


def current_steps() -> list[str]:
    """The `run:` scripts of action.yml, as the runner would execute them."""
    text = (ROOT / "action.yml").read_text()
    scripts = []
    for match in re.finditer(r"^( +)run: \|\n((?:\1  .*\n|\n)+)", text, flags=re.MULTILINE):
        indent = len(match.group(1)) + 2
        scripts.append("".join(line[indent:] + "\n" for line in match.group(2).splitlines()))
    return scripts


def use(steps: list[str], inputs: dict[str, str], base_env: dict[str, str],
        work: Path) -> float:
    """One first use of the action: every step, fresh RUNNER_TEMP, empty pip cache."""
    runner_temp, cache = work / "runner-temp", work / "pip-cache"
    runner_temp.mkdir(parents=True)
    env = {**base_env, "RUNNER_TEMP": str(runner_temp), "PIP_CACHE_DIR": str(cache),
           "ACTION_PATH": str(ROOT), "ACTION_SOURCE": str(ROOT / "src"),
           "GITHUB_OUTPUT": str(work / "output"), "GITHUB_STEP_SUMMARY": str(work / "summary"),
           "PINS": str(work.parent / "previous-pins.txt"),
           **{f"INPUT_{key.upper()}": value for key, value in inputs.items()}}
    started = time.perf_counter()
    for script in steps:
        result = subprocess.run(["bash", "-c", script], env=env, cwd=work,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"step failed ({result.returncode}):\n{script}\n{result.stderr}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    samples: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rocm-deps-action-bench-") as directory, \
            FakeGitHub() as github:
        root = Path(directory)
        (root / "previous-pins.txt").write_text(PREVIOUS_PINS)
        github.repository("sgl-project/sglang").add_pull(1, "a" * 40)
        # With a token resolve reads the description as it is now (and GitHub's rendering of
        # it) from the API: the event's pull request is there too.
        github.repository("radixark/miles").add_pull(7, "b" * 40, body="ci-sglang-pr: #1")
        event = root / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 7, "body": "ci-sglang-pr: #1",
                                                      "author_association": "MEMBER"},
                                     "repository": {"full_name": "radixark/miles"}}))
        box = sandbox.build(root / "sandbox", Runner(stream=io.StringIO()), dict(os.environ),
                            python_for_venv=sys.executable)
        overrides = json.dumps({"megatron": {"ref": "refs/pull/202/head"}})
        base_env = {key: value for key, value in os.environ.items()
                    if not key.startswith(("GITHUB_", "RUNNER_", "PYTHON", "VIRTUAL_ENV"))}
        # python3 on PATH is the interpreter itself, as on a runner (no pyenv shim in between).
        python_bin = root / "python-bin"
        python_bin.mkdir()
        (python_bin / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
        base_env["PATH"] = f"{python_bin}{os.pathsep}{base_env.get('PATH', os.defpath)}"
        base_env.update({"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
                         "GITHUB_API_URL": github.url, "GITHUB_ACTIONS": "true"})
        uses = {
            "(i) resolve, no token": {"command": "resolve", "github_token": ""},
            "(ii) resolve, with a token": {"command": "resolve", "github_token": "t0ken"},
            "(iii) install with overrides": {
                "command": "install", "github_token": "", "overrides": overrides,
                "install_dir": ""},
            "(iv) install with overrides, with pip install -e": {
                "command": "install", "github_token": "", "overrides": overrides,
                "install_dir": "."},
        }
        approaches = {"current": current_steps(), "previous": PREVIOUS_STEPS}
        for index in range(arguments.runs):
            for name, inputs in uses.items():
                for approach, steps in approaches.items():  # interleaved
                    work = root / f"{approach}-{index}-{len(samples.get(name, {}))}-{name[:4]}"
                    step_inputs = {key: value for key, value in inputs.items()
                                   if key != "install_dir"}
                    if inputs["command"] == "install":  # a fresh clone state for each use
                        copy = sandbox.copy(box, work.with_name(work.name + "-box"))
                        config = copy.config.read_text().replace(
                            "[dependencies.megatron]\n",
                            f'[dependencies.megatron]\ninstall-dir = "{inputs["install_dir"]}"\n')
                        copy.config.write_text(config)
                        step_inputs.update(config=str(copy.config), python=copy.python,
                                           workspace=str(copy.workspace))
                    seconds = use(steps, {"config": "", **step_inputs}, base_env, work)
                    samples.setdefault(name, {}).setdefault(approach, []).append(seconds)
    results = {
        name: {"current_s": round(statistics.median(by["current"]), 3),
               "previous_s": round(statistics.median(by["previous"]), 3),
               "ratio": round(statistics.median(by["current"])
                              / statistics.median(by["previous"]), 3)}
        for name, by in samples.items()}
    if arguments.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"first use in a fresh job (fresh RUNNER_TEMP, empty pip cache); median of "
          f"{arguments.runs} runs, interleaved; Python {sys.version.split()[0]}")
    print("| use | current | previous | current / previous |")
    print("|---|---|---|---|")
    for name, row in results.items():
        print(f"| {name} | {row['current_s']:.2f} s | {row['previous_s']:.2f} s | "
              f"{row['ratio']}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
