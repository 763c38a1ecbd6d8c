"""League files (TOML): what to play, who plays it, how much, and the limits.

name = "nightly"
games = ["connect-four", "hex", "hanabi"]      # or "all", or one table per game:
                                               #   [games.hex]
                                               #   [games.hanabi]
                                               #   seats = 4    # the game's settings
policies = ["tactician", "random", "prompts/careful.md"]
episodes = 200          # per pairing (ordered pair or Hanabi table) per game
seed = 1                # base seed; both orders of a pairing share every seed; 0 draws one
concurrency = 4         # Claude episodes in flight at once
threads = 2             # batch-simulator threads (default: every core)
replays = 1             # per pairing without a Claude seat, write this many replays
openings = 0            # each seed pair opens with this many random legal plies, or
                        #   "default": each game's own (coworld.catalog(); 0 for Hanabi)
out = "runs/nightly"    # database, replays, standings (relative to this file)
mode = "realtime"       # or "batch": Claude episodes in rounds through the Message Batches
                        #   API at half price (docs/batch-mode.md)
schedule = "round-robin" # or "adaptive": `episodes` seed pairs per pairing first, then
confidence = 0.95       #   more where neighbours' intervals overlap, until each game's
                        #   order is right with this confidence (adaptive.py) or a budget
infra_patience = 300    # seconds a call may wait out API failures before its episode is void
void_retries = 2        # a void episode is re-queued (same seed) this often per run

[budget]                # optional: the league stops cleanly when reached
max_tokens = 2_000_000
max_cost_usd = 25.0
max_episodes = 50_000   # adaptive schedules: the most episodes in all

[clock]                 # Claude episodes (docs/leagues.md)
play_budget_seconds = 900
llm_timeout_seconds = 60
pace_seconds = 0

[prices]                # USD per million [input, output] tokens, for models without a list price
"my-model" = [3.0, 15.0]

Every key, with its default: docs/leagues.md.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import GAMES
from ..clock import Clock
from ..errors import MAX_OPENINGS, ConfigError
from ..games import entry
from ..games import game as game_reducer
from ..prices import add_prices, user_price
from ..seats.infra import DEFAULT_PATIENCE_SECONDS
from ..seats.policy import POLICY_FILES, ClaudePolicy, Policy, load_policy, parse_price
from ..seats.python_policy import PythonPolicy

#: Settings every league plays a game with unless its table says otherwise.
DEFAULT_SETTINGS: dict[str, dict[str, Any]] = {
    "hanabi": {"seats": entry("hanabi")["seats"]["default"]}
}

TOP_LEVEL = {
    "name",
    "games",
    "policies",
    "episodes",
    "seed",
    "concurrency",
    "threads",
    "replays",
    "out",
    "budget",
    "hanabi",
    "clock",
    "infra_patience",
    "prices",
    "void_retries",
    "schedule",
    "confidence",
    "openings",
    "mode",
}
MODES = ("realtime", "batch")
SCHEDULES = ("round-robin", "adaptive")


@dataclass(frozen=True)
class LeagueConfig:
    name: str
    games: tuple[str, ...]
    policies: tuple[Policy, ...]
    episodes: int
    seed: int = 1
    concurrency: int = 4
    threads: int | None = None
    replays: int = 1
    out: Path = Path("runs/league")
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    #: Per-game settings as the core takes them (`{"hanabi": {"seats": 4}}`).
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    clock: Clock = field(default_factory=Clock)
    #: Seconds one call may wait out infrastructure failures before its episode is void.
    infra_patience: float = DEFAULT_PATIENCE_SECONDS
    #: How often a void episode is re-queued (same seed) within one run.
    void_retries: int = 2
    #: Messages for the operator found while reading the file (deprecated forms).
    notices: tuple[str, ...] = ()
    schedule: str = "round-robin"
    confidence: float = 0.95
    max_episodes: int | None = None
    #: Random legal plies every episode opens with, drawn from its seed alone (so
    #: both seat orders of a seed open alike); None: each game's catalogue default.
    openings: int | None = 0
    #: "batch": Claude episodes advance in rounds through the Message Batches API.
    mode: str = "realtime"

    @property
    def database(self) -> Path:
        return self.out / "league.db"

    def settings_for(self, game: str) -> dict[str, Any] | None:
        """The settings a game's episodes are played with (Hanabi: always its seats)."""
        settings = {**DEFAULT_SETTINGS.get(game, {}), **self.settings.get(game, {})}
        return settings or None

    def openings_for(self, game: str) -> int:
        """The opening plies of `game`'s episodes."""
        return int(entry(game)["openings"]) if self.openings is None else self.openings

    @property
    def hanabi_seats(self) -> int:
        return int((self.settings_for("hanabi") or {})["seats"])

    @property
    def capped(self) -> bool:
        """Whether the league has a budget (of tokens, dollars or both)."""
        return self.max_tokens is not None or self.max_cost_usd is not None

    def describe(self) -> dict[str, Any]:
        """The config as stored with the league (policy files by name and digest)."""
        return {
            "name": self.name,
            "games": list(self.games),
            "policies": {p.name: p.digest for p in self.policies},
            "episodes": self.episodes,
            "seed": self.seed,
            "settings": {g: self.settings_for(g) for g in self.games if self.settings_for(g)},
            "clock": self.clock.as_config(),
            **(
                {"schedule": self.schedule, "confidence": self.confidence}
                if self.schedule == "adaptive"
                else {}
            ),
            **(
                {"openings": {g: self.openings_for(g) for g in self.games}}
                if self.openings != 0
                else {}
            ),
        }


