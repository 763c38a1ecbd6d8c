"""The spectator viewer's server: Starlette on 127.0.0.1, plain HTML, CSS, SVG and
vanilla JavaScript from the package. It serves only files under the path it was
given (anything else is a 404) and streams replays that are still being written."""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import _core
from ..errors import ConfigError
from ..replay import ReplayUnreadable, read_lines
from ..seats.human import HumanTable
from .inspector import calls_of
from .seat_routes import seat_routes

STATIC = Path(__file__).parent / "static"


class Site:
    """What the viewer was pointed at: a league (directory or database) or one replay."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path).resolve()
        self.replay: str | None
        self.database: Path | None
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist")
        if path.is_file() and path.suffix == ".jsonl":
            self.root, self.replay, self.database = path.parent, path.name, None
        elif path.is_file() and path.suffix == ".db":
            self.root, self.replay, self.database = path.parent, None, path
        else:
            self.root, self.replay = path, None
            self.database = path / "league.db" if (path / "league.db").is_file() else None
        #: Live streams opened so far (`play --live` waits for the first).
        self.spectators = 0

    def resolve(self, rel: str | None) -> Path:
        """A path under the root, or 404: no traversal, no symlink escapes, no absolutes."""
        if not rel:
            raise HTTPException(404)
        candidate = (self.root / rel).resolve()
        if not candidate.is_relative_to(self.root) or not candidate.is_file():
            raise HTTPException(404)
        return candidate

    def relative(self, path: str | Path | None) -> str | None:
        if not path:
            return None
        p = Path(path).resolve()
        return str(p.relative_to(self.root)) if p.is_relative_to(self.root) else None


def create_app(path: str | Path | None, humans: HumanTable | None = None) -> Starlette:
    """The viewer: spectator pages for `path` (a replay, a league directory or its
    database; None: none), and the links of `humans`' seats."""
    seats = seat_routes(humans) if humans is not None else []
    static = Mount("/static", StaticFiles(directory=STATIC), name="static")
    catalog = Route("/api/catalog", _catalog)
    if path is None:  # a seat's player gets no spectator page to peek at
        return Starlette(routes=[*seats, catalog, static])
    site = Site(path)

    async def index(request: Request) -> Any:
        if site.replay:
            return RedirectResponse(f"/episode?path={site.replay}")
        return FileResponse(STATIC / "league.html")

    async def episode(request: Request) -> Any:
        return FileResponse(STATIC / "episode.html")

    async def info(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "kind": "replay" if site.replay else "league",
                "replay": site.replay,
                "hasDatabase": site.database is not None,
            }
        )

    async def league(request: Request) -> JSONResponse:
        from ..league.bradley_terry import ratings
        from ..league.flags import standing_flags, warnings
        from ..league.ranking import head_to_head, json_safe, reliability, standings

        name, blocks, listed = _league(site)
        alike = _alike(site, name)
        flagged = standing_flags(blocks, alike)
        plot = "standings.png" if (site.root / "standings.png").is_file() else None
        return JSONResponse(
            {
                "league": name,
                "standings": [
                    {**json_safe(s.__dict__), "flags": flagged.get((s.policy, s.game), [])}
                    for s in standings(blocks)
                ],
                "warnings": warnings(blocks, alike),
                "ratings": [
                    json_safe(r.__dict__) for r in ratings(blocks, _league_seed(site, name))
                ],
                "headToHead": head_to_head(blocks),
                "reliability": reliability(blocks),
                "plot": plot,
                "games": sorted({b.game for b in blocks}),
                "policies": sorted({p for b in blocks for p in b.seats}),
                "endings": sorted({r.ending for r in listed}),
            }
        )

    async def episodes(request: Request) -> JSONResponse:
        q = request.query_params
        only_replays = q.get("replays", "1") == "1"
        rows = _listing(site, only_replays)
        game, policy, ending = q.get("game"), q.get("policy"), q.get("ending")
        picked = [
            r
            for r in rows
            if (not game or r.game == game)
            and (not policy or policy in r.seats)
            and (not ending or r.ending == ending)
            and (not only_replays or r.replay)
        ]
        offset, limit = int(q.get("offset", 0)), min(int(q.get("limit", 200)), 1000)
        return JSONResponse(
            {
                "total": len(picked),
                "episodes": [
                    {
                        "game": r.game,
                        "played": r.played,
                        "seats": r.seats,
                        "score": r.score,
                        "ending": r.ending,
                        "reason": r.reason,
                        "plies": r.plies,
                        "seed": r.seed,
                        "replay": site.relative(r.replay),
                    }
                    for r in picked[offset : offset + limit]
                ],
            }
        )

    async def replay(request: Request) -> JSONResponse:
        target = site.resolve(request.query_params.get("path"))
        try:
            return JSONResponse([event for _, event in read_lines(target)])
        except ReplayUnreadable as err:  # a garbage file: say why, not a 500
            return JSONResponse({"error": str(err)}, status_code=400)

    async def stream(request: Request) -> StreamingResponse:
        target = site.resolve(request.query_params.get("path"))
        site.spectators += 1
        return StreamingResponse(
            _tail(target, request),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache"},
        )

    async def live(request: Request) -> JSONResponse:
        return JSONResponse({"live": [site.relative(p) for p in _in_progress(site.root)]})

    async def files(request: Request) -> FileResponse:
        return FileResponse(site.resolve(request.path_params["rel"]))

    async def human_links(request: Request) -> JSONResponse:
        return JSONResponse({"seats": humans.links() if humans is not None else []})

    async def calls(request: Request) -> JSONResponse:
        return JSONResponse(calls_of(site.resolve(request.query_params.get("path"))))

    app = Starlette(
        routes=[
            *seats,
            Route("/", index),
            Route("/episode", episode),
            Route("/api/info", info),
            catalog,
            Route("/api/league", league),
            Route("/api/episodes", episodes),
            Route("/api/replay", replay),
            Route("/api/stream", stream),
            Route("/api/live", live),
            Route("/api/calls", calls),
            Route("/api/humans", human_links),
            Route("/files/{rel:path}", files),
            static,
        ]
    )
    app.state.site = site
    return app


