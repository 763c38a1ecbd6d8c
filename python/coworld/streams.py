"""An episode's own entropy: the randomness a seat may meet that is not the game's.

The engine seed decides everything hidden (Hanabi's deck, a fog opponent's
stones, the baselines' draws), so nothing a seat sees may be a function of it.
Seat aliases and a Python policy's `RNG` come instead from 128 bits drawn from
the operating system per episode. The replay header records them (`entropy`),
so `coworld recheck` verifies the aliases against it and an episode run again
with the same seed and entropy (`Episode(..., entropy=...)`) replays a seeded
bot's choices exactly. The derivation is keyed BLAKE2b: one value per purpose
and seat, independent of each other and of the seed.
"""

from __future__ import annotations

import hashlib
import random
import secrets

from .errors import ConfigError

ENTROPY_HEX_DIGITS = 32  # 128 bits


def draw_entropy() -> str:
    """Fresh entropy for one episode, as 32 lowercase hex digits."""
    return secrets.token_hex(ENTROPY_HEX_DIGITS // 2)


def check_entropy(value: object, where: str = "entropy") -> str:
    """`value` if it is recorded entropy (32 hex digits), else a ConfigError naming `where`."""
    if (
        not isinstance(value, str)
        or len(value) != ENTROPY_HEX_DIGITS
        or any(c not in "0123456789abcdef" for c in value)
    ):
        raise ConfigError(
            f"{where} must be {ENTROPY_HEX_DIGITS} lowercase hex digits, not {value!r}", "entropy"
        )
    return value


def _derive(entropy: str, purpose: str, size: int) -> int:
    digest = hashlib.blake2b(
        purpose.encode(), key=bytes.fromhex(entropy), digest_size=size
    ).digest()
    return int.from_bytes(digest, "big")


def aliases(entropy: str, seats: int) -> list[str]:
    """The episode's seat aliases (`cog-` + 4 hex digits), distinct."""
    out: list[str] = []
    draw = 0
    while len(out) < seats:
        alias = f"cog-{_derive(entropy, f'alias {draw}', 2):04x}"
        draw += 1
        if alias not in out:
            out.append(alias)
    return out


def seat_stream_seed(entropy: str, seat: int) -> int:
    """The 64-bit seed of seat `seat`'s own random stream in this episode."""
    return _derive(entropy, f"seat {seat}", 8)


def seat_random(entropy: str, seat: int) -> random.Random:
    """Seat `seat`'s own `random.Random` for this episode (a Python policy's `RNG`)."""
    return random.Random(seat_stream_seed(entropy, seat))


__all__ = ["aliases", "check_entropy", "draw_entropy", "seat_random", "seat_stream_seed"]
