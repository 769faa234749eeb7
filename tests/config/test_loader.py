"""Configuration: defaults, overrides, and errors that name the file, key and type."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.errors import UsageError
from tests.conftest import Cli


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rocm-deps.toml"
    path.write_text(text)
    return path


def test_builtin_defaults_match_design() -> None:
    config = load_config(None)
    assert config.names == ("sglang", "megatron", "megatron-bridge")
    sglang, megatron, bridge = config.dependencies
    # Megatron-Bridge has no clone: the image pip-installed it from git.
    assert (bridge.path, bridge.distribution, bridge.url, bridge.build_isolation) == (
        None, "megatron-bridge", "https://github.com/radixark/Megatron-Bridge.git", "never")
    assert (bridge.directive, bridge.dispatch_input) == (
        "ci-megatron-bridge-pr", "ci_megatron_bridge_pr")
    assert (sglang.repository, sglang.path, sglang.install_dir, sglang.patches) == (
        "sgl-project/sglang", "/sgl-workspace/sglang", "python", ())
    assert (megatron.repository, megatron.path, megatron.install_dir, megatron.submodules) == (
        "radixark/Megatron-LM", "/root/Megatron-LM", ".", True)
    assert megatron.patches == ("docker/amd_patch/latest/megatron.patch",)
    assert (megatron.directive, megatron.dispatch_input) == ("ci-megatron-pr", "ci_megatron_pr")
    # 0: whole history; a complete clone is never made shallow (architecture §6 step 4).
    assert (megatron.fetch_depth, megatron.on_missing_target, megatron.default) == (0, "fail", None)
    assert config.install.workspace_install is True
    assert config.install.fetch_attempts == 3
    # The image's edits: discarded and reported unless configured; SGLang's compiled parts.
    assert (sglang.local_changes, sglang.prepare, sglang.pip_env, sglang.pip_args) == (
        "discard", (), (), ())
    assert sglang.rebuild_paths == ("sgl-kernel/", "python/sglang/kernels/aot/",
                                    "sgl-model-gateway/")
    assert megatron.rebuild_paths == ()


def test_file_overrides_single_fields_and_adds_dependencies(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, """
lock-file = "deps.lock.json"
[dependencies.megatron]
path = "/opt/megatron"
fetch-depth = 50
on-missing-target = "skip"
[dependencies.vllm]
repository = "vllm-project/vllm"
path = "/opt/vllm"
default = "main"
[install]
pip-args = ["--no-build-isolation"]
"""))
    megatron = config.dependency("megatron")
    assert (megatron.path, megatron.fetch_depth, megatron.on_missing_target) == (
        "/opt/megatron", 50, "skip")
    assert megatron.repository == "radixark/Megatron-LM"  # untouched fields keep defaults
    vllm = config.dependency("vllm")
    assert (vllm.directive, vllm.dispatch_input, vllm.default) == ("ci-vllm-pr", "ci_vllm_pr", "main")
    assert config.install.pip_args == ("--no-build-isolation",)
    assert config.lock_file == "deps.lock.json"


@pytest.mark.parametrize(("text", "message"), [
    ("[dependencies.megatron]\nfetch_depth = 5\n",
     "dependencies.megatron.fetch_depth: unknown key; did you mean `fetch-depth`? expected one of"),
    ("[dependencies.megatron]\nfetch-depth = \"5\"\n",
     "dependencies.megatron.fetch-depth has invalid value '5'. Expected an integer from 0 "
     "to 1000000, not a string."),
    ("[dependencies.megatron]\nfetch-depth = true\n",
     "dependencies.megatron.fetch-depth has invalid value True. Expected an integer from 0 "
     "to 1000000, not a boolean."),
    ("[dependencies.megatron]\nfetch-depth = -1\n",
     "has invalid value -1. Expected an integer from 0 to 1000000."),
    ("[dependencies.megatron]\npatches = \"a.patch\"\n",
     "dependencies.megatron.patches has invalid value 'a.patch'. Expected an array of strings"),
    ("[dependencies.megatron]\npatches = [1]\n", "got an array with non-strings"),
    ("[dependencies.megatron]\non-missing-target = \"ignore\"\n", "has invalid value 'ignore'. Expected \"fail\" or \"skip\""),
    ("[dependencies.megatron]\nrepository = \"Megatron-LM\"\n", "has invalid value 'Megatron-LM'. Expected the form 'owner/repo'"),
    ("[dependencies.megatron]\nremote = \"--upload-pack=x\"\n", "remote has invalid value '--upload-pack=x'. Expected a remote name"),
    ("[dependencies.vllm]\npath = \"/x\"\n", "dependencies.vllm.repository: missing"),
    ("[dependencies.Bad-Name]\nrepository = \"a/b\"\npath = \"/x\"\n", "a dependency name is"),
    ("[dependencies.sglang]\ndirective = \"ci-megatron-pr\"\n",
     "dependencies.megatron.directive: 'ci-megatron-pr' is already used by dependency 'sglang'"),
    ("[install]\nworkspace_install = false\n", "install.workspace_install: unknown key"),
    ("[install]\nretry-min-seconds = 5\nretry-max-seconds = 1\n", "retry-min-seconds <="),
    ("lockfile = \"x\"\n", "lockfile: unknown key"),
    ("lock-file = 3\n", "lock-file has invalid value 3. Expected a string (path of a JSON file), not an "
                         "integer."),
    ("[dependencies\n", "not valid TOML"),
    ("[install]\nretry-min-seconds = nan\n",
     "install.retry-min-seconds has invalid value nan. Expected a number from 0 to 600."),
    ("[install]\nretry-max-seconds = inf\n",
     "install.retry-max-seconds has invalid value inf. Expected a number from 0 to 600."),
    ("[install]\nfetch-attempts = 0\n",
     "install.fetch-attempts has invalid value 0. Expected an integer from 1 to 10."),
    ("[api]\nattempts = 100000\n", "api.attempts has invalid value 100000. Expected an integer "
                                   "from 1 to 10."),
    ("[api]\nmax-rate-limit-wait-seconds = inf\n",
     "api.max-rate-limit-wait-seconds has invalid value inf. Expected a number from 0 to 600."),
    ("[api]\ntimeout-seconds = 0\n", "api.timeout-seconds has invalid value 0. Expected an integer "
                                     "from 1 to 300"),
    ('[dependencies.sglang]\nlocal-changes = "keep"\n',
     "dependencies.sglang.local-changes has invalid value 'keep'. Expected \"discard\" or "
     "\"reapply\""),
    ('[dependencies.sglang]\nprepare = ["mv a b"]\n',
     "dependencies.sglang.prepare[0]: expected an array of argv arrays"),
    ('[dependencies.sglang]\nprepare = [[]]\n',
     "dependencies.sglang.prepare[0]: expected an array of argv arrays"),
    ('[dependencies.sglang]\npip-env = {"A B" = "1"}\n',
     "dependencies.sglang.pip-env.A B: expected a table of strings"),
    ('[dependencies.sglang]\npip-env = {X = 1}\n',
     "dependencies.sglang.pip-env.X: expected a table of strings"),
    ('[dependencies.sglang]\nfetch-filter = "tree:0"\n',
     "dependencies.sglang.fetch-filter has invalid value 'tree:0'. Expected \"blob:none\" or "
     "\"\""),
    ('[dependencies.sglang]\npip-env = {PATH = "/tmp/planted"}\n',
     "dependencies.sglang.pip-env.PATH: not allowed: PATH and the PYTHON* variables"),
    ('[dependencies.sglang]\npip-env = {pythonpath = "."}\n',
     "dependencies.sglang.pip-env.pythonpath: not allowed"),
    ('[dependencies.sglang]\nrebuild-paths = ["../outside/"]\n',
     "dependencies.sglang.rebuild-paths has invalid value '../outside/'. Expected paths inside "
     "the clone."),
], ids=["unknown-key", "wrong-type", "bool-for-int", "negative-depth", "patches-string",
        "patches-non-strings", "bad-enum", "bad-repository", "dash-remote", "missing-repository",
        "bad-name", "duplicate-directive", "unknown-install-key", "retry-order",
        "unknown-top-level", "lock-file-type", "bad-toml", "nan", "inf", "zero-attempts",
        "huge-attempts", "infinite-rate-limit-wait", "zero-timeout", "local-changes-enum",
        "prepare-string", "prepare-empty-argv", "pip-env-name", "pip-env-value",
        "fetch-filter-other", "pip-env-path", "pip-env-pythonpath-any-case",
        "rebuild-path-outside"])
def test_errors_name_file_key_and_type(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as caught:
        load_config(path)
    assert message in caught.value.message
    assert caught.value.message.startswith(str(path))
    assert caught.value.exit_code == 2



@pytest.mark.parametrize(("text", "hint"), [
    ("[dependencies.sglang]\npathh = \"/x\"\n", "dependencies.sglang.pathh: unknown key; did "
                                                "you mean `path`?"),
    ("[instal]\n", "instal: unknown key; did you mean `install`?"),
    ("[install]\nfetch-attempt = 2\n", "install.fetch-attempt: unknown key; did you mean "
                                       "`fetch-attempts`?"),
])
def test_an_unknown_key_gets_the_closest_known_one(tmp_path: Path, text: str,
                                                   hint: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(write(tmp_path, text))
    assert hint in caught.value.message


def test_an_unknown_key_without_a_close_one_gets_no_guess(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(write(tmp_path, "[dependencies.sglang]\nzzzzzz = 1\n"))
    assert "did you mean" not in caught.value.message
    assert ("unknown key; expected one of build-isolation, compile-inputs, default, directive"
            in caught.value.message)


def test_a_built_in_dependency_can_be_switched_off(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[dependencies.sglang]\nenabled = false\n"))
    assert config.names == ("megatron", "megatron-bridge")
    assert load_config(write(tmp_path, "[dependencies.sglang]\nenabled = true\n")).names == (
        "sglang", "megatron", "megatron-bridge")


def test_a_missing_config_file_says_where_it_was_looked_for_and_to_check_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as caught:
        load_config(".github/rocm-deps.toml")
    assert caught.value.message == (
        f"configuration file .github/rocm-deps.toml does not exist (a relative path is read "
        f"from the working directory, {tmp_path}). In a job, check out the repository that "
        f"holds it first (actions/checkout) and give its path relative to the workspace")


@pytest.mark.parametrize(("text", "message"), [
    ('[values.Image]\nkind = "docker-tag"\n', "values.Image: a value name is lowercase"),
    ('[values.gpus]\nkind = "regex"\n', "values.gpus.kind has invalid value 'regex'. Expected "
                                         '"docker-tag" or "number" (a closed set'),
    ('[values.gpus]\nkind = "number"\ndirective = "ci gpus"\n',
     "values.gpus.directive has invalid value 'ci gpus'. Expected letters, digits"),
    ('[values.gpus]\nkind = "number"\ndispatch-input = "-x"\n',
     "values.gpus.dispatch-input has invalid value '-x'. Expected an input name"),
    ('[values.gpus]\nkind = "number"\ndefault = "eight"\n',
     "values.gpus.default: `eight` must be a number of 1 to 9 digits"),
    ('[values.gpus]\nkind = "number"\ndirective = "ci-sglang-pr"\n',
     "values.gpus.directive: 'ci-sglang-pr' is already used by dependency 'sglang'"),
    ('values = 3\n', "values has invalid value 3. Expected a table"),
    ('[values]\ngpus = 3\n', "values.gpus: expected a table, got an integer"),
    ('lock-file-required = "no"\n',
     "lock-file-required has invalid value 'no'. Expected a boolean, not a string."),
    ('[values.gpus]\nkind = "number"\nregex = "x"\n', "values.gpus.regex: unknown key"),
])
def test_value_tables_are_checked(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(write(tmp_path, text))
    assert message in caught.value.message


def test_the_profiles_differ_where_miles_suites_differ() -> None:
    rocm, cuda = load_config(None, "rocm"), load_config(None, "cuda")
    assert [(d.name, d.default, d.install_dir, d.patches, d.recipe) for d in cuda.dependencies] == [
        ("sglang", "sglang-miles", "", (), None), ("megatron", "miles-main", "", (), None),
        ("megatron-bridge", None, ".", (), None)]  # no clone to put on PYTHONPATH: installed
    assert (cuda.lock_file, cuda.lock_file_required, cuda.install.workspace_install) == (
        "release-lock.json", False, False)
    assert (rocm.lock_file, rocm.lock_file_required, rocm.install.workspace_install) == (
        None, True, True)
    assert [(v.name, v.from_body, v.default) for v in rocm.values] == [
        ("image-tag", False, "miles-rocm720-mi35x")]
    assert [(v.name, v.from_body, v.default) for v in cuda.values] == [
        ("image-tag", True, "dev")]
    assert [value.output for value in cuda.values] == ["image_tag"]


@pytest.mark.parametrize("name", ["sglang-ref", "megatron-sha", "skip-dependency-install",
                                  "named-by", "overrides", "report", "patches"])
def test_a_value_cannot_take_another_outputs_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(write(tmp_path, f'[values.{name}]\nkind = "number"\n'))
    assert (f"values.{name}: its output `{name.replace('-', '_')}` is already an output of "
            f"the action or of a dependency") in caught.value.message


def test_a_values_enabled_must_be_a_boolean(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(write(tmp_path, '[values.image-tag]\nenabled = "false"\n'))
    assert "values.image-tag.enabled has invalid value 'false'. Expected a boolean" in (
        caught.value.message)
    assert load_config(write(tmp_path, '[values.image-tag]\nenabled = false\n')).values == ()


@pytest.mark.parametrize(("key", "value"), [
    ("patches", '["docker/amd_patch/latest/bridge.patch"]'), ("install-dir", '"src"'),
    ("submodules", "false"), ("fetch-depth", "1"), ("prepare", '[["make"]]'),
    ("remote", '"origin"'), ("rebuild-paths", '["csrc/"]')])
def test_what_acts_on_a_clone_is_refused_on_a_git_package(tmp_path: Path, key: str,
                                                           value: str) -> None:
    """Bridge has no clone to patch or prepare: the key would do nothing, so it is an error."""
    path = write(tmp_path, f"[dependencies.megatron-bridge]\n{key} = {value}\n")
    with pytest.raises(UsageError) as raised:
        load_config(path)
    assert raised.value.message == (
        f"{path}: dependencies.megatron-bridge.{key}: applies to a "
        f"clone (`path`) only; a git package (`distribution`) is pip-installed from the named "
        f"commit as it is")


def test_another_repository_under_a_profiles_name_must_choose_the_profile(
        tmp_path: Path) -> None:
    """`[dependencies.megatron]` of NVIDIA's repository, with no `profile`, would still take
    Miles' patch, submodules and fetch filter: the file must say which it means."""
    path = tmp_path / "rocm-deps.toml"
    table = '[dependencies.megatron]\nrepository = "NVIDIA/Megatron-LM"\npath = "/opt/m"\n'
    path.write_text(table)
    with pytest.raises(UsageError) as refused:
        load_config(path)
    assert str(refused.value) == (
        f"{path}: dependencies.megatron.repository: NVIDIA/Megatron-LM is not the built-in "
        "profile miles-rocm's radixark/Megatron-LM, whose other settings for `megatron` would "
        "still apply (`remote`, `install-dir`, `patches`, `submodules`, `fetch-filter`, "
        "`compile-inputs`): add `profile = \"none\"` at the top of the file to start from "
        "nothing of Miles', or `profile = \"miles-rocm\"` to keep them")
    path.write_text('profile = "none"\n' + table)
    alone = load_config(path).dependency("megatron")
    assert (alone.patches, alone.submodules, alone.fetch_filter) == ((), False, "")
    path.write_text('profile = "miles-rocm"\n' + table)
    assert load_config(path).dependency("megatron").patches == (
        "docker/amd_patch/latest/megatron.patch",)
    path.write_text('[dependencies.megatron]\nrepository = "radixark/megatron-lm"\n')
    assert load_config(path).dependency("megatron").repository == "radixark/megatron-lm"


def test_a_default_is_said_with_its_key_and_the_profile_that_set_it(cli: Cli,
                                                                    tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("Nothing named.\n")
    shown = cli("resolve", "--profile", "cuda", "--body-file", str(body), github_actions=False)
    assert shown.code == 0, shown.stderr
    assert ("  megatron: miles-main (from `dependencies.megatron.default` of the built-in "
            "profile miles-cuda: miles-main)") in shown.stdout
    config = tmp_path / "rocm-deps.toml"
    config.write_text('profile = "miles-cuda"\n[dependencies.megatron]\ndefault = "main"\n')
    mine = cli("resolve", "--config", str(config), "--body-file", str(body),
               github_actions=False)
    assert f"  megatron: main (from `dependencies.megatron.default` of {config}: main)" in (
        mine.stdout)
