"""rocm-deps: test exactly the dependency commits a pull request names, on ROCm CI."""

from __future__ import annotations

__version__ = "1.2.0.dev0"
