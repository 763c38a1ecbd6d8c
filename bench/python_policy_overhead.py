"""What a Python policy costs: episodes per second of a trivial Python policy
(`act` returns the first legal move) against the built-in `random` baseline in
the same seat, on connect-four against `random`.

1. The episode runner, one process (`coworld.episode.play`, no files): the
   per-decision cost of asking Python, building the seat's view and recording.
2. A league (`coworld league run`, local backend): random vs random runs through
   the batch simulator; a pairing with the Python policy runs through the
   episode runner in worker processes and writes a replay per episode.

    .venv/bin/python bench/python_policy_overhead.py [episodes, default 200]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from coworld.episode import play
from coworld.league.config import load_league
from coworld.league.runner import LeagueRun

TRIVIAL = "def act(view, legal_moves):\n    return legal_moves[0]\n"


def runner_rate(seat0: str, episodes: int, out: Path | None) -> tuple[float, float]:
    """(episodes/s, microseconds per ply) through the episode runner."""
    plies = 0
    start = time.perf_counter()
    for seed in range(1, episodes + 1):
        replay = out / f"{seed}.jsonl" if out else None
        plies += play("connect-four", [seat0, "random"], seed=seed, out=replay)["plies"]
    seconds = time.perf_counter() - start
    return episodes / seconds, seconds / plies * 1e6


def league_rate(tmp: Path, name: str, policies: list[str], episodes: int) -> float:
    toml = tmp / f"{name}.toml"
    quoted = ", ".join(f'"{p}"' for p in policies)
    toml.write_text(
        f'name = "{name}"\ngames = ["connect-four"]\npolicies = [{quoted}]\n'
        f'episodes = {episodes}\nseed = 1\nconcurrency = 2\nreplays = 0\nout = "{name}"\n'
    )
    report = LeagueRun(load_league(toml), progress=False).run()
    return report.episodes / report.playing_seconds


def main() -> None:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "first.py").write_text(TRIVIAL)
        py = str(tmp / "first.py")
        print(f"episode runner, connect-four vs random, {episodes} episodes, one process:")
        for files in (None, tmp / "replays"):
            if files:
                files.mkdir()
            (b_eps, b_ply), (p_eps, p_ply) = (
                runner_rate(s, episodes, files) for s in ("random", py)
            )
            label = "writing replays" if files else "no files"
            print(f"  {label}: random baseline {b_eps:6.1f} episodes/s ({b_ply:.0f} us a ply);")
            pad = " " * len(label)
            print(f"  {pad}  Python policy   {p_eps:6.1f} episodes/s ({p_ply:.0f} us a ply)")
        scripted = league_rate(tmp, "scripted", ["random", "random"], episodes)
        python = league_rate(tmp, "python", [py, "random"], episodes // 2)
        print("league (local backend, 2 worker processes for Python-policy episodes):")
        print(f"  random vs random (batch simulator)       {scripted:10.1f} episodes/s")
        print(f"  Python policy vs random (episode runner) {python:10.1f} episodes/s")


if __name__ == "__main__":
    main()
