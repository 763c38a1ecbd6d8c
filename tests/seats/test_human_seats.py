"""Human seats: the JSON API of a seat's link (Starlette's test client), the leak check
over what a link serves, the CLI, and whole games played by clicking in a real
headless Chromium, every response the page receives checked against the seat's view."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

import coworld
from coworld.episode import Episode
from coworld.errors import ConfigError
from coworld.replay import recheck
from coworld.sdk import assert_no_information_leak
from coworld.sdk.canonical import canonical_json
from coworld.seats.human import PAYLOAD_KEYS, HumanPolicy, HumanTable, seat_payload
from coworld.viewer import ViewerServer, create_app
from tests.support.leagues import make_league
from tests.support.leaks import quiet_actions, shuffled_deck, variants

ROOT = Path(__file__).resolve().parents[2]
#: Where the browser tests leave screenshots of the seat pages (default: tmp_path).
SHOTS = os.environ.get("COWORLD_SCREENSHOTS")


class Game:
    """An episode with human seats, running on a thread of its own."""

    def __init__(self, spec: Any, seats: list[str], seed: int, out: Path | None = None, **kw):
        self.table = HumanTable(timeout=kw.pop("timeout", None))
        if spec == "hanabi":  # one seat per policy, as `coworld play` does
            spec = {"game": "hanabi", "seats": len(seats)}
        policies = [HumanPolicy(table=self.table) if s == "human" else s for s in seats]
        self.episode = Episode(spec, policies, seed=seed, out=out, **kw)
        self.tokens = self.table.attach(self.episode)
        self.results: dict[str, Any] = {}
        self.error: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.results.update(asyncio.run(self.episode.run()))
        except BaseException as err:  # surfaced by the test, not lost in the thread
            self.error.append(err)

    def start(self) -> Game:
        self.thread.start()
        return self

    def waiting_for(self, seat: int, timeout: float = 20.0) -> bool:
        """Wait until the episode asks `seat` (True) or ends (False)."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if self.error:
                raise self.error[0]
            if seat in self.table._waiting:
                return True
            if not self.thread.is_alive():
                return False
            time.sleep(0.005)
        raise AssertionError(f"seat {seat} was never asked to move")

    def states(self) -> list[Any]:
        """Every state of the finished episode, replayed from its seed and moves."""
        ep = self.episode
        state = ep.reducer.init(seed=ep.seed)
        out = [state]
        for e in ep.events:
            if e["type"] == "ply":
                state = state.apply(e["move"])
                out.append(state)
        return out


def payloads_of(game: Game, seat: int) -> dict[str, dict[str, Any]]:
    """Every payload the seat's link may serve in this episode (canonical text -> it)."""
    ep = game.episode
    allowed = {}
    for state in game.states():
        for turn in {False, state.active_seat == seat}:
            for notes in {"", ep.notes[seat]}:
                p = seat_payload(ep, state, seat, turn, notes)
                allowed[canonical_json(p)] = p
    return allowed


def check_served(game: Game, seat: int, bodies: list[tuple[str, int, Any]]) -> int:
    """Each answer a seat's page received is one the seat's view allows: a payload built
    from its view_for at some state of the episode, or a move answer; never a field,
    count or text of another seat."""
    allowed = payloads_of(game, seat)
    own = {canonical_json(state.view_for(seat)) for state in game.states()}
    others = {
        canonical_json(state.view_for(other))
        for state in game.states()
        for other in range(game.episode.seats)
        if other != seat
    } - own  # a perfect-information game shows both seats one board
    own_moves = {e["move"] for e in game.episode.events if e["type"] == "ply" and e["seat"] == seat}
    for url, status, body in bodies:
        if url.endswith("/view"):
            assert status == 200 and tuple(body) == PAYLOAD_KEYS, (url, body)
            assert canonical_json(body) in allowed, f"served a payload no state allows: {body}"
            assert canonical_json(body["view"]) not in others
        elif url.endswith("/move"):
            if status == 200:
                assert set(body) == {"played"} and body["played"] in own_moves
            else:
                assert set(body) <= {"error", "legalMoves", "legalText"}, body
                assert status in (400, 409, 422)
        else:  # the page itself and its static files carry no game data
            assert body is None
    return len(bodies)


# ---- the JSON API --------------------------------------------------------------------


