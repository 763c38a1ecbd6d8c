"""The spectator viewer: server security and live streaming (Starlette's test
client), and what a person sees in a real headless Chromium for every family."""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from coworld import _core
from coworld.clock import Clock
from coworld.episode import Episode
from coworld.viewer import ViewerServer, create_app

FAMILY_REPLAYS = {
    "connect-four": ["tactician", "random"],
    "breakthrough": ["tactician", "random"],
    "hex": ["tactician", "random"],
    "quoridor": ["tactician", "random"],
    "phantom-ttt-3": ["probe", "sweep"],
    "dark-hex-5": ["probe", "random"],
    "recon-hex-5": ["probe", "sweep"],
    "hanabi": ["conventions", "conventions", "cautious", "conventions"],
}


def write_replay(directory: Path, game: str, policies: list[str], seed: int = 7) -> Path:
    out = directory / f"{game}.jsonl"
    # A thread of its own: playwright's sync API keeps an event loop in this one.
    runner = threading.Thread(
        target=lambda: asyncio.run(Episode(game, policies, seed=seed, out=out).run())
    )
    runner.start()
    runner.join()
    return out


def events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("replays")
    for game, policies in FAMILY_REPLAYS.items():
        write_replay(root, game, policies)
    (root.parent / "secret.txt").write_text("outside the root")
    return root


# ---- server -----------------------------------------------------------------


def test_replay_api_serves_files_under_the_root(replays):
    client = TestClient(create_app(replays))
    got = client.get("/api/replay", params={"path": "hex.jsonl"}).json()
    assert got == events(replays / "hex.jsonl")


@pytest.mark.parametrize(
    "evil",
    ["../secret.txt", "/etc/passwd", "..%2Fsecret.txt", "nope.jsonl", "sub/../../secret.txt", ""],
)
def test_path_traversal_is_refused_with_404(replays, evil):
    client = TestClient(create_app(replays))
    assert client.get("/api/replay", params={"path": evil}).status_code == 404
    assert client.get("/api/stream", params={"path": evil}).status_code == 404
    assert client.get(f"/files/{evil}").status_code == 404


def test_a_symlink_out_of_the_root_is_refused(replays, tmp_path):
    link = replays / "escape.jsonl"
    if not link.exists():
        link.symlink_to(replays.parent / "secret.txt")
    client = TestClient(create_app(replays))
    assert client.get("/api/replay", params={"path": "escape.jsonl"}).status_code == 404


def test_a_single_replay_redirects_to_its_episode_page(replays):
    client = TestClient(create_app(replays / "hex.jsonl"), follow_redirects=False)
    r = client.get("/")
    assert r.status_code in (302, 307) and r.headers["location"] == "/episode?path=hex.jsonl"


def test_the_server_binds_loopback_by_default(replays):
    with ViewerServer(replays) as server:
        assert server.host == "127.0.0.1"


def test_live_stream_delivers_events_while_the_episode_runs(tmp_path):
    out = tmp_path / "live.jsonl"
    out.write_text("")
    clock = Clock(pace_seconds=0.05)
    episode = Episode("connect-four", ["tactician", "random"], seed=3, clock=clock, out=out)
    runner = threading.Thread(target=lambda: asyncio.run(episode.run()))
    with ViewerServer(tmp_path) as server:
        import httpx

        runner.start()
        seen, finished_while_streaming = [], False
        with httpx.stream(
            "GET", f"{server.url}/api/stream", params={"path": "live.jsonl"}, timeout=30
        ) as response:
            for line in response.iter_lines():
                if line.startswith("data: ") and line != "data: {}":
                    seen.append(json.loads(line[6:]))
                    if len(seen) == 5:
                        finished_while_streaming = not runner.is_alive()
        runner.join()
    assert not finished_while_streaming  # events arrived before the episode was over
    assert seen == events(out)
    assert seen[-1]["type"] == "results"


