"""Human seats: a person plays a seat from the browser (or a script, through the
same JSON API).

Each human seat of an episode gets an unguessable token (`secrets`); its link
`http://HOST:PORT/seat/TOKEN` serves the seat's page, `GET .../view` answers the
seat's payload and `POST .../move` plays. A payload is built from the seat's own
`view_for`, its legal moves on its turn, and the observation text a Claude seat
would be sent at this point (the family's own prompt builder); nothing else of the
state reaches it. A token names one seat: no link can fetch another seat's data.

The episode asks a human seat like any other (`Episode._ask_human`): it waits for a
move the core reads as legal, with no clock unless a timeout was given (then the
family's fallback plays, cause `timeout`). Illegal input is answered with the
reason and the legal set, never played, never replaced by a fallback.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import CoworldError
from .reply import NOTES_LIMIT, SAY_LIMIT, Reply, truncate


class SeatedEpisode(Protocol):
    """What a human seat's table reads of the episode it sits in (`episode.Episode`)."""

    seed: int
    policies: list[Any]
    state: Any
    aliases: list[str]
    notes: list[str]
    family: Any


#: The policy name that fields a human seat (`-s human`, a league's `human`).
HUMAN = "human"
#: Keys a seat payload has (and nothing else: the page and the tests rely on it).
PAYLOAD_KEYS = (
    "seat",
    "game",
    "family",
    "view",
    "yourTurn",
    "legalMoves",
    "legalText",
    "observation",
    "notes",
    "finished",
)


@dataclass(frozen=True)
class HumanPolicy:
    """A seat played by a person through its link. Every human seat of an episode
    shares one `HumanTable` (not part of the policy's identity)."""

    name: str = HUMAN
    table: HumanTable | None = field(default=None, compare=False, repr=False)
    kind = "human"

    @property
    def digest(self) -> str:
        return "human"


