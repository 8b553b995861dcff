"""Scheduling paired deals (paper, Section 5: "Runs and single-deal matches", blocks).

A *run* (a paired deal) is two deals of one game that share a play seed, each player sitting
Alice once; a matchup (pair, game) plays up to ``runs`` runs.  Play seeds derive from (game
seed, pair, run) with ``derive_seed``, the pair entering as a 64-bit digest of the two names,
so adding players never changes the seeds of existing matchups.

Blocks: players are grouped by their roster ``block``, in order of first appearance.  The first
block is a round robin over its players on its games (the first ``first_block_games`` games, or
all).  Each later block's players (the paper's September models) each meet ``opponents``
players of earlier blocks, chosen by a generator seeded by the player's name, with the games
spread over those opponents in turn so that every game is played.

Identity: a run id hashes the game (seed and spec hash), the engine version, the block, the two
players with their fingerprints, and the run index; a match id is the run id plus the deal
(``.0``: the pair's first player sits Alice, ``.1``: the seats swapped).  Any change to what
determines play gives new ids, so a corpus never mixes matches played under other settings.

Games: an integer seed names a generated game (``game_seed`` = the seed).  A preset or a spec
file has no generator seed; its ``game_seed`` is ``-(1 + int(spec_hash[:13], 16))``, a negative
integer below 2**52 determined by the spec alone (so it stays an exact int64 and float64 and
can never collide with a generator seed), and its ``game`` token keeps the name.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from engines.gbg.engine import ENGINE_VERSION
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec
from engines.openspiel.spec import OpenSpielSpec


@dataclass(frozen=True)
class Game:
    """A benchmark game: the token the user gave, its ``game_seed`` and its spec (a generated
    game's, or an OpenSpiel game's: ``engines.openspiel``)."""

    token: str
    game_seed: int
    spec: GameSpec | OpenSpielSpec

    @property
    def generated(self) -> GameSpec:
        """The spec of a generated game; ``ValueError`` for an OpenSpiel game."""
        if not isinstance(self.spec, GameSpec):
            raise ValueError(f"{self.token!r} is an OpenSpiel game; this takes generated games")
        return self.spec

    @property
    def engine_version(self) -> str:
        """The version of what plays the game: the generated-game engine's, or for an
        OpenSpiel game the adapter's with OpenSpiel's (``OpenSpielSpec.engine_version``)."""
        if isinstance(self.spec, OpenSpielSpec):
            return self.spec.engine_version
        return ENGINE_VERSION


def preset_game_seed(spec: GameSpec | OpenSpielSpec) -> int:
    """The ``game_seed`` of a game without a generator seed (see the module docstring)."""
    return -(1 + int(spec.spec_hash[:13], 16))


def parse_game_list(text: str) -> list[str]:
    """``"kuhn, 12, 40"`` -> ``["kuhn", "12", "40"]``."""
    return [part.strip() for part in text.split(",")]


@dataclass(frozen=True)
class ScheduledMatch:
    """One deal to play, with everything that identifies it."""

    match_id: str
    run_id: str
    game: Game
    block: str
    run_index: int
    deal: int
    play_seed: int
    alice: str
    bob: str

    @property
    def players(self) -> tuple[str, str]:
        return (self.alice, self.bob)


def pair_key(first: str, second: str) -> int:
    """A 64-bit digest of an ordered pair of player names."""
    digest = hashlib.sha256(f"{first}\x00{second}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def play_seed(game_seed: int, first: str, second: str, run: int) -> int:
    """The play seed shared by both deals of run ``run`` of (pair, game)."""
    return derive_seed(game_seed, pair_key(first, second), run)


def run_id(
    game: Game, block: str, first: tuple[str, str], second: tuple[str, str], run: int
) -> str:
    """The id of a run; ``first``/``second`` are (name, fingerprint)."""
    key = json.dumps(
        [game.game_seed, game.spec.spec_hash, game.engine_version, block, first, second, run],
        separators=(",", ":"),
    )
    return "run-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def paired_deals(
    game: Game,
    block: str,
    first: str,
    second: str,
    runs: int,
    fingerprints: dict[str, str],
) -> list[ScheduledMatch]:
    """The ``runs`` runs of one matchup: for each, the two seat-swapped deals."""
    out: list[ScheduledMatch] = []
    for run in range(runs):
        rid = run_id(game, block, (first, fingerprints[first]), (second, fingerprints[second]), run)
        seed = play_seed(game.game_seed, first, second, run)
        for deal, (alice, bob) in enumerate(((first, second), (second, first))):
            out.append(
                ScheduledMatch(f"{rid}.{deal}", rid, game, block, run, deal, seed, alice, bob)
            )
    return out


def round_robin(
    players: Sequence[str],
    games: Sequence[Game],
    runs: int,
    block: str,
    fingerprints: dict[str, str],
) -> list[ScheduledMatch]:
    """Every pair of ``players`` on every game, ``runs`` runs each (pairs in roster order)."""
    out: list[ScheduledMatch] = []
    for game in games:
        for i, first in enumerate(players):
            for second in players[i + 1 :]:
                out.extend(paired_deals(game, block, first, second, runs, fingerprints))
    return out


def against_existing(
    newcomers: Sequence[str],
    existing: Sequence[str],
    games: Sequence[Game],
    runs: int,
    opponents: int,
    block: str,
    fingerprints: dict[str, str],
) -> list[ScheduledMatch]:
    """Each newcomer against ``opponents`` existing players, the games spread over them."""
    if not existing:
        raise ValueError(f"block {block!r} has no earlier players to play against")
    out: list[ScheduledMatch] = []
    for newcomer in newcomers:
        draw = random.Random(hashlib.sha256(newcomer.encode("utf-8")).digest())
        chosen = sorted(
            draw.sample(list(existing), min(opponents, len(existing))), key=list(existing).index
        )
        for g, game in enumerate(games):
            rival = chosen[g % len(chosen)]
            out.extend(paired_deals(game, block, rival, newcomer, runs, fingerprints))
    return out


def block_schedule(
    blocks: Sequence[tuple[str, Sequence[str]]],
    games: Sequence[Game],
    runs: int,
    fingerprints: dict[str, str],
    first_block_games: int | None = None,
    opponents: int = 4,
) -> list[ScheduledMatch]:
    """The whole tournament: block 1 as a round robin, later blocks against earlier players.

    ``blocks`` is [(block name, its players in roster order), ...] in block order.
    """
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    schedule: list[ScheduledMatch] = []
    earlier: list[str] = []
    for index, (block, players) in enumerate(blocks):
        if index == 0:
            first_games = list(games)[: first_block_games or len(games)]
            if len(players) < 2:
                raise ValueError(f"block {block!r} needs at least two players for a round robin")
            schedule += round_robin(players, first_games, runs, block, fingerprints)
        else:
            schedule += against_existing(
                players, earlier, games, runs, opponents, block, fingerprints
            )
        earlier += list(players)
    return schedule
