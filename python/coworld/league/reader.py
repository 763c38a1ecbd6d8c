"""Reading a league database: results as records (`records.py`) and columns,
spend, voids. `LeagueDB` (storage.py) is a reader that also writes; this module
only reads."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..games import GAMES
from ..simulate import ENDINGS
from ..usage import Usage
from .records import Block, Chunk, EpisodeKey, EpisodeRow, VoidEpisode

#: Each chunk column's type, stored as little-endian blobs.
DTYPES = {"seed": "<i8", "score": "<i4", "plies": "<u4", "ending": "u1", "played": "u1"}


class LeagueReader:
    """The queries over a league database's connection."""

    path: Path
    conn: sqlite3.Connection

    def config(self, league: str) -> dict[str, Any]:
        """The league's stored config ({} for an unknown league)."""
        row = self.conn.execute("SELECT config FROM leagues WHERE name=?", (league,)).fetchone()
        return json.loads(row[0]) if row else {}

    def leagues(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM leagues ORDER BY created")]

    def spent(self, league: str) -> Usage:
        """Everything the league's calls cost: scored, void, interrupted or killed."""
        r = self.conn.execute(
            "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(calls), 0) FROM calls WHERE league=?",
            (league,),
        ).fetchone()
        return Usage(int(r[0]), int(r[1]), int(r[2]), int(r[3]), float(r[4]), int(r[5]))

    def voids(self, league: str) -> list[VoidEpisode]:
        """Every void attempt, oldest first (an episode re-run after a void may be done)."""
        rows = self.conn.execute(
            "SELECT pairing, idx, game, seed, seats, cause, detail, plies, input_tokens, "
            "output_tokens, cache_write_tokens, cache_read_tokens, calls, cost_usd, started, "
            "finished FROM voids WHERE league=? ORDER BY rowid",
            (league,),
        )
        return [
            VoidEpisode(
                EpisodeKey(r[0], r[1], r[2], r[3], tuple(json.loads(r[4]))),
                r[5],
                r[6],
                r[7],
                Usage(r[8], r[9], r[10], r[11], r[13], r[12]),
                r[14],
                r[15],
            )
            for r in rows
        ]

    def open_voids(self, league: str) -> dict[tuple[str, int], list[VoidEpisode]]:
        """(pairing, idx) -> its void attempts, for episodes still not scored."""
        out: dict[tuple[str, int], list[VoidEpisode]] = defaultdict(list)
        done: dict[str, set[int]] = {}
        for v in self.voids(league):
            if v.pairing not in done:
                done[v.pairing] = self.done(league, v.pairing)
            if v.idx not in done[v.pairing]:
                out[(v.pairing, v.idx)].append(v)
        return dict(out)

    def done(self, league: str, pairing: str) -> set[int]:
        """Indices of the pairing's scored episodes (chunks and runner episodes)."""
        found: set[int] = set()
        for start, count in self.conn.execute(
            "SELECT start, count FROM batches WHERE league=? AND pairing=?", (league, pairing)
        ):
            found.update(range(start, start + count))
        found.update(
            r[0]
            for r in self.conn.execute(
                "SELECT idx FROM episodes WHERE league=? AND pairing=? AND source='runner'",
                (league, pairing),
            )
        )
        return found

    def count(self, league: str) -> int:
        """Scored episodes in the league."""
        chunked = self.conn.execute(
            "SELECT COALESCE(SUM(count), 0) FROM batches WHERE league=?", (league,)
        ).fetchone()[0]
        played = self.conn.execute(
            "SELECT COUNT(*) FROM episodes WHERE league=? AND source='runner'", (league,)
        ).fetchone()[0]
        return int(chunked) + int(played)

    def chunks(self, league: str) -> list[Chunk]:
        rows = self.conn.execute(
            "SELECT pairing, game, seats, start, seed, score, plies, ending, played FROM batches "
            "WHERE league=? ORDER BY game, pairing, start",
            (league,),
        )
        out = []
        for pairing, game, seats_json, start, *blobs in rows:
            seats = tuple(json.loads(seats_json))
            arrays = {
                k: np.frombuffer(b, dtype=d)
                for (k, d), b in zip(DTYPES.items(), blobs, strict=True)
            }
            arrays["score"] = arrays["score"].reshape(-1, len(seats))
            out.append(Chunk(pairing=pairing, game=game, seats=seats, start=start, **arrays))
        return out

    def runner_rows(self, league: str, source: str | None = "runner") -> list[EpisodeRow]:
        """Episode rows: the runner's (scored), the replay listings, or both (source None)."""
        query = (
            "SELECT pairing, idx, game, played, seed, seats, score, reason, ending, plies, "
            "replay, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, calls, "
            "cost_usd, decisions, started, finished FROM episodes WHERE league=?"
        )
        args: tuple[Any, ...] = (league,)
        if source is not None:
            query += " AND source=?"
            args += (source,)
        rows = self.conn.execute(query + " ORDER BY game, pairing, idx", args)
        return [
            EpisodeRow(
                EpisodeKey(r[0], r[1], r[2], r[4], tuple(json.loads(r[5]))),
                r[3],
                tuple(json.loads(r[6])),
                r[7],
                r[8],
                r[9],
                r[10],
                Usage(r[11], r[12], r[13], r[14], r[16], r[15]),
                tuple(json.loads(r[17])) if r[17] else None,
                r[18],
                r[19],
            )
            for r in rows
        ]

    def blocks(self, league: str) -> list[Block]:
        """Every scored episode as columns: one block per chunk, one per runner pairing."""
        chunked = [
            Block(c.game, c.seats, c.score.astype(float), index=c.start + np.arange(c.count))
            for c in self.chunks(league)
        ]
        return chunked + group_rows(self.runner_rows(league))

    def episodes(self, league: str) -> list[EpisodeRow]:
        """Every scored episode as a row (chunks expanded): exact, and slow for big leagues."""
        rows = list(self.runner_rows(league))
        for c in self.chunks(league):
            for i in range(c.count):
                ending = ENDINGS[int(c.ending[i])]
                rows.append(
                    EpisodeRow(
                        EpisodeKey(c.pairing, c.start + i, c.game, int(c.seed[i]), c.seats),
                        GAMES[int(c.played[i])],
                        tuple(float(x) for x in c.score[i]),
                        "deadline" if ending == "wall-clock" else "complete",
                        ending,
                        int(c.plies[i]),
                    )
                )
        return sorted(rows, key=lambda r: (r.game, r.pairing, r.idx))

    def usage(self, league: str, *, voided: bool = True) -> Usage:
        """Usage (every kind of token, calls and cost) spent so far: by scored
        episodes, and (`voided`) by void attempts too."""
        columns = (
            "COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(calls), 0)"
        )
        total = Usage()
        queries = [f"SELECT {columns} FROM episodes WHERE league=? AND source='runner'"]
        if voided:
            queries.append(f"SELECT {columns} FROM voids WHERE league=?")
        for query in queries:
            r = self.conn.execute(query, (league,)).fetchone()
            total.add(Usage(int(r[0]), int(r[1]), int(r[2]), int(r[3]), float(r[4]), int(r[5])))
        return total


def group_rows(rows: Sequence[EpisodeRow]) -> list[Block]:
    """Rows as blocks (one per game and seating), for ranking a list of rows."""
    grouped: dict[tuple[str, tuple[str, ...]], list[EpisodeRow]] = defaultdict(list)
    for r in rows:
        grouped[(r.game, r.seats)].append(r)
    return [
        Block(
            game,
            seats,
            np.array([r.score for r in rs], dtype=float).reshape(len(rs), len(seats)),
            tuple(r.decisions or tuple({} for _ in seats) for r in rs),
            np.array([r.idx for r in rs], dtype=np.int64),
        )
        for (game, seats), rs in grouped.items()
    ]