class Refused(Exception):
    """A move the seat may not play now: an HTTP status and the JSON answer."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("error", ""))
        self.status = status
        self.body = body


def seat_payload(
    episode: SeatedEpisode | None, state: Any, seat: int, your_turn: bool, notes: str = ""
) -> dict[str, Any]:
    """What seat `seat` may read in `state`: its `view_for`, its legal moves and the
    observation text on its turn. Built only from the seat's own view (the leak
    check runs over it)."""
    from ..games import FAMILIES, family_module

    game_id = state.resolved_game
    family = family_module(game_id)
    view = state.view_for(seat)
    aliases = episode.aliases if episode is not None else [""] * state.num_seats
    legal = list(state.legal_moves()) if your_turn else []
    return {
        "seat": seat,
        "game": game_id,
        "family": FAMILIES[game_id],
        "view": view,
        "yourTurn": your_turn,
        "legalMoves": legal,
        "legalText": _legal_text(family, state, legal) if your_turn else "",
        "observation": family.observation_text(
            state, seat, notes=notes, operator_prompt="", aliases=aliases
        ),
        "notes": notes,
        "finished": bool(state.is_terminal),
    }


def _legal_text(family: Any, state: Any, legal: list[str]) -> str:
    """The legal set as a retry shows it (recon-hex-5 compactly: cells and anchors)."""
    compact = getattr(family, "legal_text", None)
    return compact(state) if compact else "Legal moves: " + ", ".join(legal)


class HumanTable:
    """The human seats of one episode: their tokens, and the moves the episode waits on.

    The episode runs on its own event loop; the viewer answers from another thread.
    A waiting seat's future is resolved with `call_soon_threadsafe`."""

    def __init__(self, timeout: float | None = None) -> None:
        #: Seconds a person has per move; None: no clock.
        self.timeout = timeout
        self.tokens: dict[str, int] = {}
        self.episode: SeatedEpisode | None = None
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future[Reply]]] = {}
        self._rejected: dict[int, int] = {}
        #: Seats whose page has read the final position.
        self.saw_end: set[int] = set()
        #: Hears each episode's links as they are dealt (a league prints them).
        self.on_attach: Callable[[SeatedEpisode, dict[int, str]], None] | None = None

    def attach(self, episode: SeatedEpisode) -> dict[int, str]:
        """Deal a fresh token to each human seat of `episode`: {seat: token}."""
        with self._lock:
            self.episode = episode
            self.tokens = {
                secrets.token_urlsafe(24): seat
                for seat, p in enumerate(episode.policies)
                if isinstance(p, HumanPolicy)
            }
            self.saw_end = set()
        seats = {seat: token for token, seat in self.tokens.items()}
        if self.on_attach is not None:
            self.on_attach(episode, seats)
        return seats

    def links(self) -> list[dict[str, Any]]:
        """The episode in play's human seats and their link paths (the league page)."""
        episode = self.episode
        if episode is None or episode.state.is_terminal:
            return []
        return [
            {
                "game": episode.state.resolved_game,
                "seat": seat,
                "alias": episode.aliases[seat],
                "path": f"/seat/{token}",
            }
            for token, seat in sorted(self.tokens.items(), key=lambda t: t[1])
        ]

    def seat_of(self, token: str) -> int | None:
        """The seat a token names, compared in constant time; None: no seat."""
        for known, seat in self.tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                return seat
        return None

    def payload(self, seat: int) -> dict[str, Any]:
        episode = self.episode
        assert episode is not None
        with self._lock:
            state = episode.state
            your_turn = seat in self._waiting
        if state.is_terminal:
            self.saw_end.add(seat)
        return seat_payload(episode, state, seat, your_turn, episode.notes[seat])

    def submit(self, seat: int, body: Any) -> dict[str, Any]:
        """Play `body` ({"move", "say", "notes"}) for `seat`, or raise `Refused`."""
        move, say, notes = _read_body(body)
        episode = self.episode
        assert episode is not None
        with self._lock:
            waiting = self._waiting.get(seat)
            if waiting is None:
                over = episode.state.is_terminal
                reason = "the game is over" if over else "it is not your turn"
                raise Refused(409, {"error": reason, "legalMoves": [], "legalText": ""})
            state = episode.state
            try:
                canonical = state.read_move(move[:200])
            except CoworldError as err:
                self._rejected[seat] = self._rejected.get(seat, 0) + 1
                legal = list(state.legal_moves())
                family = episode.family
                raise Refused(
                    422,
                    {
                        "error": str(err)[:300],
                        "legalMoves": legal,
                        "legalText": _legal_text(family, state, legal),
                    },
                ) from None
            del self._waiting[seat]
        reply = Reply(
            move=canonical, say=truncate(say, SAY_LIMIT), notes=truncate(notes, NOTES_LIMIT)
        )
        loop, future = waiting
        loop.call_soon_threadsafe(_resolve, future, reply)
        return {"played": canonical}

    async def ask(self, seat: int) -> tuple[Reply | None, dict[str, Any]]:
        """Wait for the seat's move: (the reply, or None at the timeout; its record)."""
        episode = self.episode
        assert episode is not None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Reply] = loop.create_future()
        started = time.monotonic()
        ply = episode.state.plies
        with self._lock:
            self._waiting[seat] = (loop, future)
            self._rejected[seat] = 0
        try:
            reply: Reply | None = await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            reply = None
        finally:
            with self._lock:
                self._waiting.pop(seat, None)
                rejected = self._rejected.pop(seat, 0)
        record = {
            "type": "human",
            "ply": ply,
            "seat": seat,
            "outcome": "ok" if reply else "timeout",
            "cause": None if reply else "timeout",
            "reason": None if reply else f"no move within {self.timeout:g} s",
            "latency": round(time.monotonic() - started, 3),
            "rejected": rejected,
        }
        return reply, record

    def wait_for_pages(self, seconds: float) -> None:
        """Give each seat's page up to `seconds` to read the final position."""
        until = time.monotonic() + seconds
        while set(self.tokens.values()) - self.saw_end and time.monotonic() < until:
            time.sleep(0.05)


def _resolve(future: asyncio.Future[Reply], reply: Reply) -> None:
    if not future.done():
        future.set_result(reply)


def _read_body(body: Any) -> tuple[str, str, str]:
    """`move`, `say` and `notes` of a move request, or `Refused` (400) naming the field."""
    if not isinstance(body, Mapping):
        raise Refused(400, {"error": 'send a JSON object: {"move": ..., "say": ..., "notes": ...}'})
    unknown = sorted(set(body) - {"move", "say", "notes"})
    if unknown:
        raise Refused(400, {"error": f"unknown field {unknown[0]!r}; fields: move, say, notes"})
    move = body.get("move")
    if not isinstance(move, str) or not move.strip():
        raise Refused(400, {"error": "`move` must be a move in the game's notation"})
    texts = []
    for key in ("say", "notes"):
        value = body.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise Refused(400, {"error": f"`{key}` must be text"})
        texts.append(value)
    return move.strip(), texts[0], texts[1]