def load_league(path: str | Path) -> LeagueConfig:
    """Read and check a league file; every mistake is a ConfigError naming its field."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"league file {path} does not exist", "league")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start})", "league") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}", "league") from err
    return parse_league(raw, base_dir=path.parent)


def parse_league(raw: dict[str, Any], base_dir: Path = Path(".")) -> LeagueConfig:
    for key in raw:
        if key not in TOP_LEVEL:
            raise ConfigError(
                f"unknown league field {key!r}; fields: {', '.join(sorted(TOP_LEVEL))}", key
            )
    name = _get(raw, "name", str, required=True)
    games, settings = _games(raw.get("games"))
    notices: list[str] = []
    if "hanabi" in raw:
        hanabi = _table(raw, "hanabi", {"seats"})
        if "hanabi" in settings:
            raise ConfigError("`hanabi`: give Hanabi's settings once, in [games.hanabi]", "hanabi")
        if "seats" in hanabi:
            _int(hanabi, "seats", 2, 5, prefix="hanabi.")
        settings["hanabi"] = _checked_settings("hanabi", hanabi, "hanabi.")
        notices.append(
            "the [hanabi] table is deprecated: list the game as [games.hanabi] "
            "with `seats = N` under it"
        )
    _prices(raw.get("prices", {}))
    policies = _policies(raw.get("policies"), base_dir)
    notices += [n for p in policies if (n := getattr(p, "default_notice", None))]
    _no_baseline_names(policies, games)
    episodes = _int(raw, "episodes", 1, 10_000_000, required=True)
    budget = _table(raw, "budget", {"max_tokens", "max_cost_usd", "max_episodes"})
    schedule = raw.get("schedule", "round-robin")
    if schedule not in SCHEDULES:
        raise ConfigError(
            f"`schedule` must be one of {', '.join(SCHEDULES)}, not {schedule!r}", "schedule"
        )
    confidence = raw.get("confidence", 0.95)
    if (
        not isinstance(confidence, float | int)
        or isinstance(confidence, bool)
        or not 0.5 <= confidence < 1
    ):
        raise ConfigError(
            f"`confidence` must be a number in [0.5, 1), not {confidence!r}", "confidence"
        )
    clock_raw = _table(
        raw,
        "clock",
        {"play_budget_seconds", "llm_timeout_seconds", "worst_ply_seconds", "pace_seconds"},
    )
    out = Path(_get(raw, "out", str) or f"runs/{name}")
    mode = _get(raw, "mode", str) or "realtime"
    if mode not in MODES:
        raise ConfigError(f"`mode` must be one of {', '.join(MODES)}, not {mode!r}", "mode")
    # a batch round holds every episode in flight: far more than realtime calls
    most = 100_000 if mode == "batch" else 1024
    return LeagueConfig(
        name=name,
        games=games,
        policies=policies,
        episodes=episodes,
        seed=_int(raw, "seed", -(2**63), 2**63 - 1) if "seed" in raw else 1,
        concurrency=_int(raw, "concurrency", 1, most) if "concurrency" in raw else 4,
        threads=_int(raw, "threads", 1, 1024) if "threads" in raw else None,
        replays=_int(raw, "replays", 0, 1000) if "replays" in raw else 1,
        openings=_openings(raw),
        out=out if out.is_absolute() else base_dir / out,
        max_tokens=_int(budget, "max_tokens", 1, 10**12, prefix="budget.")
        if "max_tokens" in budget
        else None,
        max_cost_usd=_number(budget, "max_cost_usd", "budget.")
        if "max_cost_usd" in budget
        else None,
        settings=settings,
        clock=Clock(**{k: _clock_field(clock_raw, k) for k in clock_raw}),
        infra_patience=_positive(raw, "infra_patience")
        if "infra_patience" in raw
        else DEFAULT_PATIENCE_SECONDS,
        void_retries=_int(raw, "void_retries", 0, 100) if "void_retries" in raw else 2,
        notices=tuple(notices),
        schedule=schedule,
        confidence=float(confidence),
        max_episodes=_int(budget, "max_episodes", 1, 10**12, prefix="budget.")
        if "max_episodes" in budget
        else None,
        mode=mode,
    )


def _get(raw: dict[str, Any], key: str, kind: type, required: bool = False) -> Any:
    if key not in raw:
        if required:
            raise ConfigError(f"the league needs the field `{key}`", key)
        return None
    value = raw[key]
    if not isinstance(value, kind) or (kind is str and not value):
        raise ConfigError(f"`{key}` must be a non-empty {kind.__name__}", key)
    return value


def _int(
    raw: dict[str, Any], key: str, lo: int, hi: int, required: bool = False, prefix: str = ""
) -> int:
    if key not in raw and required:
        raise ConfigError(f"the league needs the field `{prefix}{key}`", prefix + key)
    value = raw[key]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(
            f"`{prefix}{key}` must be an integer in {lo}..{hi}, not {value!r}", prefix + key
        )
    return value


def _openings(raw: dict[str, Any]) -> int | None:
    """`openings`: a count of plies, or "default" for each game's own (None)."""
    if raw.get("openings") == "default":
        return None
    return _int(raw, "openings", 0, MAX_OPENINGS) if "openings" in raw else 0


