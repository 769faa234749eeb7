"""Reusing a compiled extension whose inputs did not change (`compile-inputs`): a tiny real C
extension package, built as an image build builds it, then installed at later commits with a
compiler wrapper that records every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rocm_deps.demo.sandbox import Sandbox
from rocm_deps.install.record import BUILD_NAME
from tests.conftest import Cli, CliResult, git
from tests.repos import commit, make_repo

SETUP = """\
from setuptools import Extension, setup
setup(ext_modules=[Extension("tinyext._speed", ["tinyext/speed.c"], optional=True)])
"""
PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "tinyext"
version = "{version}"

[tool.setuptools]
packages = ["tinyext"]
"""
SPEED = """\
#include <Python.h>
static PyObject *value(PyObject *self, PyObject *args) {{ return PyLong_FromLong({value}); }}
static PyMethodDef methods[] = {{{{"value", value, METH_NOARGS, ""}}, {{NULL, NULL, 0, NULL}}}};
static struct PyModuleDef module = {{PyModuleDef_HEAD_INIT, "_speed", NULL, -1, methods}};
PyMODINIT_FUNC PyInit__speed(void) {{ return PyModule_Create(&module); }}
"""
# Records each compiler call, then compiles with the real one.
WRAPPER = """\
#!/bin/sh
echo "$@" >> {log}
exec {compiler} "$@"
"""


def files(version: str = "0.1", value: int = 1, greeting: str = "hello",
          requires: str = '["setuptools"]') -> dict[str, str]:
    return {"setup.py": SETUP,
            "pyproject.toml": PYPROJECT.format(version=version).replace(
                'requires = ["setuptools"]', f"requires = {requires}"),
            "tinyext/__init__.py": f"GREETING = {greeting!r}\n",
            "tinyext/speed.c": SPEED.format(value=value),
            ".gitignore": "*.so\nbuild/\n*.egg-info/\n"}


@pytest.fixture(scope="session")
def setuptools_directory(tmp_path_factory: pytest.TempPathFactory, pip_cache: Path) -> Path:
    """setuptools, installed once for the session (the sandbox's build requirements lack it:
    its packages need no compiler)."""
    directory = tmp_path_factory.mktemp("setuptools")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-deps", "--target", str(directory), "setuptools>=70"], check=True,
                   env={**os.environ, "PIP_CACHE_DIR": str(pip_cache)})
    return directory


