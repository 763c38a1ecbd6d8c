"""Hanabi through the Python face: config, views, the observation text, the
reply parser, the baselines' claim. Rule and knowledge tests on hand-built
positions live in rust/src/hanabi/tests.rs (`cargo test --release hanabi`)."""

from __future__ import annotations

import json
import math
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import coworld
from coworld.errors import ConfigError, ReplyRejected
from coworld.games import hanabi as H
from coworld.seats import Reply

ALIASES = ["cog-3fa2", "cog-0b17", "cog-c4d9", "cog-77e1"]
SEED = 913_377_421  # large enough that its digits cannot appear by accident


def state_at(seed: int = SEED, moves: int = 0, policy: str = "conventions"):
    """A 4-seat state after `moves` turns of `policy`."""
    g = coworld.game("hanabi")
    s = g.init(seed=seed)
    for _ in range(moves):
        s = g.apply(s, s.baseline_move(policy))
    return s


# ---------------------------------------------------------------- config


def test_four_seats_by_default_and_two_to_five_allowed():
    assert state_at().num_seats == 4
    for seats, hand in [(2, 5), (3, 5), (4, 4), (5, 4)]:
        s = coworld.game({"game": "hanabi", "seats": seats}).init(seed=3)
        v = s.view()
        assert s.num_seats == seats and s.config["seats"] == seats
        assert all(len(h) == hand for h in v["hands"])
        assert v["deckCount"] == 50 - seats * hand


@pytest.mark.parametrize("bad", [1, 6, 0, "4", 2.5, None])
def test_bad_seat_counts_name_the_field(bad):
    with pytest.raises(ConfigError) as e:
        coworld.game({"game": "hanabi", "seats": bad})
    assert e.value.field == "seats"


def test_unknown_settings_are_named():
    with pytest.raises(ConfigError) as e:
        coworld.game({"game": "hanabi", "players": 4})
    assert e.value.field == "players"
    assert "seats" in str(e.value)


def test_the_seed_deals_the_deck():
    a, b = state_at(5), state_at(5)
    assert a.view() == b.view()
    assert a.view()["deck"] != state_at(6).view()["deck"]
    v = a.view()
    cards = [c["card"] for h in v["hands"] for c in h] + v["deck"]
    assert len(cards) == 50
    assert sum(c.endswith(" 1") for c in cards) == 15 and sum(c.endswith(" 5") for c in cards) == 5


def test_states_pickle_and_replay():
    s = state_at(moves=7)
    assert pickle.loads(pickle.dumps(s)).view() == s.view()


# ---------------------------------------------------------------- views (the SDK contract)


def test_view_for_hides_own_cards_and_the_deck():
    s = state_at(moves=9)
    full = s.view()
    for seat in range(4):
        v = coworld.game("hanabi").view_for(s, seat)
        assert "deck" not in v and v["deckCount"] == full["deckCount"]
        assert v["you"] == seat
        for other, hand in enumerate(v["hands"]):
            if other == seat:
                assert all(set(c) == {"slot", "chop", "knowledge"} for c in hand)
            else:
                assert [c["card"] for c in hand] == [c["card"] for c in full["hands"][other]]
                # Another seat's knowledge is its hints only: candidates would reveal our cards.
                assert all("candidates" not in c["hints"] for c in hand)
        assert v["log"] == full["log"] and v["fireworks"] == full["fireworks"]


def test_zone_policies_follow_rfc_003():
    g = coworld.game("hanabi")
    assert g.zone_visibility("deck", 1, 4) == {
        "identity": {"kind": "hidden"},
        "order": {"kind": "hidden"},
    }
    hand = g.zone_visibility("hand:2", 0, 4)
    assert hand["identity"] == {"kind": "seats", "seats": [0, 1, 3]}
    assert g.zone_visibility("discard", 3, 4)["identity"] == {"kind": "public"}
    with pytest.raises(ValueError):
        g.zone_visibility("hand:9", 0, 4)


