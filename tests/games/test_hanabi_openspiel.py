"""Differential test: coworld's hanabi against OpenSpiel's `hanabi(players=4)`
(the Hanabi Learning Environment), move by move.

Every game forces OUR deal through OpenSpiel's chance nodes (each chance
outcome deals one card identity, so the card we drew next is the outcome we
apply), then both engines play the same moves. At every decision we compare
the current seat, the legal move sets, and after every move the tokens, fuses,
fireworks, deck size, discard pile, every hand (card by card) and every card's
hint knowledge; at the end, that both stop together with the same score.

Mapping (our notation <- HLE):
- Colours: ours red, yellow, green, blue, white; HLE's order is R Y G W B, so a
  chance outcome is `5 * hle_colour + rank - 1`.
- Slots: our slot 1 is the newest card; HLE appends a drawn card at the end of
  the hand and closes the gap when one leaves, so HLE index i is our slot
  `len(hand) - i`.
- Hint targets: HLE names a seat by offset (`player +k`); ours is absolute, (mover + k) % 4.

Rule differences, on purpose:
- Turn cap: we stop at 100 turns (ending `turn-cap`, score = fireworks); HLE has
  no cap. A game that reaches our cap is compared up to it and not at its end.
  (With 34 cards to draw and 8 tokens a 4-seat game cannot in fact last 100 turns.)
Everything else agrees: hints only touch at least one card and only go to
another seat; no discard at 8 tokens; a 5 returns a token below 8; after the
last draw each seat (the drawer included) takes one more turn; losing the third
fuse scores 0.
"""

from __future__ import annotations

import random
import re

import pytest

import coworld

pyspiel = pytest.importorskip("pyspiel")

SEATS = 4
GAMES = 1000
HLE_COLOURS = "RYGWB"
OUR_COLOURS = ("red", "yellow", "green", "blue", "white")
LETTER = {"red": "R", "yellow": "Y", "green": "G", "blue": "B", "white": "W"}
NAME = {v: k for k, v in LETTER.items()}


def chance_outcome(card: str) -> int:
    colour, rank = card.split()
    return 5 * HLE_COLOURS.index(LETTER[colour]) + int(rank) - 1


def our_move(os_state, action: int, hand_size: int, seats: int) -> str:
    """An HLE action in our canonical notation."""
    cur = os_state.current_player()
    text = os_state.action_to_string(cur, action)
    if m := re.fullmatch(r"\((Play|Discard) (\d)\)", text):
        return f"{m[1].lower()} {hand_size - int(m[2])}"
    if m := re.fullmatch(r"\(Reveal player \+(\d) color ([RYGWB])\)", text):
        return f"hint {(cur + int(m[1])) % seats} colour {NAME[m[2]]}"
    if m := re.fullmatch(r"\(Reveal player \+(\d) rank (\d)\)", text):
        return f"hint {(cur + int(m[1])) % seats} rank {m[2]}"
    raise AssertionError(f"unmapped HLE action {text!r}")


def parse_hle(os_state) -> dict:
    """The public table and every hand from HLE's state text."""
    text = str(os_state)
    lives = int(re.search(r"Life tokens: (\d+)", text)[1])
    info = int(re.search(r"Info tokens: (\d+)", text)[1])
    fireworks = dict(re.findall(r"([RYGWB])(\d)", re.search(r"Fireworks: (.*)", text)[1]))
    deck = int(re.search(r"Deck size: (\d+)", text)[1])
    discards = sorted(re.search(r"Discards:(.*)", text)[1].split())
    body = text.split("Hands:\n", 1)[1].split("Deck size:", 1)[0]
    hands = []
    for block in body.split("-----"):
        cards = [ln.split(" || ") for ln in block.strip().splitlines() if "||" in ln]
        hands.append(cards)
    return {
        "lives": lives,
        "info": info,
        "fireworks": {k: int(v) for k, v in fireworks.items()},
        "deck": deck,
        "discards": discards,
        "hands": hands,
    }


def hle_card(card: str) -> str:
    colour, rank = card.split()
    return LETTER[colour] + rank


def hle_knowledge(k: dict) -> str:
    """Our hint knowledge in HLE's `XX|RYGWB12345` form."""
    colour = LETTER[k["colour"]] if k["colour"] else "X"
    rank = str(k["rank"]) if k["rank"] else "X"
    if k["colour"]:
        colours = [LETTER[k["colour"]]]
    else:
        colours = [LETTER[c] for c in OUR_COLOURS if c not in k["notColours"]]
    ranks = (
        [str(k["rank"])] if k["rank"] else [str(r) for r in range(1, 6) if r not in k["notRanks"]]
    )
    plausible = "".join(c for c in HLE_COLOURS if c in colours) + "".join(ranks)
    return f"{colour}{rank}|{plausible}"


