"""The budget's guarantee across processes (Ray tasks): each call's reservation is
a row of the league database, made in one IMMEDIATE transaction against what the
run's calls spent (written as each returns) plus every reservation in flight, so
no two processes can both take the last of the budget."""

from __future__ import annotations

from ..seats.budget import BudgetExhausted, within_caps
from ..usage import Usage
from .storage import LeagueDB

#: (max_tokens, max_cost_usd) of a league's budget; None: no cap of that kind.
Caps = tuple[int | None, float | None]


class SharedLedger:
    """`seats.budget.Ledger`'s reserve and settle, with the spend and the
    reservations of every process of the run in the league database."""

    def __init__(self, db: LeagueDB, league: str, caps: Caps) -> None:
        self.db = db
        self.league = league
        self.max_tokens, self.max_cost_usd = caps
        self._rows: dict[int, int] = {}  # id(worst) -> its reservation's row

    def reserve(self, worst: Usage) -> None:
        with self.db.transaction() as c:  # BEGIN IMMEDIATE: one reservation at a time
            spent = self.db.spent(self.league)
            tokens, cost = c.execute(
                "SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost_usd), 0) "
                "FROM reservations WHERE league=?",
                (self.league,),
            ).fetchone()
            if not within_caps(
                self.max_tokens,
                self.max_cost_usd,
                spent.tokens + tokens + worst.tokens,
                spent.cost_usd + cost + worst.cost_usd,
            ):
                raise BudgetExhausted()
            row = c.execute(
                "INSERT INTO reservations VALUES (?, ?, ?)",
                (self.league, worst.tokens, worst.cost_usd),
            ).lastrowid
        assert row is not None
        self._rows[id(worst)] = row

    def settle(self, worst: Usage, actual: Usage | None) -> None:
        """Release the reservation (the answer's usage is already in `calls`)."""
        row = self._rows.pop(id(worst))
        with self.db.transaction() as c:
            c.execute("DELETE FROM reservations WHERE rowid=?", (row,))
