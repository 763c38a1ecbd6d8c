"""Bags: unordered zones whose internal order exists only for determinism.

A state must be a deterministic value, so even an unordered zone is stored in
some order. A `Bag` stores its entities in canonical order (sorted by canonical
JSON), which is a function of its contents alone: two bags filled in different
orders are equal, serialise identically and produce identical views, so the
order in which things went in (often hidden: who stashed what, when) can never
reach a view or a replay. Drawing picks by an index into the canonical order,
which the caller derives from the game's seeded randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .canonical import canonical_json


class Bag:
    """An immutable multiset of JSON entities kept in canonical order."""

    __slots__ = ("_entities",)

    def __init__(self, entities: Iterable[Any] = ()) -> None:
        self._entities: tuple[Any, ...] = tuple(sorted(entities, key=canonical_json))

    @property
    def entities(self) -> tuple[Any, ...]:
        """The contents in canonical order (the only order a bag has)."""
        return self._entities

    def __len__(self) -> int:
        return len(self._entities)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._entities)

    def __contains__(self, entity: Any) -> bool:
        return any(canonical_json(e) == canonical_json(entity) for e in self._entities)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bag) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[str, ...]:
        return tuple(canonical_json(e) for e in self._entities)

    def __repr__(self) -> str:
        return f"Bag({list(self._entities)!r})"

    def add(self, *entities: Any) -> Bag:
        """A bag with `entities` added."""
        return Bag((*self._entities, *entities))

    def remove(self, entity: Any) -> Bag:
        """A bag with one copy of `entity` taken out; ValueError when it holds none."""
        wanted = canonical_json(entity)
        for i, held in enumerate(self._entities):
            if canonical_json(held) == wanted:
                return Bag(self._entities[:i] + self._entities[i + 1 :])
        raise ValueError(f"the bag holds no {wanted}; it holds {self._key()}")

    def draw(self, index: int) -> tuple[Any, Bag]:
        """(the entity at `index` of the canonical order, the bag without it).

        `index` comes from the game's seeded randomness (an integer in
        0..len-1), so a draw depends on the seed and the contents only.
        """
        if not self._entities:
            raise ValueError("cannot draw from an empty bag")
        if not 0 <= index < len(self._entities):
            raise ValueError(f"draw index {index} is outside 0..{len(self._entities) - 1}")
        entity = self._entities[index]
        return entity, Bag(self._entities[:index] + self._entities[index + 1 :])

    def counts(self) -> dict[str, int]:
        """How many of each entity, keyed by its canonical JSON."""
        found: dict[str, int] = {}
        for key in self._key():
            found[key] = found.get(key, 0) + 1
        return found
