"""`coworld gate`: a sequential regression test of CANDIDATE against REFERENCE.

The two policies play seed pairs (both seat orders on one seed) of every listed
two-seat game in batches. After each batch the candidate's pentanomial counts
(stats.pentanomial) update a generalised SPRT of H0: elo = elo0 against
H1: elo = elo1 (candidate minus reference, logistic Elo), exactly as fastchess
does; the gate stops when the log-likelihood ratio leaves [lower, upper]:
  LLR >= upper: H1, the candidate is not worse       exit 0
  LLR <= lower: H0, the candidate is worse           exit 1
  the episode cap reached first: inconclusive        exit 2
  every seed pair played the same games: inconclusive exit 2 (see `replayed_one_game`)
With elo0 = -10 and elo1 = 0, alpha bounds the chance of passing a candidate
10 Elo worse and beta the chance of failing one that is as good.

A build gate compares one policy on two engine builds. The reference build first
records the policy against an anchor opponent in a league (`coworld league run`,
any build that writes this database format); this build then plays the same
policy against the same anchor on the same seeds (the recorded league's seed) in
batches, and each seed's outcome is (1 + x - y) / 2, x and y the candidate's and
the recorded reference's mean points against the anchor over the seed pair: one of
0, 1/8, .., 1, 1/2 when the builds agree. The same GSPRT runs on those nine
outcomes (their Elo is the candidate build's edge over the reference build as
measured through the anchor); the cap is also what the recording holds.

    coworld gate tactician runs/old/league.db --anchor random --games connect-four
    coworld gate tactician 'runs/old/league.db#tactician' --anchor random ...

Storage is a league database (`OUT/league.db`, league `gate: C vs R`), so a gate
resumes like a league: a rerun replays the decisions from the stored episodes
(batch k uses exactly the episodes with index < k * batch) and plays on from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import Clock
from ..errors import MAX_OPENINGS, ConfigError
from ..exit_codes import ExitCode
from ..games import FAMILIES
from ..seats.infra import DEFAULT_PATIENCE_SECONDS
from ..seats.policy import Policy
from ..usage import Usage
from .build_gate import NONA, Recorded, load_recorded, recorded_outcomes
from .config import LeagueConfig
from .engine import Step
from .records import Block
from .runner import LeagueRun
from .schedule import Pairing, build_schedule
from .sprt import PENTA, SprtBounds, gsprt_llr, penta_elo, pentanomial
from .stats import head_to_head_units
from .storage import LeagueDB

VERDICTS: dict[int, str] = {
    ExitCode.OK: "not worse",
    ExitCode.WORSE: "worse",
    ExitCode.INCONCLUSIVE: "inconclusive",
    ExitCode.INFRASTRUCTURE: "stopped by infrastructure",
    ExitCode.BUDGET: "stopped by the budget",
}


@dataclass(frozen=True)
class GateConfig:
    candidate: Policy
    reference: Policy
    games: tuple[str, ...]
    elo0: float = -10.0
    elo1: float = 0.0
    alpha: float = 0.05
    beta: float = 0.05
    batch: int = 16  # seed pairs per game per batch
    max_episodes: int = 4000
    seed: int = 1
    out: Path = Path("runs/gate")
    concurrency: int = 4
    threads: int | None = None
    clock: Clock = field(default_factory=Clock)
    #: a build gate: the reference is `recorded.policy` as another build played it
    #: against `reference` (then the anchor) in `recorded.database`
    recorded: Recorded | None = None
    #: the most the gate's Claude calls may cost, in USD, over every run of it (None: no cap)
    max_cost_usd: float | None = None
    #: seconds the API may be unavailable before the gate stops (exit 4)
    infra_patience: float = DEFAULT_PATIENCE_SECONDS
    #: random legal plies each seed pair opens with; None: each game's default
    #: (`coworld.catalog()[game]["openings"]`)
    openings: int | None = None

    def check(self) -> None:
        if self.candidate.name == self.reference.name:
            raise ConfigError(
                f"the candidate and the reference are both {self.candidate.name!r}", "reference"
            )
        for g in self.games:
            if FAMILIES[g] == "hanabi":
                raise ConfigError(
                    "the gate plays head-to-head games; Hanabi is cooperative "
                    "(compare Hanabi policies with `coworld league compare`)",
                    "games",
                )
        for name, v in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -2000 <= v <= 2000:  # finite Elo bounds (NaN fails too)
                raise ConfigError(
                    f"--{name} must be an Elo difference in -2000..2000, not {v}", name
                )
        if not self.elo0 < self.elo1:
            raise ConfigError(f"--elo0 ({self.elo0}) must be below --elo1 ({self.elo1})", "elo0")
        for name, v in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < v < 0.5:
                raise ConfigError(f"--{name} must be in (0, 0.5), not {v}", name)
        if self.openings is not None and not 0 <= self.openings <= MAX_OPENINGS:
            raise ConfigError(
                f"--openings must be in 0..{MAX_OPENINGS}, not {self.openings}", "openings"
            )
        if self.batch < 1:
            raise ConfigError(f"--batch must be at least 1, not {self.batch}", "batch")
        if self.max_episodes < 2 * len(self.games):
            raise ConfigError(
                f"--max-episodes must allow one seed pair per game (>= {2 * len(self.games)})",
                "max_episodes",
            )

    @property
    def name(self) -> str:
        if self.recorded is not None:
            return f"gate: {self.candidate.name} vs {self.reference.name}, build check"
        return f"gate: {self.candidate.name} vs {self.reference.name}"

    @property
    def bounds(self) -> SprtBounds:
        return SprtBounds.of(self.alpha, self.beta)

    def league(self) -> LeagueConfig:
        return LeagueConfig(
            name=self.name,
            games=self.games,
            policies=(self.candidate, self.reference),
            episodes=self.batch,
            seed=self.seed,
            concurrency=self.concurrency,
            threads=self.threads,
            replays=0,
            out=self.out,
            clock=self.clock,
            max_cost_usd=self.max_cost_usd,
            infra_patience=self.infra_patience,
            openings=self.openings,
        )


@dataclass(frozen=True)
class GateStep:
    batch: int
    pairs: int  # complete seed pairs over all games
    episodes: int
    counts: np.ndarray  # pentanomial: candidate's pair points 0, 1/4, 1/2, 3/4, 1
    llr: float
    elo: float
    lo: float
    hi: float


@dataclass(frozen=True)
class GateResult:
    exit_code: int
    steps: list[GateStep]
    bounds: SprtBounds
    #: Why the gate stopped before a verdict (an outage, the budget), or None.
    stopped: str | None = None
    #: What every run of this gate spent on Claude calls so far.
    spent: Usage = field(default_factory=Usage)
    #: why an inconclusive gate could not measure (None: it could)
    reason: str | None = None

    @property
    def verdict(self) -> str:
        return VERDICTS[self.exit_code]


def candidate_counts(blocks: list[Block], candidate: str, below: int) -> tuple[np.ndarray, int]:
    """Pentanomial counts of the candidate over episodes with index < `below`, and the
    number of those episodes."""
    kept = [
        Block(b.game, b.seats, b.score[b.index < below], index=b.index[b.index < below])
        for b in blocks
        if b.index is not None
    ]
    counts = np.zeros(5)
    for p in head_to_head_units(kept):
        points = p.points if p.a == candidate else p.games - p.points
        counts += pentanomial(points, p.games)
    return counts, sum(b.score.shape[0] for b in kept)


#: Seed pairs a gate plays before it may call them all alike (a handful of varied
#: pairs are never all alike by chance: each pair's games differ in length too).
ALIKE_MIN_PAIRS = 8


def replayed_one_game(db: LeagueDB, league: str, below: int) -> str | None:
    """Why the seed pairs below `below` cannot measure anything, or None. When every
    pair of every game played the same games (the same scores, lengths and endings in
    both seat orders), the sample is one game pair counted many times: deterministic
    policies on a game without chance do this, and the GSPRT would read the repeats as
    evidence."""
    by_pair: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
    for r in db.episodes(league):
        if r.idx < below:
            by_pair.setdefault((r.game, r.idx), []).append((r.seats, r.score, r.plies, r.ending))
    kinds: dict[str, set[tuple[Any, ...]]] = {}
    for (game, _), games in by_pair.items():
        if len(games) == 2:
            kinds.setdefault(game, set()).add(tuple(sorted(games)))
    pairs = sum(1 for g in by_pair.values() if len(g) == 2)
    if pairs < ALIKE_MIN_PAIRS or any(len(k) > 1 for k in kinds.values()):
        return None
    return (
        f"no variation: all {pairs} seed pairs replayed the same games (the same scores, "
        "lengths and endings in both seat orders), so they measure one game pair, not "
        f"{pairs}; deterministic policies on a game without chance do this. Open each "
        "pair with random legal plies: --openings N (e.g. --openings 4)"
    )


def run_gate(
    config: GateConfig,
    *,
    fresh: bool = False,
    on_step: Callable[[GateStep], None] | None = None,
) -> GateResult:
    """Play batches until the SPRT decides or the cap is reached (see the module doc)."""
    config.check()
    recorded: list[Block] = []
    cap_pairs = config.max_episodes // (2 * len(config.games))  # 2 episodes per seed pair
    scores = PENTA
    if config.recorded is not None:
        recorded, seed, held, openings = load_recorded(
            config.recorded, config.reference.name, config.games
        )
        # the recorded league's seeds, and its openings unless told otherwise
        chosen = openings if config.openings is None else config.openings
        config = replace(config, seed=seed, openings=chosen)
        cap_pairs, scores = min(cap_pairs, held), NONA
    league = config.league()
    run = LeagueRun(league, fresh=False, progress=False)
    db = LeagueDB(league.database)
    try:
        _register(db, config, league, fresh)
        trial = _Trial(config, db, recorded, cap_pairs, scores, on_step)
        return trial.decide(lambda schedule: run.play(db, schedule))
    finally:
        run.close()  # the run's shared client and worker pools
        db.close()


def _register(db: LeagueDB, config: GateConfig, league: LeagueConfig, fresh: bool) -> None:
    """Record the gate as a league, refusing one stored with another seed or openings."""
    if fresh:
        db.forget(league.name)
    stored = db.config(league.name)
    if stored and stored.get("seed") != league.seed:
        raise ConfigError(
            f"{league.database} holds this gate with seed {stored.get('seed')}; "
            "use that seed, another --out, or --fresh",
            "seed",
        )
    if stored and stored.get("openings") != league.describe().get("openings"):
        raise ConfigError(
            f"{league.database} holds this gate played with other openings "
            f"({stored.get('openings') or 'none'}); give the same --openings, another "
            "--out, or --fresh",
            "openings",
        )
    db.register(league.name, league.describe(), league.policies)
    for game in config.games:
        seated = {p.seats for p in build_schedule(league) if p.game == game}
        if seated != {
            (config.candidate.name, config.reference.name),
            (config.reference.name, config.candidate.name),
        }:
            raise ConfigError(
                f"{game!r} does not field both {config.candidate.name!r} and "
                f"{config.reference.name!r} (see `coworld games` for its baselines)",
                "games",
            )


@dataclass
class _Trial:
    """The sequential test over batches played by a `play(schedule)` function."""

    config: GateConfig
    db: LeagueDB
    recorded: list[Block]
    cap_pairs: int
    scores: np.ndarray
    on_step: Callable[[GateStep], None] | None

    def decide(self, play: Callable[[list[Pairing]], Step]) -> GateResult:
        config, name, bounds = self.config, self.config.name, self.config.bounds
        pairings = build_schedule(config.league())
        steps: list[GateStep] = []
        k = 0
        while True:
            k += 1
            target = min(k * config.batch, self.cap_pairs)
            played = play([replace(p, episodes=target) for p in pairings])
            step = self._step(k, target)
            steps.append(step)
            if self.on_step:
                self.on_step(step)
            spent = self.db.spent(name)
            if config.recorded is None:
                alike = replayed_one_game(self.db, name, target)
                if alike:
                    return GateResult(
                        ExitCode.INCONCLUSIVE, steps, bounds, spent=spent, reason=alike
                    )
            if step.llr >= bounds.upper:
                return GateResult(ExitCode.OK, steps, bounds, spent=spent)
            if step.llr <= bounds.lower:
                return GateResult(ExitCode.WORSE, steps, bounds, spent=spent)
            if played.halt is not None:  # the next batch would play nothing: say why
                code = HALT_CODES.get(played.halt.kind, ExitCode.INCONCLUSIVE)
                return GateResult(code, steps, bounds, played.halt.reason, spent)
            if target >= self.cap_pairs:
                return GateResult(ExitCode.INCONCLUSIVE, steps, bounds, spent=spent)

    def _step(self, k: int, target: int) -> GateStep:
        blocks = self.db.blocks(self.config.name)
        if self.config.recorded is not None:
            c = self.config
            assert c.recorded is not None
            counts, episodes = recorded_outcomes(
                blocks, c.candidate.name, c.reference.name, c.recorded, self.recorded, target
            )
        else:
            counts, episodes = candidate_counts(blocks, self.config.candidate.name, target)
        llr = gsprt_llr(counts, self.config.elo0, self.config.elo1, self.scores)
        return GateStep(
            k, int(counts.sum()), episodes, counts, llr, *penta_elo(counts, self.scores)
        )


#: The exit status of a gate whose run stopped dispatching: the budget, the API (an
#: outage past the patience, refused requests); a policy's dead worker (its episodes
#: are not played) or anything else: no verdict.
HALT_CODES = {"budget": ExitCode.BUDGET, "api": ExitCode.INFRASTRUCTURE}
