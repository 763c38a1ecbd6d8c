"""Hanabi for Claude seats: the rules text, the per-turn observation, and the
tolerant reader of a seat's JSON reply.

Every rule lives in the Rust core. The observation is built from
`state.view_for(seat)` alone, so it cannot show what that view hides (the
seat's own cards, the deck, the seed); notes, banners and the alias map are
held by the episode runner and only the seat's own note is passed in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .. import _core
from ..errors import IllegalMove, ReplyRejected
from ..seats.jsonreply import JsonPolicy, extract_json_object
from ..seats.reply import BANNER_LIMIT, NOTES_LIMIT, Reply, truncate
from .base import Reducer

#: The baseline that moves for a seat whose reply is refused twice, or that has no credentials.
FALLBACK = "conventions"

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "white")
#: Candidate sets this small are listed card by card; larger ones are counted.
LIST_CANDIDATES_UP_TO = 6

RULES_TEXT = """\
HANABI - a cooperative card game. All seats share one score: the sum of the five fireworks.

The deck: five colours (red, yellow, green, blue, white), ranks 1-5; each colour has three 1s,
two each of 2, 3 and 4, and one 5 (50 cards). With 4-5 seats each hand holds 4 cards, with 2-3
seats 5. You see every other hand face-up but NEVER your own cards; you know only what hints
told you. Slot 1 is your newest card: a drawn card enters slot 1 and older cards move up, so the
oldest card has the highest slot number.

On your turn do exactly one of:
- play a slot: if it is the next rank of its colour's firework (a 1 starts a firework) it is
  added; otherwise it is discarded and a fuse burns. Completing a firework with its 5 returns
  a hint token (if fewer than 8). You then draw, if the deck has cards.
- discard a slot: it goes to the discard pile, you regain a hint token and draw. Discarding is
  not allowed while all 8 hint tokens are available.
- hint another seat (costs one token; not possible at 0 tokens): name ONE colour or ONE rank,
  and every card of that colour/rank in that seat's hand is pointed out; the hint must point
  at least one card. The other cards learn they are NOT that colour/rank.

Start: 8 hint tokens, 3 fuses. The game ends when the third fuse burns (score 0), when all five
fireworks reach 5 (score 25), after the final round (once the last card is drawn every seat,
the one who drew it included, takes one more turn), or after 100 turns (score = fireworks).

Your observation lists, for each of your slots, the hints it received, the candidate cards it
can still be (from the cards you can see), and flags: knownPlayable (every candidate plays now),
knownDead (every candidate is useless), and the chop (the card you would discard next).
There is no chat: a hint is the only thing you can say to your partners.

