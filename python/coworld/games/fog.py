"""Fog-of-War Boards: the reducer, the rules text, the observation text and the
reply parser of phantom-ttt-3, dark-hex-4, dark-hex-5 and recon-hex-5.

Every rule lives in the Rust core. This module only turns a seat's own view
(`state.view_for(seat)`, the SDK's per-seat view) into prompt text and a model's reply into a
move, asking the core's tolerant reader (`state.read_move`) to read the move.
Nothing here ever reads the spectator view, so a prompt cannot leak what the
seat has not learned.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import IllegalMove, ReplyRejected
from ..seats.jsonreply import JsonPolicy, extract_json_object
from ..seats.reply import NOTES_LIMIT, SAY_LIMIT, Reply, truncate
from .base import Reducer, State
from .catalogue import of_family

#: The baseline that plays a fog seat whose reply cannot be used (docs/failures.md).
FALLBACK = "probe"

#: Replies hold their object amid prose; the first one with a `move` wins.
REPLY_POLICY = JsonPolicy(key="move")

FOG_GAMES: tuple[str, ...] = of_family("fog")


class FogReducer(Reducer):
    """A fog variant as an SDK reducer: `view_for` is the seat's own view from the core."""

    perfect_information = False

    def view_for(self, state: State, seat: int) -> dict[str, Any]:
        """Only what a fog seat may learn (docs/rules/fog.md) allows (see the core's `view_for`)."""
        return state.view_for(seat)

    def results_for(self, state: State, seat: int) -> dict[str, Any] | None:
        """The results as `seat` learns them: reason, ending, score and winner (never
        the true distToWin, the winning path, the opponent's probes or guesses)."""
        outcome: dict[str, Any] | None = state.view_for(seat)["outcome"]
        return outcome

    def with_guess(self, state: State, cells: Sequence[str]) -> State:
        """The state with the active seat's guess recorded for the coming ply (audit only)."""
        return state.with_guess([str(c) for c in cells])


_COORDS = (
    "Cells are named a1 (bottom-left) to {last} (top-right): files a-{lf} left to right, "
    "ranks 1-{n} bottom to top."
)

_TTT = (
    "Phantom Tic-Tac-Toe ({game_id}), {label}. "
    "A 3x3 board. " + _COORDS.format(last="c3", lf="c", n=3) + " Seat 0 is X (red) and "
    "moves first; seat 1 is O (blue). Own all three cells of a rank, a file or a diagonal to "
    "win; a full board with no line is a draw."
)

_HEX = (
    "{title}, {label}. A {n}x{n} rhombus of hexagons. "
    + _COORDS
    + " Cell c3 touches b3, d3 (same rank), c2, d2 (rank below) and b4, c4 (rank above): in "
    "general (file f, rank r) touches (f-1, r), (f+1, r), (f, r-1), (f+1, r-1), (f, r+1) and "
    "(f-1, r+1). Seat 0 (red) moves first and wins by connecting file a to file {lf} with a "
    "chain of touching stones; seat 1 (blue) connects rank 1 to rank {n}. Hex has no draws."
)

_FOG = (
    " You never see your opponent's stones. A ply is one attempt at one cell{sense_part}: if the "
    'cell is empty your stone is placed (result "placed") and the turn passes; if it holds an '
    "opponent stone nothing is placed and you learn that stone is there "
    '(result "occupied"){after}. '
    "You may not attempt a cell you own or know to be occupied, nor an off-board cell: that is an "
    "invalid reply, not a move. You learn only the results of your own plies{sense_learn}, "
    "numbered by your own attempts (1, 2, ...); never where or whether your opponent collided, "
    "nor how many plies it has played."
)

_SENSE = (
    " In recon-hex-5 every ply first senses: name any cell as the anchor and the referee shows "
    "you the 3x3 block around it (files and ranks within one of the anchor, clipped to the "
    "board): opponent stones there become known for good; empty cells are reported with the "
    "number of your attempt at which you saw them, since an empty cell may be filled later. "
    "The sense happens before your attempt in the same ply. This sense-then-move loop is "
    "transplanted from Reconnaissance Blind Chess; recon-hex-5 is an original variant (not a "
    "port of OpenSpiel rbc)."
)

