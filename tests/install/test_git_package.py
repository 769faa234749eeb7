"""A git package (Megatron-Bridge): no clone in the image, pip-installed from git. Against a
local origin of a tiny `megatron-bridge` package, with the package index unreachable."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli, CliResult, git
from tests.repos import commit, make_repo

# The package as Megatron-Bridge lays it out: src/megatron/bridge, its version in a module.
# Built by a tiny in-tree backend (the sandbox has no setuptools and no index to get it).
PYPROJECT = """\
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[project]
name = "megatron-bridge"
dynamic = ["version"]
"""
BACKEND = """\
import base64, hashlib, os, re, zipfile

def _version():
    text = open(os.path.join("src", "megatron", "bridge", "package_info.py")).read()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = "megatron_bridge-%s.dist-info" % version
    files = {}
    for root, _, names in os.walk("src"):
        for name in names:
            path = os.path.join(root, name)
            files[os.path.relpath(path, "src")] = open(path, "rb").read()
    python = re.search(r'requires-python = "([^"]+)"', open("pyproject.toml").read())
    files[info + "/METADATA"] = (
        "Metadata-Version: 2.1\\nName: megatron-bridge\\nVersion: %s\\n" % version
        + ("Requires-Python: %s\\n" % python.group(1) if python else "")).encode()
    files[info + "/WHEEL"] = b"Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    files[info + "/RECORD"] = ("\\n".join(record + [info + "/RECORD,,"]) + "\\n").encode()
    wheel = "megatron_bridge-%s-py3-none-any.whl" % version
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel
"""
OFFLINE = {"PIP_INDEX_URL": "http://127.0.0.1:1/simple", "PIP_NO_INDEX": "1"}


VERSION = "0.2.0rc0"  # the image's, and (as in nearly every real pull request) the PRs'


def bridge_files(version: str = VERSION, gpt: str = "LAYERS = 24\n") -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT, "backend.py": BACKEND,
            "src/megatron/__init__.py": "",
            "src/megatron/bridge/__init__.py": "from .package_info import __version__\n",
            "src/megatron/bridge/package_info.py": f'__version__ = "{version}"\n',
            "src/megatron/bridge/models/__init__.py": "",
            "src/megatron/bridge/models/gpt.py": gpt}


@pytest.fixture
def bridge(box: Sandbox, tmp_path: Path) -> dict[str, str]:
    """An origin shaped like Megatron-Bridge's history: main (the image's commit, installed
    as the image build installs it) and three pull requests on it, each as real ones are:
    #41 changes a module and keeps the version, #42 adds a module and keeps it, #43 bumps it
    (19 of 2,755 real commits do). The config names the origin as the built-in
    megatron-bridge's url."""
    origin = tmp_path / "Megatron-Bridge"
    image = make_repo(origin, bridge_files(), "the image's commit")
    heads = {}
    for number, files in ((41, {"src/megatron/bridge/models/gpt.py": "LAYERS = 48\n"}),
                          (42, {"src/megatron/bridge/models/qwen.py": "HEADS = 8\n"}),
                          (43, {"src/megatron/bridge/package_info.py":
                                '__version__ = "0.2.0rc1"\n'})):
        git(origin, "checkout", "-q", "-b", f"pr-{number}", "main")
        heads[number] = commit(origin, files, f"pull request {number}")
        git(origin, "update-ref", f"refs/pull/{number}/head", heads[number])
    head = heads[41]
    git(origin, "checkout", "-q", "main")
    subprocess.run([box.python, "-m", "pip", "install", "-q", "--no-deps",
                    "--no-build-isolation", f"git+{origin.as_uri()}@{image}"], check=True,
                   env={**os.environ, **OFFLINE})
    box.config.write_text(box.config.read_text() + f"\n[dependencies.megatron-bridge]\n"
                          f"url = {json.dumps(origin.as_uri())}\n")
    return {"image": image, "head": head, "url": origin.as_uri(),
            **{str(number): sha for number, sha in heads.items()}}


def install(cli: Cli, box: Sandbox, document: str) -> CliResult:
    return cli("install", "--config", str(box.config), "--overrides", document, "--workspace",
               str(box.workspace), "--python", box.python, "--workspace-install", "false",
               env=OFFLINE)


def recorded(box: Sandbox) -> tuple[str, str, str]:
    """(version, url, commit) as pip's own record of the interpreter has them."""
    script = ("import json; from importlib.metadata import distribution as d; "
              "x = d('megatron-bridge'); u = json.loads(x.read_text('direct_url.json')); "
              "print(json.dumps([x.version, u['url'], u['vcs_info']['commit_id']]))")
    out = subprocess.run([box.python, "-I", "-c", script], capture_output=True, text=True,
                         check=True).stdout
    version, url, commit_id = json.loads(out)
    return version, url, commit_id


