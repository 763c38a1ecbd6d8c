"""Pure-Python fixture reducers for the SDK tests.

`HiddenDeckGame`: three seats, nine cards (colours b, g, r; ranks 1-3).
The deal for a seed is the seed-th permutation (mod 9!) of the sorted cards in
lexicographic order (Lehmer code), so every deal in these tests is derivable
by hand: seat s holds cards[2s:2s+2] (slot 1 first), the deck is cards[6:9]
(top first). A turn is "play k" (the card at slot k goes face up to the
discard pile, the seat scores its rank and draws the deck's top card, if any,
into slot 1) or "stash k" (the card goes face up into the bag; no draw). The game
ends after `turns` actions (level {"turns": n}, default 6) or when the seat to
act holds no card.

Zones: deck (face down, real order nobody sees), hand:0..2 (owner only),
discard (face up, in order of play), bag (face up, no order: a `Bag`).
Board "field": 4 files x 3 ranks of squares; scouts of seats 0, 1, 2 on a1,
d1, d3, a rock (opaque) on c2, a gem on b3. A seat sees the cells within 2
king steps of its scout that are in line of sight; fogged entities show as
shells. Every reveal is recorded with `create_information_revelation`.

`Nim`: two seats, heaps; a move takes 1..n from one heap; whoever takes the
last object wins (+1/-1). Perfect information: no `view_for`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import factorial
from typing import Any

from coworld.errors import IllegalMove
from coworld.sdk import (
    Bag,
    BoardVisibilityPolicy,
    Public,
    Seats,
    SquareGrid,
    SubmittedAction,
    ZoneVisibilityPolicy,
    create_information_revelation,
    derive_seat_view,
    fov_predicate,
    seat_view,
)

CARDS = ("b1", "b2", "b3", "g1", "g2", "g3", "r1", "r2", "r3")
SEATS = (0, 1, 2)
FIELD = SquareGrid(4, 3)
SCOUTS = {0: "a1", 1: "d1", 2: "d3"}
ROCK = "c2"
GEM = "b3"


def deal(seed: int) -> list[str]:
    """The seed-th permutation of CARDS in lexicographic order (mod 9!)."""
    left = list(CARDS)
    index = seed % factorial(len(left))
    order = []
    for position in range(len(left) - 1, -1, -1):
        digit, index = divmod(index, factorial(position))
        order.append(left.pop(digit))
    return order


def rank(card: str) -> int:
    return int(card[1])


@dataclass(frozen=True)
class CardState:
    hands: tuple[tuple[str, ...], ...]
    deck: tuple[str, ...]
    discard: tuple[str, ...] = ()
    bag: Bag = Bag()
    step: int = 0
    turns: int = 6
    scores: tuple[int, ...] = (0, 0, 0)
    revelations: tuple[dict, ...] = ()

    @property
    def active_seat(self) -> int | None:
        seat = self.step % 3
        if self.step >= self.turns or not self.hands[seat]:
            return None
        return seat

    @property
    def is_terminal(self) -> bool:
        return self.active_seat is None

    @property
    def results(self) -> dict[str, Any] | None:
        if not self.is_terminal:
            return None
        best = max(self.scores)
        winners = [s for s in SEATS if self.scores[s] == best]
        return {
            "score": list(self.scores),
            "winner": winners[0] if len(winners) == 1 else None,
            "steps": self.step,
        }


def field_policy(hidden_entity_mode: str = "shell") -> BoardVisibilityPolicy:
    visible = fov_predicate(FIELD, {s: [c] for s, c in SCOUTS.items()}, radius=2, opaque=[ROCK])
    return BoardVisibilityPolicy(visible, hidden_entity_mode)  # type: ignore[arg-type]


POLICIES = {
    "deck": ZoneVisibilityPolicy.deck(),
    **{f"hand:{s}": ZoneVisibilityPolicy.owned_by(s) for s in SEATS},
    "discard": ZoneVisibilityPolicy.public(),
    "bag": ZoneVisibilityPolicy.bag(),
    "field": field_policy(),
}


def field_cells_full() -> dict[str, Any]:
    board: dict[str, Any] = {cell: None for cell in FIELD.cells()}
    for seat, cell in SCOUTS.items():
        board[cell] = {"scout": seat}
    board[ROCK] = {"rock": True}
    board[GEM] = {"gem": "ruby"}
    return board


class HiddenDeckGame:
    """The hidden-deck card game (module doc). Implements `view_for` by `derive_seat_view`."""

    id = "hidden-deck"

    def init(self, level: dict | None = None, seed: int = 0) -> CardState:
        cards = deal(seed)
        hands = tuple(tuple(cards[2 * s : 2 * s + 2]) for s in SEATS)
        turns = (level or {}).get("turns", 6)
        return CardState(hands=hands, deck=tuple(cards[6:]), turns=turns)

    def legal_moves(self, state: CardState) -> list[str]:
        seat = state.active_seat
        if seat is None:
            return []
        count = seat_view(self, state, seat)["zones"][f"hand:{seat}"]["count"]
        return [f"{verb} {k}" for verb in ("play", "stash") for k in range(1, count + 1)]

    def apply(self, state: CardState, action: SubmittedAction) -> CardState:
        seat = state.active_seat
        if not isinstance(action, SubmittedAction) or action.seat != seat:
            raise IllegalMove(f"it is seat {seat}'s turn; submit SubmittedAction({seat}, ...)")
        legal = self.legal_moves(state)
        if action.action not in legal:
            raise IllegalMove(f"{action.action!r} is not legal; legal: {', '.join(legal)}")
        verb, slot = action.action.split()
        hand = list(state.hands[seat])
        card = hand.pop(int(slot) - 1)
        step = state.step + 1
        changes: dict[str, Any] = {}
        if verb == "play":
            changes["discard"] = (*state.discard, card)
            scores = list(state.scores)
            scores[seat] += rank(card)
            changes["scores"] = tuple(scores)
        else:
            changes["bag"] = state.bag.add(card)
        deck = state.deck
        if deck and verb == "play":
            hand.insert(0, deck[0])
            deck = deck[1:]
        hands = tuple(tuple(hand) if s == seat else state.hands[s] for s in SEATS)
        record = create_information_revelation(
            what="card",
            identity=card,
            step=step,
            from_visibility=Seats([seat]),
            to_visibility=Public(),
            from_zone=f"hand:{seat}",
            to_zone="discard" if verb == "play" else "bag",
            seats=SEATS,
        )
        return replace(
            state,
            hands=hands,
            deck=deck,
            step=step,
            revelations=(*state.revelations, record),
            **changes,
        )

    def view(self, state: CardState) -> dict[str, Any]:
        zones: dict[str, Any] = {"deck": list(state.deck)}
        zones.update({f"hand:{s}": list(state.hands[s]) for s in SEATS})
        zones["discard"] = list(state.discard)
        zones["bag"] = list(state.bag)
        return {
            "activeSeat": state.active_seat,
            "step": state.step,
            "turns": state.turns,
            "scores": list(state.scores),
            "zones": zones,
            "boards": {"field": field_cells_full()},
            "revelations": list(state.revelations),
        }

    def view_for(self, state: CardState, seat: int) -> dict[str, Any]:
        return derive_seat_view(self.view(state), POLICIES, seat)


def lowest_card(reducer: Any, state: CardState, seat: int) -> str:
    """Play the lowest-ranked card (ties: the first in colour order), read from the own view."""
    hand = seat_view(reducer, state, seat)["zones"][f"hand:{seat}"]["entities"]
    best = min(range(len(hand)), key=lambda i: (rank(hand[i]), hand[i]))
    return f"play {best + 1}"


def first_slot(reducer: Any, state: CardState, seat: int) -> str:
    return "play 1"


@dataclass(frozen=True)
class NimState:
    heaps: tuple[int, ...]
    active_seat: int | None = 0
    winner: int | None = None

    @property
    def is_terminal(self) -> bool:
        return self.active_seat is None

    @property
    def results(self) -> dict[str, Any] | None:
        if self.winner is None:
            return None
        return {"score": [1, -1] if self.winner == 0 else [-1, 1], "winner": self.winner}


class Nim:
    """Normal-play Nim; heaps are named a, b, c...; a move is "take n from a"."""

    def init(self, level: dict | None = None, seed: int = 0) -> NimState:
        return NimState(heaps=tuple((level or {}).get("heaps", (1, 2, 3))))

    def legal_moves(self, state: NimState) -> list[str]:
        if state.is_terminal:
            return []
        return [
            f"take {n} from {chr(97 + h)}"
            for h, size in enumerate(state.heaps)
            for n in range(1, size + 1)
        ]

    def apply(self, state: NimState, action: SubmittedAction) -> NimState:
        if action.action not in self.legal_moves(state) or action.seat != state.active_seat:
            raise IllegalMove(f"{action!r} is not legal; legal: {self.legal_moves(state)}")
        _, n, _, heap = action.action.split()
        heaps = list(state.heaps)
        heaps[ord(heap) - 97] -= int(n)
        mover = state.active_seat
        if not any(heaps):
            return NimState(tuple(heaps), None, mover)
        return NimState(tuple(heaps), 1 - mover)  # type: ignore[operator]

    def view(self, state: NimState) -> dict[str, Any]:
        return {"heaps": list(state.heaps), "activeSeat": state.active_seat}
