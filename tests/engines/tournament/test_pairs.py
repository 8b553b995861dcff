"""Complete pairs and the corpus checks, on a real corpus and on planted defects."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES
from arena.tournament.runner import run_tournament
from engines.stats.runs import run_table
from engines.tournament.corpus_checks import (
    fallback_bound,
    fallback_rates,
    paired_runs,
    spec_hashes,
    unique_match_ids,
    zero_sum,
)
from engines.tournament.pairs import complete_pairs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    roster = parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                {"name": "heuristic", "kind": "builtin", "agent": "heuristic"},
                {"name": "search", "kind": "builtin", "agent": "search", "params": {"depth": 1}},
            ]
        }
    )
    out = tmp_path_factory.mktemp("corpus")
    run_tournament(roster, resolve_games(["kuhn", "4"]), 4, out)
    return pd.read_parquet(out / MATCHES)


def test_a_clean_corpus_passes_every_check(corpus: pd.DataFrame) -> None:
    kept, dropped = complete_pairs(corpus)
    assert len(kept) == len(corpus) == 3 * 2 * 4 * 2 and dropped == {}
    assert zero_sum(corpus).problems == ()
    hashes = dict(zip(corpus["game"], corpus["spec_hash"], strict=True))
    assert spec_hashes(corpus, hashes).problems == ()
    assert unique_match_ids(corpus).problems == ()
    assert paired_runs(kept).problems == ()
    assert fallback_bound(corpus, 0.0).problems == ()
    rates = fallback_rates(corpus).set_index("model")
    assert rates.loc["random", "moves"] == (
        corpus.loc[corpus["alice"] == "random", "moves_alice"].sum()
        + corpus.loc[corpus["bob"] == "random", "moves_bob"].sum()
    )


def test_complete_pairs_feed_the_statistics(corpus: pd.DataFrame) -> None:
    kept, _ = complete_pairs(corpus)
    table = run_table(kept)
    assert table.models == ("heuristic", "random", "search")
    assert table.n_runs == 3 * 2 * 4
    assert table.n_games == 2


def test_failed_deals_and_their_partners_are_dropped_with_reasons(corpus: pd.DataFrame) -> None:
    broken = corpus.copy()
    runs = broken["run_id"].drop_duplicates().tolist()
    broken.loc[broken["match_id"] == f"{runs[0]}.0", "status"] = "timeout"
    broken.loc[broken["match_id"] == f"{runs[1]}.1", "status"] = "error"
    broken.loc[broken["run_id"] == runs[2], "status"] = "error"
    broken = broken[broken["match_id"] != f"{runs[3]}.1"]
    kept, dropped = complete_pairs(broken)
    assert dropped == {
        "timeout": 1,
        "error": 3,
        "partner not complete": 2,
        "partner missing": 1,
    }
    assert len(kept) == len(corpus) - 8
    assert not set(kept["run_id"]) & set(runs[:4])
    assert paired_runs(kept).problems == ()


def test_checks_catch_planted_defects(corpus: pd.DataFrame) -> None:
    bad = corpus.copy()
    first = bad.index[0]
    bad.loc[first, "bob_chip_delta"] = bad.loc[first, "bob_chip_delta"] + 1
    assert len(zero_sum(bad).problems) == 1
    bad = corpus.copy()
    bad.loc[bad.index[1], "margin_alice"] = 99
    assert "margin_alice 99" in zero_sum(bad).problems[0]

    hashes = dict(zip(corpus["game"], corpus["spec_hash"], strict=True))
    bad = corpus.copy()
    bad.loc[bad.index[:3], "spec_hash"] = "0" * 64
    assert "3 matches have a spec hash" in spec_hashes(bad, hashes).problems[0]
    assert "not a benchmark game" in spec_hashes(corpus, {"kuhn": hashes["kuhn"]}).problems[0]

    doubled = pd.concat([corpus, corpus.iloc[:2]])
    assert len(unique_match_ids(doubled).problems) == 2

    kept, _ = complete_pairs(corpus)
    unswapped = kept.copy()
    second = unswapped.index[1]
    unswapped.loc[second, ["alice", "bob"]] = unswapped.loc[second, ["bob", "alice"]].to_numpy()
    assert "do not swap the seats" in paired_runs(unswapped).problems[0]
    assert "has 1 deal(s), not 2" in paired_runs(kept.iloc[1:]).problems[0]

    falling = corpus.copy()
    falling.loc[falling["alice"] == "random", "fallbacks_alice"] = 1
    problems = fallback_bound(falling, 0.0033).problems
    assert len(problems) == 1 and problems[0].startswith("random: fallback on")


def test_an_error_match_has_no_margin(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "match_id": ["r.0", "r.1"],
            "status": ["complete", "error"],
            "alice_chip_delta": [1, None],
            "bob_chip_delta": [-1, None],
            "margin_alice": [2, None],
        }
    )
    assert zero_sum(frame).problems == ()  # only complete matches are checked
