"""A small search bot on coworld's public API, for any perfect-information game:
a one-ply lookahead that plays a winning move when there is one, refuses moves
that hand the opponent a win at once, and otherwise keeps the move after which
the opponent's best reply leaves it the highest `standing` (a two-ply search).

    coworld play connect-four -s examples/search_bot.py -s tactician --seed 3

It rebuilds the position from the seat's own view: a perfect-information view
lists every move so far (`history`), and replaying them through `coworld.game`
gives a state to search. A hidden-information game has no such list in its
view: the bot then says so once in `say` and plays its first legal move.
"""

from __future__ import annotations

import coworld

NAME = "search-bot"
TIME_LIMIT = 5.0


class Bot:
    def __init__(self) -> None:
        self.reducer = None

    def act(self, view, legal_moves):
        if "history" not in view or self._game(view) is None:
            return {"move": legal_moves[0], "say": "no history in my view: first legal move"}
        state = self.reducer.init(seed=1)
        for move in view["history"]:
            state = self.reducer.apply(state, move)
        me = state.active_seat
        best, best_value = legal_moves[0], None
        for move in legal_moves:
            after = self.reducer.apply(state, move)
            value = self._value(after, me)
            if best_value is None or value > best_value:
                best, best_value = move, value
        return {"move": best, "notes": f"value {best_value}"}

    def _game(self, view):
        if self.reducer is None and view.get("game") in coworld.GAMES:
            self.reducer = coworld.game(view["game"])
        return self.reducer

    def _value(self, state, me):
        """Worst case for `me` over the opponent's replies (a win is 10_000)."""
        if state.is_terminal:
            return 10_000 * state.results["score"][me]
        worst = None
        for reply in self.reducer.legal_moves(state):
            after = self.reducer.apply(state, reply)
            if after.is_terminal:
                value = 10_000 * after.results["score"][me]
            else:
                value = self.reducer.standing(after, me)
            worst = value if worst is None else min(worst, value)
        return worst
