"""Reuse the extensions an earlier build compiled, when what they are compiled from did not change
(the `pip` step of `STEPS`; config `compile-inputs`).

`pip install -e` of Megatron-LM recompiles `helpers_cpp` every time: setuptools' editable build
works in new temporary directories, so nothing it built before is found there. What it leaves
is the extension file in the clone (`megatron/core/datasets/helpers_cpp<EXT_SUFFIX>`, ignored by
git, kept by `reset --hard` and `checkout`). When the commit X whose build left that file for
this interpreter and the target commit have the same `compile-inputs` (`git diff` of the files,
`[build-system]` compared as a table: content, never timestamps), pip runs as always (metadata,
packages, versions stay fresh) with the compilers disabled: setuptools skips an optional
extension it cannot compile and keeps the file. After pip, each extension file must load in the
interpreter; on any failure the install is redone once with the compilers.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import process
from rocm_deps.files import toml_parser
from rocm_deps.install.git import GitError
from rocm_deps.install.job import Context, Job, first_names

BUILD_SYSTEM = "pyproject.toml [build-system]"  # the table, compared as a table
# Asked of the interpreter under test: its extension suffix (`.cpython-310-x86_64-linux-gnu.so`).
SUFFIX_PROBE = "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX') or '')"
# Asked of the interpreter under test: each extension file loads (JSON list of paths on stdin);
# prints the failures, as JSON.
LOAD_PROBE = """\
import importlib.util, json, sys
failed = {}
for path in json.loads(sys.stdin.read()):
    name = path.rsplit("/", 1)[-1].split(".", 1)[0]
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    except Exception as error:
        failed[path] = type(error).__name__ + ": " + str(error)[:200]
print(json.dumps(failed))
"""


@dataclass(frozen=True)
class Plan:
    """Whether pip may reuse the clone's extension files, and why (the report's words)."""

    reuse: bool
    why: str
    files: tuple[Path, ...] = ()


def plan(context: Context, job: Job) -> Plan | None:
    """None when the dependency has no `compile-inputs` (pip compiles as it always does)."""
    dependency, report, git = job.dependency, job.report, job.git
    if not dependency.compile_inputs or context.dry_run or report.commit is None:
        return None
    target = report.commit
    built_at = _built_at(context, job)
    if built_at is None:
        return Plan(False, "built (no earlier build of this interpreter is known)")
    suffix, files = extension_files(context, job)
    if not files:
        return Plan(False, f"built (no compiled file for this interpreter, `*{suffix}`)")
    paths = [entry for entry in dependency.compile_inputs if entry != BUILD_SYSTEM]
    try:
        changed = git.changed_files(built_at, target, paths) if paths else []
    except GitError as error:
        return Plan(False, f"built (cannot compare with {built_at[:12]}: {error.message[:200]})")
    if BUILD_SYSTEM in dependency.compile_inputs and (
            _build_system(job, built_at) != _build_system(job, target)):
        changed = [*changed, BUILD_SYSTEM]
    patched = [patch.label for patch in job.patches if _touches(patch.path, paths)]
    if changed or patched:
        why = "; ".join(filter(None, (
            f"{first_names(changed)} changed since {built_at[:12]}" if changed else "",
            f"the patch {', '.join(patched)} changes an input" if patched else "")))
        return Plan(False, f"built ({why})")
    return Plan(True, f"reused (inputs unchanged since {built_at})", files)


def extension_files(context: Context, job: Job) -> tuple[str, tuple[Path, ...]]:
    """The interpreter's extension suffix, and the clone's files with it that git does not
    track (what a build compiled into the source tree)."""
    suffix = _ask(context, SUFFIX_PROBE)
    if not suffix:
        return "", ()
    listing = job.git.check("ls-files", "--others", "--ignored", "--exclude-standard", "-z",
                            "--", f"*{suffix}", echo=False)
    return suffix, tuple(sorted(job.git.path / name for name in listing.split("\0") if name))


def disabled_compilers() -> dict[str, str]:
    """The environment that makes setuptools' compile of an extension fail at once."""
    never = shutil.which("false") or "/bin/false"
    return {"CC": never, "CXX": never}


def failed_to_load(context: Context, files: tuple[Path, ...]) -> dict[str, str]:
    """Each extension file that does not load in the interpreter under test, and why."""
    result = process.run((context.settings.python, "-I", "-c", LOAD_PROBE), context.runner,
                         env=context.pip_env(None), echo=False,
                         stdin=json.dumps([str(path) for path in files]))
    try:
        failed = json.loads(result.stdout.strip() or "null")
    except ValueError:
        failed = None
    if not isinstance(failed, dict):
        return {str(path): f"the interpreter could not say (exit code {result.returncode})"
                for path in files}
    return {str(path): str(why) for path, why in failed.items()}


def remove(files: tuple[Path, ...]) -> None:
    """The reused files, before the rebuild from scratch: setuptools then compiles anew."""
    for path in files:
        path.unlink(missing_ok=True)


def _built_at(context: Context, job: Job) -> str | None:
    """X: the commit whose build left the clone's extension files for this interpreter: the
    last install this tool recorded into this environment; on a clone the tool never touched,
    the image's commit, which the image built. None when neither is known (an earlier run
    stopped between its clean and its record: what it compiled is unknown)."""
    record = job.previous
    if record is not None:
        same = record.request.get("python") == context.environment()
        return record.commit if same and record.commit else None
    return job.image.commit if job.untouched and job.image is not None else None


def _build_system(job: Job, commit: str) -> object:
    shown = job.git.run("show", f"{commit}:pyproject.toml", echo=False)
    if not shown.ok:
        return None
    try:
        return toml_parser().loads(shown.stdout).get("build-system")
    except ValueError:
        return "(unreadable)"


def _touches(patch: Path, paths: list[str]) -> bool:
    """Whether the patch file changes one of the input paths (its `+++ b/<path>` headers)."""
    try:
        text = patch.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    changed = {line[6:].strip() for line in text.splitlines() if line.startswith("+++ b/")}
    return any(name == path or name.startswith(path.rstrip("/") + "/")
               for name in changed for path in paths)


def _ask(context: Context, probe: str) -> str:
    result = process.run((context.settings.python, "-I", "-c", probe), context.runner,
                         env=context.pip_env(None), echo=False)
    return result.stdout.strip() if result.ok else ""