async def _catalog(request: Request) -> JSONResponse:
    """The game facts every page draws by: seat names, notation, scales, card faces.
    Public, so a seat's page reads them too."""
    return JSONResponse(_core.catalog())


#: A replay without results that has not grown for this long was cut short (a killed
#: run), not live: longer than a ply can take (two model calls at the default timeout
#: and a wait out of the network within the default patience).
LIVE_IDLE_SECONDS = 600.0


def _in_progress(root: Path, limit: int = 50) -> list[Path]:
    """Replays under `root` still being written (no results line yet), newest first:
    league episodes with Claude seats, or `coworld play --live`."""
    replays = [
        p
        for p in root.rglob("*.jsonl")
        if not p.name.endswith(".calls.jsonl") and ".seat" not in p.name
    ]
    replays.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    found = []
    for path in replays[: limit * 4]:
        if time.time() - path.stat().st_mtime > LIVE_IDLE_SECONDS:
            break  # sorted newest first: the rest are older still
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - 65536))
            tail = fh.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]
        if '"type": "results"' not in tail and '"type":"results"' not in tail:
            found.append(path)
        if len(found) >= limit:
            break
    return found


def _league(site: Site) -> tuple[str | None, list[Any], list[Any]]:
    """The latest league in the database: its name, its result blocks, its replay listings."""
    if site.database is None:
        return None, [], []
    from ..league.storage import LeagueDB

    db = LeagueDB(site.database)
    try:
        names = db.leagues()
        if not names:
            return None, [], []
        return names[-1], db.blocks(names[-1]), db.runner_rows(names[-1], source=None)
    finally:
        db.close()