Reply with ONE flat JSON object copied from LEGAL MOVES, optionally adding "note" (private,
up to 400 characters, shown back to you next turn) and "banner" (up to 80 characters, shown to
spectators only, never to your partners). Examples:
{"action":"play","slot":1}
{"action":"discard","slot":4}
{"action":"hint","target":2,"hintType":"rank","hintValue":"3","note":"2 has a playable 3"}
{"action":"hint","target":1,"hintType":"colour","hintValue":"red"}
"target" is a seat number. Nothing else belongs in the reply.
"""


class HanabiReducer(Reducer):
    """Hanabi as an SDK reducer: `view_for` shows a seat its own hand as
    knowledge only and the deck as a count (see `zone_visibility`)."""

    def zone_visibility(self, zone: str, seat: int, seats: int) -> dict[str, dict[str, Any]]:
        """The SDK's `ZoneVisibilityPolicy` of a zone for `seat`: who sees which
        cards are in it (`identity`) and who sees their order (`order`).

        Zones: `deck`, `hand:<i>`, `fireworks`, `discard`."""
        public = {"kind": "public"}
        if zone == "deck":
            return {"identity": {"kind": "hidden"}, "order": {"kind": "hidden"}}
        if zone in ("fireworks", "discard"):
            return {"identity": public, "order": public}
        holder = _hand_holder(zone, seats)
        others = [s for s in range(seats) if s != holder]
        identity = {"kind": "seats", "seats": others}
        # Slot order is public: hints, plays and discards name slots.
        return {"identity": identity, "order": public}


def _hand_holder(zone: str, seats: int) -> int:
    prefix, _, number = zone.partition(":")
    if prefix == "hand" and number.isdigit() and int(number) < seats:
        return int(number)
    raise ValueError(
        f"unknown zone {zone!r}; zones: deck, fireworks, discard, hand:0..hand:{seats - 1}"
    )


# ---------------------------------------------------------------- observation


def move_object(move: str) -> dict[str, Any]:
    """The reply object for a canonical move: `hint 2 rank 3` is
    `{"action":"hint","target":2,"hintType":"rank","hintValue":"3"}`."""
    words = move.split()
    if words[0] in ("play", "discard"):
        return {"action": words[0], "slot": int(words[1])}
    return {"action": "hint", "target": int(words[1]), "hintType": words[2], "hintValue": words[3]}


def move_json(move: str) -> str:
    return json.dumps(move_object(move), separators=(",", ":"))


def _who(seat: int, aliases: Sequence[str]) -> str:
    alias = aliases[seat] if 0 <= seat < len(aliases) else f"seat-{seat}"
    return f"seat {seat} ({alias})"


def _hint_words(h: Mapping[str, Any]) -> str:
    """`is red; not 1, 2; last hinted turn 7`: negatives of a kind already named are left out."""
    known = []
    if h.get("colour"):
        known.append(str(h["colour"]))
    if h.get("rank"):
        known.append(f"rank {h['rank']}")
    nots = [] if h.get("colour") else [str(c) for c in h.get("notColours", [])]
    nots += [] if h.get("rank") else [str(r) for r in h.get("notRanks", [])]
    parts = ["is " + " ".join(known) if known else "no positive hint"]
    if nots:
        parts.append("not " + ", ".join(nots))
    if h.get("touched") is not None:
        parts.append(f"last hinted turn {h['touched']}")
    return "; ".join(parts)


def _candidates(k: Mapping[str, Any]) -> str:
    cands = list(k.get("candidates", []))
    copies = k.get("remainingCopies", {})
    if len(cands) <= LIST_CANDIDATES_UP_TO:
        listed = ", ".join(f"{c} x{copies.get(c, '?')}" for c in cands)
        return f"could be {listed}" if cands else "no candidate left"
    return f"{len(cands)} candidate cards"


def status_lines(v: Mapping[str, Any]) -> list[str]:
    """The turn, score, tokens, fuses and deck of a view (and the endgame countdown)."""
    lines = [
        f"Turn {v['turn']} (turns count from 0; the game stops after {v['maxTurns']} turns)"
        f" | score {v['score']} | hint tokens {v['hintTokens']}/{v['maxHintTokens']}"
        f" | fuses {v['fuses']}/{v['maxFuses']} left | deck {v['deckCount']} cards"
    ]
    if v.get("finalTurnsLeft") is not None:
        lines.append(
            f"ENDGAME: the deck is empty; {v['finalTurnsLeft']} turn(s) left in the game,"
            " this one included."
        )
    return lines


def table_lines(v: Mapping[str, Any]) -> list[str]:
    """The fireworks and the discard pile of a view."""
    fw = ", ".join(f"{c} {v['fireworks'][c]}" for c in COLOURS)
    grouped = v.get("discardGrouped", {})
    pile = ", ".join(f"{card} x{n}" if n > 1 else card for card, n in grouped.items()) or "empty"
    return [f"FIREWORKS: {fw}", f"DISCARD PILE ({len(v.get('discard', []))} cards): {pile}"]


def _other_hands(v: Mapping[str, Any], seat: int, aliases: Sequence[str]) -> list[str]:
    n = v["seats"]
    lines = ["OTHER HANDS (face-up, slot 1 = newest; after each card, what its holder knows):"]
    for off in range(1, n):
        s = (seat + off) % n
        order = "acts next" if off == 1 else f"acts in {off} turns"
        lines.append(f"{_who(s, aliases)}, {order}:")
        for card in v["hands"][s]:
            flags = (" CRITICAL" if card.get("critical") else "") + (
                " (chop)" if card.get("chop") else ""
            )
            lines.append(
                f"  slot {card['slot']}: {card['card']}{flags}"
                f" - knows: {_hint_words(card['hints'])}"
            )
    return lines


def _own_hand(v: Mapping[str, Any], seat: int, aliases: Sequence[str]) -> list[str]:
    lines = [
        f"YOUR HAND ({_who(seat, aliases)}; you cannot see these cards; slot 1 = newest;"
        " xN = copies of that card you cannot see):"
    ]
    for card in v["hands"][seat]:
        k = card["knowledge"]
        flags = [
            f
            for f, on in (("knownPlayable", k["knownPlayable"]), ("knownDead", k["knownDead"]))
            if on
        ]
        if card.get("chop"):
            flags.append("CHOP")
        tail = f" | {', '.join(flags)}" if flags else ""
        lines.append(f"  slot {card['slot']}: {_hint_words(k)} | {_candidates(k)}{tail}")
    return lines


def _log(v: Mapping[str, Any], aliases: Sequence[str]) -> list[str]:
    lines = ["MOVE LOG (every turn since turn 0; hinted slots as numbered at that turn):"]
    for e in v.get("log", []):
        head = f"  turn {e['turn']}: {_who(e['seat'], aliases)} {e['move']}"
        if e["result"] == "hinted":
            slots = ", ".join(str(s) for s in e["touched"])
            noun = "slot" if len(e["touched"]) == 1 else "slots"
            lines.append(f"{head} -> {_who(e['target'], aliases)} {noun} {slots}")
        else:
            lines.append(f"{head} -> {e['card']} {e['result']}")
    if len(lines) == 1:
        lines.append("  (no moves yet)")
    return lines


def _legal(v: Mapping[str, Any]) -> list[str]:
    legal = v.get("legalMoves", [])
    if not legal:
        return ["LEGAL MOVES: none (it is not your turn or the game is over)"]
    lines = [
        "LEGAL MOVES (reply with exactly one of these JSON objects, optionally adding note/banner):"
    ]
    lines += [f"  {i}. {move_json(m)}" for i, m in enumerate(legal, 1)]
    return lines


def observation_text(
    state: Any, seat: int, *, notes: str, operator_prompt: str, aliases: Sequence[str]
) -> str:
    """What `seat` reads this turn, in a fixed order. Built from `state.view_for(seat)` only."""
    v = state.view_for(seat)
    sections = [
        status_lines(v),
        table_lines(v),
        _other_hands(v, seat, aliases),
        _own_hand(v, seat, aliases),
        _log(v, aliases),
        _legal(v),
        ["YOUR PRIVATE NOTE (written by you on an earlier turn):", notes if notes else "(none)"],
        ["YOUR OPERATOR'S PROMPT:", operator_prompt if operator_prompt else "(none)"],
    ]
    return "\n\n".join("\n".join(s) for s in sections)


# ---------------------------------------------------------------- the reply

_FIELDS: dict[str, str] = {
    "action": "action",
    "move": "move",
    "slot": "slot",
    "card": "slot",
    "index": "slot",
    "position": "slot",
    "target": "target",
    "seat": "target",
    "player": "target",
    "to": "target",
    "targetseat": "target",
    "hinttype": "hintType",
    "cluetype": "hintType",
    "hintvalue": "hintValue",
    "cluevalue": "hintValue",
    "value": "hintValue",
    "colour": "colour",
    "color": "colour",
    "rank": "rank",
    "number": "rank",
    "note": "note",
    "notes": "note",
    "banner": "banner",
}
_ALLOWED = "action, slot, target, hintType, hintValue, note, banner (or move)"
#: Hanabi replies hold exactly one flat object (see `seats.jsonreply`).
REPLY_POLICY = JsonPolicy(exactly_one=True, example='{"action":"play","slot":1}')


def _reject(reason: str, cause: str = "unparseable") -> ReplyRejected:
    return ReplyRejected(reason, cause)


def _word(kind: str, value: Any) -> str | None:
    """A field's value in canonical form, read by the core's move reader (the one
    place Hanabi's words live: number words, plurals, `clue`, `color`, ...)."""
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return _core.hanabi_word(kind, str(value))


def _fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Keys normalised (case, `_`, `-`, spaces ignored); unknown or nested fields refused."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        norm = re.sub(r"[\s_\-]", "", str(key)).lower()
        field = _FIELDS.get(norm)
        if field is None:
            raise _reject(f"unknown field {key!r}; a reply has only {_ALLOWED}")
        if isinstance(value, dict | list):
            raise _reject(
                f"field {key!r} holds a nested {type(value).__name__};"
                " the reply must be one flat object"
            )
        if field in out:
            raise _reject(f"field {field!r} is given twice")
        out[field] = value
    return out


def _integer(value: Any, what: str) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        raise _reject(f"{what} must not be negative, not {json.dumps(value)}")
    word = _word("number", value)
    if word is None:
        raise _reject(f"{what} must be a number, not {json.dumps(value)}")
    return int(word)


def _target(value: Any, aliases: Sequence[str]) -> int:
    if isinstance(value, str):
        lowered = [a.lower() for a in aliases]
        if value.strip().lower() in lowered:
            return lowered.index(value.strip().lower())
    try:
        return _integer(value, "target")
    except ReplyRejected:
        raise _reject(
            f"target must be a seat number or alias ({', '.join(aliases)}), not {json.dumps(value)}"
        ) from None


def _hint_value(kind: str | None, value: Any) -> tuple[str, str]:
    """(`colour`|`rank`, canonical value) from a possibly sloppy type and value."""
    if isinstance(value, bool) or value is None:
        raise _reject(f"hintValue must be a colour or a rank 1-5, not {json.dumps(value)}")
    colour = _word("colour", value) if not isinstance(value, int | float) else None
    if kind is None:
        kind = "colour" if colour else "rank"
    if kind == "colour":
        if colour is None:
            raise _reject(f"hintValue {json.dumps(value)} is not a colour ({', '.join(COLOURS)})")
        return "colour", colour
    rank = _word("rank", value)
    if rank is None:
        raise _reject(f"hintValue {json.dumps(value)} is not a rank 1-5")
    return "rank", rank


def _hint_kind(value: Any) -> str:
    kind = _word("hintType", value)
    if kind is None:
        raise _reject(f"hintType must be colour or rank, not {json.dumps(value)}")
    return kind


def _canonical(f: Mapping[str, Any], aliases: Sequence[str]) -> str:
    """The canonical move text the fields spell (legality is checked by the core)."""
    if "move" in f:
        if any(
            k in f for k in ("action", "slot", "target", "hintType", "hintValue", "colour", "rank")
        ):
            raise _reject('"move" stands alone: give either "move" or "action" with its fields')
        if not isinstance(f["move"], str):
            raise _reject(
                f'"move" must be a move text such as "play 1", not {json.dumps(f["move"])}'
            )
        move = f["move"]
        for seat, alias in enumerate(aliases):
            move = re.sub(re.escape(alias), str(seat), move, flags=re.IGNORECASE)
        return move
    if "action" not in f:
        raise _reject('the reply needs "action": play, discard or hint')
    action = _word("action", f["action"])
    if (
        action is None
        and isinstance(f["action"], str)
        and not set(f) - {"action", "note", "banner"}
    ):
        return _canonical({"move": f["action"]}, aliases)  # {"action": "play 2"} is a move text
    if action is None:
        raise _reject(f"action must be play, discard or hint, not {json.dumps(f['action'])}")
    if action in ("play", "discard"):
        extra = [k for k in ("target", "hintType", "hintValue", "colour", "rank") if k in f]
        if extra:
            raise _reject(f"a {action} takes only a slot; remove {', '.join(extra)}")
        if "slot" not in f:
            raise _reject(f'a {action} needs "slot" (1 = your newest card)')
        return f"{action} {_integer(f['slot'], 'slot')}"
    return _canonical_hint(f, aliases)


def _canonical_hint(f: Mapping[str, Any], aliases: Sequence[str]) -> str:
    if "slot" in f:
        raise _reject("a hint names a target seat and a colour or rank, not a slot")
    if "target" not in f:
        raise _reject('a hint needs "target" (a seat number)')
    target = _target(f["target"], aliases)
    given = [k for k in ("hintValue", "colour", "rank") if k in f]
    if len(given) != 1:
        raise _reject('a hint needs exactly one "hintValue" (a colour or a rank 1-5)')
    kind = _hint_kind(f["hintType"]) if "hintType" in f else None
    implied = {"colour": "colour", "rank": "rank"}.get(given[0])
    if kind and implied and kind != implied:
        raise _reject(f'hintType {kind} contradicts the field "{given[0]}"')
    kind, value = _hint_value(kind or implied, f[given[0]])
    return f"hint {target} {kind} {value}"


def parse_reply(text: str, state: Any, seat: int, aliases: Sequence[str]) -> Reply:
    """Read a seat's reply into a legal canonical move plus its note and banner.

    Raises `ReplyRejected` (cause `unparseable` or `illegal`, with a specific
    reason) and nothing else, whatever `text` is."""
    try:
        return _parse(text, state, seat, aliases)
    except ReplyRejected:
        raise
    except Exception as e:  # the contract: a reply never crashes the runner
        raise _reject(f"the reply could not be read ({type(e).__name__}: {e})") from None


def _parse(text: str, state: Any, seat: int, aliases: Sequence[str]) -> Reply:
    if not isinstance(text, str):
        raise _reject(f"a reply is text, not {type(text).__name__}")
    if state.active_seat != seat:
        raise _reject(f"it is not seat {seat}'s turn", "illegal")
    fields = _fields(extract_json_object(text, policy=REPLY_POLICY))
    move = _canonical(fields, aliases)
    try:
        canonical = state.read_move(move)
    except IllegalMove as e:
        cause = "illegal" if e.kind == "illegal" else "unparseable"
        raise _reject(f"{move!r}: {e.reason}", cause) from None
    note = fields.get("note")
    banner = fields.get("banner")
    return Reply(
        move=canonical,
        notes=truncate(
            note if isinstance(note, str) or note is None else json.dumps(note), NOTES_LIMIT
        ),
        banner=truncate(
            banner if isinstance(banner, str) or banner is None else json.dumps(banner),
            BANNER_LIMIT,
        ),
    )


def feed_line(before: Any, after: Any, seat: int, move: str, labels: Sequence[str]) -> str:
    """The spectator feed: "cog-1a2b plays red 3 from slot 2", "... tells cog-9f00: rank 3
    (slots 1, 4)", "... misplays blue 4 (a fuse burns)", "... discards white 1"."""
    entry = after.view()["log"][-1]
    who = labels[seat]
    result = entry["result"]
    if result == "hinted":
        _, _, kind, value = entry["move"].split(" ", 3)
        touched = entry["touched"]
        slots = ("slots " if len(touched) > 1 else "slot ") + ", ".join(map(str, touched))
        return f"{who} tells {labels[entry['target']]}: {kind} {value} ({slots})"
    slot = entry["move"].split()[-1]
    if result == "played":
        return f"{who} plays {entry['card']} from slot {slot}"
    if result == "misplayed":
        return f"{who} misplays {entry['card']} from slot {slot} (a fuse burns)"
    return f"{who} discards {entry['card']} from slot {slot}"
