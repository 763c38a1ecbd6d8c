"""Board Gauntlet for Claude seats: the rules text, the observation a seat reads, and
reading its reply. Every rule is asked of the Rust core; this module only draws the
position the core reports and words it for a model."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import IllegalMove, ReplyRejected
from ..seats.jsonreply import JsonPolicy, extract_json_object
from ..seats.reply import NOTES_LIMIT, SAY_LIMIT, Reply, truncate
from .catalogue import ROTATION

#: The baseline that plays a seat whose reply cannot be used twice running.
FALLBACK = "tactician"

#: Replies hold their object amid prose; the first one with a `move` wins.
REPLY_POLICY = JsonPolicy(key="move")

COLOURS = ("red", "blue")
MARKS = ("R", "B")

_REPLY_FORMAT = (
    "Reply with exactly one JSON object and nothing else:\n"
    '{"move": "<one legal move>", "say": "<optional, at most 140 characters, shown to '
    'spectators only>", "notes": "<optional, at most 400 characters, private: shown back '
    'to you alone on your next turn>"}\n'
    "Move text is lower-cased, trimmed and stripped of everything but a-z and 0-9 before it "
    "is read. An unreadable or illegal move gets one retry with the legal-move list; a second "
    "failure hands the move to a scripted baseline."
)

_COMMON = (
    "Board Gauntlet: two seats, one board, nothing hidden and no dice. Seat 0 (red) moves "
    "first; seat 1 is blue. Cells are algebraic: files a, b, c, ... left to right, ranks "
    "1, 2, 3, ... bottom to top; a1 is bottom-left. A win scores +1, a draw 0, a loss -1. "
    "If the ply cap or the wall clock stops the game, the seat with the higher standing "
    "(a heuristic shown every turn) wins; equal standings draw.\n"
)

RULES_TEXT: dict[str, str] = {
    "connect-four": _COMMON
    + (
        "connect-four: 7 files (a..g) x 6 ranks. A move is a file letter a..g (digits 1..7 "
        "also work, 1 = a). It drops your disc into the lowest empty cell of that file; a "
        "full file is illegal. Four of your discs in a row horizontally, vertically or "
        "diagonally wins at once. A full board with no four-in-a-row is a draw. Ply cap 42. "
        "Standing: over all 69 four-cell windows holding no opponent disc, sum 0/1/4/16/10000 "
        "for 0/1/2/3/4 of your discs.\nMove examples: d, a.\n"
    )
    + _REPLY_FORMAT,
    "breakthrough": _COMMON
    + (
        "breakthrough: 6 x 6. Red's 12 pieces start on ranks 1-2 and move up toward rank 6; "
        "blue's start on ranks 5-6 and move down toward rank 1. A move is <from>-<to>, e.g. "
        "b2-c3: one of your pieces steps one rank forward, straight or diagonally. A straight "
        "step needs an empty cell (no straight capture). A diagonal step may go to an empty "
        "cell or capture an opponent piece there. You win at once by reaching the far rank "
        "(red rank 6, blue rank 1) or by capturing the last opponent piece; a seat with no "
        "legal move loses. Ply cap 100. Standing: 100 x pieces + 10 x total advance + 40 x "
        "best advance (advance = ranks moved from your back rank).\n"
        "Move examples: b2-c3, e5-e4.\n"
    )
    + _REPLY_FORMAT,
    "hex": _COMMON
    + (
        "hex: 7 x 7 rhombus, files a..g, ranks 1..7. A move is an empty cell, e.g. d4; stones "
        "never move. Cell (file, rank) touches six cells: left and right on its rank, the same "
        "file and the file to its left on the rank above, the same file and the file to its "
        "right on the rank below (c4 touches b4, d4, c5, b5, c3, d3; a1 touches only b1 and "
        "a2). Red wins by an unbroken chain of red stones from file a to file g; blue from "
        "rank 1 to rank 7. There are no draws and no swap rule. Ply cap 49. Standing: 1000 - "
        "10 x distToWin, the fewest empty cells you still need (99 if blocked).\n"
        "Move examples: d4, a7.\n"
    )
    + _REPLY_FORMAT,
    "quoridor": _COMMON
    + (
        "quoridor: 9 x 9, files a..i, ranks 1..9, 10 walls each. Red's pawn starts on e1 and "
        "must reach rank 9; blue's starts on e9 and must reach rank 1. A move is either a "
        "pawn move, written as the destination cell (e.g. e2), or a wall, written <anchor>"
        "<h|v> with anchor a1..h8 (e.g. e3h). The anchor is the top-right corner of the "
        "anchor cell: xNh blocks the steps between ranks N and N+1 on files x and x+1; xNv "
        "blocks the steps between files x and x+1 on ranks N and N+1. A wall is legal if you "
        "have walls left, no wall sits on that anchor, neither blocked step is already "
        "blocked, and both pawns keep a path to their goal rank. A pawn steps to an "
        "orthogonally adjacent empty cell not cut off by a wall. If the opponent's pawn is "
        "adjacent, you may jump straight over it when the cell beyond is on the board and "
        "not walled off; only if that straight jump is unavailable may you step to either "
        "cell diagonally beside the opponent (if not walled off). Reaching your goal rank "
        "wins. Ply cap 200. Standing: 1000 - 10 x (steps to goal ignoring pawns) + 2 x walls "
        "left.\nMove examples: e2, e3h, d7v.\n"
    )
    + _REPLY_FORMAT,
}


RULES_TEXT["rotate"] = (
    "rotate: the game is drawn from the fixed rotation order "
    f"{list(ROTATION)} as RotationOrder[seed mod 4] (seed taken non-negative mod 4) "
    "before the first move, and named on the first line of every observation. Its rules:\n\n"
    + "\n\n".join(RULES_TEXT[g] for g in ROTATION)
)


def rules_for(state: Any) -> str:
    """The rules text of the game `state` actually plays (`rotate` resolved)."""
    return RULES_TEXT[state.resolved_game]


def _seat_name(seat: int, aliases: Sequence[str]) -> str:
    alias = aliases[seat] if seat < len(aliases) else f"seat {seat}"
    return f"{alias} ({COLOURS[seat]})"


def _grid(view: Mapping[str, Any], cells: Mapping[str, int]) -> list[str]:
    """A square board, top rank first, with file letters above and below."""
    header, ranks = _grid_frame(view["files"], view["ranks"])
    rows = [header]
    for names, left, right in ranks:
        marks = [MARKS[cells[c]] if c in cells else "." for c in names]
        rows.append(left + " ".join(marks) + right)
    rows.append(header)
    return rows


@functools.cache
def _grid_frame(files: int, ranks: int) -> tuple[str, tuple[tuple[tuple[str, ...], str, str], ...]]:
    """A board size's header and, per rank from the top, its cell names and margins
    (the same for every observation of the size: built once)."""
    letters = "abcdefghi"[:files]
    header = "    " + " ".join(letters)
    return header, tuple(
        (tuple(f"{f}{rank}" for f in letters), f"{rank:>2}  ", f"  {rank}")
        for rank in range(ranks, 0, -1)
    )


def _hex_board(view: Mapping[str, Any]) -> list[str]:
    """The rhombus: each rank sits half a cell right of the rank below it, so a cell's
    six neighbours are the six cells drawn around it."""
    n = view["files"]
    files = "abcdefg"[:n]
    stones = view["stones"]
    rows = [" " * (n - 1) + "    " + " ".join(files) + "   (blue's goal: rank 7)"]
    for rank in range(n, 0, -1):
        marks = [MARKS[stones[f"{f}{rank}"]] if f"{f}{rank}" in stones else "." for f in files]
        rows.append(" " * (rank - 1) + f"{rank:>2}  " + " ".join(marks) + f"  {rank}")
    rows.append("    " + " ".join(files) + "   (blue starts from rank 1)")
    rows.append("red connects file a (left edge) to file g (right edge)")
    return rows


def _quoridor_board(view: Mapping[str, Any]) -> list[str]:
    """Cells with walls between them: `|` blocks a step sideways, `-` a step up or down."""
    files = "abcdefghi"
    blocked = set(view["blockedSteps"])
    pawns = {view["pawns"][0]: MARKS[0], view["pawns"][1]: MARKS[1]}
    header = "    " + " ".join(files)
    rows = [header]
    for rank in range(9, 0, -1):
        line = f"{rank:>2}  "
        for i, f in enumerate(files):
            line += pawns.get(f"{f}{rank}", ".")
            if i < 8:
                line += "|" if f"{f}{rank}-{files[i + 1]}{rank}" in blocked else " "
        rows.append(line + f"  {rank}")
        if rank > 1:
            under = "".join("-" if f"{f}{rank - 1}-{f}{rank}" in blocked else " " for f in files)
            if under.strip():
                rows.append("    " + " ".join(under))
    rows.append(header)
    return rows


def board_text(view: Mapping[str, Any]) -> str:
    """The whole position as ASCII art with algebraic coordinates."""
    game = view["game"]
    if game == "hex":
        rows = _hex_board(view)
    elif game == "quoridor":
        rows = _quoridor_board(view)
    else:
        rows = _grid(view, view["stones"] if game == "connect-four" else view["pieces"])
    legend = "R = red, B = blue, . = empty"
    if game == "quoridor":
        legend = "R = red pawn, B = blue pawn, | and - = walls"
    return "\n".join(rows) + "\n" + legend


def _details(view: Mapping[str, Any], aliases: Sequence[str]) -> list[str]:
    game = view["game"]
    out = []
    if game == "breakthrough":
        for seat in (0, 1):
            out.append(
                f"{_seat_name(seat, aliases)}: {view['pieceCount'][seat]} pieces, "
                f"{view['captures'][seat]} captures"
            )
    elif game == "hex":
        for seat in (0, 1):
            out.append(
                f"{_seat_name(seat, aliases)}: distToWin {view['distToWin'][seat]} "
                "(empty cells still needed)"
            )
    elif game == "quoridor":
        walls = ", ".join(f"{w['wall']} ({COLOURS[w['seat']]})" for w in view["walls"])
        out.append(f"Walls placed: {walls or 'none'}")
        for seat in (0, 1):
            out.append(
                f"{_seat_name(seat, aliases)}: pawn on {view['pawns'][seat]}, "
                f"{view['wallsLeft'][seat]} walls left, {view['distToGoal'][seat]} steps "
                "from its goal rank"
            )
    return out


def observation_text(
    state: Any,
    seat: int,
    *,
    notes: str,
    operator_prompt: str,
    aliases: Sequence[str],
) -> str:
    """What `seat` reads on its turn. The first line is the resolved game id."""
    view = state.view()
    game = view["game"]
    me, them = _seat_name(seat, aliases), _seat_name(1 - seat, aliases)
    history = view["history"]
    moves = (
        " ".join(f"{i + 1}.{MARKS[i % 2]} {m}" for i, m in enumerate(history))
        if history
        else "(none yet)"
    )
    legal = view["legalMoves"]
    turn = (
        "It is your move."
        if view["activeSeat"] == seat
        else ("The game is over." if view["activeSeat"] is None else "It is not your move.")
    )
    lines = [game]
    if state.game == "rotate":
        lines.append(
            f"(rotation: seed {state.seed} picks RotationOrder[{state.seed % 4}] = {game} "
            f"from {', '.join(ROTATION)})"
        )
    lines += [
        f"You are {me}, seat {seat}; your opponent is {them}.",
        f"Ply {view['plies']} of at most {view['maxPlies']}. {turn}",
        "",
        board_text(view),
        "",
        *_details(view, aliases),
        f"Move history ({len(history)} plies, R = red, B = blue): {moves}",
        (
            "Standing (this repository's HEURISTIC, not an engine evaluation; higher is "
            f"better): {me} {view['standing'][seat]}, {them} {view['standing'][1 - seat]}"
        ),
        f"Legal moves ({len(legal)}): {', '.join(legal) if legal else 'none'}",
        "",
        f"Your notes from your previous turn: {notes or '(none)'}",
    ]
    if operator_prompt:
        lines += ["", "Your operator's instructions:", operator_prompt]
    lines += ["", _REPLY_FORMAT]
    return "\n".join(lines)


def parse_reply(text: object, state: Any, seat: int, aliases: Sequence[str]) -> Reply:
    """Read a seat's reply into a legal move plus its say/notes.

    Raises `ReplyRejected` (cause "unparseable" or "illegal") and nothing else."""
    del aliases  # a reply names moves, not seats; kept for the family interface
    if state.active_seat != seat:
        raise ReplyRejected(
            f"it is not seat {seat}'s turn"
            + ("" if state.active_seat is not None else ": the game is over"),
            "illegal",
        )
    obj = extract_json_object(text, policy=REPLY_POLICY)
    raw = obj.get("move")
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
    legal = state.legal_moves()
    if not isinstance(raw, str):
        raise ReplyRejected(
            'the reply has no "move" string; legal moves: ' + ", ".join(legal), "unparseable"
        )
    try:
        move = state.read_move(raw)
    except IllegalMove as e:
        cause = e.kind if e.kind in ("unparseable", "illegal") else "illegal"
        raise ReplyRejected(
            f"move {raw[:40]!r}: {e.reason}; legal moves: {', '.join(e.legal)}", cause
        ) from None
    except (UnicodeError, ValueError, TypeError):
        # Text the core cannot even receive (a lone surrogate, say) is no move at all.
        raise ReplyRejected(
            f"move {raw[:40]!r} is not readable text; legal moves: {', '.join(legal)}",
            "unparseable",
        ) from None
    return Reply(
        move=move,
        say=truncate(obj.get("say"), SAY_LIMIT),
        notes=truncate(obj.get("notes"), NOTES_LIMIT),
    )


def feed_line(before: Any, after: Any, seat: int, move: str, labels: Sequence[str]) -> str:
    """The spectator feed: "red plays d", "blue plays c7-b6, capturing", "red places
    wall e3h", "blue plays e8", with the win at the end."""
    who = labels[seat]
    game = after.resolved_game
    if game == "quoridor" and move[-1] in "hv":
        text = f"{who} places wall {move}"
    elif game == "breakthrough" and after.view()["captures"] != before.view()["captures"]:
        text = f"{who} plays {move}, capturing"
    else:
        text = f"{who} plays {move}"
    results = after.results
    if (
        results
        and results.get("winner") == seat
        and results["reason"] == "complete"
        and results["ending"] != "ply-cap"
    ):
        text += f", and wins ({results['ending']})"
    return text
