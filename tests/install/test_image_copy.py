"""A dependency nothing names is at the image's copy, or the install makes it so: on a
persistent machine (or a job that installs twice) an earlier run's install must not pass for
the image's."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import (
    MEGATRON_BAKED,
    MEGATRON_PR,
    Cli,
    CliResult,
    git,
    installed_version,
    overrides,
    snapshot,
)


def install(cli: Cli, box: Sandbox, document: str) -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", document,
               "--workspace", str(box.workspace), "--python", box.python,
               "--workspace-install", "false")


def states(result: CliResult) -> dict[str, str]:
    report = json.loads(result.outputs["report"])
    return {name: entry["state"] for name, entry in report["dependencies"].items()}


def imported_file(box: Sandbox, module: str) -> str:
    import subprocess

    return subprocess.run([box.python, "-I", "-c", f"import {module}; print({module}.__file__)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_run_that_names_nothing_returns_an_earlier_runs_install_to_the_image(
        cli: Cli, box: Sandbox) -> None:
    megatron = box.baked["megatron"]
    image = snapshot(megatron)
    sglang = snapshot(box.baked["sglang"])
    first = install(cli, box, overrides(megatron="refs/pull/202/head"))
    assert first.code == 0, first.stderr
    assert installed_version(box, "megatron-core") == MEGATRON_PR
    assert states(first) == {"sglang": "image", "megatron": "installed",
                             "megatron-bridge": "absent"}
    # The next run on the same machine names nothing.
    second = install(cli, box, "{}")
    assert second.code == 0, second.stderr
    assert states(second) == {"sglang": "image", "megatron": "restored",
                             "megatron-bridge": "absent"}
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED
    assert git(megatron, "rev-parse", "HEAD") == image["head"]
    assert snapshot(megatron)["files"] == image["files"]  # the image's own edits are back
    assert snapshot(box.baked["sglang"]) == sglang  # never touched
    assert imported_file(box, "megatron").startswith(str(megatron))
    assert ("::warning title=rocm-deps%3A megatron restored::megatron: not named, but an "
            "earlier run had installed another commit") in second.stderr
    assert second.outputs["megatron_sha"] == "" and json.loads(second.outputs["patches"]) == {}
    # And a third finds the image's copy as the second left it: no fetch, no pip.
    third = install(cli, box, "{}")
    assert third.code == 0, third.stderr
    assert states(third) == {"sglang": "image", "megatron": "image",
                             "megatron-bridge": "absent"}
    assert not [line for line in third.stderr.splitlines()
                if line.startswith(("+ git", "+ " + box.python))
                and (" fetch " in line or " pip " in line)]


def test_naming_one_dependency_returns_the_other_to_the_image(cli: Cli, box: Sandbox) -> None:
    assert install(cli, box, overrides(megatron="refs/pull/202/head")).code == 0
    result = install(cli, box, overrides(sglang="main"))
    assert result.code == 0, result.stderr
    assert states(result) == {"sglang": "installed", "megatron": "restored",
                             "megatron-bridge": "absent"}
    assert installed_version(box, "megatron-core") == MEGATRON_BAKED


def test_a_restore_that_fails_fails_the_step(cli: Cli, box: Sandbox) -> None:
    assert install(cli, box, overrides(megatron="refs/pull/202/head")).code == 0
    megatron: Path = box.baked["megatron"]
    image_commit = json.loads((megatron / ".git" / "rocm-deps-image.json").read_text())["commit"]
    # The image's commit is gone from the clone and from its origin: it cannot come back.
    git(megatron, "remote", "set-url", "origin", str(megatron.parent / "nowhere"))
    git(megatron, "reflog", "expire", "--expire=now", "--all")
    for ref in git(megatron, "for-each-ref", "--format=%(refname)",
                   "--contains", image_commit).splitlines():
        git(megatron, "update-ref", "-d", ref)
    git(megatron, "gc", "--prune=now", "--quiet")
    result = install(cli, box, "{}")
    assert result.code == 1
    assert states(result)["megatron"] == "failed"
    assert installed_version(box, "megatron-core") == MEGATRON_PR  # said, never called "image"
