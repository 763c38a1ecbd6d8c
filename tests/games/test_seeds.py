"""Seeds: a drawn seed spans 53 bits (exact in JavaScript), and every bit of a
64-bit seed reaches the deal and the decision streams, so the few cards or
moves a seat observes cannot be matched against a small range of seeds."""

from __future__ import annotations

import numpy as np

import coworld
from coworld import _core

LIMIT = 2**53 - 1  # exact in a float64, hence in the viewer's JavaScript
BASE = 0x1234_5678_9ABC_DEF  # a seed with bits on both sides of every flipped one


def flipped(seed: int, bit: int) -> int:
    """`seed` with one bit flipped, as a signed 64-bit integer (bit 63: the sign)."""
    value = (seed ^ (1 << bit)) & (2**64 - 1)
    return value - 2**64 if value >= 2**63 else value


def test_drawn_seeds_span_53_bits():
    drawn = [_core.draw_seed() for _ in range(300)]
    assert all(1 <= s <= LIMIT for s in drawn)
    assert max(drawn) > 2**52  # the top bit is used (a 31-bit draw never gets here)
    assert len(set(drawn)) == len(drawn)
    assert all(1 <= coworld.game("hex").init(seed=0).seed <= LIMIT for _ in range(20))
    batch = [_core.episode_seed(7, i) for i in range(300)]
    assert all(1 <= s <= LIMIT for s in batch) and max(batch) > 2**52
    sim = coworld.simulate("connect-four", ["random", "random"], 4, seed=0)
    assert 1 <= sim.seed <= LIMIT
    envs = [coworld.VecEnv("hex", 1, seed=0, threads=1) for _ in range(20)]
    assert all(1 <= e.seed <= LIMIT for e in envs) and max(e.seed for e in envs) > 2**50
    assert coworld.VecEnv("hex", 1, seed=5, threads=1).seed == 5


def test_gymnasium_draws_53_bit_engine_seeds():
    env = coworld.gymnasium.make("dark-hex-5", opponent="random")
    seeds = []
    for k in range(40):
        env.reset(seed=k)
        seeds.append(env.unwrapped.state.seed)
    assert all(1 <= s <= LIMIT for s in seeds) and max(seeds) > 2**52


def hanabi_deal(seed: int) -> list:
    view = coworld.game("hanabi").init(seed=seed).view()
    return [view["hands"], view["deck"]]


def test_every_seed_bit_changes_the_hanabi_deal():
    """Two seeds that differ in one bit, high bits included, deal differently."""
    deal = hanabi_deal(BASE)
    for bit in range(64):
        assert hanabi_deal(flipped(BASE, bit)) != deal, bit


def random_moves(game: str, seed: int) -> list[str]:
    """The moves of `random` against itself from `seed` (each from the decision stream)."""
    state, moves = coworld.game(game).init(seed=seed), []
    while not state.is_terminal:
        move = state.baseline_move("random")
        moves.append(move)
        state = state.apply(move)
    return moves


def test_every_seed_bit_changes_the_random_baselines_moves():
    for game in ("dark-hex-5", "connect-four"):
        moves = random_moves(game, BASE)
        for bit in range(64):
            assert random_moves(game, flipped(BASE, bit)) != moves, (game, bit)


def test_every_bit_of_a_batch_base_reaches_its_episodes():
    """A league's or VecEnv's base seed: each of its bits changes the episode seeds,
    which stay exact in JavaScript."""
    first = [_core.episode_seed(BASE, i) for i in range(4)]
    for bit in range(64):
        other = [_core.episode_seed(flipped(BASE, bit), i) for i in range(4)]
        assert other != first and all(1 <= s <= LIMIT for s in other), bit
    env_a = coworld.VecEnv("hanabi", 2, BASE, threads=1)
    env_b = coworld.VecEnv("hanabi", 2, flipped(BASE, 60), threads=1)
    obs_a, _ = env_a.reset()
    obs_a = obs_a.copy()
    obs_b, _ = env_b.reset()
    assert not np.array_equal(obs_a, obs_b)


def test_a_league_with_seed_zero_draws_its_seed_and_resumes_on_it(tmp_path):
    from coworld.league import LeagueRun
    from coworld.league.storage import LeagueDB
    from tests.support.leagues import make_league

    def config():
        return make_league(tmp_path, name="drawn", episodes=4, seed=0, out="out")

    def stored() -> int:
        db = LeagueDB(tmp_path / "out" / "league.db")
        try:
            return int(db.config("drawn")["seed"])
        finally:
            db.close()

    LeagueRun(config(), progress=False).run()
    drawn = stored()
    assert 1 <= drawn <= LIMIT
    again = LeagueRun(config(), progress=False)
    assert again.config.seed == drawn  # a resume plays on the seed the league drew
    assert again.run().played_now == 0
    assert LeagueRun(config(), progress=False, fresh=True).config.seed != drawn
