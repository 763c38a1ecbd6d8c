"""The standard record of hidden information becoming visible.

A played card, a stone found by a collision or a sense: whenever something
hidden becomes visible to more seats, a product appends one revelation record
to its full view's `"revelations"` list (and so to transcripts).
`derive_seat_view` keeps the record whole for the seats it is revealed to and
drops its `identity` for the others, so agents and replay UIs read every
reveal the same way.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from .visibility import Hidden, Public, Visibility


def create_information_revelation(
    *,
    what: str,
    identity: Any,
    step: int,
    from_visibility: Visibility,
    to_visibility: Visibility | None = None,
    where: Any = None,
    from_zone: str | None = None,
    to_zone: str | None = None,
    seats: Iterable[Hashable] | None = None,
) -> dict[str, Any]:
    """A JSON-serialisable revelation record.

    `what` names the kind of thing ("card", "stone"), `identity` what it turned
    out to be, `where` where it was found or played (a cell, a slot), `step`
    the step of the episode at which it became visible. `from_visibility` is
    who could see it before; `to_visibility` who can see it now (default
    `Public()`). `seats` lists every seat of the game; it is needed to name who
    learns something when the new visibility is `Public()`.

    The record's `revealedTo` lists the seats that could not see it before and
    can now. A ValueError is raised when nobody learns anything (it is not a
    revelation) or when `seats` is needed but missing.

    Shape::

        {"kind": "revelation", "what": ..., "identity": ..., "where": ...,
         "from": {"zone": ..., "visibility": {...}},
         "to": {"zone": ..., "visibility": {...}},
         "step": n, "revealedTo": [seat, ...]}
    """
    target = to_visibility if to_visibility is not None else Public()
    if isinstance(target, Hidden):
        raise ValueError("a revelation makes something visible; Hidden() reveals it to nobody")
    everyone = list(seats) if seats is not None else None
    if isinstance(target, Public):
        if everyone is None:
            raise ValueError(
                "a revelation to Public() needs `seats` (every seat of the game) "
                "to name who learns it"
            )
        audience = everyone
    else:
        audience = list(target.seats)
    learners = [seat for seat in audience if not from_visibility.admits(seat)]
    if not learners:
        raise ValueError(
            f"nothing is revealed: every seat in {audience} could already see the {what}"
        )
    return {
        "kind": "revelation",
        "what": what,
        "identity": identity,
        "where": where,
        "from": {"zone": from_zone, "visibility": from_visibility.to_json()},
        "to": {"zone": to_zone, "visibility": target.to_json()},
        "step": step,
        "revealedTo": learners,
    }
