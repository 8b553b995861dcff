"""Seeded generators for the engine: explicit, cheap, identical on every machine.

The engine draws cards through a 64-bit linear congruential generator (Knuth's MMIX constants,
output from the high 32 bits) whose state is seeded by SplitMix64 of the play seed.  It is not a
cryptographic generator; it is a reproducible one that costs a few integer operations per draw,
so that a deal of Kuhn poker is not dominated by seeding a Mersenne Twister.
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
_LCG_MUL = 6364136223846793005
_LCG_INC = 1442695040888963407


def splitmix64(x: int) -> int:
    """One SplitMix64 output for input ``x`` (Steele, Lea & Flood 2014)."""
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def derive_seed(*parts: int) -> int:
    """A 64-bit seed derived from integers (e.g. game seed, pair, run): order matters."""
    state = 0x243F6A8885A308D3
    for part in parts:
        state = splitmix64(state ^ (part & MASK64))
    return state


def derive_seeds(*parts: int, count: int) -> np.ndarray:
    """``derive_seed(*parts, k)`` for k in ``range(count)``, as an array of uint64 (the last
    SplitMix64 step vectorised: a screening asks for 1,500 of them per game)."""
    with np.errstate(over="ignore"):
        z = np.arange(count, dtype=np.uint64) ^ np.uint64(derive_seed(*parts))
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class DealRng:
    """The per-deal generator: ``below(n)`` is uniform on ``0..n-1``; ``percent(p)`` is a coin."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        z = ((seed & MASK64) + 0x9E3779B97F4A7C15) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        self.state = z ^ (z >> 31)  # splitmix64(seed), inlined: this runs once per deal

    def copy(self) -> DealRng:
        """A generator in the same state, independent of this one."""
        other = DealRng(0)
        other.state = self.state
        return other

    def below(self, n: int) -> int:
        s = (self.state * _LCG_MUL + _LCG_INC) & MASK64
        self.state = s
        return ((s >> 32) * n) >> 32

    def percent(self, p: int) -> bool:
        """True with probability ``p`` percent."""
        return self.below(100) < p
