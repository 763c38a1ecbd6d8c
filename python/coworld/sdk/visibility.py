"""The visibility algebra and the standard per-seat redactions (docs/sdk.md).

A *visibility* says which seats may see something: `Public()`, `Seats([...])`
or `Hidden()` (no seat; count or existence only). A zone has two independent
visibilities, one for the identity of its entities and one for their order; a
board has a field-of-view predicate and a mode for entities on fogged cells.

The full-view shape `derive_seat_view` understands::

    full_view = {
        "zones":  {name: [entity, ...]},          # list order is the zone's real order
        "boards": {name: {cell: entity | None}},  # EVERY cell of the board; None = empty
        "revelations": [record, ...],             # optional, see create_information_revelation
        ...                                       # any other field: public, copied as is
    }

and `policies` maps every zone and board name to its policy (a
`ZoneVisibilityPolicy` or a `BoardVisibilityPolicy`). A zone or board without a
policy is an error, never silently public. Entities are any JSON values.

The seat view has the same shape with each zone and board redacted:

* zone, identity visible:   `{"count": n, "entities": [...], "ordered": True}` in real
  order when the order is visible too, else sorted by canonical JSON with
  `"ordered": False` (the masked order carries nothing but the multiset);
* zone, identity not visible: `{"count": n}` (identities become a count);
* board: `{cell: value}` for every cell the seat sees (None when empty); a fogged
  cell is absent, except that in `"shell"` mode a fogged occupied cell maps to
  the entity's shell (presence without identity, by default `{"shell": True}`);
* revelations: a record whose `to` visibility admits the seat is kept whole; for
  other seats its `identity` is removed (they learn that something was revealed,
  not what).

Seats are whatever the reducer uses (coworld uses ints 0..n-1; others may use strings).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from .canonical import canonical_json

Seat = Hashable


@dataclass(frozen=True)
class Public:
    """Every seat may see it."""

    kind: Literal["public"] = "public"

    def admits(self, seat: Seat) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        return {"kind": "public"}


@dataclass(frozen=True, init=False)
class Seats:
    """Only the listed seats may see it (owner-only is one seat)."""

    seats: tuple[Seat, ...]
    kind: Literal["seats"] = "seats"

    def __init__(self, seats: Iterable[Seat]) -> None:
        if isinstance(seats, str | bytes):
            raise TypeError(f"Seats takes a collection of seats, not the string {seats!r}")
        unique = tuple(dict.fromkeys(seats))
        object.__setattr__(self, "seats", unique)
        object.__setattr__(self, "kind", "seats")

    def admits(self, seat: Seat) -> bool:
        return seat in self.seats

    def to_json(self) -> dict[str, Any]:
        return {"kind": "seats", "seats": list(self.seats)}


@dataclass(frozen=True)
class Hidden:
    """No seat may see it: only its count or existence is public."""

    kind: Literal["hidden"] = "hidden"

    def admits(self, seat: Seat) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        return {"kind": "hidden"}


Visibility = Public | Seats | Hidden
#: A visibility that is the same for every seat, or one chosen per looking seat.
VisibilityRule = Visibility | Callable[[Seat], Visibility]


def visibility_from_json(data: Mapping[str, Any]) -> Visibility:
    """The inverse of `Visibility.to_json`."""
    kind = data.get("kind")
    if kind == "public":
        return Public()
    if kind == "hidden":
        return Hidden()
    if kind == "seats":
        return Seats(data.get("seats", ()))
    raise ValueError(f"unknown visibility kind {kind!r}; expected public, seats or hidden")


def _resolve(rule: VisibilityRule, seat: Seat, what: str) -> Visibility:
    found = rule(seat) if callable(rule) and not isinstance(rule, Visibility) else rule
    if not isinstance(found, Public | Seats | Hidden):
        raise TypeError(f"{what}({seat!r}) returned {found!r}, not Public, Seats or Hidden")
    return found


class ZoneVisibilityPolicy:
    """Who may see WHICH entities a zone holds (`identity`) and their ORDER (`order`).

    The two are independent: a deck hides identity but has a real order; a bag
    hides order itself; a hand hides identity from others while its owner
    controls the order. Each rule is a fixed visibility or a function of the
    looking seat.
    """

    def __init__(self, identity: VisibilityRule, order: VisibilityRule) -> None:
        self._identity = identity
        self._order = order

    def identity(self, seat: Seat) -> Visibility:
        """The visibility of the zone's identities as `seat` looks."""
        return _resolve(self._identity, seat, "identity")

    def order(self, seat: Seat) -> Visibility:
        """The visibility of the zone's order as `seat` looks."""
        return _resolve(self._order, seat, "order")

    def __repr__(self) -> str:
        return f"ZoneVisibilityPolicy(identity={self._identity!r}, order={self._order!r})"

    @classmethod
    def public(cls) -> ZoneVisibilityPolicy:
        """Face up, in order (a discard pile)."""
        return cls(Public(), Public())

    @classmethod
    def deck(cls) -> ZoneVisibilityPolicy:
        """Face down with a real order nobody sees (a draw pile)."""
        return cls(Hidden(), Hidden())

    @classmethod
    def owned_by(cls, *owners: Seat) -> ZoneVisibilityPolicy:
        """Identity and order seen by the owner(s) only (a hand)."""
        return cls(Seats(owners), Seats(owners))

    @classmethod
    def bag(cls, identity: VisibilityRule | None = None) -> ZoneVisibilityPolicy:
        """No order at all (see `coworld.sdk.Bag`); contents public unless `identity` says."""
        return cls(identity if identity is not None else Public(), Hidden())


