"""Reuse the extensions an earlier build compiled, when what they are compiled from did not change
(the `pip` step of `STEPS`; config `compile-inputs`).

`pip install -e` of Megatron-LM recompiles `helpers_cpp` every time: setuptools' editable build
works in new temporary directories, so nothing it built before is found there. What it leaves
is the extension file in the clone (`megatron/core/datasets/helpers_cpp<EXT_SUFFIX>`, ignored by
git, kept by `reset --hard` and `checkout`). **A build fingerprint** (`record.Build`, per
interpreter environment) says what that file was built from: each `compile-inputs` file as it
was on disk when it was built (patches applied; `[build-system]` as a table), and the file's
own hash as the build left it. It is written when install builds the extension, and when it
first meets an untouched image clone (the image built it from the tree it left). The file is
reused only when the inputs on disk now (after checkout and patches) are the recorded ones
**and** every extension file still has its recorded hash (a build by anything else is not
trusted): pip runs as always (metadata, packages, versions stay fresh) with the compilers
disabled, and setuptools keeps the optional extension. Content is compared, never timestamps.
After pip, each extension file must load in the interpreter; on any failure the install is
redone once with the compilers. The report's `compiled` says why.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from rocm_deps import process
from rocm_deps.files import toml_parser
from rocm_deps.install.git import GitError
from rocm_deps.install.job import Context, Job, first_names
from rocm_deps.install.record import Build, sha256_of

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
    """Whether pip may reuse the clone's extension files, and why (the report's words); the
    inputs as they are on disk now, for the fingerprint written after the install."""

    reuse: bool
    why: str
    files: tuple[Path, ...] = ()
    inputs: dict[str, str] = field(default_factory=dict)


def plan(context: Context, job: Job) -> Plan | None:
    """None when the dependency has no `compile-inputs` (pip compiles as it always does)."""
    dependency, report = job.dependency, job.report
    if not dependency.compile_inputs or context.dry_run or report.commit is None:
        return None
    inputs = inputs_now(job)
    build = job.build_file.load(context.environment()) if job.build_file else None
    if build is None:
        return Plan(False, "built (no earlier build of this interpreter is known)",
                    inputs=inputs)
    suffix, files = extension_files(context, job)
    if not files:
        return Plan(False, f"built (no compiled file for this interpreter, `*{suffix}`)",
                    inputs=inputs)
    on_disk = file_hashes(job, files)
    replaced = sorted(name for name in {*on_disk, *build.files}
                      if on_disk.get(name) != build.files.get(name))
    if replaced:
        return Plan(False, f"built ({first_names(replaced)} is not what the build at "
                           f"{build.commit[:12]} left: something else built or replaced it)",
                    inputs=inputs)
    changed = sorted(name for name in {*inputs, *build.inputs}
                     if inputs.get(name) != build.inputs.get(name))
    if changed:
        patched = [patch.label for patch in job.patches if _touches(job, patch.path, changed)]
        why = f"{first_names(changed)} changed since {build.commit[:12]}" + (
            f"; the patch {', '.join(patched)} changes it" if patched else "")
        return Plan(False, f"built ({why})", inputs=inputs)
    return Plan(True, f"reused (inputs unchanged since {build.commit})", files, inputs)


def inputs_now(job: Job) -> dict[str, str]:
    """Each `compile-inputs` file as it is on disk (path -> sha256; `""` when absent: a file
    the commit or a patch deleted, or a configured path that names nothing), and the
    `[build-system]` table when it is an input."""
    git, entries = job.git, job.dependency.compile_inputs
    paths = [entry for entry in entries if entry != BUILD_SYSTEM]
    listed = git.check("ls-files", "--cached", "--others", "--exclude-standard", "-z", "--",
                       *paths, echo=False).split("\0") if paths else []
    found = {name: (sha256_of(git.path / name) if (git.path / name).is_file() else "")
             for name in sorted(set(listed) - {""})}
    for path in paths:
        prefix = path.rstrip("/") + "/"
        if not any(name == path or name.startswith(prefix) for name in found):
            found[path] = ""
    if BUILD_SYSTEM in entries:
        table = json.dumps(_build_system(git.path / "pyproject.toml"), sort_keys=True,
                           default=str)
        found[BUILD_SYSTEM] = hashlib.sha256(table.encode()).hexdigest()
    return found


def file_hashes(job: Job, files: tuple[Path, ...]) -> dict[str, str]:
    return {str(path.relative_to(job.git.path)): sha256_of(path) for path in files}


def record_build(context: Context, job: Job, inputs: dict[str, str]) -> None:
    """After a build (or a reuse) that loads: what the extension files are now, and what
    they were built from."""
    if job.build_file is None or job.report.commit is None:
        return
    files = extension_files(context, job)[1]
    job.build_file.save(context.environment(), Build(job.report.commit, inputs,
                                                      file_hashes(job, files)))


def capture_image_build(context: Context, job: Job, head: str) -> None:
    """First meeting an untouched image clone: its extension files are the image's build
    of the tree it left, which is trusted as that build."""
    if not job.dependency.compile_inputs or job.build_file is None or context.dry_run:
        return
    files = extension_files(context, job)[1]
    if files:
        job.build_file.save(context.environment(), Build(head, inputs_now(job),
                                                          file_hashes(job, files)))


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


def _build_system(pyproject: Path) -> object:
    try:
        return toml_parser().loads(pyproject.read_text(encoding="utf-8")).get("build-system")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError):
        return "(unreadable)"


def _touches(job: Job, patch: Path, paths: list[str]) -> bool:
    """Whether the patch changes one of `paths`, as git reads the patch."""
    try:
        touched = job.git.patch_paths(patch).touched
    except GitError:
        return False
    return any(name == path or name.startswith(path.rstrip("/") + "/")
               for name in touched for path in paths)


def _ask(context: Context, probe: str) -> str:
    if probe in context.answers:
        return context.answers[probe]
    result = process.run((context.settings.python, "-I", "-c", probe), context.runner,
                         env=context.pip_env(None), echo=False)
    answer = result.stdout.strip() if result.ok else ""
    if result.ok:
        context.answers[probe] = answer
    return answer
