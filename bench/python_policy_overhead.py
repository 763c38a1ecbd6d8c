"""What a Python policy costs: a Python policy that plays a uniformly random legal
move (`random.Random`, as the built-in `random` baseline does, so both seats'
games have the same length distribution) against the `random` baseline in the
same seat, on connect-four against `random`. Every figure comes with its mean
plies per episode, so a difference in game length cannot pass for a difference
in speed; the per-ply cost is the comparable one.

1. The episode runner, one process (`coworld.episode.play`): the per-decision
   cost of asking Python, building the seat's view and recording; without files
   and writing a replay per episode (each run into a fresh directory). Both play
   the same seeds in ABBA order; wall and CPU time per ply.
2. A league (`coworld league run`, local backend): random vs random runs through
   the batch simulator in this process (no workers to start); a pairing with the
   Python policy runs through the episode runner in 2 worker processes and
   writes a replay per episode. Its *steady* rate is timed from the first stored
   episode to the last (worker start-up, imports and the first episode excluded);
   the whole-run rate (start-up included) is shown beside it. League figures are
   wall clock (the workers' CPU time is not this process's).

    .venv/bin/python bench/python_policy_overhead.py [episodes, default 200]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from coworld.episode import play
from coworld.league.config import load_league
from coworld.league.engine import Step
from coworld.league.progress import Advance, quiet
from coworld.league.runner import LeagueRun
from coworld.league.schedule import Pairing
from coworld.league.storage import LeagueDB

UNIFORM = (
    "import random\n\n"
    "RNG = random.Random(1)\n\n\n"
    "def act(view, legal_moves):\n"
    "    return RNG.choice(legal_moves)\n"
)


def runner_rate(seat0: str, seeds: range, out: Path | None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process, plies) of the episodes `seeds`
    through the episode runner; replays (if any) go to a fresh directory `out`."""
    if out:
        out.mkdir()
    plies = 0
    start, cpu = time.perf_counter(), time.process_time()
    for seed in seeds:
        replay = out / f"{seed}.jsonl" if out else None
        plies += play("connect-four", [seat0, "random"], seed=seed, out=replay)["plies"]
    return time.perf_counter() - start, time.process_time() - cpu, plies


def runner_rates(policies: dict[str, str], episodes: int, out: Path | None) -> dict[str, Any]:
    """Per policy: episodes/s, us a ply (wall and CPU), mean plies, over the same seeds,
    played in ABBA order (half the seeds each time) so a drift in the machine's load
    falls on both alike."""
    half = episodes // 2
    totals = {name: [0.0, 0.0, 0.0] for name in policies}
    order = [*policies, *reversed(policies)]
    for i, name in enumerate(order):
        seeds = range(1, half + 1) if i < len(policies) else range(half + 1, 2 * half + 1)
        wall, cpu, plies = runner_rate(policies[name], seeds, out / str(i) if out else None)
        for j, v in enumerate((wall, cpu, plies)):
            totals[name][j] += v
    return {
        name: (2 * half / wall, wall / plies * 1e6, cpu / plies * 1e6, plies / (2 * half))
        for name, (wall, cpu, plies) in totals.items()
    }


class TimedRun(LeagueRun):
    """A league run that notes when each runner episode is stored (its progress hook)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stored: list[float] = []

    def play(self, db: LeagueDB, schedule: list[Pairing], advance: Advance = quiet) -> Step:
        stored = self.stored

        def timed(episodes: int, *args: Any, batch: bool = False, **kw: Any) -> None:
            if not batch:
                stored.extend([time.monotonic()] * episodes)
            advance(episodes, *args, batch=batch, **kw)

        return super().play(db, schedule, timed)


def league_rate(tmp: Path, name: str, policies: list[str], episodes: int) -> dict[str, float]:
    """Whole-run episodes/s and us/ply, mean plies, and (runner episodes) the steady
    rate from the first stored episode to the last."""
    toml = tmp / f"{name}.toml"
    quoted = ", ".join(f'"{p}"' for p in policies)
    toml.write_text(
        f'name = "{name}"\ngames = ["connect-four"]\npolicies = [{quoted}]\n'
        f'episodes = {episodes}\nseed = 1\nconcurrency = 2\nreplays = 0\nout = "{name}"\n'
    )
    run = TimedRun(load_league(toml), progress=False)
    report = run.run()
    db = LeagueDB.open_existing(report.database)
    try:
        plies = sum(r.plies for r in db.episodes(name))
    finally:
        db.close()
    out = {
        "episodes": report.episodes,
        "eps": report.episodes / report.playing_seconds,
        "us_ply": report.playing_seconds / plies * 1e6,
        "plies": plies / report.episodes,
    }
    if len(run.stored) > 1:
        steady = run.stored[-1] - run.stored[0]
        after = len(run.stored) - 1  # episodes stored after the first
        out["steady_eps"] = after / steady
        out["steady_us_ply"] = steady / (after * out["plies"]) * 1e6
        out["startup"] = report.playing_seconds - steady  # start-up and the first episode
    return out


def main() -> None:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load}; connect-four, seat 0 as named, seat 1 the random baseline")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "uniform.py").write_text(UNIFORM)
        py = str(tmp / "uniform.py")
        print(f"episode runner, {episodes} episodes, one process:")
        policies = {"random baseline": "random", "Python policy": py}
        for files in (None, tmp / "replays"):
            if files:
                files.mkdir()
            print(f"  {'writing replays' if files else 'no files'}:")
            rates = runner_rates(policies, episodes, files)
            for who, (eps, us, cpu, plies) in rates.items():
                print(
                    f"    {who:<16} {eps:8.1f} episodes/s  {us:6.1f} us a ply "
                    f"(CPU {cpu:5.1f})  {plies:.1f} plies an episode"
                )
            base, mine = rates["random baseline"], rates["Python policy"]
            print(
                f"    Python / baseline, per ply: {mine[1] / base[1]:.2f}x wall, "
                f"{mine[2] / base[2]:.2f}x CPU"
            )
        # the same number of episodes: random's self-play table, and the two seat
        # orders of the Python policy against random, episodes // 2 seeds each
        scripted = league_rate(tmp, "scripted", ["random"], episodes)
        python = league_rate(tmp, "python", [py, "random"], episodes // 2)
        print("league, local backend:")
        print(
            f"  random vs random, batch simulator, whole run: {scripted['eps']:10.1f} episodes/s "
            f"{scripted['us_ply']:7.2f} us a ply ({scripted['plies']:.1f} plies, "
            f"{scripted['episodes']} episodes)"
        )
        print(
            f"  Python policy vs random, 2 workers, steady:   {python['steady_eps']:10.1f} "
            f"episodes/s {python['steady_us_ply']:7.2f} us a ply ({python['plies']:.1f} plies, "
            f"{python['episodes']} episodes)"
        )
        print(
            f"    (whole run {python['eps']:.1f} episodes/s, {python['us_ply']:.2f} us a ply; "
            f"about {python['startup']:.2f} s to the first stored episode)"
        )


if __name__ == "__main__":
    main()
