"""An OpenSpiel game's matches carry the OpenSpiel adapter's engine version, not the generated
games' engine's; a generated game's keep ``ENGINE_VERSION``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES
from arena.tournament.runner import run_tournament
from engines.gbg import ENGINE_VERSION
from engines.openspiel.spec import ADAPTER_VERSION, OPEN_SPIEL_VERSION

PLAYERS = [
    {"name": "random", "kind": "builtin", "agent": "random"},
    {"name": "other", "kind": "builtin", "agent": "random"},
]


def test_matches_record_the_engine_that_played_them(tmp_path: Path) -> None:
    roster = parse_roster({"players": PLAYERS})
    games = resolve_games(["openspiel:connect_four", "kuhn"])
    summary = run_tournament(roster, games, 1, tmp_path)
    assert summary.finished and summary.status_counts == {"complete": 4}
    matches = pd.read_parquet(tmp_path / MATCHES)
    versions = dict(zip(matches["game"], matches["engine_version"], strict=False))
    assert versions["openspiel:connect_four"] == (
        f"openspiel-adapter-{ADAPTER_VERSION}/open_spiel-{OPEN_SPIEL_VERSION}"
    )
    assert versions["kuhn"] == ENGINE_VERSION