def _alike(site: Site, name: str | None) -> list[tuple[str, tuple[str, ...], int]]:
    """The league's pairings whose episodes were all one game (flags.alike_pairings)."""
    if site.database is None or name is None:
        return []
    from ..league.flags import alike_pairings
    from ..league.storage import LeagueDB

    db = LeagueDB(site.database)
    try:
        return alike_pairings(db, name)
    finally:
        db.close()


def _league_seed(site: Site, name: str | None) -> int:
    """The league's seed (its rating bootstrap's seed), 0 when unknown."""
    if site.database is None or name is None:
        return 0
    from ..league.storage import LeagueDB

    db = LeagueDB(site.database)
    try:
        return int(db.config(name).get("seed", 0))
    finally:
        db.close()


def _listing(site: Site, only_replays: bool) -> list[Any]:
    """Episodes to list: those with a replay, or every scored episode (chunks expanded)."""
    if site.database is None:
        return []
    from ..league.storage import LeagueDB

    db = LeagueDB(site.database)
    try:
        names = db.leagues()
        if not names:
            return []
        listed = [r for r in db.runner_rows(names[-1], source=None) if r.replay]
        if only_replays:
            return listed
        paths = {(r.pairing, r.idx): r.replay for r in listed}
        return [
            replace(r, replay=paths.get((r.pairing, r.idx), r.replay))
            for r in db.episodes(names[-1])
        ]
    finally:
        db.close()


async def _tail(
    path: Path, request: Request, poll: float = 0.1, idle_limit: float | None = None
) -> AsyncIterator[str]:
    """Server-sent events: every complete line of the replay, then new ones as they are
    written, until the results line (or the client leaves, or LIVE_IDLE_SECONDS of
    silence: a run that was cut short)."""
    idle_limit = LIVE_IDLE_SECONDS if idle_limit is None else idle_limit
    position, idle = 0, 0.0
    buffer = ""
    while idle < idle_limit:
        with path.open(encoding="utf-8") as fh:
            fh.seek(position)
            chunk = fh.read()
            position = fh.tell()
        buffer += chunk
        *lines, buffer = buffer.split("\n")
        for line in lines:
            if line.strip():
                yield f"data: {line}\n\n"
                if '"results"' in line and _event_type(line) == "results":
                    yield "event: end\ndata: {}\n\n"
                    return
        if await request.is_disconnected():
            return
        idle = 0.0 if chunk else idle + poll
        await asyncio.sleep(poll)


def _event_type(line: str) -> str | None:
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return None  # a garbage line ends nothing
    return event.get("type") if isinstance(event, dict) else None


class PortInUse(ConfigError):
    """The viewer's port is taken (or the address cannot be bound)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or `PortInUse` with one line saying what to do."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise PortInUse(
                f"port {port} on {host} is in use (another viewer?); choose another with --port N",
                "--port",
            ) from None
        raise PortInUse(f"cannot listen on {host}:{port}: {err.strerror}", "--host") from None
    return sock


class ViewerServer:
    """uvicorn in a background thread (for `coworld play --live` and tests)."""

    def __init__(
        self,
        path: str | Path | None,
        host: str = "127.0.0.1",
        port: int = 0,
        humans: HumanTable | None = None,
    ) -> None:
        import uvicorn

        self._socket = bind(host, port)
        self.host, self.port = self._socket.getsockname()[:2]
        self.app = create_app(path, humans)
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def wait_for_spectator(self, seconds: float) -> bool:
        """Wait up to `seconds` for a browser to open a live stream; whether one did."""
        site = getattr(self.app.state, "site", None)
        until = time.monotonic() + seconds
        while site is not None and site.spectators == 0 and time.monotonic() < until:
            time.sleep(0.05)
        return site is not None and site.spectators > 0

    def start(self) -> ViewerServer:
        self._thread.start()
        while not self._server.started:
            threading.Event().wait(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._socket.close()

    def __enter__(self) -> ViewerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
