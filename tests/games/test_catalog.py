"""The game catalogue: the core states every fact about a game id once, and nothing in
the Python package or the viewer lists games again."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import coworld
from coworld import _core, cli
from coworld.cli import main
from coworld.games import FAMILIES, GAMES, ROTATION, fog, gauntlet
from coworld.league.config import LeagueConfig
from coworld.league.ranking import _on_overall_scale

PACKAGE = Path(coworld.__file__).parent

FOG_ENDINGS = ["line", "board-full", "ply-cap", "wall-clock"]
HEX_ENDINGS = ["connection", "ply-cap", "wall-clock"]
# baseline: its parameter keys (`eps`, the strength dial, on every one)
BASELINES = {
    "fog": {"probe": ["eps"], "sweep": ["eps"], "random": ["eps"], "ismcts": ["eps", "sims"]},
    "gauntlet": {"tactician": ["eps"], "random": ["eps"], "mcts": ["eps", "sims"]},
    "hanabi": {"conventions": ["eps"], "cautious": ["eps"], "random": ["eps"], "tracker": ["eps"]},
}
# id: family, (min, max, default) seats, settings, endings, score range, ply cap, hidden, port
PINNED = {
    "phantom-ttt-3": ("fog", (2, 2, 2), [], FOG_ENDINGS, (-1, 1), 18, True, "phantom_ttt"),
    "dark-hex-4": ("fog", (2, 2, 2), [], HEX_ENDINGS, (-1, 1), 32, True, "dark_hex"),
    "dark-hex-5": ("fog", (2, 2, 2), [], HEX_ENDINGS, (-1, 1), 50, True, "abrupt_dark_hex"),
    "recon-hex-5": ("fog", (2, 2, 2), [], HEX_ENDINGS, (-1, 1), 50, True, None),
    "connect-four": (
        "gauntlet",
        (2, 2, 2),
        [],
        ["line", "board-full", "ply-cap", "wall-clock"],
        (-1, 1),
        42,
        False,
        "connect_four",
    ),
    "breakthrough": (
        "gauntlet",
        (2, 2, 2),
        [],
        ["home-rank", "no-pieces", "no-moves", "ply-cap", "wall-clock"],
        (-1, 1),
        100,
        False,
        "breakthrough",
    ),
    "hex": ("gauntlet", (2, 2, 2), [], HEX_ENDINGS, (-1, 1), 49, False, "hex"),
    "quoridor": (
        "gauntlet",
        (2, 2, 2),
        [],
        ["goal-row", "ply-cap", "wall-clock"],
        (-1, 1),
        200,
        False,
        "quoridor",
    ),
    "rotate": (
        "gauntlet",
        (2, 2, 2),
        [],
        [
            "line",
            "board-full",
            "home-rank",
            "no-pieces",
            "no-moves",
            "connection",
            "goal-row",
            "ply-cap",
            "wall-clock",
        ],
        (-1, 1),
        200,
        False,
        None,
    ),
    "hanabi": (
        "hanabi",
        (2, 5, 4),
        ["seats", "deck"],
        ["perfect", "final-round", "fuses", "turn-cap", "wall-clock"],
        (0, 25),
        100,
        True,
        "hanabi",
    ),
}
PINNED_ROTATION = ["connect-four", "breakthrough", "hex", "quoridor"]


def test_the_catalogue_is_pinned():
    catalogue = coworld.catalog()
    assert list(catalogue) == list(PINNED) == list(GAMES) == _core.GAMES
    for gid, (family, seats, settings, endings, score, cap, hidden, port) in PINNED.items():
        e = catalogue[gid]
        assert e["id"] == gid
        assert e["family"] == family
        assert (e["seats"]["min"], e["seats"]["max"], e["seats"]["default"]) == seats
        assert e["settings"] == settings
        assert e["baselines"] == [
            {"name": b, "params": keys} for b, keys in BASELINES[family].items()
        ]
        assert e["endings"] == endings
        assert (e["score"]["min"], e["score"]["max"]) == score
        assert e["plyCap"] == cap
        assert e["hidden"] is hidden
        assert e["port"] == port
        assert e["inRotation"] is (gid in PINNED_ROTATION)
        assert e["rotation"] == (PINNED_ROTATION if gid == "rotate" else [])
    recon = catalogue["recon-hex-5"]
    assert recon["original"] and recon["notAPortOf"] == "rbc"
    assert recon["origin"] == "original variant (not a port of OpenSpiel rbc)"
    assert list(ROTATION) == PINNED_ROTATION


def test_the_catalogue_agrees_with_fresh_states():
    for gid, e in coworld.catalog().items():
        state = _core.State(gid, None, 5)
        assert state.num_seats == e["seats"]["default"], gid
        assert state.policy_names == [b["name"] for b in e["baselines"]], gid
        view = state.view()
        cap = view.get("maxPlies", view.get("maxTurns"))
        assert cap == coworld.catalog()[state.resolved_game]["plyCap"] <= e["plyCap"], gid
        views = [state.view_for(s) for s in range(state.num_seats)]
        assert any(v != state.view() for v in views) is e["hidden"], gid
        assert coworld.game(gid).perfect_information is not e["hidden"], gid


def test_everything_reads_the_catalogue():
    catalogue = coworld.catalog()
    assert FAMILIES == {g: e["family"] for g, e in catalogue.items()}
    assert fog.FOG_GAMES == tuple(g for g, e in catalogue.items() if e["family"] == "fog")
    assert set(fog.RULES_TEXT) == set(fog.FOG_GAMES)
    assert set(gauntlet.RULES_TEXT) == {
        g for g, e in catalogue.items() if e["family"] == "gauntlet"
    }
    seats = catalogue["hanabi"]["seats"]
    assert (
        LeagueConfig(name="x", games=("hanabi",), policies=(), episodes=1).hanabi_seats
        == seats["default"]
    )
    # Hanabi's overall-scale contribution is its score over the perfect score.
    stat = type("S", (), {"mean": 12.5, "se": 0.5})()
    assert _on_overall_scale("hanabi", stat) == (12.5 / 25, 0.5 / 25)  # type: ignore[arg-type]
    assert _on_overall_scale("hex", stat) == (12.5, 0.5)  # type: ignore[arg-type]
    # The catalogue is a copy: callers cannot change it.
    catalogue["hex"]["family"] = "chess"
    assert coworld.catalog()["hex"]["family"] == "gauntlet"


def test_games_table_shows_seat_ranges_and_origins(capsys, monkeypatch):
    monkeypatch.setattr(cli.console, "width", 240)
    assert main(["games"]) == 0
    rows = {line.split("│")[1].strip(): line for line in capsys.readouterr().out.splitlines()[4:-1]}
    assert list(rows) == list(GAMES)
    assert "4 (2-5)" in rows["hanabi"] and "hidden" in rows["hanabi"]
    assert "original variant (not a port of OpenSpiel rbc)" in rows["recon-hex-5"]
    assert "port of OpenSpiel abrupt_dark_hex" in rows["dark-hex-5"]
    assert "perfect" in rows["hex"]


def _game_id_literals(node: ast.AST) -> list[str]:
    elts = getattr(node, "elts", [])
    return [e.value for e in elts if isinstance(e, ast.Constant) and e.value in GAMES]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_no_python_module_lists_game_ids(path: Path):
    """No list, tuple or set of two or more game ids anywhere in the package: the
    catalogue is the only list (per-game text keyed by id in a family module is fine)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            ids = _game_id_literals(node)
            assert len(ids) < 2, f"{path.name}:{node.lineno} lists game ids {ids}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "viewer").rglob("*.js")), ids=lambda p: p.name)