_END = (
    " distToWin is the fewest more cells a seat needs to win (hex: to complete its connection; "
    "tic-tac-toe: to complete a line the opponent has no mark in; 99 when impossible). You are "
    "shown it on your believed board only (your stones, the opponent stones you have proven, "
    "every other cell assumed empty); the true value is never shown to you. The game stops at "
    "{cap} plies at most; a game stopped unfinished (ply cap or time) goes to the seat with the "
    "smaller true distToWin, equal is a draw. Score: +1 win, 0 draw, -1 loss."
)

_REPLY = (
    " Reply with one JSON object: {example}. move: the cell you attempt{sense_field}. say: up to "
    "140 characters for the spectators (your opponent never sees it). notes: up to 400 characters "
    "of private memory, shown back to you (only) on your next turn in place of the old notes. "
    "guess: cells you believe hold opponent stones, audited but never scored. Longer text is cut."
)


def _rules(game_id: str) -> str:
    """The rules of one variant, from its config as the core records it."""
    config = State(game_id, None, 1).config
    n, abrupt, recon, label = (
        config["size"],
        config["abrupt"],
        config["sense"] > 0,
        config["variant"],
    )
    if config["mode"] == "phantom-ttt":
        board = _TTT.format(game_id=game_id, label=label)
    else:
        name = "Recon Hex" if recon else "Abrupt Dark Hex" if abrupt else "Dark Hex"
        if recon:
            label += (
                f" (Abrupt Dark Hex {n}x{n} with Reconnaissance Blind Chess's sense-then-move loop)"
            )
        last = f"{'abcde'[n - 1]}{n}"
        board = _HEX.format(
            title=f"{name} ({game_id})", label=label, n=n, last=last, lf="abcde"[n - 1]
        )
    after = (
        " and the turn passes to your opponent: you spent your move to learn one fact"
        if abrupt
        else " and you move again"
    )
    fog = _FOG.format(
        sense_part=", preceded in recon-hex-5 by one sense" if recon else "",
        after=after,
        sense_learn=" and your sense reports" if recon else "",
    )
    example = (
        '{"move": "c3", "sense": "b2", "say": "...", "notes": "...", "guess": ["d4"]}'
        if recon
        else '{"move": "c3", "say": "...", "notes": "...", "guess": ["d4"]}'
    )
    reply = _REPLY.format(
        example=example,
        sense_field="; sense: the anchor cell of your sense (required)" if recon else "",
    )
    return board + fog + (_SENSE if recon else "") + _END.format(cap=2 * n * n) + reply


#: The rules as a seat is told them, per variant id.
RULES_TEXT: dict[str, str] = {g: _rules(g) for g in FOG_GAMES}


def board_lines(view: dict[str, Any], seat: int) -> list[str]:
    """The seat's own picture of the board: its stones and the opponent stones it has
    proven, in the seat colours (X seat 0, O seat 1); `.` is a cell it knows nothing of."""
    n = int(view["size"])
    files = " ".join("abcdefghijk"[:n])
    mine, theirs = ("X", "O") if seat == 0 else ("O", "X")
    own, proven = set(view["ownStones"]), set(view["provenStones"])
    hexes = view["mode"] == "dark-hex"

    # Hex: each rank sits half a cell right of the one below, so a cell's upper
    # neighbours are drawn up-left and up-right of it.
    def indent(rank: int) -> str:
        return " " * (rank - 1) if hexes else ""

    lines = [f"    {indent(n)}{files}"]
    for rank in range(n, 0, -1):
        marks = " ".join(
            mine if f"{f}{rank}" in own else theirs if f"{f}{rank}" in proven else "."
            for f in files.split()
        )
        lines.append(f"{rank:>2}  {indent(rank)}{marks}")
    if hexes:
        lines.append(f"    {files}")
    return lines


def _log_lines(view: dict[str, Any]) -> list[str]:
    out = []
    for entry in view["log"]:
        text = f"  attempt {entry['attempt']}: "
        sense = entry.get("sense")
        if sense:
            stones = ", ".join(sense["stones"]) or "none"
            empty = ", ".join(sense["empty"]) or "none"
            text += f"sensed {sense['anchor']} (opponent stones: {stones}; empty: {empty}); "
        text += f"attempted {entry['cell']}: {entry['result']}"
        out.append(text)
    return out or ["  (no attempts of yours yet)"]