def test_the_observation_is_built_from_view_for_alone():
    """A stand-in state that answers only `view_for` gives the same text, so the
    observation cannot contain anything the seat's view hides."""
    s = state_at(moves=11)

    class OnlyViewFor:
        def view_for(self, seat: int):
            return s.view_for(seat)

    for seat in range(4):
        kwargs = {"notes": "n", "operator_prompt": "p", "aliases": ALIASES}
        assert H.observation_text(OnlyViewFor(), seat, **kwargs) == H.observation_text(
            s, seat, **kwargs
        )


def test_the_observation_lists_the_spec_items_in_order():
    s = state_at(moves=13)
    seat = s.active_seat
    text = H.observation_text(
        s, seat, notes="my plan: save 5s", operator_prompt="Play safe.", aliases=ALIASES
    )
    heads = [
        f"Turn {s.plies} ",
        "FIREWORKS:",
        "DISCARD PILE",
        "OTHER HANDS",
        "YOUR HAND",
        "MOVE LOG",
        "LEGAL MOVES",
        "YOUR PRIVATE NOTE",
        "my plan: save 5s",
        "YOUR OPERATOR'S PROMPT:",
        "Play safe.",
    ]
    positions = [text.index(h) for h in heads]
    assert positions == sorted(positions), positions
    assert "score" in text and "hint tokens" in text and "fuses" in text and "deck" in text
    for other in range(4):
        assert f"seat {other} ({ALIASES[other]})" in text
    # The whole public log, one line per turn.
    assert len(re.findall(r"^  turn \d+: ", text, flags=re.M)) == s.plies
    # Never: the seed, any policy name, any other seat's private text.
    assert str(SEED) not in text
    for name in ("conventions", "cautious", "random"):
        assert name not in text


def test_legal_moves_are_numbered_json_objects_that_parse_back():
    s = state_at(moves=6)
    seat = s.active_seat
    text = H.observation_text(s, seat, notes="", operator_prompt="", aliases=ALIASES)
    listed = re.findall(r"^  (\d+)\. (\{.*\})$", text, flags=re.M)
    assert [int(i) for i, _ in listed] == list(range(1, len(s.legal_moves()) + 1))
    for (_, obj), move in zip(listed, s.legal_moves(), strict=True):
        assert H.parse_reply(obj, s, seat, ALIASES).move == move


def test_own_hand_shows_candidates_listed_or_counted():
    s = state_at(moves=30)
    seat = s.active_seat
    text = H.observation_text(s, seat, notes="", operator_prompt="", aliases=ALIASES)
    own = text[text.index("YOUR HAND") : text.index("MOVE LOG")]
    v = s.view_for(seat)
    for card in v["hands"][seat]:
        k = card["knowledge"]
        line = next(x for x in own.splitlines() if x.startswith(f"  slot {card['slot']}:"))
        if len(k["candidates"]) <= 6:
            assert all(c in line for c in k["candidates"]), line
        else:
            assert f"{len(k['candidates'])} candidate cards" in line
        assert ("knownPlayable" in line) == k["knownPlayable"]
        assert ("CHOP" in line) == card["chop"]


def test_endgame_countdown_appears_once_armed():
    s = state_at(moves=0)
    g = coworld.game("hanabi")
    while s.view()["finalTurnsLeft"] is None:
        text = H.observation_text(s, s.active_seat, notes="", operator_prompt="", aliases=ALIASES)
        assert "ENDGAME" not in text
        s = g.apply(s, s.baseline_move("conventions"))
    text = H.observation_text(s, s.active_seat, notes="", operator_prompt="", aliases=ALIASES)
    assert "ENDGAME: the deck is empty; 4 turn(s) left" in text


# ---------------------------------------------------------------- the reply parser


@pytest.fixture(scope="module")
def hinting_state():
    """Seat 0 to move after one hint by every seat: 4 tokens, so discards are legal too."""
    g = coworld.game("hanabi")
    s = g.init(seed=SEED)
    for _ in range(4):
        s = g.apply(s, next(m for m in s.legal_moves() if m.startswith("hint")))
    assert s.active_seat == 0
    return s


def _some(s, prefix: str) -> str:
    return next(m for m in s.legal_moves() if m.startswith(prefix))


