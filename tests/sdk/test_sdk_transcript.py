"""Transcripts (full and per seat), recheck_transcript, and AgentEnvironment.

The agent episode (seed 123456: hands g1 b1 | g3 g2 | r3 b2, deck b3 r1 r2;
the agent is seat 1 and always plays slot 1; seats 0 and 2 play their lowest
card), derived by hand:
  step 1 seat 0 plays b1, draws b3       step 4 seat 0 plays g1 (deck empty)
  step 2 seat 1 plays g3, draws r1       step 5 seat 1 plays r1
  step 3 seat 2 plays b2, draws r2       step 6 seat 2 plays r2; 6 turns: over
Scores: seat 0 1+1 = 2, seat 1 3+1 = 4, seat 2 2+2 = 4 (tie: no winner). The
agent observes at steps 1 (reset), 4 and 6.
"""

from __future__ import annotations

import copy
import json

import pytest
from sdk_fixtures import HiddenDeckGame, lowest_card

import coworld
from coworld.errors import IllegalMove
from coworld.sdk import (
    AgentEnvironment,
    TranscriptMismatch,
    canonical_json,
    from_jsonl,
    full_transcript,
    play,
    recheck_transcript,
    seat_transcript,
    to_jsonl,
)

SEED = 123456
OPPONENTS = {0: lowest_card, 2: lowest_card}


def _agent_episode():
    env = AgentEnvironment(HiddenDeckGame(), None, SEED, seat=1, behaviours=OPPONENTS)
    live = {}
    observation = env.reset()
    while True:
        live[observation["step"]] = canonical_json(observation)
        if env.done:
            break
        observation, done, outcome = env.step("play 1")
    return env, live


def test_agent_episode_plays_as_derived():
    env, live = _agent_episode()
    assert sorted(live) == [1, 4, 6]
    assert env.outcome == {"score": [2, 4, 4], "winner": None, "steps": 6}
    transcript = env.transcript()
    assert [(r["seat"], r["action"]) for r in transcript["steps"]] == [
        (0, "play 2"),
        (1, "play 1"),
        (2, "play 2"),
        (0, "play 2"),
        (1, "play 1"),
        (2, "play 1"),
    ]
    first = json.loads(live[1])
    assert first["zones"]["hand:1"] == {"count": 2, "entities": ["g3", "g2"], "ordered": True}
    assert first["zones"]["hand:0"] == {"count": 2}


def test_agent_transcript_reverifies_from_the_seed_with_identical_observations():
    env, live = _agent_episode()
    transcript = env.transcript()
    header = transcript["header"]
    assert header["visibility"] == "seat:1" and header["seat"] == 1 and header["seed"] == SEED
    # Through JSON Lines and back, then re-simulated from the seed.
    reloaded = from_jsonl(to_jsonl(transcript))
    assert canonical_json(reloaded) == canonical_json(transcript)
    game = HiddenDeckGame()
    episode = recheck_transcript(game, reloaded)
    recorded = {r["step"]: r["observation"] for r in reloaded["steps"] if "observation" in r}
    assert sorted(recorded) == [1, 4, 6]
    for step, text in live.items():
        # Byte for byte: the recorded redacted observation, the live one, and the view of
        # the re-simulated state are the same text.
        assert canonical_json(recorded[step]) == text
        assert canonical_json(game.view_for(episode.states[step], 1)) == text
    # Redacted: the agent's observations never hold another seat's cards.
    for observation in recorded.values():
        assert "entities" not in observation["zones"]["hand:0"]
        assert "entities" not in observation["zones"]["hand:2"]
        assert "entities" not in observation["zones"]["deck"]


def test_public_seat_transcript_has_no_seed_and_no_other_seats_actions():
    env, live = _agent_episode()
    game = HiddenDeckGame()
    episode = recheck_transcript(game, env.transcript())
    public = seat_transcript(game, episode, 1)
    assert public["header"]["visibility"] == "seat:1" and "seed" not in public["header"]
    assert [r.get("action") for r in public["steps"]] == [
        None,
        None,
        "play 1",
        None,
        None,
        "play 1",
        None,
    ]
    for step, text in live.items():
        assert canonical_json(public["steps"][step]["observation"]) == text
    with pytest.raises(ValueError, match="no seed"):
        recheck_transcript(game, public)
    # With verifiable=True it carries the seed and every action, and rechecks.
    verifiable = seat_transcript(game, episode, 1, verifiable=True)
    assert recheck_transcript(game, verifiable).actions == episode.actions


def _full():
    game = HiddenDeckGame()
    episode = play(game, None, SEED, behaviours=lowest_card)
    return game, full_transcript(game, episode)


def test_full_transcript_rechecks():
    game, transcript = _full()
    assert transcript["header"] == {
        "format": "coworld-transcript",
        "version": 1,
        "visibility": "full",
        "game": "hidden-deck",
        "level": None,
        "seed": SEED,
    }
    assert len(transcript["steps"]) == 7  # step 0 and six actions
    episode = recheck_transcript(game, from_jsonl(to_jsonl(transcript)))
    assert len(episode.actions) == 6 and episode.final.is_terminal


def test_tampered_observation_fails_naming_step_and_field():
    game, transcript = _full()
    tampered = copy.deepcopy(transcript)
    tampered["steps"][3]["observation"]["zones"]["deck"] = ["r1", "r2"]  # truly: []
    with pytest.raises(TranscriptMismatch) as caught:
        recheck_transcript(game, tampered)
    assert caught.value.step == 3 and caught.value.path == "$.zones.deck[0]"
    assert 'at step 3, field $.zones.deck[0] of the observation: recorded "r1"' in str(caught.value)