def _goal(view: dict[str, Any], seat: int) -> str:
    n = int(view["size"])
    if view["mode"] == "phantom-ttt":
        return "X, red" if seat == 0 else "O, blue"
    last_file = "abcdefghijk"[n - 1]
    if seat == 0:
        return f"red, connecting file a to file {last_file}"
    return f"blue, connecting rank 1 to rank {n}"


def _who(aliases: Sequence[str], seat: int, goal: str) -> str:
    """`cog-1a2b (seat 0, red, ...)`, or `seat 0 (red, ...)` when no alias is given."""
    if 0 <= seat < len(aliases) and aliases[seat]:
        return f"{aliases[seat]} (seat {seat}, {goal})"
    return f"seat {seat} ({goal})"


def observation_text(
    state: State,
    seat: int,
    *,
    notes: str,
    operator_prompt: str,
    aliases: Sequence[str],
) -> str:
    """The seat's prompt for this ply, built only from `state.view_for(seat)`.

    The rules (`RULES_TEXT`) are sent separately; this is the position as the seat
    knows it: its board (own stones, proven opponent stones), its referee log, its
    notes, its legal attempts and sense anchors, its believed distToWin and its own
    attempt count (never the global ply). The true distToWin and anything unproven
    never appear.
    """
    view = state.view_for(seat)
    other = 1 - seat
    you = _who(aliases, seat, _goal(view, seat))
    them = _who(aliases, other, _goal(view, other))
    parts = [f"{view['game']}: {view['variant']}.", f"You are {you}; your opponent is {them}."]
    if operator_prompt:
        parts += ["", "Your operator's instructions:", operator_prompt.strip()]
    turn = (
        "It is your turn."
        if view["activeSeat"] == seat
        else "The game is over."
        if view["activeSeat"] is None
        else "It is your opponent's turn."
    )
    parts += [
        "",
        f"Your attempts so far: {view['attempts']} (the game stops after {view['maxPlies']} "
        f"plies in all, both seats' counted). {turn}",
    ]
    mark = "X" if seat == 0 else "O"
    parts += [
        "",
        f"Your board (you are {mark}; shown: your stones and the opponent stones you have "
        "proven; . is a cell you know nothing of):",
    ]
    parts += board_lines(view, seat)
    if view.get("seenEmpty"):
        seen = ", ".join(f"{c} (attempt {p})" for c, p in view["seenEmpty"].items())
        parts += [f"Seen empty by your senses, with your attempt number: {seen}"]
    parts += ["", "Your referee log:"] + _log_lines(view)
    parts += ["", "Your notes:", notes if notes else "(none)"]
    dist = view["believedDistToWin"]
    parts += [
        "",
        f"Your believed distToWin: {dist}"
        + (" (no way through on your believed board)" if dist == 99 else "")
        + " (on your believed board; the true value may be larger).",
    ]
    outcome = view.get("outcome")
    if outcome:
        winner = outcome["winner"]
        result = "a draw" if winner is None else "won by you" if winner == seat else "lost"
        parts += [f"Result: {result} ({outcome['ending']})."]
        return "\n".join(parts)
    parts += _legal_lines(view)
    if view["sense"]:
        parts += ['Reply with one JSON object: {"move": <cell>, "sense": <anchor>, ...}.']
    else:
        parts += ['Reply with one JSON object: {"move": <cell>, ...}.']
    return "\n".join(parts)


def _legal_lines(view: dict[str, Any]) -> list[str]:
    """The complete legal set, compactly: the legal cells, and (recon-hex-5) the legal
    anchors, every cell, rather than all anchor x cell pairs."""
    lines = ["Legal attempts: " + ", ".join(view["legalAttempts"])]
    if view["sense"]:
        anchors = view["legalSenseAnchors"]
        lines += [
            f"Legal sense anchors: every cell, any of the {len(anchors)} with any legal attempt "
            f"({', '.join(anchors)})"
        ]
    return lines


def legal_text(state: State) -> str:
    """The active seat's complete legal set for a retry, from its own view."""
    seat = state.active_seat
    assert seat is not None, "a retry is only asked of the seat to move"
    return "\n".join(_legal_lines(state.view_for(seat)))