def test_sloppy_replies_normalise(hinting_state):
    s = hinting_state
    hint = _some(s, "hint 1 rank")  # e.g. "hint 1 rank 3"
    rank = hint.split()[-1]
    colour_hint = _some(s, "hint 2 colour")
    colour = colour_hint.split()[-1]
    cases = [
        ('{"action":"play","slot":1}', "play 1"),
        ('```json\n{"action": "play", "slot": 2}\n```', "play 2"),
        ('{"action":"discard","slot":"4"} I am discarding my chop.', "discard 4"),
        ('Sure! {"move":"play 2"}', "play 2"),
        ('{"move": "hint 1 rank ' + rank + '"}', hint),
        ('{"action":"play 3"}', "play 3"),
        ('{"action":"hint","target":1,"hintType":"rank","hintValue":"' + rank + '"}', hint),
        ('{"action":"hint","target":"1","hintType":"number","hintValue":' + rank + "}", hint),
        (
            '{"action":"hint","target":"cog-0b17","hintType":"rank","hintValue":"' + rank + '"}',
            hint,
        ),
        (
            '{"Action":"Hint","Target":"COG-0B17","hint_type":"Rank","hint_value":"' + rank + '"}',
            hint,
        ),
        (
            '{"action":"hint","target":2,"hintType":"color","hintValue":"' + colour.title() + '"}',
            colour_hint,
        ),
        ('{"action":"hint","target":2,"color":"' + colour.upper() + '"}', colour_hint),
        (
            '{"action":"hint","target":1,"rank":"'
            + ["", "one", "two", "three", "four", "five"][int(rank)]
            + '"}',
            hint,
        ),
        ('{"action":"hint","target":2,"hintValue":"' + colour + 's"}', colour_hint),
        ('{"move":"hint cog-0b17 ' + rank + '"}', hint),
        ('{"action":"clue","to":"seat 1","value":' + rank + "}", hint),
    ]
    for text, want in cases:
        got = H.parse_reply(text, s, 0, ALIASES)
        assert got == Reply(move=want), text


def test_note_and_banner_are_kept_and_truncated(hinting_state):
    long_note = "é" * 450
    reply = H.parse_reply(
        json.dumps({"action": "play", "slot": 1, "note": long_note, "banner": "🎆" * 90}),
        hinting_state,
        0,
        ALIASES,
    )
    assert reply.notes == "é" * 400 and reply.banner == "🎆" * 80
    assert (
        H.parse_reply('{"action":"play","slot":1,"note":"x"}', hinting_state, 0, ALIASES).notes
        == "x"
    )


REFUSED = [
    ("", "unparseable", "no JSON object"),
    ("play 1", "unparseable", "no JSON object"),
    ("{'action': 'play', 'slot': 1}", "unparseable", "malformed"),
    ('{"action":"play","slot":1', "unparseable", "malformed"),
    ("[1, 2]", "unparseable", "no JSON object"),
    (
        '{"action":"play","slot":1} {"action":"play","slot":2}',
        "unparseable",
        "more than one JSON object",
    ),
    ('{"action":"play","slot":{"n":1}}', "unparseable", "flat object"),
    ('{"action":"play","slot":1,"reasoning":"safe"}', "unparseable", "unknown field 'reasoning'"),
    ('{"action":"juggle","slot":1}', "unparseable", "action must be play, discard or hint"),
    ('{"slot":1}', "unparseable", 'needs "action"'),
    ('{"action":"play"}', "unparseable", 'needs "slot"'),
    ('{"action":"play","slot":"first"}', "unparseable", "slot must be a number"),
    ('{"action":"play","slot":true}', "unparseable", "slot must be a number"),
    ('{"action":"play","slot":-1}', "unparseable", "slot must not be negative"),
    ('{"action":"play","slot":1,"target":2}', "unparseable", "takes only a slot"),
    ('{"action":"hint","hintType":"rank","hintValue":"1"}', "unparseable", 'needs "target"'),
    (
        '{"action":"hint","target":"cog-ffff","hintType":"rank","hintValue":"1"}',
        "unparseable",
        "seat number or alias",
    ),
    (
        '{"action":"hint","target":1,"hintType":"rank","hintValue":"red"}',
        "unparseable",
        "not a rank 1-5",
    ),
    (
        '{"action":"hint","target":1,"hintType":"colour","hintValue":"3"}',
        "unparseable",
        "not a colour",
    ),
    (
        '{"action":"hint","target":1,"hintType":"rank","hintValue":"7"}',
        "unparseable",
        "not a rank 1-5",
    ),
    (
        '{"action":"hint","target":1,"hintType":"shade","hintValue":"red"}',
        "unparseable",
        "hintType must be",
    ),
    ('{"action":"hint","target":1,"hintType":"rank","color":"red"}', "unparseable", "contradicts"),
    ('{"action":"hint","target":1,"rank":1,"colour":"red"}', "unparseable", "exactly one"),
    ('{"move":"play 1","slot":2}', "unparseable", "stands alone"),
    ('{"move":"pass"}', "unparseable", "no play, discard or hint"),
    ('{"action":"play","slot":1,"slot ":2}', "unparseable", "given twice"),
    ('{"action":"play","slot":9}', "illegal", "slot 9 does not exist"),
    ('{"action":"hint","target":0,"hintType":"rank","hintValue":"1"}', "illegal", "another seat"),
    (
        '{"action":"hint","target":6,"hintType":"rank","hintValue":"1"}',
        "illegal",
        "seat 6 does not exist",
    ),
]