def _number(raw: dict[str, Any], key: str, prefix: str) -> float:
    value = raw[key]
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not 0 <= value < math.inf  # NaN fails both
    ):
        raise ConfigError(
            f"`{prefix}{key}` must be a finite non-negative number, not {value!r}", prefix + key
        )
    return float(value)


def _clock_field(raw: dict[str, Any], key: str) -> float:
    """Clock fields; a zero budget or timeout would void every Claude decision."""
    if key in ("play_budget_seconds", "llm_timeout_seconds", "worst_ply_seconds"):
        return _positive(raw, key, "clock.")
    return _number(raw, key, "clock.")


def _positive(raw: dict[str, Any], key: str, prefix: str = "") -> float:
    value = _number(raw, key, prefix)
    if value <= 0:
        raise ConfigError(f"`{prefix}{key}` must be greater than 0, not {value!r}", prefix + key)
    return value


def _table(raw: dict[str, Any], key: str, allowed: set[str]) -> dict[str, Any]:
    table = raw.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(f"`{key}` must be a table ([{key}])", key)
    for k in table:
        if k not in allowed:
            raise ConfigError(
                f"unknown field `{key}.{k}`; fields: {', '.join(sorted(allowed))}", f"{key}.{k}"
            )
    return table


def _prices(table: Any) -> None:
    """[prices] "model-id-or-prefix" = [input, output]: USD per million tokens."""
    if not isinstance(table, dict):
        raise ConfigError("`prices` must be a table of model = [input, output]", "prices")
    add_prices({m: parse_price(v, f"`prices.{m}`") for m, v in table.items()})