def freeze(box: Sandbox) -> str:
    lines = subprocess.run([box.python, "-m", "pip", "freeze"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return next(line for line in lines if line.startswith("megatron-bridge"))


def report_of(result: CliResult) -> dict[str, Any]:
    """The install report's entry for megatron-bridge."""
    entry: dict[str, Any] = json.loads(result.outputs["report"])["dependencies"][
        "megatron-bridge"]
    return entry


def state(result: CliResult) -> str:
    return str(report_of(result)["state"])


PR = json.dumps({"megatron-bridge": {"ref": "refs/pull/41/head", "kind": "pr", "pr": 41,
                                     "source": "body", "raw": "#41"}})


def test_a_pull_request_is_installed_from_git_and_pips_record_names_its_commit(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    assert recorded(box)[2] == bridge["image"]
    result = install(cli, box, PR)
    assert result.code == 0, result.stderr
    assert state(result) == "installed"
    assert sorted(report_of(result)["seconds"]) == ["fetch", "pip"]  # the benchmark's floor
    # The version stayed: pip reinstalled it all the same, and verified it.
    assert recorded(box) == (VERSION, bridge["url"], bridge["head"])
    assert freeze(box) == f"megatron-bridge @ git+{bridge['url']}@{bridge['head']}"
    assert result.outputs["megatron_bridge_sha"] == bridge["head"]
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "48"
    assert f"megatron-bridge: 5 installed file(s) are {bridge['head'][:12]}'s" in result.stderr
    # Again: up to date, and verified as after a fresh install: the commit's trees are
    # fetched (no file contents) and every installed file compared; no pip.
    again = install(cli, box, PR)
    assert again.code == 0, again.stderr
    assert state(again) == "up-to-date"
    assert ran(again) == ["fetch"]
    pinned = json.loads(PR)
    pinned["megatron-bridge"]["sha"] = bridge["head"]
    quick = install(cli, box, json.dumps(pinned))
    assert quick.code == 0, quick.stderr
    assert (state(quick), ran(quick)) == ("up-to-date", ["fetch"])


def installed_file(box: Sandbox, module: str) -> Path:
    script = f"import {module} as m; print(m.__file__)"
    return Path(subprocess.run([box.python, "-I", "-c", script], capture_output=True,
                               text=True, check=True).stdout.strip())


def test_an_install_whose_files_were_edited_is_not_up_to_date(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    """pip's record names the wanted commit; an earlier job edited an installed file."""
    assert state(install(cli, box, PR)) == "installed"
    edited = installed_file(box, "megatron.bridge.models.gpt")
    edited.write_text(edited.read_text().replace("LAYERS = 48", "LAYERS = 999"))
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "999"
    result = install(cli, box, PR)
    assert result.code == 0, result.stderr
    assert state(result) == "installed"
    assert (f"the interpreter records {bridge['head']}, but 1 installed file(s) differ from the "
            f"commit's (megatron/bridge/models/gpt.py): installing it again") in result.stderr
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "48"


def shadow(box: Sandbox, tmp_path: Path, files: dict[str, str]) -> Path:
    """Another copy of a package, first on the interpreter's sys.path through a `.pth` file
    in its site-packages, as an earlier job on a persistent runner may leave one."""
    copy = tmp_path / "shadow"
    for relative, text in files.items():
        (copy / relative).parent.mkdir(parents=True, exist_ok=True)
        (copy / relative).write_text(text)
    site = subprocess.run([box.python, "-I", "-c", "import sysconfig; "
                           "print(sysconfig.get_paths()['purelib'])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    Path(site, "aaa-earlier-job.pth").write_text(f"import sys; sys.path.insert(0, {str(copy)!r})\n")
    return copy


def test_a_shadowed_git_package_is_not_up_to_date_and_fails_naming_the_copy_that_wins(
        cli: Cli, box: Sandbox, bridge: dict[str, str], tmp_path: Path) -> None:
    """pip's record and every installed file are PR 41's, but a `.pth` file an earlier job
    left puts another `megatron` first: the interpreter imports that one."""
    assert state(install(cli, box, PR)) == "installed"
    copy = shadow(box, tmp_path, {"megatron/__init__.py": "",
                                  "megatron/bridge/__init__.py": "",
                                  "megatron/bridge/models/__init__.py": "",
                                  "megatron/bridge/models/gpt.py": "LAYERS = 999\n"})
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "999"
    result = install(cli, box, PR)
    assert result.code == 1
    assert state(result) == "failed"
    assert (f"`import megatron` comes from {copy / 'megatron' / '__init__.py'}, not from the "
            f"installed distribution (a `.pth` file or an earlier entry of sys.path wins)"
            ) in result.stderr
    assert "up to date" not in result.stderr


def test_the_images_install_edited_after_rocm_deps_met_it_is_returned(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    nothing = json.dumps({})
    assert state(install(cli, box, nothing)) == "image"  # met: its files are captured
    edited = installed_file(box, "megatron.bridge.models.gpt")
    before = edited.read_text()
    edited.write_text(before + "\nLAYERS = 999\n")
    result = install(cli, box, nothing)
    assert result.code == 0, result.stderr
    assert state(result) == "restored"
    assert "1 installed file(s) differ from the image's (megatron/bridge/models/gpt.py)" in (
        result.stderr)
    assert edited.read_text() == before
    assert state(install(cli, box, nothing)) == "image"  # and now it is kept


def ran(result: CliResult) -> list[str]:
    """The fetches and pip runs an install echoed."""
    return [word for line in result.stderr.splitlines() if line.startswith("+ ")
            for word in ("fetch", "pip") if f" {word} " in line]


def test_an_unknown_commit_fails_and_leaves_the_install_in_place(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    assert install(cli, box, PR).code == 0
    missing = json.dumps({"megatron-bridge": {"ref": "9" * 40, "kind": "commit",
                                              "source": "dispatch", "raw": "9" * 40}})
    result = install(cli, box, missing)
    assert result.code == 1
    assert json.loads(result.outputs["report"])["dependencies"]["megatron-bridge"][
        "failed_step"] == "fetch"
    assert "The interpreter still holds what it had" in result.stderr
    assert recorded(box)[2] == bridge["head"]


def test_a_run_that_names_nothing_returns_the_image_install(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    assert install(cli, box, PR).code == 0
    result = install(cli, box, "{}")
    assert result.code == 0, result.stderr
    assert state(result) == "restored"
    assert recorded(box) == (VERSION, bridge["url"], bridge["image"])
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "24"
    assert "megatron-bridge: not named, but an earlier run had installed another commit" in (
        result.stderr)
    after = install(cli, box, "{}")
    assert after.code == 0, after.stderr
    assert state(after) == "image"


def test_never_replaced_it_is_the_image_install_without_fetch_or_pip(
        cli: Cli, box: Sandbox, bridge: dict[str, str]) -> None:
    result = install(cli, box, "{}")
    assert result.code == 0, result.stderr
    assert state(result) == "image"
    assert json.loads(result.outputs["report"])["dependencies"]["megatron-bridge"][
        "sha"] == bridge["image"]


def test_a_commit_that_needs_a_newer_python_fails_before_anything_is_replaced(
        cli: Cli, box: Sandbox, bridge: dict[str, str], tmp_path: Path) -> None:
    """Megatron-Bridge requires Python 3.12: on an older interpreter pip refuses the build,
    and the image's install stays."""
    origin = tmp_path / "Megatron-Bridge"
    git(origin, "checkout", "-q", "pr-41")
    newer = commit(origin, {"pyproject.toml": PYPROJECT.replace(
        'dynamic = ["version"]', 'dynamic = ["version"]\nrequires-python = ">=3.99"')},
                   "needs a newer Python")
    git(origin, "checkout", "-q", "main")
    document = json.dumps({"megatron-bridge": {"ref": newer, "kind": "commit",
                                               "source": "dispatch", "raw": newer}})
    result = install(cli, box, document)
    assert result.code == 1
    report = json.loads(result.outputs["report"])["dependencies"]["megatron-bridge"]
    assert report["failed_step"] == "pip"
    assert (f"the interpreter still holds {VERSION} at {bridge['image']}") in result.stderr
    assert recorded(box) == (VERSION, bridge["url"], bridge["image"])


def imported(box: Sandbox, module: str, name: str) -> str:
    """`module.name` as the interpreter under test imports it, or the error's type."""
    found = subprocess.run([box.python, "-I", "-c", f"import {module} as m; print(m.{name})"],
                           capture_output=True, text=True)
    return found.stdout.strip() or found.stderr.strip().splitlines()[-1].split(":")[0]


def pull(number: int) -> str:
    return json.dumps({"megatron-bridge": {"ref": f"refs/pull/{number}/head", "kind": "pr",
                                           "pr": number, "source": "body",
                                           "raw": f"#{number}"}})


@pytest.mark.parametrize(("number", "version", "module", "name", "value"), [
    (41, VERSION, "megatron.bridge.models.gpt", "LAYERS", "48"),    # a module changed
    (42, VERSION, "megatron.bridge.models.qwen", "HEADS", "8"),     # a module added
    (43, "0.2.0rc1", "megatron.bridge", "__version__", "0.2.0rc1"),  # the version bumped
], ids=["changes-a-module", "adds-a-module", "bumps-the-version"])
def test_each_shape_of_pull_request_is_installed_then_the_image_restored(
        cli: Cli, box: Sandbox, bridge: dict[str, str], number: int, version: str, module: str,
        name: str, value: str) -> None:
    result = install(cli, box, pull(number))
    assert result.code == 0, result.stderr
    assert recorded(box) == (version, bridge["url"], bridge[str(number)])
    assert imported(box, module, name) == value
    again = install(cli, box, pull(number))
    assert (again.code, state(again)) == (0, "up-to-date")
    restored = install(cli, box, "{}")
    assert (restored.code, state(restored)) == (0, "restored"), restored.stderr
    assert recorded(box) == (VERSION, bridge["url"], bridge["image"])
    assert imported(box, "megatron.bridge.models.gpt", "LAYERS") == "24"
    # What the pull request added is gone with it: pip removed the files its record named.
    assert imported(box, "megatron.bridge.models.qwen", "HEADS") == "ModuleNotFoundError"


def test_auto_build_isolation_reads_the_fetched_commits_build_requirements(
        cli: Cli, box: Sandbox, bridge: dict[str, str], tmp_path: Path) -> None:
    """With `build-isolation = "auto"` (the built-in is `never`, as the image's Dockerfile
    builds it), as for a clone: the interpreter has what the commit's [build-system]
    requires, so no isolated build (the index is unreachable); a requirement it lacks means isolation,
    said in a notice, and pip then fails without an index, leaving the image's install."""
    blanket = 'pip-args = ["--no-build-isolation"]\n'  # the sandbox's: the config decides
    assert blanket in box.config.read_text()
    box.config.write_text(box.config.read_text().replace(blanket, "")
                          + 'build-isolation = "auto"\n')
    result = install(cli, box, pull(41))
    assert result.code == 0, result.stderr
    assert report_of(result)["build_isolation"] == "not isolated"
    assert "--no-build-isolation" in next(line for line in result.stderr.splitlines()
                                          if line.startswith("+ ") and " pip " in line)
    origin = tmp_path / "Megatron-Bridge"
    git(origin, "checkout", "-q", "pr-41")
    needs = commit(origin, {"pyproject.toml": PYPROJECT.replace(
        "requires = []", 'requires = ["rocm-deps-absent-builder>=1"]')}, "a new build backend")
    git(origin, "checkout", "-q", "main")
    document = json.dumps({"megatron-bridge": {"ref": needs, "kind": "commit",
                                               "source": "dispatch", "raw": needs}})
    failed = install(cli, box, document)
    assert failed.code == 1
    assert report_of(failed)["build_isolation"] == "isolated"
    assert "lacks `rocm-deps-absent-builder>=1`" in failed.stderr
    assert recorded(box)[2] == bridge["head"]


def test_the_tools_own_fetch_is_the_commits_trees_and_its_pyproject_alone(
        cli: Cli, box: Sandbox, bridge: dict[str, str], tmp_path: Path) -> None:
    """As GitHub serves it (partial fetches allowed), each pack the origin sends is kept (a
    pack-objects hook in git's global config, which git honours there): the tool's own first
    pack is the named commit and its trees, no file; with `build-isolation = "auto"` its
    second is the one pyproject.toml. pip then fetches the commit as the Dockerfile's command
    does, in packs of its own."""
    origin = tmp_path / "Megatron-Bridge"
    git(origin, "config", "uploadpack.allowFilter", "true")
    packs = tmp_path / "packs"
    packs.mkdir()
    hook = tmp_path / "keep-pack"
    hook.write_text(f'#!/bin/sh\nn=$(ls "{packs}" | wc -l)\n"$@" | tee "{packs}/$n"\n')
    hook.chmod(0o755)
    global_config = tmp_path / "gitconfig"
    global_config.write_text(f"[uploadpack]\n\tpackObjectsHook = {hook}\n")
    blanket = 'pip-args = ["--no-build-isolation"]\n'
    box.config.write_text(box.config.read_text().replace(blanket, "")
                          + 'build-isolation = "auto"\n')
    result = cli("install", "--config", str(box.config), "--overrides", pull(42),
                 "--workspace", str(box.workspace), "--python", box.python,
                 "--workspace-install", "false",
                 env={**OFFLINE, "GIT_CONFIG_GLOBAL": str(global_config)})
    assert result.code == 0, result.stderr
    assert recorded(box)[2] == bridge["42"]
    assert imported(box, "megatron.bridge.models.qwen", "HEADS") == "8"

    def objects(number: int) -> int:  # a pack's header: "PACK", version, object count
        return int.from_bytes((packs / str(number)).read_bytes()[8:12], "big")

    trees = git(origin, "ls-tree", "-r", "-t", bridge["42"]).count(" tree ")
    assert objects(0) == 1 + 1 + trees  # the commit, its root tree and every tree below
    assert objects(1) == 1  # pyproject.toml
    assert len(list(packs.iterdir())) > 2  # pip's own
    assert report_of(result)["build_isolation"] == "not isolated"
