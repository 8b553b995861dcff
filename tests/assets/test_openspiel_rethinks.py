"""The openspiel group's released roster records the rethinks its games gave a model (issue 46,
item 6).

The roster's ``rethinks`` is the profile's move protocol's count (0 under the paper's), but an
OpenSpiel game gives a model its own protocol's rethinks (``engines.openspiel.spec.PROTOCOLS``:
3 in connect four, 1 in hold'em), so the released roster said ``rethinks 0`` beside matches
that played rethinks. A scripted model answers every move once with prose and then legally, so
it takes exactly one rethink per move.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster, with_protocol
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from assets.leaderboards import StatsConfig
from assets.openspiel import (
    RETHINKS,
    openspiel_release_tables,
    openspiel_table,
    released_roster,
    rethink_table,
)
from assets.roster import roster_table
from engines.openspiel.spec import PROTOCOLS
from quality.schema import schema_problems
from releases.contents import roster_records
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

GAMES = ["openspiel:connect_four", "openspiel:hunl"]
MENU = re.compile(r"Legal moves: (.*)")


def prose_then_legal(request: Request) -> Answer:
    """First ask of a move: prose (unparsable, a rethink); the rethink: the menu's first move
    (``raise N (...)`` read as a call or check)."""
    messages = request.body["messages"]
    if len(messages) <= 2:  # the system prompt and the turn prompt
        return completion("Let me think about the position first.")
    prompt = next(str(m["content"]) for m in messages if m["role"] == "user")
    found = MENU.search(prompt)
    assert found is not None, prompt
    first = found.group(1).split(", ")[0]
    move = "call" if first == "fold" else first
    return completion(f'{{"action": "{move}"}}')


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("rethinks")
    with ScriptedServer(prose_then_legal) as server:
        url = server.url
        roster = parse_roster(
            {
                "players": [
                    {"name": "random", "kind": "builtin", "agent": "random"},
                    {"name": "llm", "kind": "openai", "model": "m", "base_url": url},
                ],
                "providers": {f"openai@{url}": {"concurrency": 2, "max_retries": 0}},
            }
        )
        summary = run_tournament(roster, resolve_games(GAMES), 2, folder)
    assert summary.status_counts == {"complete": 8}, summary.as_dict()
    matches = pd.read_parquet(folder / MATCHES)
    return {
        "games": openspiel_table(GAMES),
        "matches": matches,
        "moves": pd.read_parquet(folder / MOVES),
        "roster": roster_table(with_protocol(roster, "paper")),  # the paper's: no rethink
    }


def test_the_released_roster_records_the_rethinks_the_games_allowed(
    played: dict[str, pd.DataFrame],
) -> None:
    roster = played["roster"]
    assert dict(zip(roster["name"], roster["rethinks"], strict=True)) == {"random": 0, "llm": 0}
    # hold'em and connect four go to two releases (one per unit); the roster of each is what
    # released_roster makes of the rethinks of its games: here of both games at once
    rethinks = rethink_table(played["games"], played["matches"], played["moves"], {"llm"})
    tables = {RETHINKS: rethinks, "roster": released_roster(roster, rethinks)}
    released = dict(zip(tables["roster"]["name"], tables["roster"]["rethinks"], strict=True))
    # connect four's protocol allows 3, hold'em's 1: the most is recorded; random keeps its 0
    assert PROTOCOLS["menu-forfeit"].rethinks == 3 and PROTOCOLS["game-arena-poker"].rethinks == 1
    assert released == {"random": 0, "llm": 3}
    assert [r["rethinks"] for r in roster_records(tables) if r["name"] == "llm"] == [3]
    assert not schema_problems("roster", tables["roster"])

    per_game = tables[RETHINKS].set_index(["game", "player"])
    assert not schema_problems(RETHINKS, tables[RETHINKS])
    moves = played["moves"]
    for game in GAMES:
        ids = set(played["matches"].loc[played["matches"]["game"] == game, "match_id"])
        llm = moves.loc[moves["match_id"].isin(ids) & (moves["player"] == "llm")]
        row = per_game.loc[(game, "llm")]
        # one rethink per move, as scripted; the same count in the match table's seat columns
        assert row["moves"] == len(llm) == row["rethinks"] > 0
        assert row["most_in_one_move"] == 1 and row["rethinks_per_move"] == 1.0
        assert row["rethinks_allowed"] == (3 if game == "openspiel:connect_four" else 1)
        bot = per_game.loc[(game, "random")]
        assert bot["rethinks"] == 0 and bot["rethinks_allowed"] == 0


def test_each_release_records_the_rethinks_of_its_own_games(
    played: dict[str, pd.DataFrame],
) -> None:
    matches, games = played["matches"], played["games"]
    for game, allowed in (("openspiel:connect_four", 3), ("openspiel:hunl", 1)):
        corpus = {game: matches.loc[matches["game"] == game].reset_index(drop=True)}
        ids = set(corpus[game]["match_id"])
        moves = played["moves"].loc[played["moves"]["match_id"].isin(ids)]
        tables = openspiel_release_tables(
            games.loc[games["game"] == game].reset_index(drop=True),
            corpus,
            played["roster"],
            moves,
            StatsConfig(bootstrap=20, subsets=5).analysis_settings(),
        )
        roster = dict(zip(tables["roster"]["name"], tables["roster"]["rethinks"], strict=True))
        assert roster == {"random": 0, "llm": allowed}


def test_a_move_past_its_protocol_is_refused_in_one_line(
    played: dict[str, pd.DataFrame],
) -> None:
    moves = played["moves"].copy()
    hunl = set(played["matches"].loc[played["matches"]["game"] == "openspiel:hunl", "match_id"])
    first = moves.index[moves["match_id"].isin(hunl) & (moves["player"] == "llm")][0]
    moves.loc[first, "rethinks"] = 2  # hold'em allows one
    with pytest.raises(ValueError, match="took 2 rethinks in one move of openspiel:hunl") as info:
        rethink_table(played["games"], played["matches"], moves, {"llm"})
    assert "\n" not in str(info.value)


def test_the_scripted_model_really_was_asked_twice_per_move(
    played: dict[str, pd.DataFrame],
) -> None:
    llm = played["moves"].loc[played["moves"]["player"] == "llm"]
    # the verdict is the first reply's; the second was read and played
    assert (llm["calls"] == 2).all() and (llm["verdict"] == "unparsable").all()
    assert llm["action"].notna().all() and not llm["fallback"].any()
    assert all(len(e) == 1 for e in llm["earlier_responses"])