def test_a_wrong_token_is_refused_and_a_token_reaches_only_its_seat(tmp_path):
    game = Game("hanabi", ["human", "human", "conventions"], seed=4)
    client = TestClient(create_app(None, game.table))
    for path in ("/seat/nope", "/seat/nope/view", "/seat/" + "x" * 32 + "/view"):
        assert client.get(path).status_code == 404
    assert client.post("/seat/nope/move", json={"move": "play 1"}).status_code == 404
    # a seat's link is not a spectator's: no replay, no catalogue, no league
    for path in ("/", "/episode", "/api/replay?path=x.jsonl", "/api/calls?path=x.jsonl"):
        assert client.get(path).status_code == 404
    for seat, token in game.tokens.items():
        got = client.get(f"/seat/{token}/view").json()
        assert got["seat"] == seat
        assert got["view"] == game.episode.state.view_for(seat)
        assert got["view"] != game.episode.state.view_for(1 - seat)
    assert len({len(t) for t in game.tokens.values()}) == 1 and len(game.tokens[0]) >= 32


def test_a_script_plays_a_human_seat_through_the_api(tmp_path):
    out = tmp_path / "dh.jsonl"
    game = Game("dark-hex-5", ["human", "probe"], seed=11, out=out, seat_transcripts=True)
    client = TestClient(create_app(None, game.table))
    link = f"/seat/{game.tokens[0]}"
    game.start()
    served, refused = [], 0
    while game.waiting_for(0):
        before = game.episode.state
        got = client.get(f"{link}/view").json()
        served.append((f"{link}/view", 200, got))
        assert got["yourTurn"] and got["legalMoves"] == before.legal_moves()
        for bad, status in (({"move": "z9"}, 422), ({"mov": "a1"}, 400), ([1], 400)):
            answer = client.post(f"{link}/move", json=bad)
            assert answer.status_code == status
            served.append((f"{link}/move", status, answer.json()))
        answer = client.post(f"{link}/move", json={"move": "z9"}).json()
        assert "off the board" in answer["error"]
        assert answer["legalMoves"] == before.legal_moves()
        assert game.episode.state is before  # refused input changes nothing
        refused += 2
        move = got["legalMoves"][-1]
        answer = client.post(f"{link}/move", json={"move": move, "say": "hi", "notes": "mine"})
        assert answer.json() == {"played": move}
    game.thread.join()
    late = client.post(f"{link}/move", json={"move": "a1"})
    assert late.status_code == 409 and late.json()["error"] == "the game is over"
    plies = [e for e in game.episode.events if e["type"] == "ply" and e["seat"] == 0]
    assert {p["origin"] for p in plies} == {"human"} and plies[0]["say"] == "hi"
    assert all(p["attempts"][0]["rejected"] == 2 for p in plies)
    assert game.results["decisions"][0] == {"human": len(plies)}
    assert recheck(out)["score"] == game.results["score"]
    header = json.loads(out.read_text().splitlines()[0])
    assert header["seats"][0]["kind"] == "human"
    assert out.with_suffix(".seat0.jsonl").is_file()  # transcripts work
    assert check_served(game, 0, served) == len(served)
    final = client.get(f"{link}/view").json()
    assert final["finished"] and final["view"]["outcome"] is not None
    assert final["notes"] == "mine" and "mine" in final["observation"]


@pytest.mark.parametrize("game_id", coworld.GAMES)
def test_every_game_id_can_be_played_from_a_link(game_id, tmp_path):
    out = tmp_path / f"{game_id}.jsonl"
    fallback = "tactician" if coworld.catalog()[game_id]["family"] == "gauntlet" else None
    opponent = fallback or ("conventions" if game_id == "hanabi" else "probe")
    game = Game(game_id, [opponent, "human"], seed=12, out=out)
    client = TestClient(create_app(None, game.table))
    link = f"/seat/{game.tokens[1]}"
    game.start()
    while game.waiting_for(1):
        got = client.get(f"{link}/view").json()
        assert got["view"] == game.episode.state.view_for(1) and got["yourTurn"]
        client.post(f"{link}/move", json={"move": got["legalMoves"][-1]})
    game.thread.join()
    assert game.results["decisions"][1] == {"human": game.episode.moves[1]}
    assert recheck(out)["score"] == game.results["score"]


