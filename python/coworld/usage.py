"""What calls cost: tokens of every kind, calls and dollars, added up.

Below both the Claude client (which measures each answer) and the league (which
stores, budgets and reports it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: Usage) -> None:
        # field by field, not by a loop over the fields: five times a decision
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls

    @property
    def tokens(self) -> int:
        """Every token billed: input, output, cache writes and cache reads."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    @classmethod
    def total(cls, parts: Iterable[Usage]) -> Usage:
        out = cls()
        for u in parts:
            out.add(u)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Usage:
        """Usage from `as_dict` output (missing fields are zero)."""
        return cls(**{k: d.get(k, 0) for k in cls.__dataclass_fields__})

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["cost_usd"] = round(self.cost_usd, 6)
        return d
