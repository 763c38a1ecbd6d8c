"""An episode's own entropy: aliases and a Python policy's `RNG` come from it, the
replay header records it, `recheck` verifies the aliases against it, and a run
with the same seed and entropy replays a seeded bot's choices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coworld.episode import Episode, play
from coworld.errors import ConfigError
from coworld.replay import ReplayMismatch, read_lines, recheck
from coworld.streams import aliases, check_entropy, draw_entropy, seat_random

DICE_BOT = """
NAME = "dice"


def act(view, legal_moves):
    return RNG.choice(legal_moves)
"""


def dice(tmp_path: Path) -> str:
    path = tmp_path / "dice.py"
    path.write_text(DICE_BOT)
    return str(path)


def events(path: Path) -> list[dict]:
    return [event for _, event in read_lines(path)]


def moves(path: Path) -> list[str]:
    return [e["move"] for e in events(path) if e["type"] == "ply"]


def test_the_header_records_the_entropy_the_aliases_come_from(tmp_path):
    out = tmp_path / "e.jsonl"
    play("hanabi", ["random"] * 4, seed=11, out=out)
    header = events(out)[0]
    entropy = check_entropy(header["entropy"])
    assert [s["alias"] for s in header["seats"]] == aliases(entropy, 4)
    assert recheck(out)["reason"] == "complete"


def test_recheck_reads_the_aliases_from_the_header_and_checks_them(tmp_path):
    out = tmp_path / "e.jsonl"
    play("dark-hex-5", ["probe", "random"], seed=5, out=out)
    lines = out.read_text().splitlines()

    def rewrite(number: int, edit) -> Path:
        edited = list(lines)
        event = json.loads(edited[number])
        edit(event)
        edited[number] = json.dumps(event)
        path = tmp_path / f"edited{number}.jsonl"
        path.write_text("\n".join(edited) + "\n")
        return path

    def alias(event: dict) -> None:
        event["seats"][0]["alias"] = "cog-0000"

    with pytest.raises(ReplayMismatch, match="line 1: header aliases differ"):
        recheck(rewrite(0, alias))
    welcome = next(i for i, line in enumerate(lines) if '"welcome"' in line)
    with pytest.raises(ReplayMismatch, match="welcome alias differs"):
        recheck(rewrite(welcome, lambda e: e.update(alias="cog-0000")))
    with pytest.raises(ReplayMismatch, match="entropy must be 32 lowercase hex digits"):
        recheck(rewrite(0, lambda e: e.update(entropy="seed")))
    # A replay written before entropy was recorded still rechecks on its own aliases.
    assert recheck(rewrite(0, lambda e: e.pop("entropy")))["reason"] == "complete"


def test_a_bots_rng_is_its_own_and_replays_with_the_recorded_entropy(tmp_path):
    bot = dice(tmp_path)
    first, second, again = (tmp_path / f"{n}.jsonl" for n in ("first", "second", "again"))
    play("hex", [bot, "random"], seed=3, out=first)
    play("hex", [bot, "random"], seed=3, out=second)
    # Same seed, fresh entropy: the bot's own draws differ (its moves, here).
    assert moves(first) != moves(second)
    entropy = events(first)[0]["entropy"]
    play("hex", [bot, "random"], seed=3, out=again, entropy=entropy)
    assert moves(again) == moves(first)
    assert recheck(again)["score"] == recheck(first)["score"]


def test_a_bots_rng_and_the_aliases_do_not_depend_on_the_seed():
    entropy = draw_entropy()
    one = Episode("hanabi", ["random"] * 4, seed=1, entropy=entropy)
    other = Episode("hanabi", ["random"] * 4, seed=2**52 + 1, entropy=entropy)
    assert one.aliases == other.aliases
    draws = [seat_random(entropy, s).random() for s in range(4)]
    assert len(set(draws)) == 4  # each seat its own stream
    assert draws[0] == seat_random(entropy, 0).random()


def test_bad_entropy_is_refused_naming_the_field():
    with pytest.raises(ConfigError) as err:
        Episode("hex", ["random", "random"], entropy="0123")
    assert err.value.field == "entropy" and "32 lowercase hex digits" in str(err.value)


def test_coworld_play_replays_a_bot_with_the_recorded_seed_and_entropy(tmp_path):
    from coworld.cli import main as cli

    bot, first, again = dice(tmp_path), tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    args = ["play", "hex", "-s", bot, "-s", "random", "--seed", "9"]
    assert cli([*args, "--out", str(first)]) == 0
    entropy = events(first)[0]["entropy"]
    assert cli([*args, "--entropy", entropy, "--out", str(again)]) == 0
    assert moves(again) == moves(first)
    assert events(again)[0]["seats"] == events(first)[0]["seats"]
    assert cli(["play", "hex", "-s", "random", "-s", "random", "--entropy", "seed"]) != 0