def test_the_observation_is_what_a_claude_seat_is_sent(tmp_path):
    game = Game("hex", ["tactician", "human"], seed=2).start()
    assert game.waiting_for(1)
    got = TestClient(create_app(None, game.table)).get(f"/seat/{game.tokens[1]}/view").json()
    ep = game.episode
    sent = ep.family.observation_text(ep.state, 1, notes="", operator_prompt="", aliases=ep.aliases)
    assert got["observation"] == sent and "Legal moves" in got["legalText"]
    game.table.timeout = 0.05  # the rest goes to the clock: the fallback plays
    game.table.submit(1, {"move": got["legalMoves"][0]})
    game.thread.join()


def test_no_clock_unless_a_timeout_is_given(tmp_path):
    game = Game("connect-four", ["human", "random"], seed=3, timeout=0.05).start()
    game.thread.join(timeout=30)
    origins = game.results["decisions"][0]
    assert origins.get("fallback:timeout", 0) == origins["fallback"] > 0
    assert "human" not in origins
    untimed = Game("connect-four", ["human", "random"], seed=3).start()
    assert untimed.waiting_for(0)
    time.sleep(0.3)
    assert untimed.waiting_for(0) and untimed.episode.state.plies == 0  # still waiting
    untimed.table.timeout = 0.05  # the asks after this one have a clock
    untimed.table.submit(0, {"move": "d"})
    untimed.thread.join(timeout=30)


def test_a_human_seat_without_a_link_is_a_config_error():
    with pytest.raises(ConfigError, match="human seat"):
        coworld.episode.play("hex", ["human", "random"], seed=1)


# ---- the leak check over what a link serves ------------------------------------------


def payload_stream(reducer, moves: list[str], seat: int, level: Any = None, seed: int = 7):
    state = reducer.init(level, seed=seed) if level is not None else reducer.init(seed=seed)
    stream = [seat_payload(None, state, seat, state.active_seat == seat)]
    for move in moves:
        state = reducer.apply(state, move)
        stream.append(seat_payload(None, state, seat, state.active_seat == seat))
    return stream


def test_a_fog_link_serves_nothing_of_the_unseen_opponent():
    reducer = coworld.game("dark-hex-5")
    mine = ["a1", "a2", "a3", "a4"]
    theirs = {"far": ["e5", "e4", "e3", "e2"], "near": ["d5", "d4", "c5", "e1"]}
    streams = {
        name: payload_stream(reducer, [m for pair in zip(mine, t, strict=True) for m in pair], 0)
        for name, t in theirs.items()
    }
    assert assert_no_information_leak(run=streams.__getitem__, variants=list(streams)) == 2


@pytest.mark.parametrize("observer", [0, 2])
def test_a_hanabi_link_serves_nothing_of_its_own_cards_or_the_deck(observer):
    reducer = coworld.game("hanabi")
    deck = shuffled_deck(5)
    actions = quiet_actions(reducer, deck, observer)
    decks = variants(deck, observer, 5)
    streams = {
        f"deal {i}": payload_stream(reducer, actions, observer, {"deck": d}, seed=1)
        for i, d in enumerate(decks)
    }
    assert assert_no_information_leak(run=streams.__getitem__, variants=list(streams)) == 4


# ---- the CLI -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def coworld_cli(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def read_until(proc: subprocess.Popen[str], pattern: str, seen: list[str]) -> re.Match[str]:
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matched {pattern!r}: {''.join(seen)}")


def test_play_prints_one_link_per_human_seat_and_waits_for_its_moves(tmp_path):
    out = tmp_path / "h.jsonl"
    seen: list[str] = []
    with coworld_cli(
        "play", "hanabi", "-s", "human", "-s", "conventions", "-s", "human",
        "--seed", "5", "--out", str(out), "--port", str(free_port()),
    ) as proc:  # fmt: skip
        read_until(proc, r"127\.0\.0\.1 only", seen)
        links = {}
        for _ in range(2):
            found = read_until(proc, r"^seat (\d) \(cog-[0-9a-f]{4}\), human: (http://\S+)$", seen)
            links[int(found.group(1))] = found.group(2)
        assert set(links) == {0, 2}
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/seat/\S{32,}", links[0])
        with httpx.Client() as http:
            while True:
                pages = {seat: http.get(f"{link}/view").json() for seat, link in links.items()}
                if all(p["finished"] for p in pages.values()):
                    break
                for seat, p in pages.items():
                    assert p["seat"] == seat and p["view"]["you"] == seat
                    if p["yourTurn"]:
                        http.post(f"{links[seat]}/move", json={"move": p["legalMoves"][-1]})
                time.sleep(0.02)
        assert proc.wait(timeout=30) == 0
        assert proc.stdout is not None
        text = "".join(seen) + proc.stdout.read()
    assert "shared score" in text and recheck(out)
    origins = {json.loads(x).get("origin") for x in out.read_text().splitlines()}
    assert "human" in origins and "scripted" in origins


