"""A Claude league on a multi-node Ray cluster whose workers cannot open the league
database nor write under the league's directory (as on nodes that share no file
system with the driver): the driver alone writes both, every answered call is
counted (also a killed task's), and one budget holds across the nodes. And Ctrl-C
stops a Ray league as it stops a local one.

Ray allows one `ray.init` per process and the session's cluster has one node, so
the cluster and its leagues run in a subprocess (`python -m tests.league.test_ray_cluster
DIR`), which prints what it measured as JSON; the test asserts on it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.mock_anthropic import MockAnthropic, billed_at_worst, first_legal

#: The variable naming the directory no worker may open a database under.
NO_DB = "COWORLD_TEST_NO_DB_UNDER"
CONCURRENCY = 3
CAP = 60_000
#: A policy that ends its worker process once the game reaches its fourth ply.
KILLER = "import os\ndef act(view, legal_moves):\n    if view['plies'] >= 4:\n        os._exit(1)\n    return legal_moves[0]\n"  # noqa: E501
ROOT = Path(__file__).resolve().parents[2]


def test_a_league_on_nodes_that_cannot_reach_the_database(tmp_path):
    pytest.importorskip("ray")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")},
        # a loaded machine (the session's own cluster runs beside this one) can take
        # Ray's GCS longer than its default 30 s to start
        "RAY_gcs_server_port_wait_time_s": "180",
        # the session's cluster may have turned token authentication on in this
        # environment; this private cluster (its HOME holds no token) runs without it
        "RAY_AUTH_MODE": "disabled",
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.league.test_ray_cluster", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])

    # the hook runs in every worker: a task that opens a database there fails
    assert facts["nodes"] == 3 and "cannot reach" in facts["hook"]

    # every answered call is in `calls`, written by the driver; the episodes' usage
    # (scored and void) and the pre-flight check add up to it
    run = facts["open"]
    assert run["episodes"] == 6 and run["answered"] == run["spent"]["calls"] > 6
    assert run["spent"] == add(run["episodes_usage"], run["preflight"])
    assert len(run["nodes"]) >= 2  # the episodes ran on more than one node
    assert run["replays"]  # written by the driver: the workers could not write there

    # one budget across the nodes: every call reserved its worst case first, so the
    # cap holds (overshoot at most the calls in flight: here none) and the league
    # stopped only when no further worst case fitted beside those in flight
    capped = facts["capped"]
    spent, largest = capped["spent"]["tokens"], capped["largest"]
    assert capped["budget_stopped"] and capped["answered"] == capped["spent"]["calls"]
    assert spent <= CAP <= CAP + CONCURRENCY * largest
    assert spent > CAP - CONCURRENCY * largest
    assert len(capped["nodes"]) >= 2

    # tasks killed mid-episode (twice: Ray's retry too) still have their calls counted
    killed = facts["killed"]
    assert killed["answered"] == killed["spent"]["calls"]
    dead = {tuple(k) for k, cause in killed["voids"] if cause == "worker-died"}
    assert dead and killed["stopped"]
    for key, (in_calls, in_rows) in killed["per_episode"].items():
        if tuple(json.loads(key)) in dead:  # nothing of its own came back; the calls did
            assert in_rows == 0 and in_calls >= 2
        else:
            assert in_calls == in_rows
    counted = sum(c for c, _ in killed["per_episode"].values())
    assert killed["spent"]["calls"] == counted + killed["preflight"]["calls"]


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_a_ray_league_cleanly(tmp_path, ray_cluster, ray_api, ray_script, presses):
    """One Ctrl-C: no episode is dispatched after it, those in flight finish and are
    stored. Two: those in flight are cancelled, each void `interrupted`. Either way
    the league exits 130 with its line, and every answer read is in the database."""
    from coworld.league import LeagueDB, load_league

    def slow(body: dict[str, Any], n: int) -> tuple:  # a call takes 1 s: the episodes
        # in flight (a few calls each) outlast the two presses, 0.2 s apart
        return ("sleep", 1.0, first_legal(body, n)[1])

    ray_script(slow)
    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nWin.\n")
    (tmp_path / "l.toml").write_text(  # `out` relative to the driver's directory
        'name = "t"\ngames = ["connect-four"]\npolicies = ["tactician", "p.md"]\n'
        'episodes = 10\nseed = 4\nreplays = 0\nconcurrency = 2\nout = "t"\n'
    )
    address = ray_cluster.get_runtime_context().gcs_address
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": ray_api.base_url}
    before = ray_api.answered
    proc = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml", "--backend", "ray",
         "--address", address],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while ray_api.answered - before < 6 and proc.poll() is None:  # episodes are in flight
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for _ in range(presses):  # as a person presses twice
            proc.send_signal(signal.SIGINT)
            time.sleep(0.2)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out, err[-2000:])
    assert out.strip().splitlines()[-1].startswith("interrupted: stopped by Ctrl-C"), out
    assert "Traceback" not in out + err
    db = LeagueDB(load_league(tmp_path / "l.toml").database)
    try:
        voids, rows = db.voids("t"), db.runner_rows("t")
        assert 0 < len(rows) + len(voids) < 20  # stopped early
        spent = db.spent("t").calls
        answered = ray_api.answered - before
        if presses == 1:  # those in flight finished: stored, every answer written
            assert voids == [] and spent == answered
        else:  # cancelled: a call in flight answered but never read is not known
            assert voids and {v.cause for v in voids} == {"interrupted"}, (voids, out, err)
            assert 0 <= answered - spent <= 2
        # the tasks wrote the replays there too, not in their own working directory
        replays = [tmp_path / r.replay for r in rows if r.replay]
        assert all(p.is_file() for p in replays) and (replays or presses == 2)
    finally:
        db.close()


def add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: round(a[k] + b[k], 9) for k in a}


# ---- the subprocess ---------------------------------------------------------------


def refuse_the_database() -> None:
    """Every worker's hook: `sqlite3.connect` refuses any path under $NO_DB, and so
    does opening a file there for writing (the league's `out` is under it too)."""
    import builtins
    import sqlite3

    open_file = builtins.open

    def refuse_writes(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if str(file).startswith(os.environ[NO_DB]) and any(c in mode for c in "wax+"):
            raise PermissionError(f"this worker cannot write {file}")
        return open_file(file, mode, *args, **kwargs)

    builtins.open = refuse_writes  # type: ignore[assignment]

    connect = sqlite3.connect
    forbidden = os.environ[NO_DB]

    def refuse(database: Any, *args: Any, **kwargs: Any) -> Any:
        if str(database).startswith(forbidden):
            raise sqlite3.OperationalError(f"this worker cannot reach {database}")
        return connect(database, *args, **kwargs)

    sqlite3.connect = refuse  # type: ignore[assignment]


def hook_refuses(path: str) -> str:
    import ray

    @ray.remote(num_cpus=1)
    def open_database(path: str) -> None:
        import sqlite3

        sqlite3.connect(path).close()

    try:
        ray.get(open_database.remote(path))
    except ray.exceptions.RayTaskError as err:
        return str(err)
    return "opened"


class Nodes:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def add(self, node: str) -> None:
        self.seen.append(node)

    def all(self) -> list[str]:
        return self.seen


def play(tmp: Path, mock: MockAnthropic, name: str, policies: list[str], **fields: Any) -> dict:
    """Run a league on the cluster; what it spent, answered and where it ran."""
    import ray

    from coworld.league import LeagueDB, LeagueRun, parse_league
    from coworld.league.backends.ray import play_in_task

    raw = {"name": name, "games": ["connect-four"], "policies": policies, "episodes": 3,
           "seed": 5, "replays": 0, "concurrency": CONCURRENCY, "out": str(tmp / name),
           **fields}  # fmt: skip
    run = LeagueRun(parse_league(raw, base_dir=tmp), backend="ray", progress=False)
    nodes: Any = ray.remote(Nodes).options(num_cpus=0).remote()

    @ray.remote(num_cpus=1, max_retries=1)
    def traced(*args: Any) -> Any:  # the backend's task, recording its node first
        ray.get(nodes.add.remote(ray.get_runtime_context().get_node_id()))
        return play_in_task(*args)

    run.backend._episode = traced  # type: ignore[attr-defined]
    before, began = mock.answered, time.monotonic()
    report = run.run()
    seconds = time.monotonic() - began
    db = LeagueDB(report.database)
    try:
        per_episode: dict[str, list[int]] = {}
        for pairing, idx, calls in db.conn.execute(
            "SELECT pairing, idx, SUM(calls) FROM calls WHERE league=? AND pairing != "
            "'preflight' GROUP BY pairing, idx",
            (name,),
        ):
            per_episode[json.dumps([pairing, idx])] = [calls, 0]
        for row in [*db.runner_rows(name), *db.voids(name)]:
            per_episode.setdefault(json.dumps([row.pairing, row.idx]), [0, 0])[1] += row.usage.calls
        preflight = db.conn.execute(
            "SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(input_tokens + output_tokens + "
            "cache_write_tokens + cache_read_tokens), 0) FROM calls WHERE league=? AND "
            "pairing='preflight'",
            (name,),
        ).fetchone()
        facts = {
            "episodes": report.episodes,
            "seconds": round(seconds, 1),
            "answered": mock.answered - before,
            "spent": usage(db.spent(name)),
            "episodes_usage": usage(db.usage(name, voided=True)),
            "preflight": {"calls": preflight[0], "tokens": preflight[1]},
            "per_episode": per_episode,
            "voids": [[[v.pairing, v.idx], v.cause] for v in db.voids(name)],
            "budget_stopped": report.budget_stopped,
            "stopped": report.stopped,
            "largest": run.session.ledger.largest.tokens if run.session.ledger else 0,
            # every episode's files, written by the driver under the league's `out`
            "replays": all(
                Path(r.replay).is_file() and Path(r.replay).stat().st_size > 0
                for r in db.runner_rows(name)
                if r.replay
            ),
            "nodes": sorted(set(ray.get(nodes.all.remote()))),
        }
    finally:
        db.close()
    return facts


def usage(u: Any) -> dict[str, Any]:
    return {"calls": u.calls, "tokens": u.tokens}


def main(tmp: Path) -> None:
    import ray
    from ray.cluster_utils import Cluster

    (tmp / "p.md").write_text(
        "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 200\n---\nWin.\n"
    )
    (tmp / "killer.py").write_text(KILLER)
    began = time.monotonic()
    with MockAnthropic(first_legal) as mock:
        os.environ.update(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=mock.base_url)
        cluster = Cluster(
            initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
        )
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(
            address=cluster.address,
            log_to_driver=False,
            runtime_env={
                "worker_process_setup_hook": refuse_the_database,
                "env_vars": {NO_DB: str(tmp)},
            },
        )
        try:
            facts: dict[str, Any] = {
                "started": round(time.monotonic() - began, 1),
                "nodes": len(ray.nodes()),
                "hook": hook_refuses(str(tmp / "probe.db")),
            }
            facts["open"] = play(tmp, mock, "open", ["tactician", "p.md"])
            mock.usage = billed_at_worst
            facts["capped"] = play(
                tmp, mock, "capped", ["tactician", "p.md"], episodes=12, budget={"max_tokens": CAP}
            )
            mock.usage = None
            facts["killed"] = play(tmp, mock, "killed", ["p.md", "killer.py"], episodes=1)
        finally:
            ray.shutdown()
            cluster.shutdown()
    print(json.dumps(facts))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
