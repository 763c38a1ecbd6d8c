"""What a league run and `coworld league table` print: the league's summary
(league.summary) as tables."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from ..tables import Table
from .output import console

if TYPE_CHECKING:
    from ..league.stats import Rating
    from ..league.summary import LeagueSummary, Reliability


def print_standings(
    database: str | Path, league: str | None = None, *, partial: bool = False
) -> None:
    """The summary of `league` (default: the latest) in a league database."""
    from ..league.summary import league_summary

    summary = league_summary(database, league)
    if summary is None:
        console.print("the database holds no league yet")
        return
    console.print(standings_table(summary, partial=partial))
    if summary.flags:
        console.print(
            "flags: alike = every episode of a pairing was the same game; fallback = most "
            "of the policy's decisions were played by the fallback baseline"
        )
    for line in summary.warnings:
        console.print(f"[yellow]warning: {escape(line)}[/]", soft_wrap=True)
    print_ratings(summary.ratings, summary.unrated)
    if summary.reliability:
        console.print(reliability_table(summary.reliability))
    spent, scored = summary.spent, summary.scored
    if spent.calls:
        console.print(
            f"spent {spent.tokens:,} tokens (${spent.cost_usd:.2f}) in {spent.calls:,} calls; "
            f"scored episodes {scored.tokens:,} tokens (${scored.cost_usd:.2f}), the rest "
            "went to void, interrupted or killed episodes"
        )


def standings_table(summary: LeagueSummary, *, partial: bool = False) -> Table:
    """Mean episode score per game and policy with its 95% interval, and its flags."""
    void_note = f", {summary.voided} void and not scored" if summary.voided else ""
    title = "partial standings" if partial else "mean episode score"
    table = Table(
        title=f"league {summary.league}: {title}, 95% CI ({summary.episodes} episodes{void_note})"
    )
    flagged = summary.flags
    columns = ["game", "policy", "n", "seed pairs", "mean", "95% CI"]
    for col in columns + (["flags"] if flagged else []):
        table.add_column(col, justify="left" if col in ("game", "policy", "flags") else "right")
    last = None
    for s in summary.standings:
        if last is not None and s.game != last:
            table.add_section()
        last = s.game
        ci = "-" if s.lo != s.lo else f"[{s.lo:+.3f}, {s.hi:+.3f}]"
        row = [s.game, s.policy, str(s.n), str(s.pairs), f"{s.mean:+.3f}", ci]
        if flagged:
            row.append(", ".join(flagged.get((s.policy, s.game), [])))
        table.add_row(*row)
    return table


def reliability_table(rows: Sequence[Reliability]) -> Table:
    """Retry and fallback rates per policy and cause, in 80 columns: every seat that
    decides for itself (a Python policy is never retried: its retried share is 0)."""
    t = Table(title="reliability (Claude and Python seats): share of decisions")
    for col in ("policy", "decisions", "cause", "retried", "fallback", "tokens", "cost $"):
        t.add_column(col, justify="left" if col in ("policy", "cause") else "right")
    for r in rows:
        shares = [(c.cause, f"{c.retried:.2%}", f"{c.fallback:.2%}") for c in r.causes]
        for i, (cause, retried, fallback) in enumerate(shares or [("-", "", "")]):
            first = i == 0
            t.add_row(
                escape(r.policy) if first else "",
                f"{r.decisions:,}" if first else "",
                cause,
                retried,
                fallback,
                f"{r.tokens:,}" if first else "",
                f"{r.cost_usd:.2f}" if first else "",
            )
        t.add_section()
    return t


def print_ratings(rated: Sequence[Rating], why_unrated: Sequence[str] = ()) -> None:
    """The Bradley-Terry ratings, each distinct note once, numbered under the table."""
    for line in why_unrated:
        console.print(f"no Bradley-Terry ratings for {escape(line)}")
    if not rated:
        return
    table = Table(
        title="Bradley-Terry ratings (Elo, draws as half), 95% bootstrap CI over seed pairs"
    )
    for col in ("game", "policy", "games", "Elo", "95% CI"):
        table.add_column(col, justify="left" if col in ("game", "policy") else "right")
    last = None
    notes: dict[str, int] = {}
    for r in rated:
        if last is not None and r.game != last:
            table.add_section()
        last = r.game
        mark = f" ({notes.setdefault(r.note, len(notes) + 1)})" if r.note else ""
        table.add_row(
            r.game,
            r.policy + mark,
            str(r.games),
            f"{r.elo:+.0f}",
            f"[{r.lo:+.0f}, {r.hi:+.0f}]",
        )
    console.print(table)
    for note, number in notes.items():
        console.print(f"({number}) {escape(note)}")