def test_view_on_a_port_in_use_says_to_choose_another_port(tmp_path):
    (tmp_path / "x.jsonl").write_text("")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        with coworld_cli("view", str(tmp_path), "--port", port) as proc:
            text, _ = proc.communicate(timeout=60)
        assert proc.returncode != 0
        lines = [x for x in text.splitlines() if x.strip()]
        assert len(lines) == 1 and "--port" in lines[0] and f"port {port}" in lines[0]
        assert "Errno" not in text and "Traceback" not in text
        with coworld_cli(
            "play", "hex", "-s", "random", "-s", "random", "--live", "--port", port
        ) as proc:
            text, _ = proc.communicate(timeout=60)
        assert proc.returncode != 0 and "--port N" in text and "Traceback" not in text


def test_play_live_waits_for_a_spectator_and_says_so(tmp_path):
    port = free_port()
    seen: list[str] = []
    with coworld_cli(
        "play", "connect-four", "-s", "random", "-s", "random", "--live", "--live-wait", "20",
        "--port", str(port), "--out", str(tmp_path / "c.jsonl"),
    ) as proc:  # fmt: skip
        read_until(proc, r"waiting up to 20 s for a browser.*--pace", seen)
        time.sleep(0.5)
        assert (tmp_path / "c.jsonl").read_text() == ""  # not a move before a spectator
        with httpx.stream(
            "GET", f"http://127.0.0.1:{port}/api/stream", params={"path": "c.jsonl"}
        ) as stream:
            lines = [x for x in stream.iter_lines() if x.startswith("data:")]
        assert json.loads(lines[0][5:])["type"] == "header"
        read_until(proc, r"wins|draw", seen)
        proc.terminate()
    assert not any("no browser came" in x for x in seen)
    server = ViewerServer(tmp_path).start()
    try:
        assert server.wait_for_spectator(0.2) is False  # nobody came: it says so and plays
    finally:
        server.stop()


# ---- the browser ---------------------------------------------------------------------


BROWSER_GAMES = {
    "hex": (["human", "tactician"], 3),
    "breakthrough": (["tactician", "human"], 3),
    "connect-four": (["human", "tactician"], 3),
    "recon-hex-5": (["probe", "human"], 4),
    "quoridor": (["human", "tactician"], 5),
    "hanabi": (["human", "conventions"], 6),
}


def choose(game: Game, seat: int) -> str:
    """The move the test clicks: the first legal one (quoridor: a vertical wall first,
    then the pawn step that brings the pawn nearest its goal, so the game ends soon)."""
    state = game.episode.state
    legal = state.legal_moves()
    if state.resolved_game != "quoridor":
        return str(legal[0])
    if state.view()["wallsLeft"][seat] == 10:
        return next(m for m in legal if m.endswith("v"))
    steps = [m for m in legal if m[-1] not in "hv"]
    return min(steps, key=lambda m: state.apply(m).view()["distToGoal"][seat])


def click_move(page: Any, move: str) -> None:
    """Clicks in the page that make `move` (never typed)."""
    words = move.split()
    if words[0] in ("play", "discard"):
        page.click(f"[data-slot='{words[1]}']")
        page.click(f"button[data-action='{words[0]}']")
    elif words[0] == "hint":
        page.click(f"[data-target='{words[1]}']")
        page.click(f"button[data-hint='{words[2]} {words[3]}']")
    elif "-" in move:  # breakthrough: the piece, then where it goes
        origin, target = move.split("-")
        page.click(f"[data-cell='{origin}']", force=True)
        page.click(f"[data-cell='{target}']", force=True)
    elif len(move) == 1:  # connect-four: any cell of the column
        page.click(f"[data-cell='{move}3']", force=True)
    elif "+" in move:
        anchor, cell = move.split("+")
        page.click(f"[data-cell='{anchor}']", force=True)
        page.click(f"[data-cell='{cell}']", force=True)
    elif move[-1] in "hv":
        page.click(f"[data-wall='{move}']", force=True)
    else:
        page.click(f"[data-cell='{move}']", force=True)