@dataclass(frozen=True)
class BoardVisibilityPolicy:
    """A field-of-view predicate over a board's cells, and what a fogged entity shows.

    `cell_visible(seat, cell)` takes the cell as the board's key (an algebraic
    name such as "c3"); compose it from `coworld.sdk.geometry` (`fov_predicate`).
    `hidden_entity_mode` is "absent" (a fogged cell shows nothing) or "shell"
    (a fogged occupied cell shows `shell(entity)`, presence without identity).
    """

    cell_visible: Callable[[Seat, str], bool]
    hidden_entity_mode: Literal["absent", "shell"] = "absent"
    shell: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        if self.hidden_entity_mode not in ("absent", "shell"):
            raise ValueError(
                f"hidden_entity_mode is 'absent' or 'shell', not {self.hidden_entity_mode!r}"
            )

    def shell_of(self, entity: Any) -> Any:
        """What a seat sees of `entity` on a fogged cell in shell mode."""
        return self.shell(entity) if self.shell else {"shell": True}


Policy = ZoneVisibilityPolicy | BoardVisibilityPolicy


def sorted_canonically(entities: Iterable[Any]) -> list[Any]:
    """Entities in canonical order (by canonical JSON text): a function of the multiset only."""
    return sorted(entities, key=canonical_json)


def redact_zone(entities: Iterable[Any], policy: ZoneVisibilityPolicy, seat: Seat) -> dict:
    """What `seat` sees of a zone holding `entities` (in their real order)."""
    items = list(entities)
    if not policy.identity(seat).admits(seat):
        return {"count": len(items)}
    ordered = policy.order(seat).admits(seat)
    shown = copy.deepcopy(items) if ordered else sorted_canonically(copy.deepcopy(items))
    return {"count": len(items), "entities": shown, "ordered": ordered}


def redact_board(cells: Mapping[str, Any], policy: BoardVisibilityPolicy, seat: Seat) -> dict:
    """What `seat` sees of a board given as {cell: entity or None} over every cell."""
    seen: dict[str, Any] = {}
    for cell, entity in cells.items():
        if policy.cell_visible(seat, cell):
            seen[cell] = copy.deepcopy(entity)
        elif entity is not None and policy.hidden_entity_mode == "shell":
            seen[cell] = policy.shell_of(entity)
    return seen


def redact_revelation(record: Mapping[str, Any], seat: Seat) -> dict:
    """A revelation record as `seat` sees it: whole if revealed to it, else without identity."""
    try:
        target = visibility_from_json(record["to"]["visibility"])
    except (KeyError, TypeError) as missing:
        raise ValueError(
            "a revelation record needs to.visibility; make records with "
            f"create_information_revelation (got {record!r:.120})"
        ) from missing
    kept = copy.deepcopy(dict(record))
    if not target.admits(seat):
        kept.pop("identity", None)
    return kept


def derive_seat_view(
    full_view: Mapping[str, Any], policies: Mapping[str, Policy], seat: Seat
) -> dict[str, Any]:
    """The standard redaction of `full_view` for `seat` under `policies` (see module doc).

    Pure and deterministic: the result depends only on its arguments, never on
    a zone's order where the order is hidden from `seat`. It is advisory (a
    product may write its own `view_for`); `assert_no_information_leak` is the
    enforcement.
    """
    zones = full_view.get("zones", {})
    boards = full_view.get("boards", {})
    _check_policies(zones, boards, policies)
    view = {
        key: copy.deepcopy(value)
        for key, value in full_view.items()
        if key not in ("zones", "boards", "revelations")
    }
    if "zones" in full_view:
        view["zones"] = {
            name: redact_zone(z, cast(ZoneVisibilityPolicy, policies[name]), seat)
            for name, z in zones.items()
        }
    if "boards" in full_view:
        view["boards"] = {
            name: redact_board(b, cast(BoardVisibilityPolicy, policies[name]), seat)
            for name, b in boards.items()
        }
    if "revelations" in full_view:
        view["revelations"] = [redact_revelation(r, seat) for r in full_view["revelations"]]
    return view


def _check_policies(zones: Mapping, boards: Mapping, policies: Mapping[str, Policy]) -> None:
    clash = set(zones) & set(boards)
    if clash:
        raise ValueError(f"names used by both a zone and a board: {sorted(clash)}")
    for kind, names, expected in (
        ("zone", zones, ZoneVisibilityPolicy),
        ("board", boards, BoardVisibilityPolicy),
    ):
        for name in names:
            policy = policies.get(name)
            if policy is None:
                raise ValueError(
                    f"{kind} {name!r} has no visibility policy; policies are given for: "
                    f"{sorted(policies) or 'nothing'}"
                )
            if not isinstance(policy, expected):
                raise TypeError(
                    f"{kind} {name!r} needs a {expected.__name__}, got {type(policy).__name__}"
                )
    unknown = set(policies) - set(zones) - set(boards)
    if unknown:
        raise ValueError(
            f"policies name zones or boards the view does not have: {sorted(unknown)}; "
            f"zones: {sorted(zones)}, boards: {sorted(boards)}"
        )
