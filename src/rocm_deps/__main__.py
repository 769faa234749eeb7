from __future__ import annotations

from rocm_deps.cli import main

raise SystemExit(main())