def compare_tables(ours: dict, hle: dict, where: str) -> None:
    assert hle["lives"] == ours["fuses"], where
    assert hle["info"] == ours["hintTokens"], where
    assert hle["fireworks"] == {LETTER[c]: n for c, n in ours["fireworks"].items()}, where
    assert hle["deck"] == ours["deckCount"], where
    assert hle["discards"] == sorted(hle_card(c) for c in ours["discard"]), where
    for seat in range(ours["seats"]):
        # HLE lists a hand oldest first; our slot 1 is the newest.
        mine = [
            [hle_card(c["card"]), hle_knowledge(c["knowledge"])]
            for c in reversed(ours["hands"][seat])
        ]
        assert hle["hands"][seat] == mine, f"{where}: seat {seat}"


def deal_forced(os_state, draws: list[str]) -> None:
    while os_state.is_chance_node():
        card = draws.pop(0)
        outcome = chance_outcome(card)
        assert outcome in [a for a, _ in os_state.chance_outcomes()], card
        os_state.apply_action(outcome)


def play_both(seed: int, cautious_bias: float, seats: int = SEATS) -> tuple[str, int]:
    """One game through both engines. `cautious_bias` is the chance of picking a
    non-play move, so some games run to the end of the deck."""
    g = coworld.game({"game": "hanabi", "seats": seats})
    s = g.init(seed=seed)
    v = s.view()
    draws = [c["card"] for h in v["hands"] for c in reversed(h)] + list(v["deck"])
    os_state = pyspiel.load_game("hanabi", {"players": seats}).new_initial_state()
    deal_forced(os_state, draws)
    pick = random.Random(seed)
    while True:
        where = f"seed {seed} turn {s.plies}"
        ours = s.view()
        compare_tables(ours, parse_hle(os_state), where)
        if s.is_terminal:
            break
        assert not os_state.is_terminal(), where
        seat = s.active_seat
        assert os_state.current_player() == seat, where
        size = len(ours["hands"][seat])
        legal = s.legal_moves()
        theirs = {our_move(os_state, a, size, seats): a for a in os_state.legal_actions()}
        assert set(theirs) == set(legal), where
        quiet = [m for m in legal if not m.startswith("play")]
        move = pick.choice(quiet if quiet and pick.random() < cautious_bias else legal)
        s = g.apply(s, move)
        os_state.apply_action(theirs[move])
        deal_forced(os_state, draws)
    r = s.results
    if r["ending"] != "turn-cap":
        assert os_state.is_terminal(), f"seed {seed}: we ended ({r['ending']}), HLE did not"
        assert os_state.returns() == [float(x) for x in r["score"]], f"seed {seed}"
    return r["ending"], r["score"][0]


def test_openspiel_hanabi_has_our_parameters():
    game = pyspiel.load_game("hanabi", {"players": SEATS})
    # 4 discards + 4 plays + 3 targets x (5 colours + 5 ranks): hand size 4, 5 colours, 5 ranks.
    assert game.num_distinct_actions() == 4 + 4 + 3 * 10
    assert game.max_chance_outcomes() == 25
    hle = parse_hle(game.new_initial_state())
    assert (hle["lives"], hle["info"], hle["deck"]) == (3, 8, 50)


def test_random_games_agree_move_by_move():
    endings: dict[str, int] = {}
    scores = 0
    for i in range(GAMES):
        ending, score = play_both(seed=10_000 + i, cautious_bias=0.0 if i % 2 else 0.9)
        endings[ending] = endings.get(ending, 0) + 1
        scores += score
    # The loop must have exercised every ending a random game can reach.
    assert endings.get("fuses", 0) > GAMES // 4, endings
    assert endings.get("final-round", 0) > GAMES // 10, endings
    assert scores > 0


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_other_seat_counts_agree_too(seats):
    """Hand size 5 at 2-3 seats, 4 at 5 seats; hint offsets wrap differently."""
    endings = set()
    for i in range(100):
        endings.add(play_both(seed=20_000 + i, cautious_bias=0.0 if i % 2 else 0.9, seats=seats)[0])
    assert {"fuses", "final-round"} <= endings