@pytest.mark.parametrize(("text", "cause", "why"), REFUSED)
def test_refused_replies_say_why(hinting_state, text, cause, why):
    with pytest.raises(ReplyRejected) as e:
        H.parse_reply(text, hinting_state, 0, ALIASES)
    assert e.value.cause == cause
    assert why in e.value.reason, e.value.reason


def test_rule_refusals_are_illegal_with_the_rule():
    s = state_at()  # 8 tokens: discarding is illegal
    with pytest.raises(ReplyRejected) as e:
        H.parse_reply('{"action":"discard","slot":1}', s, 0, ALIASES)
    assert (e.value.cause, "8 hint tokens" in e.value.reason) == ("illegal", True)
    seat1 = [c["card"] for c in s.view()["hands"][1]]
    absent = next(c for c in H.COLOURS if all(not card.startswith(c) for card in seat1))
    with pytest.raises(ReplyRejected) as e:
        H.parse_reply(
            json.dumps({"action": "hint", "target": 1, "hintType": "colour", "hintValue": absent}),
            s,
            0,
            ALIASES,
        )
    assert e.value.cause == "illegal" and f"holds no {absent} card" in e.value.reason
    with pytest.raises(ReplyRejected) as e:
        H.parse_reply('{"action":"play","slot":1}', s, 2, ALIASES)
    assert e.value.cause == "illegal" and "not seat 2's turn" in e.value.reason


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=True), st.text(max_size=12)
)
keys = st.sampled_from(
    [
        "action",
        "move",
        "slot",
        "target",
        "hintType",
        "hintValue",
        "note",
        "banner",
        "colour",
        "rank",
        "x",
        "Seat",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200), st.dictionaries(keys, json_scalars, max_size=6).map(json.dumps)
    )
)
def test_the_parser_only_ever_returns_a_legal_reply_or_refuses(text):
    s = state_at(moves=3)
    try:
        reply = H.parse_reply(text, s, s.active_seat, ALIASES)
    except ReplyRejected as e:
        assert e.cause in ("unparseable", "illegal") and e.reason
    else:
        assert reply.move in s.legal_moves()


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64), st.integers(-3, 7))
def test_the_parser_survives_any_input_type(blob, seat):
    s = state_at()
    for text in (blob, blob.decode("latin-1"), None, 17):
        try:
            H.parse_reply(text, s, seat, ALIASES)  # type: ignore[arg-type]
        except ReplyRejected:
            pass


# ---------------------------------------------------------------- baselines


def test_baselines_are_listed_and_deterministic():
    s = state_at(moves=5)
    assert s.policy_names == ["conventions", "cautious", "random", "tracker"]
    assert H.FALLBACK in s.policy_names
    for name in ("conventions", "cautious"):
        assert s.baseline_move(name) == s.baseline_move(name)
        assert s.baseline_move(name) in s.legal_moves()


