"""The configuration's rows: every default, check and documented table comes from them."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rocm_deps.config import build_config, fields, load_config
from rocm_deps.config.model import ApiConfig, DependencyConfig, InstallConfig, ValueConfig
from rocm_deps.config.profiles import BUILTIN_DEFAULTS, PROFILES
from rocm_deps.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent.parent
TABLES: dict[type, Mapping[str, fields.Field]] = {
    DependencyConfig: fields.DEPENDENCY, ValueConfig: fields.VALUE,
    InstallConfig: fields.INSTALL, ApiConfig: fields.API}


@pytest.mark.parametrize("model", list(TABLES), ids=lambda model: model.__name__)
def test_every_dataclass_default_is_its_rows_default(model: type) -> None:
    rows = {row.attribute: row for row in TABLES[model].values()}
    for field in dataclasses.fields(model):
        if field.default is not dataclasses.MISSING:
            assert field.default == rows[field.name].default, field.name
    # and every row but `enabled` has an attribute to land in
    assert set(rows) - {"enabled"} <= {field.name for field in dataclasses.fields(model)}


def keys_of(profile: Mapping[str, Any]) -> list[tuple[str, str]]:
    found = [("top", key) for key in profile if key not in ("dependencies", "values")]
    for table in ("dependencies", "values"):
        found += [(table, key) for entry in profile.get(table, {}).values() for key in entry]
    return found


@pytest.mark.parametrize("name", ["builtin", *PROFILES])
def test_profiles_set_only_keys_that_have_rows(name: str) -> None:
    profile = BUILTIN_DEFAULTS if name == "builtin" else PROFILES[name]
    rows = {"top": fields.TOP_LEVEL, "dependencies": fields.DEPENDENCY, "values": fields.VALUE}
    for table, key in keys_of(profile):
        assert key in rows[table], (table, key)


@pytest.mark.parametrize(("row", "bad", "message"), [
    (fields.DEPENDENCY["tags"], "some",
     'has invalid value \'some\'. Expected "all", "reachable" or "none".'),
    (fields.DEPENDENCY["fetch-depth"], 2_000_000,
     "has invalid value 2000000. Expected an integer from 0 to 1000000."),
    (fields.INSTALL["retry-min-seconds"], float("nan"),
     "has invalid value nan. Expected a number from 0 to 600."),
    (fields.DEPENDENCY["submodules"], "yes",
     "has invalid value 'yes'. Expected a boolean, not a string."),
    (fields.API["attempts"], True,
     "has invalid value True. Expected an integer from 1 to 10, not a boolean."),
], ids=["choices", "range", "nan", "type", "bool-is-no-integer"])
def test_a_rows_check_and_its_error_text(row: fields.Field, bad: object, message: str) -> None:
    table = {row.key: row}
    with pytest.raises(UsageError) as caught:
        fields.table_values({row.key: bad}, table, "t", fields.Fail("c.toml"))
    assert caught.value.message == f"c.toml: t.{row.key} {message}"


def test_an_unknown_key_gets_the_closest_row() -> None:
    with pytest.raises(UsageError) as caught:
        build_config({"install": {"fetch-attempt": 2}}, source="c.toml")
    assert caught.value.message.startswith(
        "c.toml: install.fetch-attempt: unknown key; did you mean `fetch-attempts`? expected "
        "one of fetch-attempts, lock-timeout-seconds, pip-args,")


def documented_block(name: str) -> str:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = text.split(f"<!-- {name}:start -->\n", 1)[1].split(f"<!-- {name}:end -->", 1)[0]
    return re.sub(r"^```toml\n|```\n$", "", block)


def test_the_documented_defaults_load_as_the_built_in_configuration(tmp_path: Path) -> None:
    """The TOML block of configuration.md, given as a config file, changes nothing."""
    path = tmp_path / "documented.toml"
    path.write_text(documented_block("config:rocm"), encoding="utf-8")
    documented, built_in = load_config(path), load_config(None)
    assert dataclasses.replace(documented, source="built-in defaults", text=None,
                               path=None) == built_in


def test_the_documented_cuda_changes_make_the_cuda_profile(tmp_path: Path) -> None:
    path = tmp_path / "cuda.toml"
    path.write_text(documented_block("config:cuda"), encoding="utf-8")
    documented, cuda = load_config(path), load_config(None, "cuda")
    assert dataclasses.replace(documented, source="built-in defaults", text=None, path=None,
                               profile="miles-cuda", profile_from="input") == cuda
    assert documented != load_config(None)  # the block changes something