def bounded_guess(value: object, cells: int) -> tuple[str, ...]:
    """Guessed cells as given (a list, or one string of cells), at most `cells` of them.

    The core drops anything that is not a cell on the board; guesses are never rejected.
    """
    if isinstance(value, str):
        items: list[object] = re.split(r"[\s,;]+", value)
    elif isinstance(value, list):
        items = value
    else:
        return ()
    return tuple(str(x).strip()[:8] for x in items if isinstance(x, str) and x.strip())[:cells]


def canonical_guess(raw: Sequence[str], size: int) -> tuple[tuple[str, ...], list[str]]:
    """Guessed cells (already bounded by `bounded_guess`) as the core counts them: each in its
    canonical name (`A1`, ` b2 ` read as the core reads a cell), once; and what was
    left out, each with why (for a record)."""
    cells: list[str] = []
    dropped: list[str] = []
    for text in raw:
        cell = _cell(text, size)
        if cell is None or cell in cells:
            what = "not a cell of the board" if cell is None else "named twice"
            dropped.append(f"guess: {text!r} {what}")
        else:
            cells.append(cell)
    return tuple(cells), dropped


def _cell(text: str, size: int) -> str | None:
    """`text` as the core reads a cell (lower case, letters and digits only): its
    canonical name on a `size` x `size` board, or None."""
    squeezed = "".join(c for c in text.lower() if c.isascii() and c.isalnum())
    file, rank = squeezed[:1], squeezed[1:]
    if not ("a" <= file <= "z" and rank.isdigit() and not rank.startswith("0")):
        return None
    if ord(file) - ord("a") < size and 1 <= int(rank) <= size:
        return f"{file}{rank}"
    return None


def parse_reply(text: str, state: State, seat: int, aliases: Sequence[str] = ()) -> Reply:
    """Read one reply: a JSON object (fenced or amid prose) with `move` (and `sense` in
    recon-hex-5), optional `say`, `notes` and `guess`. The move goes through the core's
    tolerant reader; text fields are truncated to their limits.

    Raises `ReplyRejected` (cause "unparseable" or "illegal") and nothing else. `aliases`
    is accepted for the family-uniform signature; fog replies do not use it.
    """
    del aliases
    if not isinstance(text, str):
        raise ReplyRejected("the reply is not text", "unparseable")
    if state.active_seat != seat:
        raise ReplyRejected(f"it is not seat {seat}'s turn", "illegal")
    obj = extract_json_object(text, policy=REPLY_POLICY)
    move = obj.get("move")
    if not isinstance(move, str) or not move.strip():
        raise ReplyRejected('the object has no "move" string naming a cell', "unparseable")
    view = state.view_for(seat)
    sense = obj.get("sense")
    if view["sense"] and isinstance(sense, str) and sense.strip():
        move = f"{sense} {move}"
    try:
        canonical = state.read_move(move[:200])
    except IllegalMove as e:
        raise ReplyRejected(str(e), e.kind) from None
    size = int(view["size"])
    return Reply(
        move=canonical,
        say=truncate(obj.get("say"), SAY_LIMIT),
        notes=truncate(obj.get("notes"), NOTES_LIMIT),
        guess=canonical_guess(bounded_guess(obj.get("guess"), size * size), size)[0],
    )


def feed_line(before: Any, after: Any, seat: int, move: str, labels: Sequence[str]) -> str:
    """The spectator feed: "red plays c3", "blue probes d4: occupied", with a sense first
    in recon-hex-5 and the win at the end."""
    event = after.view()["events"][-1]
    who = labels[seat]
    sensed = ""
    if event.get("sense"):
        found = event["sense"]["stones"]
        sensed = (
            f"senses {event['sense']['anchor']} ({len(found)} stone{'s' * (len(found) != 1)}), "
        )
    if event["result"] == "occupied":
        text = f"{who} {sensed}probes {event['cell']}: occupied"
    else:
        text = f"{who} {sensed}plays {event['cell']}"
    results = after.results
    if results and results.get("winner") == seat and results["ending"] in ("line", "connection"):
        text += f", and wins ({results['ending']})"
    return text
