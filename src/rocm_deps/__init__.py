"""rocm-deps: test exactly the dependency commits a pull request names, on ROCm CI."""

from __future__ import annotations

__version__ = "0.1.0"