def test_simulate_plays_every_baseline_and_reports_shared_scores():
    for policy in ("conventions", "cautious", "random"):
        r = coworld.simulate("hanabi", [policy] * 4, 50, seed=7, threads=1)
        assert (r.score == r.score[:, :1]).all(), "the score is shared"
        assert ((r.score >= 0) & (r.score <= 25)).all()
        assert set(r.ending_names()) <= {"perfect", "final-round", "fuses", "turn-cap"}
    mixed = coworld.simulate(
        "hanabi", ["conventions", "random", "cautious"], 20, seed=7, config={"seats": 3}
    )
    assert mixed.score.shape == (20, 3)


def test_results_carry_the_audit_fields():
    g = coworld.game("hanabi")
    s = g.init(seed=SEED)
    while not s.is_terminal:
        s = g.apply(s, s.baseline_move("conventions"))
    r = s.results
    assert r["reason"] == "complete" and r["ending"] in ("perfect", "final-round", "turn-cap")
    assert r["score"] == [sum(r["fireworks"].values())] * 4
    for field in (
        "hintTokens",
        "fusesLeft",
        "deckCount",
        "misplays",
        "discards",
        "hintsGiven",
        "turns",
    ):
        assert isinstance(r[field], int), field
    assert r["turns"] == r["plies"] == s.plies
    assert r["misplays"] == 3 - r["fusesLeft"]
    log = s.view()["log"]
    assert r["discards"] == sum(e["result"] == "discarded" for e in log)
    assert r["hintsGiven"] == sum(e["result"] == "hinted" for e in log)
    d = g.init(seed=SEED).settle_deadline().results
    assert (d["ending"], d["reason"], d["score"]) == ("wall-clock", "deadline", [0, 0, 0, 0])


def _mean_ci(xs) -> tuple[float, float]:
    n = len(xs)
    mean = float(sum(xs)) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


README = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"  # the claim's table


def _self_play(policy: str, seats: int) -> tuple[float, float]:
    """Mean self-play score and 95% half-width over the claim's 2000 seeds."""
    scores = coworld.simulate(
        "hanabi", [policy] * seats, 2000, seed=2024, config={"seats": seats}
    ).score[:, 0]
    return _mean_ci(scores.tolist())


def test_conventions_beats_cautious_over_2000_seeds_and_the_readme_says_so(capsys):
    """The baselines' claim: conventions has the higher mean self-play score, with
    separated 95% intervals, at every seat count; the benchmarks page's table row for
    each seat count is exactly what this measures."""
    readme = README.read_text()
    for seats in (4, 2, 3, 5):
        (mc, hc), (mk, hk) = _self_play("conventions", seats), _self_play("cautious", seats)
        row = f"| {seats} | {mc:.2f} ± {hc:.2f} | {mk:.2f} ± {hk:.2f} |"
        with capsys.disabled():
            print(f"\n{row} (self-play, 95%, 2000 seeds)", end="")
        assert mc - hc > mk + hk, row
        assert row in readme, f"docs/benchmarks.md's Hanabi claim should read {row}"


def test_other_hands_and_the_log_show_identities_and_hints():
    s = state_at(moves=40)
    seat = s.active_seat
    v = s.view_for(seat)
    text = H.observation_text(s, seat, notes="", operator_prompt="", aliases=ALIASES)
    others = text[text.index("OTHER HANDS") : text.index("YOUR HAND")]
    for other in range(4):
        if other == seat:
            continue
        block = others[others.index(f"seat {other} ({ALIASES[other]})") :]
        for card in v["hands"][other]:
            line = next(x for x in block.splitlines() if x.startswith(f"  slot {card['slot']}:"))
            assert line.startswith(f"  slot {card['slot']}: {card['card']}")
            hints = card["hints"]
            if hints["colour"] or hints["rank"]:
                named = " ".join(
                    [hints["colour"]] * bool(hints["colour"])
                    + [f"rank {hints['rank']}"] * bool(hints["rank"])
                )
                assert f"is {named}" in line, line
            assert ("CRITICAL" in line) == card["critical"]
    log = text[text.index("MOVE LOG") : text.index("LEGAL MOVES")]
    for e in v["log"]:
        if e["result"] != "hinted":
            assert (
                f"turn {e['turn']}: {_who(e['seat'])} {e['move']} -> {e['card']} {e['result']}"
                in log
            )


def _who(seat: int) -> str:
    return f"seat {seat} ({ALIASES[seat]})"
