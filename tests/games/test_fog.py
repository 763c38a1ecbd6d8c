"""Fog-of-War Boards through the Python face: reducers, views, results, errors,
baselines in the simulator, the rules text, the observation text and the reply
parser (with a fuzz test: any input gives a Reply or ReplyRejected)."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coworld
from coworld.errors import ConfigError, IllegalMove, ReplyRejected
from coworld.games import fog, of_family

VARIANTS = list(of_family("fog"))
HEX = [g for g in VARIANTS if g != "phantom-ttt-3"]


def play(game_id: str, moves: str):
    g = coworld.game(game_id)
    s = g.init(seed=3)
    for m in moves.split():
        s = g.apply(s, m)
    return s


def test_the_family_is_registered_with_a_fog_reducer():
    for game_id in VARIANTS:
        assert game_id in coworld.GAMES
        g = coworld.game(game_id)
        assert isinstance(g, fog.FogReducer)
        assert g.family == "fog"
        assert not g.perfect_information


@pytest.mark.parametrize(
    ("game_id", "label", "original", "abrupt", "sense", "cap"),
    [
        ("phantom-ttt-3", "a port of OpenSpiel phantom_ttt", False, False, 0, 18),
        ("dark-hex-4", "a port of OpenSpiel dark_hex", False, False, 0, 32),
        ("dark-hex-5", "a port of OpenSpiel abrupt_dark_hex", False, True, 0, 50),
        ("recon-hex-5", "original variant (not a port of OpenSpiel rbc)", True, True, 3, 50),
    ],
)
def test_config_records_the_variant(game_id, label, original, abrupt, sense, cap):
    config = coworld.game(game_id).init(seed=9).config
    assert config["first"] == 0
    assert config["seed"] == 9
    assert config["variant"] == label
    assert config["original"] is original
    assert (config["abrupt"], config["sense"], config["maxPlies"]) == (abrupt, sense, cap)
    assert label in fog.RULES_TEXT[game_id]


def test_unknown_config_keys_are_rejected_by_name():
    with pytest.raises(ConfigError) as e:
        coworld.game({"game": "dark-hex-5", "size": 7})
    assert e.value.field == "size"
    assert "none" in str(e.value)


def test_invalid_attempts_raise_illegal_move_naming_the_legal_attempts():
    g = coworld.game("dark-hex-4")
    # Seat 0 owns a1; seat 1 owns d1; seat 0 collides on d1 (non-abrupt: seat 0 again).
    s = play("dark-hex-4", "a1 d1 d1")
    assert s.active_seat == 0
    legal = s.view_for(0)["legalAttempts"]
    assert "a1" not in legal and "d1" not in legal and len(legal) == 14
    cases = {
        "d1": "illegal",  # known occupied
        "a1": "illegal",  # own stone
        "e2": "illegal",  # off-board
        "a5": "illegal",  # off-board
        "nonsense": "unparseable",
        "": "unparseable",
    }
    for text, kind in cases.items():
        with pytest.raises(IllegalMove) as e:
            g.apply(s, text)
        assert e.value.kind == kind, text
        assert e.value.legal == legal, text
        assert ", ".join(legal) in str(e.value)
    assert s.plies == 3 and s.view_for(0)["legalAttempts"] == legal
    with pytest.raises(IllegalMove):
        g.apply(s, 42)  # not a string


def test_recon_moves_and_their_errors():
    s = play("recon-hex-5", "c3+c3")
    assert s.read_move("sense b2 attempt c3") == "b2+c3"
    assert s.read_move("B2 C3") == "b2+c3"
    with pytest.raises(IllegalMove) as e:
        s.read_move("c3")
    assert e.value.kind == "unparseable"
    assert "anchor" in str(e.value)
    # The error lists the legal cells (any cell may anchor), not 625 pairs.
    assert e.value.legal == s.view_for(1)["legalAttempts"]


def test_views():
    s = play("dark-hex-5", "c3 c3 a1")
    # Seat 1 collided on c3 (abrupt: the turn passed), then seat 0 placed a1.
    mine = s.view_for(1)
    assert mine["ownStones"] == [] and mine["provenStones"] == ["c3"]
    # Numbered by seat 1's own attempts; the global ply count (3) is nowhere in its view.
    assert mine["log"] == [{"attempt": 1, "cell": "c3", "result": "occupied"}]
    assert mine["activeSeat"] == 1 and mine["attempts"] == 1 and mine["maxPlies"] == 50
    assert set(mine) == {
        "game", "variant", "original", "mode", "size", "abrupt", "sense", "files", "ranks",
        "activeSeat", "attempts", "maxPlies", "seat", "ownStones", "provenStones", "log",
        "legalAttempts", "legalSenseAnchors", "believedDistToWin", "revelations", "outcome",
    }  # fmt: skip
    assert [r["where"] for r in mine["revelations"]] == ["c3"]
    theirs = s.view_for(0)
    assert theirs["ownStones"] == ["a1", "c3"]
    assert theirs["provenStones"] == [] and len(theirs["log"]) == 2
    full = s.view()
    assert full["stones"] == {"a1": 0, "c3": 0}
    assert full["probes"] == [0, 1] and full["discovered"] == [0, 1]
    assert [e["result"] for e in full["events"]] == ["placed", "occupied", "placed"]
    assert all(len(e["distToWin"]) == 2 for e in full["events"])
    with pytest.raises(ConfigError):
        s.view_for(2)


def test_results_carry_every_audit_field():
    s = play("dark-hex-4", "a1 a4 b1 b4 c1 c4 d1")
    r = s.results
    assert r["reason"] == "complete" and r["ending"] == "connection"
    assert r["score"] == [1, -1] and r["winner"] == 0 and r["plies"] == 7
    assert r["winPath"] == ["a1", "b1", "c1", "d1"]
    assert r["distToWin"][0] == 0
    assert r["probes"] == [0, 0] and r["discovered"] == [0, 0]
    assert r["guessesMade"] == [0, 0] and r["guessAccuracy"] == [None, None]
    assert r["variant"] == "a port of OpenSpiel dark_hex"
    assert s.view_for(1)["outcome"] == {
        "reason": "complete",
        "ending": "connection",
        "score": [1, -1],
        "winner": 0,
    }
    t = play("phantom-ttt-3", "a1 a3 b1 b3 c1").results
    assert t["ending"] == "line" and t["line"] == ["a1", "b1", "c1"]
    d = play("dark-hex-4", "a1 d4 b1 c4").settle_deadline().results
    assert (d["reason"], d["ending"], d["winner"]) == ("deadline", "wall-clock", 0)


def test_guesses_survive_pickling():
    g = coworld.game("phantom-ttt-3")
    s = g.apply(g.init(seed=4), "a1")
    s = g.apply(g.with_guess(s, ["a1", "b2", "junk"]), "c3")
    s = g.apply(s, "b1")
    assert s.view()["guessesMade"] == [0, 2]
    assert s.view()["guessAccuracy"] == [None, 0.5]
    t = pickle.loads(pickle.dumps(s))
    assert t.view() == s.view()
    # A pending guess (recorded, not yet applied) survives too.
    # Seat 1 guesses c3 (its own stone: wrong), then plays a2.
    p = pickle.loads(pickle.dumps(s.with_guess(["c3"]))).apply("a2")
    assert p.view()["guessesMade"] == [0, 3]
    assert p.view()["guessAccuracy"] == [None, 1 / 3]


def test_with_guess_is_a_no_op_elsewhere():
    s = coworld.game("connect-four").init(seed=1)
    assert s.with_guess(["a1"]).view() == s.view()


@pytest.mark.parametrize("game_id", VARIANTS)
def test_simulate_every_pairing(game_id):
    for pair in [("probe", "sweep"), ("sweep", "probe"), ("random", "random"), ("probe", "random")]:
        r = coworld.simulate(game_id, list(pair), 300, seed=2, threads=1)
        cap = 18 if game_id == "phantom-ttt-3" else 32 if game_id == "dark-hex-4" else 50
        assert int(r.plies.max()) <= cap
        assert (r.score.sum(axis=1) == 0).all()
        endings = set(r.ending_names())
        assert endings <= ({"connection"} if game_id in HEX else {"line", "board-full"})


def test_baselines_from_python():
    s = coworld.game("recon-hex-5").init(seed=1)
    assert s.baseline_move("sweep") == "b3+a3"
    assert "+" in s.baseline_move("probe") and "+" in s.baseline_move("random")
    assert s.policy_names == ["probe", "sweep", "random", "ismcts"]
    assert fog.FALLBACK == "probe"


def test_rules_text():
    for game_id, text in fog.RULES_TEXT.items():
        assert '"move": "c3"' in text
        assert ('"sense": "b2"' in text) == (game_id == "recon-hex-5")
        assert ("move again" in text) == (game_id in ("phantom-ttt-3", "dark-hex-4"))
    assert "not a port of OpenSpiel rbc" in fog.RULES_TEXT["recon-hex-5"]
    assert "port of OpenSpiel abrupt_dark_hex" in fog.RULES_TEXT["dark-hex-5"]


def test_observation_text_shows_the_seat_its_own_knowledge():
    # Seat 0 owns a1 b1 c1; seat 1's d1 is unproven: believed 1, true 2.
    s = play("dark-hex-4", "a1 d1 b1 a4 c1 b4")
    assert s.view()["distToWin"][0] == 2
    text = fog.observation_text(
        s, 0, notes="map: d1?", operator_prompt="Build a bridge.", aliases=["cog-1111", "cog-2222"]
    )
    assert "You are cog-1111 (seat 0, red" in text and "cog-2222 (seat 1, blue" in text
    assert "Build a bridge." in text and "map: d1?" in text
    assert "Your believed distToWin: 1" in text
    assert "Legal attempts: a2, a3, a4, b2, b3, b4, c2, c3, c4, d1, d2, d3, d4" in text
    assert " 1  X X X ." in text  # rank 1 as seat 0 believes it
    assert "attempt 3: attempted c1: placed" in text
    assert "Your attempts so far: 3 " in text and not re.search(r"\bply\b", text)
    recon = play("recon-hex-5", "a1+a1 e5+b2 b2+e5")
    text = fog.observation_text(recon, 0, notes="", operator_prompt="", aliases=[])
    assert "sensed b2 (opponent stones: b2; empty: a2, a3, b1, b3, c1, c2, c3)" in text
    assert "c3 (attempt 2)" in text and "Legal sense anchors" in text
    assert "You are seat 0 (red" in text


def test_parse_reply_reads_moves_and_truncates_text():
    s = play("recon-hex-5", "c3+c3")
    reply = fog.parse_reply(
        'Thinking...\n```json\n{"move": "d4", "sense": "c4", "say": "'
        + "s" * 300
        + '", "notes": "'
        + "n" * 900
        + '", "guess": ['
        + ", ".join(['"c3"'] * 40)
        + "]}\n```",
        s,
        1,
        [],
    )
    assert reply.move == "c4+d4"
    assert len(reply.say) == 140 and len(reply.notes) == 400 and reply.guess == ("c3",)
    # Guesses are recorded as the core counts them: canonical names, once, on the board.
    loose = fog.parse_reply(
        '{"move": "d4", "sense": "c4", "guess": ["A1", " b2", "z9", "a1"]}', s, 1
    )
    assert loose.guess == ("a1", "b2")
    counted = s.with_guess(list(loose.guess)).apply("c4+d4").view()["guessesMade"][1]
    assert (
        counted == s.with_guess(["A1", " b2", "z9", "a1"]).apply("c4+d4").view()["guessesMade"][1]
    )
    assert fog.parse_reply('{"move": "b2+c3"}', s, 1, []).move == "b2+c3"
    with pytest.raises(ReplyRejected) as e:
        fog.parse_reply('{"move": "d4"}', s, 1, [])  # recon without a sense
    assert e.value.cause == "unparseable"
    # Seat 1 collides on c3 (abrupt: seat 0 plays e5), then it may not try c3 again.
    known = play("recon-hex-5", "c3+c3 a1+c3 e5+e5")
    with pytest.raises(ReplyRejected) as e:
        fog.parse_reply('{"move": "c3", "sense": "a1"}', known, 1, [])
    assert e.value.cause == "illegal" and "c3 is known to hold an opponent stone" in e.value.reason
    with pytest.raises(ReplyRejected) as e:
        fog.parse_reply('{"move": "d4", "sense": "a1"}', s, 0, [])
    assert e.value.cause == "illegal"  # not seat 0's turn
    t = play("phantom-ttt-3", "")
    assert fog.parse_reply('I play {"move": "B2"} now', t, 0, []).move == "b2"
    for bad in ["", "c3", "{}", '{"move": 3}', "[1, 2]", '{"move": "z9"}']:
        with pytest.raises(ReplyRejected):
            fog.parse_reply(bad, t, 0, [])


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=300),
        st.builds(
            json.dumps,
            st.fixed_dictionaries(
                {"move": st.one_of(st.text(max_size=8), _json_values)},
                optional={
                    "sense": _json_values,
                    "say": _json_values,
                    "notes": _json_values,
                    "guess": _json_values,
                },
            ),
        ),
    ),
    game_id=st.sampled_from(VARIANTS),
)
def test_parse_reply_only_ever_raises_reply_rejected(text, game_id):
    s = coworld.game(game_id).init(seed=1)
    try:
        reply = fog.parse_reply(text, s, 0, ["cog-aaaa", "cog-bbbb"])
    except ReplyRejected as e:
        assert e.cause in ("unparseable", "illegal")
        return
    assert reply.move in s.legal_moves()
    assert len(reply.say) <= 140 and len(reply.notes) <= 400 and len(reply.guess) <= 25


def test_every_prompt_names_the_variant_label():
    for game_id in VARIANTS:
        s = coworld.game(game_id).init(seed=1)
        label = s.config["variant"]
        for seat in (0, 1):
            text = fog.observation_text(s, seat, notes="", operator_prompt="", aliases=[])
            assert text.startswith(f"{game_id}: {label}.")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), game_id=st.sampled_from(VARIANTS))
def test_the_reader_never_fails_otherwise(text, game_id):
    s = play(game_id, "")
    try:
        move = s.read_move(text)
    except IllegalMove as e:
        assert e.kind in ("unparseable", "illegal") and e.legal
        return
    assert move in s.legal_moves()


# ---- recon-hex-5 is labelled an original variant everywhere ----

ORIGINAL = "original variant (not a port of OpenSpiel rbc)"


def _cli(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "COLUMNS": "300"}
    return subprocess.run(
        [sys.executable, "-m", "coworld.cli", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=cwd,
    ).stdout


def test_coworld_games_labels_recon_hex_5_an_original_variant():
    rows = {line.split()[1]: line for line in _cli("games").splitlines() if "│" in line[:3]}
    assert ORIGINAL in rows["recon-hex-5"]
    assert "a port of OpenSpiel dark_hex" in rows["dark-hex-4"]
    assert "not a port" not in rows["dark-hex-5"]


def test_coworld_play_banner_labels_recon_hex_5_an_original_variant(tmp_path):
    out = _cli("play", "recon-hex-5", "-s", "probe", "-s", "sweep", "--seed", "3",
               "--out", str(tmp_path / "r.jsonl"))  # fmt: skip
    banner = next(line for line in out.splitlines() if line.startswith("recon-hex-5"))
    assert ORIGINAL in banner


def test_the_readme_game_table_labels_recon_hex_5_an_original_variant():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| Fog-of-War Boards"))
    assert f"`recon-hex-5`: {ORIGINAL}" in row