def test_no_viewer_script_lists_game_ids(path: Path):
    text = path.read_text()
    for array in re.finditer(r"\[[^\[\]]*\]", text):
        quoted = set(re.findall(r"[\"']([a-z0-9-]+)[\"']", array.group(0))) & set(GAMES)
        assert len(quoted) < 2, f"{path.name}: {array.group(0)[:80]}"


def test_the_viewer_serves_the_catalogue(tmp_path):
    from starlette.testclient import TestClient

    from coworld.viewer.server import create_app

    (tmp_path / "league.db").write_bytes(b"")
    client = TestClient(create_app(tmp_path))
    served = client.get("/api/catalog").json()
    assert served == json.loads(json.dumps(_core.catalog()))
    assert served["games"]["dark-hex-5"]["family"] == "fog"


@pytest.mark.parametrize("game_id", ["rotate", "dark-hex-4", "hanabi"])
def test_the_replay_header_records_the_family(tmp_path, game_id):
    import asyncio

    from coworld.episode import Episode

    seats = coworld.catalog()[game_id]["seats"]["default"]
    episode = Episode(game_id, ["random"] * seats, seed=3, out=tmp_path / "r.jsonl")
    asyncio.run(episode.run())
    header = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert header["family"] == coworld.catalog()[game_id]["family"]