def test_tampered_action_fails_naming_the_step():
    game, transcript = _full()
    other_move = copy.deepcopy(transcript)
    other_move["steps"][4]["action"] = "stash 1"
    with pytest.raises(TranscriptMismatch, match="at step 4, field") as caught:
        recheck_transcript(game, other_move)
    assert caught.value.step == 4
    refused = copy.deepcopy(transcript)
    refused["steps"][5]["action"] = "play 9"
    with pytest.raises(TranscriptMismatch, match=r"at step 5: the action \"play 9\"") as caught:
        recheck_transcript(game, refused)
    assert isinstance(caught.value.__cause__, IllegalMove)
    wrong_seat = copy.deepcopy(transcript)
    wrong_seat["steps"][2]["seat"] = 2
    with pytest.raises(TranscriptMismatch, match=r"at step 2, field \$\.seat: recorded 2"):
        recheck_transcript(game, wrong_seat)


def test_tampered_outcome_and_sequence_fail():
    game, transcript = _full()
    better = copy.deepcopy(transcript)
    better["outcome"]["score"][0] += 1
    with pytest.raises(TranscriptMismatch, match=r"outcome after step 6, field \$\.score\[0\]"):
        recheck_transcript(game, better)
    skipped = copy.deepcopy(transcript)
    del skipped["steps"][2]
    with pytest.raises(TranscriptMismatch, match="expected step 2, found 3"):
        recheck_transcript(game, skipped)


def test_tampered_agent_transcript_text_fails_at_the_tampered_step():
    env, _ = _agent_episode()
    lines = to_jsonl(env.transcript()).splitlines()
    step4 = json.loads(lines[4])
    assert step4["step"] == 4 and step4["observation"]["scores"] == [2, 3, 2]
    step4["observation"]["scores"] = [2, 3, 9]
    lines[4] = json.dumps(step4)
    with pytest.raises(TranscriptMismatch) as caught:
        recheck_transcript(HiddenDeckGame(), from_jsonl("\n".join(lines)))
    assert caught.value.step == 4 and caught.value.path == "$.scores[2]"


def test_rust_backed_transcript_rechecks_and_catches_tampering():
    game = coworld.game("connect-four")
    episode = play(game, None, 0, actions=["d", "d", "c", "c", "b", "b", "a"])
    transcript = full_transcript(game, episode)
    assert transcript["header"]["seed"] == episode.states[0].seed != 0  # the drawn seed
    assert transcript["outcome"]["winner"] == 0
    recheck_transcript(game, from_jsonl(to_jsonl(transcript)))
    mine = seat_transcript(game, episode, 1, verifiable=True)
    assert mine["steps"][7]["observation"] == game.view(episode.final)
    recheck_transcript(game, mine)
    tampered = from_jsonl(to_jsonl(transcript))
    tampered["steps"][5]["observation"]["stones"]["b2"] = 0
    with pytest.raises(TranscriptMismatch, match=r"at step 5, field \$\.stones\.b2"):
        recheck_transcript(game, tampered)


def test_bad_transcripts_are_refused_clearly():
    game, transcript = _full()
    with pytest.raises(ValueError, match="visibility is 'full' or 'seat:<id>'"):
        recheck_transcript(
            game, {**transcript, "header": {**transcript["header"], "visibility": "x"}}
        )
    with pytest.raises(ValueError, match="does not match visibility"):
        recheck_transcript(
            game, {**transcript, "header": {**transcript["header"], "visibility": "seat:2"}}
        )
    with pytest.raises(ValueError, match="the transcript is of 'hidden-deck'"):
        recheck_transcript(coworld.game("connect-four"), transcript)
    with pytest.raises(ValueError, match="first line is its header"):
        from_jsonl('{"step": 0}\n')


def test_agent_environment_api():
    env = AgentEnvironment(HiddenDeckGame(), None, SEED, seat=1, behaviours=OPPONENTS)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        env.observe()
    env.reset()
    assert env.legal_moves() == ["play 1", "play 2", "stash 1", "stash 2"]
    before = env.observe()
    with pytest.raises(IllegalMove):
        env.step("play 7")
    assert env.observe() == before  # a refused action changes nothing
    # Without behaviours for the other seats, the environment says what is missing.
    lonely = AgentEnvironment(HiddenDeckGame(), None, SEED, seat=1)
    with pytest.raises(RuntimeError, match="seat 0's turn and no behaviour drives it"):
        lonely.reset()


def test_agent_without_a_seat_plays_every_turn_and_sees_the_full_view():
    game = coworld.game("connect-four")
    env = AgentEnvironment(game, None, 7)
    observation = env.reset()
    assert observation == game.view(env.state)
    for move in ["d", "d", "c", "c", "b", "b"]:
        observation, done, outcome = env.step(move)
        assert not done and outcome is None
    observation, done, outcome = env.step("a")
    assert done and outcome["winner"] == 0 and observation["stones"]["a1"] == 0
    transcript = env.transcript()
    assert transcript["header"]["visibility"] == "full"
    recheck_transcript(game, transcript)
    with pytest.raises(RuntimeError, match="the episode is over"):
        env.step("e")


class ThreeTurns(HiddenDeckGame):
    """A reducer built with settings, which it merges into every level (as coworld's do)."""

    settings = {"turns": 3}

    def init(self, level=None, seed=0):
        return super().init({**self.settings, **(level or {})}, seed)


def test_reducer_settings_are_written_into_the_level():
    game = ThreeTurns()
    episode = play(game, None, SEED, behaviours=lowest_card)
    assert len(episode.actions) == 3
    transcript = full_transcript(game, episode)
    assert transcript["header"]["level"] == {"turns": 3}
    # Any instance re-creates it, even one without the settings.
    assert len(recheck_transcript(HiddenDeckGame(), transcript).actions) == 3