def open_seat(browser: Any, server: ViewerServer, game: Game, seat: int) -> tuple[Any, list]:
    page = browser.new_page()
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    page.goto(f"{server.url}/seat/{game.tokens[seat]}")
    page.wait_for_selector("#status[data-turn]")
    return page, responses


def bodies(responses: list[Any]) -> list[tuple[str, int, Any]]:
    out = []
    for r in responses:
        is_api = r.url.endswith("/view") or r.url.endswith("/move")
        out.append((r.url, r.status, r.json() if is_api else None))
    return out


def play_by_clicks(game: Game, pages: dict[int, Any]) -> None:
    """Click each human seat's moves until the episode ends."""
    while game.thread.is_alive():
        asked = [s for s in pages if s in game.table._waiting]
        if not asked:
            time.sleep(0.005)
            continue
        seat = asked[0]
        before = game.episode.state
        pages[seat].wait_for_selector("#status[data-turn='yours']")
        click_move(pages[seat], choose(game, seat))
        until = time.monotonic() + 20
        while game.episode.state is before and time.monotonic() < until:
            time.sleep(0.005)
        assert game.episode.state is not before, pages[seat].inner_text("#error")


@pytest.mark.parametrize("name", list(BROWSER_GAMES))
def test_a_full_game_played_by_clicking(name, browser, tmp_path):  # noqa: F811
    seats, seed = BROWSER_GAMES[name]
    out = tmp_path / f"{name}.jsonl"
    game = Game(name, seats, seed=seed, out=out)
    seat = seats.index("human")
    with ViewerServer(None, humans=game.table) as server:
        page, responses = open_seat(browser, server, game, seat)
        game.start()
        play_by_clicks(game, {seat: page})
        page.wait_for_selector("#status[data-turn='over']")
        page.screenshot(path=str(SHOTS or tmp_path) + f"/{name}.png", full_page=True)
        assert "what a Claude seat is sent" in page.inner_text("#observation")
        served = bodies(responses)
        page.close()
    assert not game.error and game.results["decisions"][seat].get("human", 0) > 0
    assert set(game.results["decisions"][seat]) == {"human"}
    assert recheck(out)["score"] == game.results["score"]
    assert check_served(game, seat, served) > 3


def test_two_human_seats_by_clicking_never_see_each_other(browser, tmp_path):
    out = tmp_path / "dark.jsonl"
    game = Game("dark-hex-5", ["human", "human"], seed=8, out=out)
    with ViewerServer(None, humans=game.table) as server:
        opened = {seat: open_seat(browser, server, game, seat) for seat in (0, 1)}
        game.start()
        play_by_clicks(game, {seat: page for seat, (page, _) in opened.items()})
        for page, _ in opened.values():
            page.wait_for_selector("#status[data-turn='over']")
        served = {seat: bodies(responses) for seat, (_, responses) in opened.items()}
        for page, _ in opened.values():
            page.close()
    assert recheck(out)["score"] == game.results["score"]
    for seat in (0, 1):
        assert check_served(game, seat, served[seat]) > 3
        views = [b["view"] for url, _, b in served[seat] if url.endswith("/view")]
        assert {v["seat"] for v in views} == {seat}


def test_an_illegal_click_shows_the_reason_and_changes_nothing(browser, tmp_path):
    game = Game("hex", ["tactician", "human"], seed=9)
    with ViewerServer(None, humans=game.table) as server:
        page, _ = open_seat(browser, server, game, 1)
        game.start()
        assert game.waiting_for(1)
        page.wait_for_selector("#status[data-turn='yours']")
        before = game.episode.state
        taken = next(iter(before.view()["stones"]))
        page.click(f"[data-cell='{taken}']", force=True)
        page.wait_for_selector("#error:not([hidden])")
        assert taken in page.inner_text("#error") and "not played" in page.inner_text("#error")
        legal = page.inner_text("#legal")
        assert legal.startswith("Legal moves: ") and taken not in legal.split(": ", 1)[1].split(
            ", "
        )
        assert game.episode.state is before and 1 in game.table._waiting
        page.fill("#move", "zz")  # typed notation is answered the same way
        page.click("#send")
        page.wait_for_function("document.querySelector('#error').textContent.includes('zz')")
        assert game.episode.state is before
        game.table.timeout = 0.01  # the asks after this move time out: the game ends
        page.fill("#move", before.legal_moves()[0])
        page.click("#send")
        page.wait_for_selector("#error", state="hidden")
        page.close()
        game.thread.join(timeout=30)
    assert game.results["decisions"][1]["human"] == 1


