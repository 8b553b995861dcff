"""Planted worlds for the anchored scales: corpora whose ratings, scores and Elo are known.

Why it exists: the anchored scales (``engines.stats.anchored``) must recover planted values
with honest intervals, including across two corpora that share only the reference field. A
world plants a Bradley-Terry logit per player and a first-mover term ``h``; in a deal, the
player in Alice's seat wins with probability ``sigmoid(theta_alice - theta_bob + h)`` and the
winner takes a stake of ``1 + Poisson(stake_mean - 1)`` chips (so the margin is twice that).
Each run is a paired deal (both seats, same pair and game). The field's members play a round
robin, every entrant plays every member; entrants may also play one another with an extra,
planted non-transitive bonus that the anchored scales must ignore.

Truths: the score and the Elo follow from the planted logits by the scales' own formulas. The
anchored rating is linear in the margins given the schedule, so its estimand is the estimator
applied to the expected margins (as ``engines.stats.planted.noise_free``); with the same design
against the field it does not depend on which other entrants a corpus holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.numeric.special import expit
from engines.stats.anchored import (
    ELO_SCALE,
    SeatCells,
    SeatRuns,
    anchored_ratings,
    field_cells,
    observed_seat_cells,
    seat_runs_from_arrays,
)
from engines.stats.reference_field import ReferenceField

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PlantedWorld:
    """Planted logits (by player), the first-mover term and the design's sizes."""

    field: ReferenceField
    theta: Mapping[str, float]
    h: float = 0.2
    games: int = 4
    field_runs: int = 30
    entrant_runs: int = 30
    stake_mean: float = 3.0
    entrant_runs_between: int = 0
    nontransitive: float = 2.0

    def __post_init__(self) -> None:
        missing = [name for name in self.field.members if name not in self.theta]
        if missing:
            raise ValueError(f"the world plants no logit for member(s) {missing}")
        if self.games < 1 or self.field_runs < 1 or self.entrant_runs < 1:
            raise ValueError("games, field_runs and entrant_runs must be positive")
        if self.stake_mean < 1.0:
            raise ValueError("stake_mean must be at least 1 chip")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(sorted(self.theta))

    @property
    def entrants(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if p not in self.field.members)

    def schedule(
        self,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(game, first, second) of every run, in a fixed order."""
        index = {name: k for k, name in enumerate(self.players)}
        members = [index[n] for n in self.field.members]
        entrants = [index[n] for n in self.entrants]
        pairs: list[tuple[int, int, int]] = []
        for a_pos, a in enumerate(members):
            pairs += [(a, b, self.field_runs) for b in members[a_pos + 1 :]]
        pairs += [(e, r, self.entrant_runs) for e in entrants for r in members]
        for e_pos, e in enumerate(entrants):
            pairs += [(e, f, self.entrant_runs_between) for f in entrants[e_pos + 1 :]]
        game, first, second = [], [], []
        for a, b, runs in pairs:
            for g in range(self.games):
                game += [g] * runs
                first += [min(a, b)] * runs
                second += [max(a, b)] * runs
        return (
            np.asarray(game, dtype=np.int64),
            np.asarray(first, dtype=np.int64),
            np.asarray(second, dtype=np.int64),
        )

    def logits(self) -> FloatArray:
        return np.array([self.theta[p] for p in self.players], dtype=np.float64)

    def _bonus(self, first: npt.NDArray[np.int64], second: npt.NDArray[np.int64]) -> FloatArray:
        """The entrant-against-entrant non-transitive part (zero against members)."""
        member = np.isin(np.asarray(self.players), self.field.members)
        between = ~member[first] & ~member[second]
        parity = np.where((first + second) % 2 == 0, 1.0, -1.0)
        return np.where(between, self.nontransitive * parity, 0.0)

    def _draw(self, rng: np.random.Generator) -> dict[str, Any]:
        """Per run: game, pair and the first model's margin in each seat."""
        game, first, second = self.schedule()
        theta = self.logits()
        d = theta[first] - theta[second] + self._bonus(first, second)
        n = len(first)
        win_a = rng.random(n) < expit(d + self.h)  # the first model sits Alice
        win_b = rng.random(n) < expit(d - self.h)  # the first model sits Bob
        stake_a = 1.0 + rng.poisson(self.stake_mean - 1.0, n)
        stake_b = 1.0 + rng.poisson(self.stake_mean - 1.0, n)
        return {
            "game": game,
            "first": first,
            "second": second,
            "margin_a": 2.0 * np.where(win_a, stake_a, -stake_a),
            "margin_b": 2.0 * np.where(win_b, stake_b, -stake_b),
        }

    def sample(self, rng: np.random.Generator) -> SeatRuns:
        """One corpus of runs drawn from the world."""
        r = self._draw(rng)
        return seat_runs_from_arrays(
            self.players,
            r["game"],
            r["first"],
            r["second"],
            r["margin_a"] + r["margin_b"],
            (r["margin_a"] > 0) * 1.0,
            (r["margin_b"] > 0) * 1.0,
        )

    def sample_matches(self, rng: np.random.Generator, block: str = "planted") -> pd.DataFrame:
        """One corpus as a match table in the DESIGN schema (two deals per run)."""
        r = self._draw(rng)
        names = np.asarray(self.players, dtype=object)
        n = len(r["game"])
        runs = np.arange(n)
        margin = np.concatenate([r["margin_a"], -r["margin_b"]])
        run_ids = np.char.add("r", np.concatenate([runs, runs]).astype(str))
        deal = np.repeat(np.array([".0", ".1"]), n)
        return pd.DataFrame(
            {
                "match_id": np.char.add(run_ids, deal),
                "game_seed": np.concatenate([r["game"], r["game"]]) + 1000,
                "block": block,
                "run_id": run_ids,
                "play_seed": np.concatenate([runs, runs]),
                "alice": np.concatenate([names[r["first"]], names[r["second"]]]),
                "bob": np.concatenate([names[r["second"]], names[r["first"]]]),
                "alice_chip_delta": margin / 2.0,
                "bob_chip_delta": -margin / 2.0,
                "margin_alice": margin,
                "status": "complete",
            }
        )

    def expected_cells(self, runs: SeatRuns) -> SeatCells:
        """The design's cells with every margin and point at its expectation."""
        observed = observed_seat_cells(runs)
        theta = self.logits()
        f, s = runs.cell_first, runs.cell_second
        d = theta[f] - theta[s] + self._bonus(f, s)
        pa, pb = expit(d + self.h), expit(d - self.h)
        n = observed.counts
        run_margin = 2.0 * self.stake_mean * ((2 * pa - 1) + (2 * pb - 1))
        return SeatCells(n, n * run_margin, n * pa, n * pb)

    def truth(self, runs: SeatRuns) -> dict[str, FloatArray]:
        """Planted rating, score and Elo per player (``players`` order)."""
        theta = self.logits()
        anchor = self.players.index(self.field.anchor)
        members = [self.players.index(n) for n in self.field.members]
        fc = field_cells(runs, members)
        rating = anchored_ratings(
            runs, self.expected_cells(runs), fc, anchor, self.field.anchor_rating
        )[0]
        rel = theta - theta[anchor]
        diff = rel[:, None] - rel[None, members]
        score = 100.0 * (0.5 * (expit(diff + self.h) + expit(diff - self.h))).mean(axis=1)
        elo = self.field.anchor_elo + ELO_SCALE * rel
        return {"rating": rating, "score": score, "elo": elo}
