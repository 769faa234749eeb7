"""The configuration (docs/architecture.md, *Configuration*): `fields`, one row per key of every
table; `model`, the frozen dataclasses the tool reads; `loader`, a profile's defaults (`profiles`)
overridden by a TOML file; `outputs`, the action's output names the configuration implies."""

from rocm_deps.config.loader import build_config, load_config
from rocm_deps.config.model import (
    REPOSITORY,
    ApiConfig,
    Config,
    DependencyConfig,
    InstallConfig,
    ValueConfig,
)

__all__ = ["REPOSITORY", "ApiConfig", "Config", "DependencyConfig",
           "InstallConfig", "ValueConfig", "build_config", "load_config"]
