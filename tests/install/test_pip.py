"""How pip is called, and the check of what the interpreter imports afterwards, against the
sandbox's real target virtualenv."""

from __future__ import annotations

import subprocess
from pathlib import Path

from rocm_deps.demo.sandbox import Sandbox
from rocm_deps.install.pip import editable_probe_argv, install_argv
from tests.conftest import MEGATRON_BAKED


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
