"""The spectator web viewer: `coworld view PATH`."""

from .server import Site, ViewerServer, create_app

__all__ = ["Site", "ViewerServer", "create_app"]
