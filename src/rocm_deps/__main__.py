from __future__ import annotations

from rocm_deps.main import entrypoint

entrypoint()
