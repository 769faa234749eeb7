"""How pip is called, and the check of what the interpreter imports afterwards, against the
sandbox's real target virtualenv."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_deps.demo.sandbox import Sandbox
from rocm_deps.install.pip import (
    DISTRIBUTIONS,
    build_requirements_probe_argv,
    editable_probe_argv,
    install_argv,
)
from tests.conftest import MEGATRON_BAKED, generated_examples


def test_the_one_install_command_editable_and_reinstalling() -> None:
    assert install_argv("/usr/bin/python3", "/w/python", ["--no-build-isolation"],
                        editable=True) == ["/usr/bin/python3", "-I", "-m", "pip", "install",
                                           "-e", "/w/python", "--no-deps",
                                           "--no-build-isolation"]
    # A git package: reinstalled whatever its version, and only it.
    assert install_argv("/usr/bin/python3", "git+https://x/y.git@" + "a" * 40, [],
                        reinstall=True) == ["/usr/bin/python3", "-I", "-m", "pip", "install",
                                            "git+https://x/y.git@" + "a" * 40, "--no-deps",
                                            "--force-reinstall"]



def probe(box: Sandbox, directory: Path) -> str:
    return subprocess.run(editable_probe_argv(box.python, directory), capture_output=True,
                          text=True, check=True).stdout.strip()


def test_the_probe_names_what_is_installed_editable_from_a_directory(box: Sandbox) -> None:
    # Its name, its version, and where `import` finds each of its top-level modules.
    megatron = box.baked["megatron"]
    assert probe(box, megatron) == (f'["megatron-core", "{MEGATRON_BAKED}", {{"megatron": '
                                    f'"{megatron / "megatron" / "__init__.py"}"}}]')
    # Two commits after v0.2.0's change log entries: the version setuptools-scm computed.
    baked = box.commits["sglang"]["baked"][:9]
    assert probe(box, box.baked["sglang"] / "python").startswith(
        f'["sglang", "0.2.1.dev3+g{baked}')
    assert probe(box, box.baked["sglang"]) == ""  # the checkout, not its install-dir
    assert probe(box, box.workspace) == ""


def finder() -> dict[str, Any]:
    """The probes' own distribution finder, run in this process (on its sys.path)."""
    namespace: dict[str, Any] = {}
    exec(DISTRIBUTIONS, namespace)  # noqa: S102 - the text every probe starts with
    return namespace


def found_by_metadata(name: str) -> tuple[str, str] | None:
    try:
        metadata = importlib.metadata.metadata(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    return metadata.get("Name"), metadata.get("Version")


def found_by_probe(probe: dict[str, Any], name: str) -> tuple[str, str] | None:
    info = probe["first"](name)
    if info is None:
        return None
    found = probe["metadata"](info)
    return found.get("name"), found.get("version")


def test_the_probes_find_each_installed_distribution_as_importlib_metadata_does() -> None:
    # The test interpreter's whole environment, each name also as people spell it.
    probe = finder()
    names = sorted({str(found.metadata["Name"]) for found in importlib.metadata.distributions()})
    assert "pytest" in names and "hypothesis" in names
    for name in names:
        for asked in (name, name.upper(), name.replace("-", "_"), name.replace("_", ".")):
            assert found_by_probe(probe, asked) == found_by_metadata(asked), asked
    assert found_by_probe(probe, "rocm-deps-no-such-distribution") is None


NAMES = st.text("aB1-_.", min_size=1, max_size=4).filter(lambda name: name[0].isalnum())
ENTRY = st.tuples(st.integers(0, 1), st.sampled_from(["dist-info", "egg-info", "egg-file",
                                                      "pkg-info-only", "no-metadata"]),
                  NAMES, st.sampled_from(["1.0", "2.0.dev3+g1234567", ""]))


@settings(max_examples=generated_examples(60), deadline=None)
@given(entries=st.lists(ENTRY, max_size=6), asked=st.lists(NAMES, min_size=1, max_size=4))
def test_the_probes_choose_among_directories_spellings_and_kinds_as_importlib_does(
        entries: list[tuple[int, str, str, str]], asked: list[str]) -> None:
    # Two sys.path directories; metadata in METADATA, PKG-INFO, an `.egg-info` file or none;
    # names that normalise alike; every entry's Name says which one was found.
    probe = finder()
    with tempfile.TemporaryDirectory() as scratch:
        roots = [Path(scratch) / "first", Path(scratch) / "second"]
        for root in roots:
            root.mkdir()
        for index, (where, kind, name, version) in enumerate(entries):
            text = f"Metadata-Version: 2.1\nName: d{index}\nVersion: {version}\n\nBody: no\n"
            stem = f"{name}-{version or '0'}"
            if kind == "egg-file":
                (roots[where] / f"{stem}.egg-info").write_text(text)
                continue
            info = roots[where] / f"{stem}.{'egg-info' if kind == 'egg-info' else 'dist-info'}"
            if info.exists():
                continue
            info.mkdir()
            if kind != "no-metadata":
                (info / ("METADATA" if kind == "dist-info" else "PKG-INFO")).write_text(text)
        saved = sys.path[:]
        sys.path[:] = [str(root) for root in roots]
        try:
            spelled = [spelling for _, _, name, _ in entries for spelling in (
                name, name.upper(), name.replace("_", "__").replace(".", "-.").replace("-", "_-"))]
            for name in [*asked, *spelled]:
                assert found_by_probe(probe, name) == found_by_metadata(name), name
        finally:
            sys.path[:] = saved


@pytest.mark.parametrize(("requirements", "missing"), [
    # Absent and unconditional: missing whatever else is asked (packaging is not consulted).
    (["rocm-deps-absent>=1", "pytest"], ["rocm-deps-absent>=1"]),
    (["  Rocm_Deps.Absent[extra] >= 1"], ["  Rocm_Deps.Absent[extra] >= 1"]),
    # Absent, but its marker rules it out on every Python 3.
    (["rocm-deps-absent; python_version < '3'", "pytest"], []),
    (["rocm-deps-absent; python_version >= '3'"], ["rocm-deps-absent; python_version >= '3'"]),
    (["pytest>=9999"], [f"pytest>=9999 ({importlib.metadata.version('pytest')} installed)"]),
    (["PyTest>=1"], []),
    (["pytest>=>1"], ["pytest>=>1 (not a requirement pip reads)"]),
], ids=["absent", "spelled", "marker-false", "marker-true", "too-old", "has-it", "unreadable"])
def test_the_build_requirements_probe_names_what_the_interpreter_lacks(
        requirements: list[str], missing: list[str]) -> None:
    result = subprocess.run(build_requirements_probe_argv(sys.executable), capture_output=True,
                            text=True, check=True, input=json.dumps(requirements))
    assert json.loads(result.stdout) == missing