def test_league_api_lists_and_filters_episodes(tmp_path):
    from coworld.league import LeagueRun
    from tests.support.leagues import make_league

    games = ["connect-four", "hex"]
    config = make_league(
        tmp_path, name="v", games=games, episodes=20, replays=2, seed=None, out="lg"
    )
    LeagueRun(config, progress=False).run()
    client = TestClient(create_app(tmp_path / "lg"))
    league = client.get("/api/league").json()
    assert league["league"] == "v" and league["plot"] == "standings.png"
    assert {s["game"] for s in league["standings"]} == {"overall", "connect-four", "hex"}
    # the viewer's ratings are the exported ones (same bootstrap seed: the league's)
    exported = json.loads((tmp_path / "lg" / "standings.json").read_text())["ratings"]
    assert league["ratings"] == exported
    top = {r["game"]: r["policy"] for r in exported if r["elo"] > 0}
    assert top == {"overall": "tactician", "connect-four": "tactician", "hex": "tactician"}
    listed = client.get("/api/episodes", params={"game": "hex"}).json()
    assert listed["total"] == 4 and all(e["game"] == "hex" for e in listed["episodes"])
    assert (
        client.get("/api/replay", params={"path": listed["episodes"][0]["replay"]}).status_code
        == 200
    )
    assert client.get("/files/standings.png").status_code == 200


