"""Policy files whose front matter an editor or a typo could hide: a byte-order
mark, blank lines before the fence, a header that does not parse, fields without
fences, and a file that names no model."""

from __future__ import annotations

import re

import pytest

from coworld import ConfigError
from coworld.cli import main as cli
from coworld.seats.policy import DEFAULT_MODEL, load_policy
from tests.support.leagues import make_league

FRONT = "---\nname: deep\nmodel: claude-opus-4-1\nmax_tokens: 2000\n---\nPlay the centre.\n"


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff" + FRONT,
        "\n\n" + FRONT,
        "\ufeff\n  \n" + FRONT,
        FRONT.replace("\n", "\r\n"),
        "+++\nname = 'deep'\nmodel = 'claude-opus-4-1'\nmax_tokens = 2000\n+++\nPlay the centre.\n",
    ],
)
def test_a_bom_blank_lines_and_crlf_keep_the_front_matter(tmp_path, text):
    path = tmp_path / "p.md"
    path.write_bytes(text.encode("utf-8"))
    policy = load_policy(str(path))
    assert (policy.name, policy.model, policy.max_tokens) == ("deep", "claude-opus-4-1", 2000)
    assert policy.prompt == "Play the centre." and policy.default_notice is None


@pytest.mark.parametrize(
    "text, line",
    [
        ("---\nname: deep\nmodel: [claude\n---\nWin.\n", "line 3"),
        ("\n---\nname: deep\n  model: x\n---\nWin.\n", "line 4"),
        ("+++\nname = 'deep'\nmodel = \n+++\nWin.\n", "line 3"),
        ("---\nname: deep\nWin.\n", "line 1"),  # never closed
        ("name: deep\nmodel: claude-opus-4-1\n\nWin.\n", "line 1"),  # fields, no fence
        ("\ufeff\nmodel = 'claude-opus-4-1'\n+++\nWin.\n", "line 2"),
    ],
)
def test_front_matter_that_does_not_parse_is_an_error_naming_the_line(tmp_path, capsys, text, line):
    path = tmp_path / "p.md"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_policy(str(path))
    assert str(path) in str(err.value) and f"{line}" in str(err.value), err.value
    assert cli(["play", "hex", "-s", str(path), "-s", "random"]) != 0
    out = capsys.readouterr().out
    assert line in out and "Traceback" not in out


def test_a_file_without_a_model_says_which_model_plays(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (tmp_path / "p.md").write_text("---\nname: house\n---\nWin.\n")
    policy = load_policy(str(tmp_path / "p.md"))
    assert policy.model == DEFAULT_MODEL and DEFAULT_MODEL in (policy.default_notice or "")
    config = make_league(tmp_path, name="n", games=["hex"], policies=["random", "p.md"], episodes=1)
    assert any(DEFAULT_MODEL in n and "p.md" in n for n in config.notices)
    out = tmp_path / "e.jsonl"
    assert (
        cli(["play", "hex", "-s", str(tmp_path / "p.md"), "-s", "random", "--out", str(out)]) == 0
    )
    assert f"no `model` given: {DEFAULT_MODEL} plays (the default)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "front, message",
    [
        ("thinking: 2048", "less than `max_tokens` (1024)"),
        ("thinking: 100\nmax_tokens: 4000", "at least 1024"),
        ("thinking: lots", "adaptive"),
        ("model: claude-unknown-9", "no price for model 'claude-unknown-9'"),
        ("price: [1, -2]", "`price` must be [input, output]"),
    ],
)
def test_policy_knobs_are_checked_at_load(tmp_path, front, message):
    from coworld import ConfigError
    from coworld.seats.policy import load_policy

    (tmp_path / "x.md").write_text(f"---\n{front}\n---\nWin.\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_policy(str(tmp_path / "x.md"))


def test_oversized_prompts_and_non_utf8_files_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "big.md").write_text("---\nname: big\n---\n" + "x" * 70_000)
    (tmp_path / "bin.md").write_bytes(b"---\nname: b\n---\n\xff\xfe play\n")
    for name, message in (("big.md", "the prompt is 70,000 bytes"), ("bin.md", "not UTF-8")):
        assert cli(["play", "hex", "-s", str(tmp_path / name), "-s", "random"]) == 3
        out = capsys.readouterr().out
        assert message in out and "Traceback" not in out
