"""The price table against the model ids the installed `anthropic` client lists."""

from __future__ import annotations

import typing

import pytest
from anthropic.types.model import Model

from coworld import ConfigError
from coworld.prices import PRICES, price_of
from coworld.seats.policy import load_policy
from coworld.usage import Usage
from tests.support.leagues import make_league


def listed_models() -> list[str]:
    """Every id in the client's `Model` literal (the union's other member is `str`)."""
    literals = [a for a in typing.get_args(Model) if typing.get_origin(a) is typing.Literal]
    return [m for lit in literals for m in typing.get_args(lit)]


@pytest.mark.parametrize("model", listed_models())
def test_every_listed_model_has_its_own_price_or_fails_at_load_naming_price(tmp_path, model):
    (tmp_path / "p.md").write_text(f"---\nname: p\nmodel: {model}\n---\nWin.\n")
    undated = model.rsplit("-", 1)[0] if model[-8:].isdigit() else model
    if undated in PRICES:
        # the id's own row (or its undated id's), never a shorter family's
        assert price_of(model) is PRICES[undated]
        assert load_policy(str(tmp_path / "p.md")).model == model
        return
    with pytest.raises(ConfigError, match=r"no price for model .*`price = \[input, output\]`") as e:
        load_policy(str(tmp_path / "p.md"))
    assert e.value.field == "price"


def test_the_client_lists_models_and_a_prefix_never_prices_a_longer_id():
    models = listed_models()
    assert len(models) >= 20 and "claude-opus-5-5" in models
    # "claude-opus-5" is a prefix of "claude-opus-5-5": each keeps its own row
    assert price_of("claude-opus-5-5") != price_of("claude-opus-5")
    with pytest.raises(ConfigError):
        price_of("claude-opus-5-9")


def test_cache_reads_and_tiers_are_billed_as_the_row_says():
    fable = PRICES["claude-fable-5-1"]
    read = Usage(cache_read_input_tokens=1_000_000)
    assert price_of("claude-fable-5-1").cost(read) == pytest.approx(fable.cache_read)
    haiku = PRICES["claude-haiku-5-5"]
    assert haiku.long is not None
    threshold, long = haiku.long
    short_call = Usage(input_tokens=threshold, output_tokens=1000)
    long_call = Usage(input_tokens=threshold + 1, output_tokens=1000)
    assert haiku.cost(short_call) == pytest.approx(
        (threshold * haiku.input + 1000 * haiku.output) / 1e6
    )
    # past the threshold every token of the request is billed at the long tier
    assert haiku.cost(long_call) == pytest.approx(
        ((threshold + 1) * long.input + 1000 * long.output) / 1e6
    )
    # cache reads count toward the prompt's length
    cached = Usage(input_tokens=10, cache_read_input_tokens=threshold)
    assert haiku.cost(cached) == pytest.approx(
        (10 * long.input + threshold * long.input * 0.1) / 1e6
    )


def test_usage_add_sums_every_field():
    import dataclasses

    names = [f.name for f in dataclasses.fields(Usage)]
    a = Usage(**{n: i + 1 for i, n in enumerate(names)})
    b = Usage(**{n: 10 * (i + 1) for i, n in enumerate(names)})
    a.add(b)
    assert [getattr(a, n) for n in names] == [11 * (i + 1) for i in range(len(names))]


def test_prices_come_from_the_policy_or_the_league_file(tmp_path):
    from coworld.seats.policy import load_policy

    (tmp_path / "x.md").write_text("---\nmodel: claude-new-1\nprice: [2, 8]\n---\nWin.\n")
    assert load_policy(str(tmp_path / "x.md")).price == (2.0, 8.0)
    (tmp_path / "y.md").write_text("---\nname: y\nmodel: claude-newer-2\n---\nWin.\n")
    config = make_league(
        tmp_path,
        name="p",
        games=["hex"],
        policies=["random", "y.md"],
        episodes=1,
        prices={"claude-newer": [4, 20]},
    )
    assert [p.price for p in config.policies if p.name == "y"] == [(4.0, 20.0)]