def test_nothing_served_contains_an_api_key(replays, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-viewer-SECRET")
    client = TestClient(create_app(replays))
    for path in ["/", "/api/info", "/api/league", "/static/app.js"]:
        assert "sk-ant-viewer-SECRET" not in client.get(path).text


# ---- the browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def server(replays):
    with ViewerServer(replays) as s:
        yield s


def count_of(game: str, view: dict) -> int:
    if game == "hanabi":
        return sum(len(h) for h in view["hands"])
    if game == "breakthrough":
        return len(view["pieces"])
    if game == "quoridor":
        return len(view["pawns"])
    return len(view["stones"])


@pytest.mark.parametrize("game", list(FAMILY_REPLAYS))
def test_a_person_sees_the_position_feed_scorebug_and_endcard(
    game, browser, server, replays, tmp_path
):
    evs = events(replays / f"{game}.jsonl")
    plies = [e for e in evs if e["type"] == "ply"]
    results = evs[-1]["results"]
    k = max(1, min(5, len(plies) - 1))  # a step before the end
    view = plies[k - 1]["view"]
    page = browser.new_page()
    page.goto(f"{server.url}/episode?path={game}.jsonl&step={k}")
    page.wait_for_selector("#feed div.current")
    assert page.get_attribute("#stone-count", "data-count") == str(count_of(game, view))
    assert page.inner_text("#feed div.current").startswith(f"{k}. {plies[k - 1]['feed']}")
    bug = page.inner_text("#scorebug")
    if game == "hanabi":
        for text in (
            f"score {view['score']}",
            f"fuses {view['fuses']}",
            f"deck {view['deckCount']}",
            f"hint tokens {view['hintTokens']}",
        ):
            assert text in bug
    elif "standing" in view:
        assert f"red standing {view['standing'][0]}" in bug
        assert f"blue standing {view['standing'][1]}" in bug
        assert page.is_visible("#eval-caption") and page.inner_text("#eval-caption") == "HEURISTIC"
    else:
        assert f"red distToWin {view['distToWin'][0]}" in bug
        assert f"blue distToWin {view['distToWin'][1]}" in bug
        assert not page.is_visible("#evalwrap")
    assert "reason" not in page.inner_text("#endcard")  # not at the end yet
    page.screenshot(path=str(tmp_path / f"{game}-step{k}.png"), full_page=True)
    # the keyboard steps; End jumps to the end, where the endcard appears
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#step").startswith(f"{k + 1}/")
    page.keyboard.press("End")
    card = page.inner_text("#endcard")
    assert f"ending {results['ending']}" in card and f"reason {results['reason']}" in card
    if game == "hanabi":
        assert f"Shared score {results['score'][0]}" in card
    elif results["winner"] is None:
        assert "Draw" in card
    else:
        header = evs[0]
        assert f"{header['seats'][results['winner']]['alias']}" in card and "wins" in card
    page.screenshot(path=str(tmp_path / f"{game}-end.png"), full_page=True)
    assert (tmp_path / f"{game}-end.png").stat().st_size > 1000
    page.close()


def test_fog_toggle_shows_a_seats_knowledge(browser, server, replays):
    evs = events(replays / "dark-hex-5.jsonl")
    plies = [e for e in evs if e["type"] == "ply"]
    k = len(plies)
    view = plies[k - 1]["view"]
    page = browser.new_page()
    page.goto(f"{server.url}/episode?path=dark-hex-5.jsonl&step={k}")
    page.wait_for_selector("#fog-toggle button")
    assert page.get_attribute("#stone-count", "data-count") == str(len(view["stones"]))
    for seat in (0, 1):
        page.click(f"#fog-toggle button[data-perspective='{seat}']")
        own = sum(1 for s in view["stones"].values() if s == seat)
        assert page.get_attribute("#stone-count", "data-count") == str(
            own + len(view["knowledge"][seat]["proven"])
        )
    page.close()


def test_live_page_follows_a_running_episode(browser, tmp_path):
    out = tmp_path / "live.jsonl"
    out.write_text("")
    episode = Episode(
        "connect-four", ["tactician", "random"], seed=3, clock=Clock(pace_seconds=0.15), out=out
    )
    with ViewerServer(tmp_path) as s:
        page = browser.new_page()
        page.goto(f"{s.url}/episode?path=live.jsonl&live=1")
        runner = threading.Thread(target=lambda: asyncio.run(episode.run()))
        runner.start()
        page.wait_for_selector("#feed div", timeout=15000)
        mid = int(page.get_attribute("#stone-count", "data-count") or 0)
        runner.join()
        deadline = time.monotonic() + 10
        while "finished" not in page.inner_text("#live") and time.monotonic() < deadline:
            time.sleep(0.1)
        final = events(out)[-1]["results"]
        assert page.inner_text("#live") == "finished"
        assert mid < final["plies"]
        assert f"ending {final['ending']}" in page.inner_text("#endcard")
        page.close()


def test_a_garbage_replay_shows_the_servers_reason_on_the_page(browser, tmp_path):
    (tmp_path / "g.jsonl").write_text('{"type": "header"}\ngarbage\n')
    with ViewerServer(tmp_path) as s:
        page = browser.new_page()
        page.goto(f"{s.url}/episode?path=g.jsonl")
        page.wait_for_selector("#error:not([hidden])", timeout=15000)
        reason = page.inner_text("#error")
        assert "g.jsonl: line 2: not a JSON line" in reason and "\n" not in reason
        page.close()


def test_episodes_still_being_written_are_listed_as_live(tmp_path):
    done = write_replay(tmp_path, "connect-four", ["tactician", "random"])
    running = tmp_path / "replays" / "hex" / "running.jsonl"
    running.parent.mkdir(parents=True)
    lines = done.read_text().splitlines()
    running.write_text("\n".join(lines[:4]) + "\n")  # header, welcomes, a ply: no results yet
    client = TestClient(create_app(tmp_path))
    assert client.get("/api/live").json() == {"live": ["replays/hex/running.jsonl"]}


def test_recon_hex_5_is_labelled_and_its_revelations_are_in_the_feed(browser, server, replays):
    """The episode page says recon-hex-5 is an original variant, and the feed shows each
    ply's revelation records (a recon sense is revealed to the sensing seat only)."""
    evs = events(replays / "recon-hex-5.jsonl")
    first = next(e for e in evs if e["type"] == "ply")
    record = first["revelations"][0]
    assert record["what"] == "sense" and record["revealedTo"] == [first["seat"]]
    page = browser.new_page()
    page.goto(f"{server.url}/episode?path=recon-hex-5.jsonl&step=1")
    page.wait_for_selector("#feed div.current")
    assert "original variant (not a port of OpenSpiel rbc)" in page.inner_text("#title")
    line = page.inner_text("#feed div.current .revelation")
    stones = ", ".join(record["identity"]["stones"]) or "none"
    assert line.strip().startswith(f"revealed to red: sense at {record['where']}: stones {stones}")
    page.close()


# ---- game facts come from the catalogue -------------------------------------


def test_the_eval_bar_reads_its_scale_from_the_catalogue(browser, server, replays):
    """For every game the bar's scale is the catalogue's `standingScale` (no bar where
    it is null), and the bar's fill is red's share on that scale."""
    catalogue = _core.catalog()["games"]
    page = browser.new_page()
    for game in FAMILY_REPLAYS:
        plies = [e for e in events(replays / f"{game}.jsonl") if e["type"] == "ply"]
        view = plies[0]["view"]
        page.goto(f"{server.url}/episode?path={game}.jsonl&step=1")
        page.wait_for_selector("#feed div.current")
        scale = catalogue[game]["standingScale"]
        assert (scale is not None) == ("standing" in view), game
        if scale is None:
            assert not page.is_visible("#evalwrap"), game
            continue
        assert page.get_attribute("#evalbar", "data-scale") == str(scale), game
        red = 0.5 + 0.5 * math.tanh((view["standing"][0] - view["standing"][1]) / scale)
        assert page.get_attribute("#evalbar", "data-red") == f"{red:.3f}", game
    page.close()


def test_no_viewer_script_holds_a_game_fact():
    """The served scripts name no game to map it to a value or to branch on it: scales,
    seat names, notation and card faces are read from /api/catalog. (A renderer per
    board, `Boards.hex(svg, view)`, is drawing, not a fact.)"""
    client = TestClient(create_app(None))
    families = {e["family"] for e in _core.catalog()["games"].values()}  # `hanabi` is both
    ids = "|".join(re.escape(g) for g in _core.GAMES if g not in families)
    keyed = re.compile(rf"[\"']?\b({ids})\b[\"']?\s*:\s*\S")  # {"hex": 20, ...}
    compared = re.compile(rf"[!=]==?\s*[\"']({ids})[\"']|[\"']({ids})[\"']\s*[!=]==?")
    for script in ("boards.js", "app.js", "seat.js", "inspector.js", "observation.js"):
        text = client.get(f"/static/{script}").text
        assert "EVAL_SCALE" not in text and "HANABI_RANKS" not in text, script
        for n, line in enumerate(text.splitlines(), 1):
            code = line.split("// ")[0]  # comments may name games
            assert not keyed.search(code) and not compared.search(code), f"{script}:{n}: {line}"
    assert client.get("/api/catalog").json() == json.loads(json.dumps(_core.catalog()))


def test_two_seat_hanabi_is_a_shared_score_with_numbered_seats(browser, tmp_path):
    """Whether seats have colours and share one score is the catalogue's word, not a
    guess from the seat count: two-seat Hanabi is still cooperative and unnamed."""
    out = tmp_path / "hanabi2.jsonl"
    spec = {"game": "hanabi", "seats": 2}
    runner = threading.Thread(
        target=lambda: asyncio.run(
            Episode(spec, ["conventions", "cautious"], seed=3, out=out).run()
        )
    )
    runner.start()
    runner.join()
    results = events(out)[-1]["results"]
    with ViewerServer(tmp_path) as s:
        page = browser.new_page()
        page.goto(f"{s.url}/episode?path=hanabi2.jsonl&step=1")
        page.wait_for_selector("#feed div.current")
        seats = page.inner_text("#seats")
        assert "seat 0" in seats and "seat 1" in seats and "plays" not in seats
        page.keyboard.press("End")
        assert f"Shared score {results['score'][0]}" in page.inner_text("#endcard")
        page.close()
