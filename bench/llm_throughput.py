"""Claude-seat throughput: CPU per model decision and call slots kept busy, for a
league of Claude episodes at concurrency 64 against the local Messages API server
(run in its own process, so its CPU is not billed here) answering after 200 ms.

    .venv/bin/python bench/llm_throughput.py [--episodes 128] [--latency 0.2] [--stub-sdk]

Targets: under 1 ms of CPU per decision, and about 60 of 64 slots
busy on average while the league plays.

How it counts. CPU: user + system time of every league process during the Claude
phase (preflight included). A local league is one process (its episodes are
tasks of one event loop), so that is this process, all threads; the mock
server's CPU is not counted. Slots: calls in flight (reserved and not yet
settled), sampled every 10 ms; "steady" averages the samples taken while
episodes were still waiting to be dispatched, "whole phase" adds the drain at
the end, when fewer episodes than slots remain. The machine's load is printed:
on a shared machine a busy CPU starves the loop and lowers both figures.

Creating an episode's two files (replay and calls sidecar) is timed on its own
and printed as part of the figure: it is the kernel's work. On an ext4 file
system without a journal (as on the machine this was measured on), allocating an inode
skips, one by one, every inode of the directory's block group deleted in the
last ~30 s, so where tests and earlier runs delete files (/tmp) a creation
costs 0.2-1 ms instead of ~0.05. `--out DIR` puts the league's files in a new
directory under DIR instead of a temporary one of the system's, and keeps them.

`--stub-sdk` answers each request in process after the latency instead of
sending it: what is left is the league's own CPU per decision (episodes, files,
database, threads), steadier than the whole figure on a loaded machine (~0.25
ms where the whole is ~0.9 on an idle machine; the SDK's request path alone is
~0.55). Figures measured with the machine's load, and where the time goes:
docs/failures.md, "CPU per decision".
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import contextlib
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from coworld.episode import Episode
from coworld.league import LeagueDB, LeagueRun, parse_league

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=256, help="episodes per pairing")
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--out", help="directory for the league's files (default: a temporary one)")
    ap.add_argument(
        "--stub-sdk",
        action="store_true",
        help="answer each request with a canned reply after the latency instead of "
        "sending it: the league's own CPU per decision, without the SDK's",
    )
    args = ap.parse_args()
    if args.stub_sdk:
        stub_sdk(args.latency)
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mock_anthropic", str(args.latency)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        os.environ["ANTHROPIC_BASE_URL"] = server.stdout.readline().strip()
        os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
        run(args)
    finally:
        server.kill()


def stub_sdk(latency: float) -> None:
    """Replace the request (`ClaudeClient._send`) by a legal move after `latency`:
    everything else (episodes, files, sidecar, ledger, breaker, database) runs as is."""
    import asyncio
    import json
    import re

    from coworld.seats.claude import ClaudeClient

    legal = re.compile(r"Legal moves \(\d+\): ([^,\n]+)")

    async def send(
        self: ClaudeClient, policy: object, system: str, messages: list, accepted: list
    ) -> dict:
        accepted.append(time.monotonic())  # accepted at once, answered after the latency
        await asyncio.sleep(latency)
        found = legal.search(messages[-1]["content"])
        text = json.dumps({"move": found.group(1).strip() if found else "?"})
        return {
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50},
            "stop_reason": "end_turn",
        }

    ClaudeClient._send = send  # type: ignore[method-assign,assignment]


def run(args: argparse.Namespace) -> None:
    # With --out the files are kept: deleting them would slow the next run's file
    # creation for ~30 s (see above), and a league never deletes its files.
    kept = tempfile.mkdtemp(dir=args.out) if args.out else None
    with contextlib.nullcontext(kept) if kept else tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nWin.\n")
        config = parse_league(
            {
                "name": "bench",
                "games": ["connect-four"],
                "policies": ["random", "p.md"],
                "episodes": args.episodes,
                "concurrency": args.concurrency,
                "replays": 0,
                "out": str(Path(tmp, "out")),
            },
            base_dir=Path(tmp),
        )
        league = LeagueRun(config, progress=False)
        samples: list[tuple[int, bool]] = []  # (calls in flight, jobs still queued)
        done = threading.Event()
        queue = {"left": True}
        jobs = league.engine._jobs

        def counted(*a: object) -> Iterator[object]:
            queue["left"] = True
            yield from jobs(*a)  # type: ignore[arg-type]
            queue["left"] = False

        league.engine._jobs = counted  # type: ignore[method-assign,assignment]

        def sample() -> None:  # calls in flight, every 10 ms, once calls started
            while not done.wait(0.01):
                ledger = league.session.ledger
                if ledger is not None and (samples or ledger.in_flight):
                    samples.append((ledger.in_flight, queue["left"]))

        measured: dict[str, float] = {}
        play = league.engine._play_runner

        def timed(*a: object) -> int:  # the Claude phase only (not imports, plots)
            before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            try:
                return play(*a)  # type: ignore[arg-type]
            finally:
                after = resource.getrusage(resource.RUSAGE_SELF)
                measured["user"] = after.ru_utime - before.ru_utime
                measured["sys"] = after.ru_stime - before.ru_stime
                measured["wall"] = time.perf_counter() - wall
                done.set()

        league.engine._play_runner = timed  # type: ignore[method-assign]
        opening = {"cpu": 0.0, "files": 0}
        open_outputs = Episode._open_outputs

        def opened(episode: Episode) -> None:  # on the loop's thread: its CPU time
            before = time.thread_time()
            try:
                open_outputs(episode)
            finally:
                opening["cpu"] += time.thread_time() - before
                opening["files"] += len(episode._writers)

        if not os.environ.get("BENCH_NO_OPEN_TIMING"):
            Episode._open_outputs = opened  # type: ignore[method-assign]
        import anthropic  # noqa: F401  (a one-time import, ~2 s of CPU, is not per decision)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        league.run()
        user, system, wall = measured["user"], measured["sys"], measured["wall"]
        sampler.join()
        db = LeagueDB(config.database)
        calls = db.spent("bench").calls
        db.close()
    steady = [n for n, left in samples if left]
    busy = sum(steady) / max(len(steady), 1)
    overall = sum(n for n, _ in samples) / max(len(samples), 1)
    load = os.getloadavg()[0]
    print(f"{calls:,} model decisions in {wall:.1f} s at concurrency {args.concurrency}")
    print(
        f"CPU per decision: {(user + system) / calls * 1e3:.2f} ms (user {user / calls * 1e3:.2f}"
        f" + system {system / calls * 1e3:.2f}; the league's one process, all threads)"
    )
    files = max(opening["files"], 1)
    print(
        f"  of which creating episode files: {opening['cpu'] / calls * 1e3:.2f} ms "
        f"({opening['files']:,} files, {opening['cpu'] / files * 1e3:.2f} ms each)"
    )
    print(
        f"slots busy: {busy:.1f} of {args.concurrency} steady, {overall:.1f} over the whole "
        f"phase (machine load {load:.1f} on {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
