"""One JSON extraction for every family; the differences are each family's policy."""

from __future__ import annotations

import pytest

from coworld.errors import ReplyRejected
from coworld.games import FAMILIES, family_module
from coworld.seats.jsonreply import LENIENT, JsonPolicy, extract_json_object

ONE = JsonPolicy(exactly_one=True, example='{"action":"play","slot":1}')
TWO = 'note {"a": 1} then {"move": "c3"}'


def test_lenient_takes_the_object_with_the_key_and_exactly_one_refuses_two():
    assert extract_json_object(TWO, policy=JsonPolicy(key="move")) == {"move": "c3"}
    assert extract_json_object(TWO, policy=LENIENT) == {"a": 1}
    with pytest.raises(ReplyRejected, match="more than one JSON object"):
        extract_json_object(TWO, policy=ONE)


def test_a_broken_first_object_is_skipped_leniently_and_refused_exactly():
    text = '{"move": c3} {"move": "c4"}'
    assert extract_json_object(text) == {"move": "c4"}
    with pytest.raises(ReplyRejected, match=r"malformed \(Expecting value at character 9\)"):
        extract_json_object(text, policy=ONE)


def test_no_object_quotes_the_policy_example():
    with pytest.raises(ReplyRejected) as e:
        extract_json_object("play 1", policy=ONE)
    assert e.value.cause == "unparseable"
    assert '{"action":"play","slot":1}' in e.value.reason
    assert "no JSON object" in e.value.reason


@pytest.mark.parametrize("family", sorted(set(FAMILIES.values())))
def test_every_family_module_states_its_reply_policy(family):
    game_id = next(g for g, f in FAMILIES.items() if f == family)
    module = family_module(game_id)
    assert isinstance(module.REPLY_POLICY, JsonPolicy)
    assert module.REPLY_POLICY.exactly_one is (family == "hanabi")
    for member in ("FALLBACK", "RULES_TEXT", "observation_text", "parse_reply", "feed_line"):
        assert hasattr(module, member), (family, member)