# ---- leagues -------------------------------------------------------------------------


def test_a_league_fields_a_human_one_episode_at_a_time(tmp_path):
    from coworld.league import LeagueDB, LeagueRun
    from coworld.league.ranking import standings

    people = {"name": "people", "policies": ["human", "random"], "seed": 3, "replays": 1}
    config = make_league(tmp_path, people, out="out")
    run = LeagueRun(config, progress=False)
    report: list[Any] = []
    league = threading.Thread(target=lambda: report.append(run.run()), daemon=True)
    league.start()
    until = time.monotonic() + 60
    while run.engine.humans is None and time.monotonic() < until:
        time.sleep(0.01)
    assert run.engine.humans is not None
    base = run.engine.humans.server.url
    episodes_seen, most_at_once = set(), 0
    with httpx.Client(base_url=base) as http:
        page = http.get("/").text  # the league page, served while the league plays
        while league.is_alive() and time.monotonic() < until:
            try:
                links = http.get("/api/humans").json()["seats"]  # the league page's list
            except httpx.ConnectError:  # the league ended and closed its viewer
                break
            most_at_once = max(most_at_once, len(links))
            for link in links:
                got = http.get(f"{link['path']}/view").json()
                episodes_seen.add(link["path"])
                if got["yourTurn"]:
                    http.post(f"{link['path']}/move", json={"move": got["legalMoves"][0]})
            time.sleep(0.01)
    league.join(timeout=5)
    assert report and most_at_once == 1  # one seat of one episode at a time
    assert len(episodes_seen) == 4  # a fresh link per episode: 2 per seat order
    assert "humans-card" in page
    rows = {
        (s.policy, s.game): s for s in standings(LeagueDB(report[0].database).episodes("people"))
    }
    assert rows[("human", "connect-four")].n == 4


def test_live_serves_the_spectator_stream_beside_the_seat_links(tmp_path):
    out = tmp_path / "live.jsonl"
    game = Game("dark-hex-5", ["human", "probe"], seed=3, out=out).start()
    assert game.waiting_for(0)
    client = TestClient(create_app(tmp_path, game.table))
    assert client.get("/api/live").json()["live"] == ["live.jsonl"]  # as it happens
    assert client.get(f"/seat/{game.tokens[0]}/view").json()["yourTurn"]
    assert client.get("/api/humans").json()["seats"][0]["path"] == f"/seat/{game.tokens[0]}"
    game.table.timeout = 0.01
    game.table.submit(0, {"move": "c3"})
    game.thread.join(timeout=30)
    assert client.get("/api/humans").json()["seats"] == []  # the episode is over


def test_what_a_page_receives_passes_the_leak_check(browser, tmp_path):
    """Two games whose opponent plays different cells the seat never meets: the seat's
    page receives the same answers at every decision and at the end."""
    received = {}
    for name, cells in {
        "file e": ["e1", "e2", "e3", "e4", "e5"],
        "file d": ["d1", "d2", "d3", "d4", "d5"],
    }.items():
        # the same own entropy (aliases) in both: only the hidden stones differ
        game = Game("dark-hex-5", ["human", "human"], seed=6, entropy="5eed" * 8)
        with ViewerServer(None, humans=game.table) as server:
            page, responses = open_seat(browser, server, game, 0)
            game.start()
            for cell in cells:
                assert game.waiting_for(0)
                before = game.episode.state
                page.wait_for_selector("#status[data-turn='yours']")
                click_move(page, choose(game, 0))
                while game.episode.state is before:
                    time.sleep(0.005)
                assert game.waiting_for(1)
                game.table.submit(1, {"move": cell})
            game.thread.join(timeout=30)
            page.wait_for_selector("#status[data-turn='over']")
            served = bodies(responses)
            page.close()
        views = [b for url, _, b in served if url.endswith("/view")]
        decisions = [b for b in views if b["yourTurn"]] + [views[-1]]
        # the page polls: a position may be answered more than once
        received[name] = [b for i, b in enumerate(decisions) if i == 0 or b != decisions[i - 1]]
    assert game.results["winner"] == 1
    assert assert_no_information_leak(run=received.__getitem__, variants=list(received)) == 2
