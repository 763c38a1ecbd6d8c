"""Where a league's work runs. Each backend is one module of this package that
defines `BACKEND`, its class (`local`: this machine; `ray`: a Ray cluster):
adding a backend is adding its module. `base.py` holds what they share."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .base import Backend


def backend_names() -> list[str]:
    """Every backend of the package, by module name: each module that assigns
    `BACKEND` at its top level (read, not imported: `coworld --help` lists them)."""
    here = Path(__file__).parent
    return sorted(
        m.name
        for m in pkgutil.iter_modules(__path__)
        if re.search(r"^BACKEND\s*=", (here / f"{m.name}.py").read_text(), re.M)
    )


def make_backend(name: str, address: str | None = None, threads: int | None = None) -> Backend:
    """The backend `name`, started (`address`: a cluster to join; `threads`: the
    batch simulator's threads per scripted task)."""
    try:
        module = importlib.import_module(f"{__name__}.{name}") if name.isidentifier() else None
    except ModuleNotFoundError as err:  # no such module here (not one it imports)
        if err.name != f"{__name__}.{name}":
            raise
        module = None
    kind: Any = getattr(module, "BACKEND", None)
    if kind is None:
        raise ConfigError(
            f"unknown backend {name!r}; backends: {', '.join(backend_names())}", "backend"
        )
    backend: Backend = kind.start(address=address, threads=threads)
    return backend


__all__ = ["Backend", "backend_names", "make_backend"]
