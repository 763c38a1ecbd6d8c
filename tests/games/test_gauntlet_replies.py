"""The Claude-seat face of the gauntlet: rules text, observations and reply parsing.
Hypothesis fuzzes the parser and the move reader: nothing but `ReplyRejected` /
`IllegalMove` may ever escape, and nothing may crash the interpreter."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coworld
from coworld.errors import IllegalMove, ReplyRejected
from coworld.games import gauntlet
from coworld.seats.jsonreply import extract_json_object
from coworld.seats.reply import NOTES_LIMIT, SAY_LIMIT

GAUNTLET = tuple(coworld.catalog()["rotate"]["rotation"])  # the four gauntlet games
ALIASES = ["cog-1a2b", "cog-3c4d"]


def states():
    out = []
    for game_id, moves in (
        ("connect-four", "d d e"),
        ("breakthrough", "c2-c3 c5-c4"),
        ("hex", "d4 c5"),
        ("quoridor", "e2 e8 e3h"),
    ):
        s = coworld.game(game_id).init(seed=1)
        for m in moves.split():
            s = s.apply(m)
        out.append(s)
    return out


STATES = states()


def test_rules_text_covers_every_game_and_the_reply_format() -> None:
    assert set(gauntlet.RULES_TEXT) == {*GAUNTLET, "rotate"}
    for game_id, text in gauntlet.RULES_TEXT.items():
        assert game_id in text
        assert '{"move"' in text and '"say"' in text and '"notes"' in text
    assert gauntlet.FALLBACK == "tactician"
    assert "tactician" in coworld.game("hex").init(seed=1).policy_names


@pytest.mark.parametrize("state", STATES, ids=GAUNTLET)
def test_observation_text(state) -> None:
    seat = state.active_seat
    text = gauntlet.observation_text(
        state, seat, notes="watch file e", operator_prompt="Play sharp.", aliases=ALIASES
    )
    view = state.view()
    assert text.splitlines()[0] == view["game"]
    assert ALIASES[seat] in text and ALIASES[1 - seat] in text
    assert "red" in text and "blue" in text
    assert "HEURISTIC" in text
    assert str(view["standing"][0]) in text and str(view["standing"][1]) in text
    assert ", ".join(view["legalMoves"]) in text
    for m in view["history"]:
        assert m in text
    assert "watch file e" in text and "Play sharp." in text
    # No policy names, no internal indices.
    assert "tactician" not in text and "random" not in text
    # The ASCII board carries coordinates on both axes.
    assert " a b c d " in text
    assert re.search(rf"^ *{view['ranks']}  [.RB |]+  {view['ranks']}$", text, re.M)
    assert re.search(r"^ *1  [.RB |]+  1$", text, re.M)


def test_observation_first_line_names_the_resolved_rotation_game() -> None:
    s = coworld.game("rotate").init(seed=6)
    text = gauntlet.observation_text(s, 0, notes="", operator_prompt="", aliases=ALIASES)
    assert text.splitlines()[0] == "hex" == s.resolved_game
    assert "seed 6 picks RotationOrder[2] = hex" in text.splitlines()[1]
    assert gauntlet.rules_for(s) == gauntlet.RULES_TEXT["hex"]


def test_quoridor_board_draws_walls_where_the_core_says() -> None:
    s = coworld.game("quoridor").init(seed=1).apply("e3h").apply("d7v")
    board = gauntlet.board_text(s.view()).splitlines()
    rank8 = next(line for line in board if line.startswith(" 8"))
    assert rank8.index("|") == 4 + 2 * 3 + 1  # between d8 and e8
    under3 = board[board.index(next(line for line in board if line.startswith(" 4"))) + 1]
    assert under3[4 + 2 * 4] == "-" and under3[4 + 2 * 5] == "-"  # under e4 and f4


@pytest.mark.parametrize(
    "reply",
    [
        '{"move": "MOVE", "say": "hi", "notes": "n"}',
        'Sure!\n```json\n{"move": "MOVE", "say": "hi", "notes": "n"}\n```',
        'I think {"thoughts": 1} then {"move": "MOVE", "say": "hi", "notes": "n"} ok',
    ],
)
@pytest.mark.parametrize("state", STATES, ids=GAUNTLET)
def test_parse_reply_reads_json_wherever_it_sits(state, reply: str) -> None:
    move = state.legal_moves()[-1]
    r = gauntlet.parse_reply(reply.replace("MOVE", move.upper()), state, state.active_seat, ALIASES)
    assert (r.move, r.say, r.notes) == (move, "hi", "n")


def test_parse_reply_truncates_say_and_notes() -> None:
    s = STATES[2]
    reply = json.dumps({"move": "a1", "say": "x" * 500, "notes": "é" * 900})
    r = gauntlet.parse_reply(reply, s, s.active_seat, ALIASES)
    assert r.say == "x" * SAY_LIMIT and r.notes == "é" * NOTES_LIMIT


def test_parse_reply_accepts_a_connect_four_digit_as_a_number() -> None:
    s = STATES[0]
    assert gauntlet.parse_reply('{"move": 4}', s, s.active_seat, ALIASES).move == "d"


@pytest.mark.parametrize(
    ("reply", "cause", "words"),
    [
        ("no json here", "unparseable", "no JSON object"),
        ('{"say": "hi"}', "unparseable", 'no "move"'),
        ('{"move": ["d4"]}', "unparseable", 'no "move"'),
        ('{"move": "zz9"}', "unparseable", "cell name"),
        ('{"move": "d4"}', "illegal", "already holds"),
    ],
)
def test_parse_reply_rejections_are_specific(reply: str, cause: str, words: str) -> None:
    s = STATES[2]  # hex after d4 c5
    with pytest.raises(ReplyRejected) as info:
        gauntlet.parse_reply(reply, s, s.active_seat, ALIASES)
    assert info.value.cause == cause
    assert words in info.value.reason
    if cause == "illegal" or "move" in reply:
        assert "legal moves: a1, b1" in info.value.reason


def test_parse_reply_out_of_turn_and_after_the_end() -> None:
    s = STATES[1]
    with pytest.raises(ReplyRejected) as info:
        gauntlet.parse_reply('{"move": "c3-b4"}', s, 1 - s.active_seat, ALIASES)
    assert info.value.cause == "illegal"
    over = coworld.game("connect-four").init(seed=1)
    for m in "a b a b a b a".split():
        over = over.apply(m)
    with pytest.raises(ReplyRejected):
        gauntlet.parse_reply('{"move": "c"}', over, 0, ALIASES)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
move_like = st.sampled_from(
    ["d4", "e2", "e3h", "b2-c3", "a", "7", "D 4", "i9", "h8v", "a1a2", ""]
) | st.text(max_size=12)
replies = st.one_of(
    st.text(),
    st.builds(
        lambda m, say, notes, pre, post: (
            pre + json.dumps({"move": m, "say": say, "notes": notes}) + post
        ),
        move_like | json_values,
        json_values,
        json_values,
        st.text(max_size=20),
        st.text(max_size=20),
    ),
    st.just("{" * 5000 + "}" * 5000),
    st.just("[" * 100000),
    st.just('{"move": "\\ud800"}'),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=replies, which=st.integers(0, 3))
def test_parse_reply_raises_only_reply_rejected(reply: str, which: int) -> None:
    state = STATES[which]
    try:
        r = gauntlet.parse_reply(reply, state, state.active_seat, ALIASES)
    except ReplyRejected as e:
        assert e.cause in ("unparseable", "illegal") and e.reason
    else:
        assert r.move in state.legal_moves()
        assert len(r.say) <= SAY_LIMIT and len(r.notes) <= NOTES_LIMIT


@settings(max_examples=300, deadline=None)
@given(text=move_like | st.text(), which=st.integers(0, 3))
def test_apply_raises_only_illegal_move_and_keeps_the_state(text: str, which: int) -> None:
    state = STATES[which]
    before = state.view()
    try:
        after = state.apply(text)
    except IllegalMove as e:
        assert e.kind in ("unparseable", "illegal")
        assert e.legal == state.legal_moves()
    except UnicodeEncodeError:
        pass  # a lone surrogate cannot cross into the core at all
    else:
        assert after.moves[-1] in state.legal_moves()
    assert state.view() == before


def test_extract_json_object_never_raises_anything_else() -> None:
    assert extract_json_object('x {"a": 1} y {"move": 2}', key="move") == {"move": 2}
    assert extract_json_object('{"a": 1}', key="move") == {"a": 1}
    for bad in (None, 3, "", "{", "[1, 2]", "{" * 100000):
        with pytest.raises(ReplyRejected):
            extract_json_object(bad)


def _grid_as_first_written(view, cells):
    """`gauntlet._grid` before its frames were cached: the reference text."""
    files = "abcdefghi"[: view["files"]]
    header = "    " + " ".join(files)
    rows = [header]
    for rank in range(view["ranks"], 0, -1):
        marks = [
            gauntlet.MARKS[cells[f"{f}{rank}"]] if f"{f}{rank}" in cells else "." for f in files
        ]
        rows.append(f"{rank:>2}  " + " ".join(marks) + f"  {rank}")
    rows.append(header)
    return rows


def _observations_of_a_random_game(game_id):
    """Both seats' observation texts at every ply of one random game."""
    state = coworld.game(game_id).init(seed=3)
    texts = []
    while True:
        for seat in (0, 1):
            texts.append(
                gauntlet.observation_text(
                    state, seat, notes="n", operator_prompt="Win.", aliases=["ann", "bob"]
                )
            )
        if state.is_terminal:
            return texts
        state = state.apply(state.baseline_move("random"))


@pytest.mark.parametrize("game_id", ["rotate", *coworld.games.ROTATION])
def test_observation_text_is_the_text_of_the_uncached_board(game_id, monkeypatch):
    """Every observation along a game (both seats) is the text the uncached board
    drawing gives, character for character."""
    texts = _observations_of_a_random_game(game_id)
    monkeypatch.setattr(gauntlet, "_grid", _grid_as_first_written)
    reference = _observations_of_a_random_game(game_id)
    assert texts == reference and len(texts) > 4