def _games(value: Any) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]]:
    """The games and their settings: a list of ids, "all", or a table per game."""
    if value == "all":
        return tuple(GAMES), {}
    if isinstance(value, dict) and value:
        for g, settings in value.items():
            _known_game(g)
            if not isinstance(settings, dict):
                raise ConfigError(f"`games.{g}` must be a table of the game's settings", "games")
        return tuple(value), {
            g: _checked_settings(g, s, f"games.{g}.") for g, s in value.items() if s
        }
    if not isinstance(value, list) or not value or not all(isinstance(g, str) for g in value):
        raise ConfigError(
            '`games` must be a non-empty list of game ids, "all", or a [games.ID] table per game',
            "games",
        )
    for g in value:
        _known_game(g)
    return tuple(dict.fromkeys(value)), {}


def _known_game(g: str) -> None:
    if g not in GAMES:
        raise ConfigError(f"`games`: unknown game {g!r}; known games: {', '.join(GAMES)}", "games")


def _checked_settings(game: str, settings: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The settings, checked by the core now (a mistake names its field)."""
    try:
        game_reducer({"game": game, **settings})
    except ConfigError as err:
        key = err.field if err.field in settings else next(iter(settings), "")
        raise ConfigError(f"`{prefix.rstrip('.')}`: {err}", prefix + key) from err
    return dict(settings)


def _no_baseline_names(policies: tuple[Policy, ...], games: tuple[str, ...]) -> None:
    """A Python policy may not take a baseline's name in a game it plays (the replay
    names policies): refused here, before anything runs, as the episode would."""
    for p in policies:
        if not isinstance(p, PythonPolicy):
            continue
        for g in games:
            if p.name.split("?", 1)[0] in {b["name"] for b in entry(g)["baselines"]}:
                raise ConfigError(
                    f"`policies`: policy file {p.path} is named {p.name!r}, a baseline of "
                    f"{g}; give it another NAME",
                    "NAME",
                )


def _policies(value: Any, base_dir: Path) -> tuple[Policy, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(p, str) for p in value):
        raise ConfigError(
            "`policies` must be a non-empty list of baseline names or policy files", "policies"
        )
    out = []
    for spec in dict.fromkeys(value):
        is_file = spec.endswith(POLICY_FILES)
        try:
            out.append(load_policy(str(base_dir / spec) if is_file else spec))
        except ConfigError as err:
            raise ConfigError(f"`policies`: {err}", "policies") from err
    # each Claude policy carries the league's [prices] row, so a worker needs no table
    out = [
        replace(p, price=p.price or user_price(p.model)) if isinstance(p, ClaudePolicy) else p
        for p in out
    ]
    named: dict[str, Policy] = {}
    for p in out:
        first = named.setdefault(p.name, p)
        if first is not p:
            where = [getattr(q, "path", "") or f"baseline {q.name}" for q in (first, p)]
            raise ConfigError(
                f"`policies`: {where[0]} and {where[1]} are both named {p.name!r}; "
                "names must be unique (a Python policy's NAME, a prompt's name)",
                "policies",
            )
    return tuple(out)
