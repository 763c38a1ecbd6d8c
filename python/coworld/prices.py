"""Model prices: the published list prices, a league's own [prices] rows and a
policy's override, and the cost of a call's usage at them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .usage import Usage

#: Cache writes (5-minute) cost 1.25x the input price on every model listed here.
CACHE_WRITE = 1.25
#: Cache reads where a row or an override does not give their price: 0.1x input.
CACHE_READ = 0.1


@dataclass(frozen=True)
class Price:
    """USD per million tokens. `long`: (prompt tokens, price) for a model billed
    at another tier when a request's prompt (input plus cache reads and writes)
    is longer than that, on every token of the request."""

    input: float
    output: float
    cache_read: float | None = None
    long: tuple[int, Price] | None = None

    def tier(self, prompt_tokens: int) -> Price:
        if self.long is not None and prompt_tokens > self.long[0]:
            return self.long[1]
        return self

    def cost(self, u: Usage) -> float:
        """The cost of one call's usage."""
        p = self.tier(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens)
        read = p.input * CACHE_READ if p.cache_read is None else p.cache_read
        return (
            u.input_tokens * p.input
            + u.output_tokens * p.output
            + u.cache_creation_input_tokens * p.input * CACHE_WRITE
            + u.cache_read_input_tokens * read
        ) / 1e6

    def worst(self, tokens_in: int, tokens_out: int) -> float:
        """The most a call of `tokens_in` prompt tokens (all written to the cache)
        and `tokens_out` output can cost."""
        p = self.tier(tokens_in)
        return (tokens_in * p.input * CACHE_WRITE + tokens_out * p.output) / 1e6


#: Published list prices by model id, as of December 2026 (a row also prices the id's
#: dated snapshots, `ID-YYYYMMDD`; never a longer id: `claude-opus-5` does not price
#: `claude-opus-5-5`). Cache writes 1.25x input; cache reads as the model's price
#: list gives them, else 0.1x.
#: Ids the installed client lists without a published price here (claude-fable-5-2,
#: claude-mythos-5-2, claude-mythos-preview) need a `price` in the policy file or
#: the league's [prices] table: loading fails otherwise, rather than billing a guess.
PRICES: dict[str, Price] = {
    "claude-fable-5-1": Price(10.0, 50.0, cache_read=0.25),
    "claude-mythos-5-1": Price(10.0, 50.0, cache_read=0.25),
    "claude-fable-5": Price(10.0, 50.0, cache_read=1.0),
    "claude-mythos-5": Price(10.0, 50.0, cache_read=1.0),
    "claude-opus-5-5": Price(4.0, 20.0, cache_read=0.20),
    "claude-opus-5": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-8": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-7": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-6": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-5": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-1": Price(15.0, 75.0, cache_read=1.50),
    "claude-opus-4": Price(15.0, 75.0, cache_read=1.50),
    # the model page gives cache reads $0.20; later reports of a cut to $0.10 are
    # not on it, and a budget is a cap: the higher figure stays
    "claude-sonnet-5-5": Price(2.0, 10.0, cache_read=0.20),
    "claude-sonnet-5": Price(2.0, 10.0),
    "claude-sonnet-4-6": Price(3.0, 15.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    # "from $0.10 / $0.50": prompts over 100,000 tokens are billed at the second tier
    "claude-haiku-5-5": Price(0.10, 0.50, long=(100_000, Price(0.50, 2.50))),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
}
#: Prices the league file's [prices] table added (see `add_prices`), by model id or prefix.
_EXTRA_PRICES: dict[str, tuple[float, float]] = {}
_DATED = re.compile(r"-\d{8}$")


def user_price(model: str) -> tuple[float, float] | None:
    """The league's [prices] row whose name is the longest prefix of `model`, if any."""
    best = max((k for k in _EXTRA_PRICES if model.startswith(k)), key=len, default=None)
    return None if best is None else _EXTRA_PRICES[best]


def price_of(model: str, override: tuple[float, float] | None = None) -> Price:
    """The override, else the league's [prices] row, else the published price of
    the model id (or the id it is a dated snapshot of)."""
    given = override or user_price(model)
    if given is not None:
        return Price(*given)
    row = PRICES.get(model) or PRICES.get(_DATED.sub("", model))
    if row is None:
        raise ConfigError(
            f"no price for model {model!r}: give `price = [input, output]` (USD per "
            "million tokens) in the policy file or the league's [prices] table",
            "price",
        )
    return row


def check_price(model: str, override: tuple[float, float] | None, where: str = "") -> None:
    try:
        price_of(model, override)
    except ConfigError as err:
        raise ConfigError(where + str(err), "price") from err


def add_prices(prices: Mapping[str, tuple[float, float]]) -> None:
    """Prices for model ids (or prefixes) from a league file's [prices] table."""
    _EXTRA_PRICES.update(prices)


def usage_of(raw: Mapping[str, Any], price: Price) -> Usage:
    """Usage (with cost at `price`) from a Messages API answer's `usage` object."""
    u = Usage(
        input_tokens=raw.get("input_tokens") or 0,
        output_tokens=raw.get("output_tokens") or 0,
        cache_creation_input_tokens=raw.get("cache_creation_input_tokens") or 0,
        cache_read_input_tokens=raw.get("cache_read_input_tokens") or 0,
        calls=1,
    )
    u.cost_usd = price.cost(u)
    return u


def batch_price(p: Price) -> Price:
    """The batch rate: half of every row, cache multipliers kept."""
    return Price(
        p.input / 2,
        p.output / 2,
        None if p.cache_read is None else p.cache_read / 2,
        None if p.long is None else (p.long[0], batch_price(p.long[1])),
    )