@pytest.fixture
def tiny(box: Sandbox, tmp_path: Path, setuptools_directory: Path) -> dict[str, Any]:
    """An origin with the image's commit and later ones (each a branch): one that changes only
    Python and the package's version, one the C source, one the build requirements. The image's
    clone at the first, installed as an image build installs it (compiled in place)."""
    origin = tmp_path / "tinyext-origin"
    image = make_repo(origin, files(), "the image's commit")
    shas = {"image": image}
    for name, changed in (("python-only", files(version="0.2", greeting="hi")),
                          ("c-source", files(value=2)),
                          ("build-system", files(requires='["setuptools", "wheel"]'))):
        git(origin, "checkout", "-q", "-b", name, "main")
        shas[name] = commit(origin, changed, name)
    git(origin, "checkout", "-q", "main")
    clone = tmp_path / "tinyext"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    site = subprocess.run([box.python, "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True).stdout
    (Path(site.strip()) / "tiny_setuptools.pth").write_text(f"{setuptools_directory}\n")
    subprocess.run([box.python, "-m", "pip", "install", "-q", "-e", str(clone), "--no-deps",
                    "--no-build-isolation"], check=True, cwd=clone,
                   env={**os.environ, "PIP_NO_INDEX": "1"})
    log = tmp_path / "compiler.log"
    wrapper = tmp_path / "cc"
    wrapper.write_text(WRAPPER.format(log=log, compiler="gcc"))
    wrapper.chmod(0o755)
    box.config.write_text(box.config.read_text() + (
        f"\n[dependencies.tinyext]\nrepository = \"example/tinyext\"\n"
        f"path = {json.dumps(str(clone))}\ninstall-dir = \".\"\n"
        f"compile-inputs = [\"tinyext/speed.c\", \"setup.py\", "
        f"\"pyproject.toml [build-system]\"]\n"))
    return {"clone": clone, "log": log, "wrapper": str(wrapper),
            "setuptools": setuptools_directory, **shas}


def install(cli: Cli, box: Sandbox, tiny: dict[str, Any], sha: str) -> CliResult:
    document = json.dumps({"tinyext": {"ref": sha, "sha": sha, "kind": "commit",
                                       "source": "dispatch", "raw": sha}})
    return cli("install", "--config", str(box.config), "--overrides", document, "--workspace",
               str(box.workspace), "--python", box.python, "--workspace-install", "false",
               env={"CC": tiny["wrapper"], "CXX": tiny["wrapper"], "PIP_NO_INDEX": "1"})


def report_of(result: CliResult) -> dict[str, Any]:
    assert result.code == 0, result.stderr
    entry: dict[str, Any] = json.loads(result.outputs["report"])["dependencies"]["tinyext"]
    return entry


def compiled(tiny: dict[str, Any]) -> list[str]:
    """The compiler calls since the last look."""
    log: Path = tiny["log"]
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return calls


def loaded(box: Sandbox) -> str:
    found = subprocess.run([box.python, "-I", "-c", "import tinyext, tinyext._speed as s; "
                            "print(tinyext.GREETING, s.value())"],
                           capture_output=True, text=True)
    return found.stdout.strip() or found.stderr.strip().splitlines()[-1]


def test_unchanged_inputs_reuse_the_extension_and_pip_still_refreshes_the_rest(
        cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["compiled"] == f"reused (inputs unchanged since {tiny['image']})"
    assert compiled(tiny) == []  # no compiler ran
    assert loaded(box) == "hi 1"  # the new Python code, the image's extension
    assert entry["version"] == "0.2"  # pip ran: the metadata is the new commit's


@pytest.mark.parametrize(("commit_name", "why", "value"), [
    ("c-source", "tinyext/speed.c changed since", "2"),
    ("build-system", "pyproject.toml [build-system] changed since", "1"),
], ids=["a-changed-c-file", "a-changed-build-system"])
def test_a_changed_input_compiles_the_extension(cli: Cli, box: Sandbox, tiny: dict[str, Any],
                                                commit_name: str, why: str,
                                                value: str) -> None:
    entry = report_of(install(cli, box, tiny, tiny[commit_name]))
    assert entry["compiled"].startswith(f"built ({why} {tiny['image'][:12]}")
    assert len(compiled(tiny)) >= 1  # the compiler ran (compile, then link)
    assert loaded(box).endswith(f" {value}")


def test_a_missing_extension_file_compiles_it(cli: Cli, box: Sandbox,
                                              tiny: dict[str, Any]) -> None:
    assert report_of(install(cli, box, tiny, tiny["c-source"]))["compiled"].startswith("built")
    for built in tiny["clone"].rglob("*.so"):
        built.unlink()
    compiled(tiny)
    entry = report_of(install(cli, box, tiny, tiny["c-source"]))
    assert entry["compiled"].startswith("built (no compiled file for this interpreter")
    assert compiled(tiny) != []
    assert loaded(box) == "hello 2"


def test_an_image_clone_without_its_extension_compiles_it(cli: Cli, box: Sandbox,
                                                          tiny: dict[str, Any]) -> None:
    for built in tiny["clone"].rglob("*.so"):
        built.unlink()
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["compiled"] == "built (no earlier build of this interpreter is known)"
    assert compiled(tiny) != []
    assert loaded(box) == "hi 1"


def test_another_interpreter_compiles_it(cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    """The build the clone's fingerprint knows is another environment's: not this one's."""
    assert report_of(install(cli, box, tiny, tiny["python-only"]))["compiled"].startswith(
        "reused")
    build_file = tiny["clone"] / ".git" / BUILD_NAME
    document = json.loads(build_file.read_text())
    [entry] = document.values()  # the one environment the clone's builds are known for
    build_file.write_text(json.dumps({"/elsewhere/venv\n3.12.1": entry}))
    entry = report_of(install(cli, box, tiny, tiny["c-source"]))
    assert entry["compiled"] == "built (no earlier build of this interpreter is known)"
    assert compiled(tiny) != []


def test_a_reused_extension_that_does_not_load_is_rebuilt_once_from_scratch(
        cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    [built] = list(tiny["clone"].rglob("*.so"))
    built.write_bytes(b"not an ELF file")
    result = install(cli, box, tiny, tiny["python-only"])
    entry = report_of(result)
    assert entry["compiled"] == (f"built (the reused extension did not work: rebuilt from "
                                 f"scratch; reused (inputs unchanged since {tiny['image']}))")
    assert "the reused extension did not work" in result.stderr
    assert compiled(tiny) != []
    assert loaded(box) == "hi 1"


def test_the_build_of_the_last_install_is_what_is_compared_not_the_images(
        cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    """image → the C change (compiled: value 2) → back to an image-like C source: the clone's
    extension is the C change's build now, so going back compiles again."""
    assert report_of(install(cli, box, tiny, tiny["c-source"]))["compiled"].startswith("built")
    assert loaded(box) == "hello 2"
    compiled(tiny)
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["compiled"].startswith(
        f"built (tinyext/speed.c changed since {tiny['c-source'][:12]}")
    assert compiled(tiny) != []
    assert loaded(box) == "hi 1"


# What a patch of the C source looks like as each tool writes it: git with
# diff.mnemonicPrefix (`c/`, `w/`), and `diff -ruN old new` (directories and timestamps).
PATCH_HEADERS = {"mnemonic-prefix": ("--- c/tinyext/speed.c", "+++ w/tinyext/speed.c"),
                 "diff-ruN": ("--- old/tinyext/speed.c\t2026-12-01 10:00:00.000000000 +0000",
                              "+++ new/tinyext/speed.c\t2026-12-02 10:00:00.000000000 +0000")}


def c_patch(box: Sandbox, tiny: dict[str, Any], headers: tuple[str, str]) -> str:
    """A workspace patch that makes the extension return 3, configured for tinyext."""
    old, new = SPEED.format(value=1), SPEED.format(value=3)
    lines_old, lines_new = old.splitlines(), new.splitlines()
    hunk = [f"@@ -1,{len(lines_old)} +1,{len(lines_new)} @@"]
    hunk += [(" " if a == b else f"-{a}\n+") + b for a, b in zip(lines_old, lines_new,
                                                                  strict=True)]
    patch = box.workspace / "speed.patch"
    patch.write_text("\n".join([*headers, *hunk]) + "\n")
    config = box.config.read_text()
    box.config.write_text(config.replace('install-dir = "."\n',
                                         'install-dir = "."\npatches = ["speed.patch"]\n', 1))
    return "speed.patch"


@pytest.mark.parametrize("style", list(PATCH_HEADERS), ids=list(PATCH_HEADERS))
def test_a_patch_of_an_input_compiles_it_whatever_its_prefix(
        cli: Cli, box: Sandbox, tiny: dict[str, Any], style: str) -> None:
    label = c_patch(box, tiny, PATCH_HEADERS[style])
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["patches"][label]["state"] == "applied"
    assert entry["compiled"] == (f"built (tinyext/speed.c changed since {tiny['image'][:12]}; "
                                 f"the patch {label} changes it)")
    assert compiled(tiny) != []
    assert loaded(box) == "hi 3"


def test_a_build_of_a_patched_input_is_not_reused_once_the_patch_is_dropped(
        cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    unpatched = box.config.read_text()
    c_patch(box, tiny, PATCH_HEADERS["mnemonic-prefix"])
    assert report_of(install(cli, box, tiny, tiny["python-only"]))["compiled"].startswith(
        "built")
    assert loaded(box) == "hi 3"
    box.config.write_text(unpatched)
    compiled(tiny)
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["compiled"].startswith(
        f"built (tinyext/speed.c changed since {tiny['python-only'][:12]}")
    assert loaded(box) == "hi 1"


def test_an_extension_another_build_replaced_is_not_reused(
        cli: Cli, box: Sandbox, tiny: dict[str, Any], tmp_path: Path) -> None:
    """An earlier job of the suite rebuilt the extension from its own code (666) and put the
    source back: the clone is clean, the file is not the build the tool recorded."""
    assert report_of(install(cli, box, tiny, tiny["python-only"]))["compiled"].startswith(
        "reused")
    clone: Path = tiny["clone"]
    source = clone / "tinyext" / "speed.c"
    original = source.read_text()
    source.write_text(SPEED.format(value=666))
    subprocess.run([box.python, "setup.py", "-q", "build_ext", "--inplace"], cwd=clone,
                   check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(tiny["setuptools"])})
    source.write_text(original)
    assert loaded(box) == "hi 666"
    entry = report_of(install(cli, box, tiny, tiny["image"]))
    assert entry["compiled"].startswith("built (") and "tinyext/_speed." in entry["compiled"]
    assert f"is not what the build at {tiny['python-only'][:12]} left" in entry["compiled"]
    assert loaded(box) == "hello 1"


def test_the_same_commit_again_is_not_up_to_date_with_a_replaced_extension(
        cli: Cli, box: Sandbox, tiny: dict[str, Any]) -> None:
    assert report_of(install(cli, box, tiny, tiny["python-only"]))["state"] == "installed"
    assert report_of(install(cli, box, tiny, tiny["python-only"]))["state"] == "up-to-date"
    [built] = list(tiny["clone"].rglob("*.so"))
    built.write_bytes(built.read_bytes() + b"\0")  # still loads; not the recorded build
    entry = report_of(install(cli, box, tiny, tiny["python-only"]))
    assert entry["state"] == "installed"
    assert "is not what the build at" in entry["compiled"]
