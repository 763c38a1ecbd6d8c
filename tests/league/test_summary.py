"""The league layer's summary of a league (league.summary), which `coworld league
table` and a league run print, and the CLI as a package of short modules that only
print: no import cycle among them or between the league modules they read."""

from __future__ import annotations

import ast
import math
import tomllib
from importlib import import_module
from pathlib import Path

import pytest

from coworld import ConfigError
from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun
from coworld.league.bradley_terry import ratings, unrated
from coworld.league.flags import alike_pairings, standing_flags, warnings
from coworld.league.plan import PlanRow, plan_total
from coworld.league.ranking import Standing, compare, reliability, standings
from coworld.league.records import EpisodeKey, VoidEpisode
from coworld.league.summary import (
    BETTER,
    NO_INTERVAL,
    NOT_SIGNIFICANT,
    WORSE,
    CauseShare,
    league_summary,
    verdict,
)
from tests.support.leagues import make_league

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "coworld"
RAISES = 'NAME = "bad_exc"\n\n\ndef act(view, legal_moves):\n    return legal_moves[0] // 0\n'


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A league of a baseline, a random seat and a bot that always raises, plus one void
    episode the API left (counted) and one the budget cut (a rerun plays it: not)."""
    (tmp_path / "bad_exc.py").write_text(RAISES)
    policies = ["tactician", "random", str(tmp_path / "bad_exc.py")]
    report = LeagueRun(
        make_league(tmp_path, policies=policies, episodes=4, seed=3, out="out")
    ).run()
    db = LeagueDB(report.database)
    for idx, cause in ((90, "outage"), (91, "budget")):
        key = EpisodeKey("t|x", idx, "connect-four", 1, ("a", "b"))
        db.add_void("t", VoidEpisode(key, cause))
    db.close()
    return report.database


def test_the_summary_is_the_league_layers_figures(played):
    db = LeagueDB.open_existing(played)
    try:
        summary = league_summary(db)  # the latest league; the database stays open
        assert summary is not None
        blocks, alike = db.blocks("t"), alike_pairings(db, "t")
        assert summary.league == "t" and summary.episodes == db.count("t")
        assert repr(summary.standings) == repr(standings(blocks))
        assert summary.flags == standing_flags(blocks, alike)
        assert summary.warnings == warnings(blocks, alike)
        assert repr(summary.ratings) == repr(ratings(blocks, 3)) and summary.unrated == unrated(
            blocks
        )
        assert summary.spent == db.spent("t") and summary.scored == db.usage("t", voided=False)
        rates = reliability(blocks)
    finally:
        db.close()
    assert summary.voided == 1  # the outage's; the budget's cut is no void of the API
    assert "fallback" in summary.flags[("bad_exc", "connect-four")]
    # the bot raised at every decision: one cause, every decision fell back, none retried
    (row,) = summary.reliability
    assert (row.policy, row.decisions) == ("bad_exc", rates["bad_exc"]["decisions"])
    assert row.causes == (CauseShare("error", 0.0, 1.0),)
    # a path (league.db or its directory) gives the same summary
    assert repr(league_summary(played.parent, "t")) == repr(summary)


def test_the_table_prints_the_summary(played, capsys):
    summary = league_summary(played)
    assert summary is not None
    assert cli(["league", "table", str(played)]) == 0
    out = capsys.readouterr().out
    assert f"({summary.episodes} episodes, {summary.voided} void and not scored)" in out
    assert "reliability (Claude and Python seats)" in out and "bad_exc" in out


def test_no_league_yet_and_a_league_not_there(tmp_path):
    empty = tmp_path / "empty.db"
    LeagueDB(empty).close()
    assert league_summary(empty) is None
    assert cli(["league", "table", str(empty)]) == 0
    LeagueRun(make_league(tmp_path, episodes=2, seed=3, out="out")).run()
    with pytest.raises(ConfigError, match=r"league\.db: no league named 'nope'; it holds t"):
        league_summary(tmp_path / "out" / "league.db", "nope")


def test_compare_verdicts():
    def cell(mean: float, lo: float, hi: float) -> Standing:
        return Standing("p", "hex", 100, mean, lo, hi, 0.5, 0.05, 50)

    base = [cell(0.0, -0.1, 0.1)]
    found = {
        verdict(d)
        for current in (cell(-0.5, -0.6, -0.4), cell(0.5, 0.4, 0.6), cell(0.01, -0.09, 0.11))
        for d in compare(base, [current])
    }
    assert found == {WORSE, BETTER, NOT_SIGNIFICANT}
    (unknown,) = compare(base, [cell(0.2, math.nan, math.nan)])
    assert verdict(unknown) == NO_INTERVAL


def test_a_plans_total_sums_its_rows():
    rows = [PlanRow("a", 4, 10.5, 100.0, 40.0, 1.5, 700, 12, 80.0, 0.75)]
    rows.append(PlanRow("b", 2, 3.0, 50.0, 20.0, 0.5, 900, 6, 30.0, 0.25))
    total = plan_total(rows)
    assert (total.calls, total.calls_max, total.reserve_per_call) == (13.5, 18, 900)
    assert total.tokens_max == sum(r.input_tokens_max + r.output_tokens_max for r in rows)
    assert (total.cost_usd, total.batch_cost_usd) == (2.0, 1.0)


# ---- the CLI package --------------------------------------------------------------


def imports(path: Path, module: str) -> set[str]:
    """The coworld modules `module` imports, at any depth of its code (function-local
    and TYPE_CHECKING imports included)."""
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else []))
            found |= {f"{prefix}.{a.name}" for a in node.names} | {prefix}
    return {m for m in found if m.startswith("coworld")}


def import_graph() -> dict[str, set[str]]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {m: (imports(p, m) & modules.keys()) - {m} for m, p in modules.items()}


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_cli_and_the_standings_modules_import_no_cycle():
    graph = import_graph()
    cli_modules = [m for m in graph if m == "coworld.cli" or m.startswith("coworld.cli.")]
    league = ["coworld.league.flags", "coworld.league.ranking", "coworld.league.summary"]
    assert len(cli_modules) >= 8
    for module in cli_modules + league:
        assert module not in reaches(graph, module), f"{module} imports itself back"


def test_the_cli_is_short_modules_that_print_and_keeps_its_entry_points():
    for path in (PACKAGE / "cli").glob("*.py"):
        source = path.read_text()
        assert len(source.splitlines()) < 450, path.name
        # the league layer reads the database; the CLI only prints what it returns
        assert "LeagueDB" not in source and "league.storage" not in source, path.name
    scripts = tomllib.loads((PACKAGE.parents[1] / "pyproject.toml").read_text())["project"]
    module, _, name = scripts["scripts"]["coworld"].partition(":")
    assert getattr(import_module(module), name) is cli
    assert (PACKAGE / "cli" / "__main__.py").is_file()  # python -m coworld.cli
