"""The OpenSpiel bridge (issue 2, item 7): our ``kuhn`` and ``leduc`` presets, exported through
``as_pyspiel_game``, are OpenSpiel's ``kuhn_poker`` and ``leduc_poker`` as far as OpenSpiel's
solvers can tell, and CFR, best response and the sequence-form LP run on GBGs whose phases are
not poker at all.

Known values are pinned with their sources; each is also measured on OpenSpiel's built-in game
in the same run, so a drift on either side shows up here.
"""

from __future__ import annotations

import functools
import random
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel
import pytest
from open_spiel.python import policy
from open_spiel.python.algorithms import (
    cfr,
    expected_game_score,
    exploitability,
    sequence_form_lp,
)

from engines.gbg import CHANCE, TERMINAL, new_deal, presets
from engines.gbg.spec import (
    BettingPhase,
    DealPhase,
    DrawPhase,
    Edge,
    FixedStake,
    GameSpec,
    GridStake,
    Metric,
    PeekPhase,
    Predicate,
    Rank,
    Risk,
    Showdown,
    SimCell,
    SimOption,
    SimultaneousPhase,
)
from engines.solve.openspiel_bridge import (
    action_vocabulary,
    as_pyspiel_game,
    max_game_length,
    short_name,
)

REPO_ROOT = Path(__file__).resolve().parents[3]

# (our preset, OpenSpiel's built-in game)
PAIRS = {"kuhn": (presets.kuhn, "kuhn_poker"), "leduc": (presets.leduc, "leduc_poker")}

# Information states per player.  Kuhn: 3 cards x 2 decision points per player; OpenSpiel
# counts 12 perfect-recall states in total (open_spiel/integration_tests/api_test.py,
# PERFECT_RECALL_NUM_STATES).  Leduc: 936 in total (same table, and
# open_spiel/python/tests/policy_test.py::test_states), 468 per player by symmetry of the deal.
INFO_STATES_PER_PLAYER = {"kuhn": (6, 6), "leduc": (468, 468)}
INFO_STATES_TOTAL = {"kuhn": 12, "leduc": 936}

# Terminal histories.  Kuhn: 6 deals x 5 betting lines.  Leduc: 30 deals x (4 folding lines in
# round one + 5 continuing lines x 4 board cards x 9 lines in round two) = 30 x 184.
TERMINAL_HISTORIES = {"kuhn": 30, "leduc": 5520}

# Exploitability (NashConv / 2) of the uniform random policy: NashConv 0.9166666666666666 for
# Kuhn and 4.747222222222222 for Leduc (open_spiel/python/algorithms/exploitability_test.py;
# the Leduc value is "verified in a number of independent code bases" there).
UNIFORM_EXPLOITABILITY = {"kuhn": 0.9166666666666666 / 2, "leduc": 4.747222222222222 / 2}

# Game value for the first player.  Kuhn: -1/18 (Kuhn 1950, "A simplified two-person poker";
# OpenSpiel's sequence_form_lp_test.py).  Leduc: -0.085606424078 (Lanctot et al. 2017, "A
# Unified Game-Theoretic Approach to Multiagent RL", Appendix E.2; sequence_form_lp_test.py).
GAME_VALUE = {"kuhn": -1 / 18, "leduc": -0.085606424078}
LP_TOLERANCE = 1e-6  # the LP solver's accuracy, as in OpenSpiel's own test (places=6)


def _game(name: str, side: str) -> Any:
    ours, theirs = PAIRS[name]
    return as_pyspiel_game(ours()) if side == "gbg" else pyspiel.load_game(theirs)


# --- full tree traversal -------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeStats:
    info_states: tuple[frozenset[str], frozenset[str]]
    terminals: int
    chance_nodes: int
    worst_chance_mass_error: float
    decision_phases: frozenset[str]


def traverse(game: Any) -> TreeStats:
    """Walk every history: collect each player's information states at its decisions, count
    terminals, and check that chance distributions are proper."""
    infos: tuple[set[str], set[str]] = (set(), set())
    phases: set[str] = set()
    counts = {"terminals": 0, "chance": 0}
    worst = 0.0

    def walk(state: Any) -> None:
        nonlocal worst
        if state.is_terminal():
            counts["terminals"] += 1
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            counts["chance"] += 1
            assert outcomes, "a chance node with no outcome"
            assert len({o for o, _ in outcomes}) == len(outcomes)
            assert all(p > 0 for _, p in outcomes)
            worst = max(worst, abs(sum(p for _, p in outcomes) - 1.0))
            for outcome, _ in outcomes:
                walk(state.child(outcome))
            return
        player = state.current_player()
        infos[player].add(state.information_state_string(player))
        if hasattr(state, "deal"):
            phases.add(state.deal.phase_id)
        for action in state.legal_actions():
            walk(state.child(action))

    walk(game.new_initial_state())
    return TreeStats(
        info_states=(frozenset(infos[0]), frozenset(infos[1])),
        terminals=counts["terminals"],
        chance_nodes=counts["chance"],
        worst_chance_mass_error=worst,
        decision_phases=frozenset(phases),
    )


@functools.cache
def tree(name: str, side: str) -> TreeStats:
    return traverse(_game(name, side))


@functools.cache
def uniform_exploitability(name: str, side: str) -> float:
    game = _game(name, side)
    return float(exploitability.exploitability(game, policy.UniformRandomPolicy(game)))


@functools.cache
def lp_value(name: str, side: str) -> tuple[float, float]:
    value0, value1, _, _ = sequence_form_lp.solve_zero_sum_game(_game(name, side))
    return float(value0), float(value1)


# --- equality with OpenSpiel's built-in games ----------------------------------------------------


@pytest.mark.parametrize("name", PAIRS)
def test_information_states_per_player_equal_openspiel(name: str) -> None:
    ours, theirs = tree(name, "gbg"), tree(name, "openspiel")
    counts = tuple(len(s) for s in ours.info_states)
    assert counts == tuple(len(s) for s in theirs.info_states)
    assert counts == INFO_STATES_PER_PLAYER[name]
    assert sum(counts) == INFO_STATES_TOTAL[name]


@pytest.mark.parametrize("name", PAIRS)
def test_terminal_histories_equal_openspiel(name: str) -> None:
    ours, theirs = tree(name, "gbg"), tree(name, "openspiel")
    assert ours.terminals == theirs.terminals == TERMINAL_HISTORIES[name]


@pytest.mark.parametrize("name", PAIRS)
def test_chance_distributions_sum_to_one(name: str) -> None:
    ours = tree(name, "gbg")
    assert ours.chance_nodes > 0
    assert ours.worst_chance_mass_error < 1e-12
    assert tree(name, "openspiel").chance_nodes == ours.chance_nodes


# leduc: over 5 s, make test only
@pytest.mark.parametrize("name", ["kuhn", pytest.param("leduc", marks=pytest.mark.slow)])
def test_uniform_policy_exploitability_equals_openspiel(name: str) -> None:
    ours, theirs = uniform_exploitability(name, "gbg"), uniform_exploitability(name, "openspiel")
    assert ours == pytest.approx(theirs, abs=1e-9)
    assert ours == pytest.approx(UNIFORM_EXPLOITABILITY[name], abs=1e-9)


@pytest.mark.parametrize("name", PAIRS)
def test_sequence_form_lp_value_equals_openspiel(name: str) -> None:
    ours, theirs = lp_value(name, "gbg"), lp_value(name, "openspiel")
    assert ours[0] == pytest.approx(theirs[0], abs=LP_TOLERANCE)
    assert ours[0] == pytest.approx(GAME_VALUE[name], abs=LP_TOLERANCE)
    assert ours[1] == pytest.approx(-GAME_VALUE[name], abs=LP_TOLERANCE)


@pytest.mark.parametrize("name", PAIRS)
def test_static_facts_match_openspiel(name: str) -> None:
    ours, theirs = _game(name, "gbg"), _game(name, "openspiel")
    assert ours.num_players() == theirs.num_players() == 2
    assert ours.max_game_length() == theirs.max_game_length()
    assert ours.max_chance_outcomes() == theirs.max_chance_outcomes()
    assert ours.min_utility() <= theirs.min_utility() < 0 < theirs.max_utility()
    assert theirs.max_utility() <= ours.max_utility()
    kind = ours.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.provides_information_state_string and kind.provides_observation_string


# --- the bridge agrees with the engine -----------------------------------------------------------


def _openspiel_player(player: int) -> int:
    if player == CHANCE:
        return int(pyspiel.PlayerId.CHANCE)
    if player == TERMINAL:
        return int(pyspiel.PlayerId.TERMINAL)
    return player


def play_lockstep(spec: GameSpec, game: Any, rng: random.Random) -> int:
    """Play one random deal on the engine and on the bridge side by side, checking that they
    agree at every step; return the number of decisions taken."""
    vocabulary = action_vocabulary(spec)
    ours = new_deal(spec, explicit_chance=True)
    theirs = game.new_initial_state()
    decisions = 0
    while not ours.is_terminal():
        assert theirs.current_player() == _openspiel_player(ours.current_player)
        if ours.is_chance_node():
            outcomes = ours.chance_outcomes()
            assert theirs.chance_outcomes() == outcomes
            assert max(o for o, _ in outcomes) < game.max_chance_outcomes()
            (outcome,) = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])
            ours.apply_chance(outcome)
            theirs.apply_action(outcome)
            continue
        legal = ours.legal_actions()
        assert sorted(vocabulary[a] for a in theirs.legal_actions()) == sorted(legal)
        for seat in (0, 1):
            assert theirs.information_state_string(seat) == ours.information_state(seat)
            assert theirs.observation_string(seat).startswith(("alice ", "bob "))
        action = rng.choice(legal)
        ours.apply(action)
        theirs.apply_action(vocabulary.index(action))
        decisions += 1
    assert theirs.is_terminal()
    returns = theirs.returns()
    assert returns == [float(r) for r in ours.returns()]
    assert sum(returns) == 0
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    return decisions


@pytest.mark.parametrize(
    ("preset", "deals"), [("kuhn", 300), ("leduc", 300), ("holdem-limit", 60), ("example4643", 300)]
)
def test_bridge_returns_equal_engine_on_random_playouts(preset: str, deals: int) -> None:
    spec = presets.PRESETS[preset]()
    game = as_pyspiel_game(spec)
    rng = random.Random(2026)
    lengths = [play_lockstep(spec, game, rng) for _ in range(deals)]
    assert max(lengths) <= game.max_game_length() == max_game_length(spec)


def test_action_vocabulary_is_canonical() -> None:
    assert action_vocabulary(presets.kuhn()) == ("bet 1", "call", "check", "fold", "raise 1")
    assert action_vocabulary(presets.leduc()) == (
        "bet 2", "bet 4", "call", "check", "fold", "raise 2", "raise 4",
    )  # fmt: skip
    example = action_vocabulary(presets.example4643())
    assert example == action_vocabulary(presets.example4643())
    assert len(set(example)) == len(example)
    assert {"press", "hold", "bluff", "peek", "pass", "keep", "swap K♠"} <= set(example)
    grid = GameSpec(
        name="grid",
        deck=presets.kuhn().deck,
        stack=12,
        ante=1,
        phases=[
            DealPhase(id="deal", count=1),
            BettingPhase(id="bet", stake=GridStake(amounts=(2, 10)), raise_cap=2),
        ],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )
    assert action_vocabulary(grid) == (
        "bet 2", "bet 10", "call", "check", "fold", "raise 2", "raise 10",
    )  # fmt: skip


def test_registration_is_idempotent_and_named_by_the_spec_hash() -> None:
    first = as_pyspiel_game(presets.kuhn())
    again = as_pyspiel_game(presets.kuhn())  # a different spec object with the same content
    assert again is first
    name = short_name(presets.kuhn())
    assert name == "gbg_" + presets.kuhn().spec_hash[:12]
    assert name in pyspiel.registered_names()
    loaded = pyspiel.load_game(name)
    assert loaded.get_type().short_name == name
    assert loaded.num_distinct_actions() == len(action_vocabulary(presets.kuhn()))


def test_process_exits_cleanly_after_registering() -> None:
    """A registered creator that the interpreter frees after shutdown aborts the process at
    exit; the bridge registers a class, as OpenSpiel's own Python games do."""
    code = textwrap.dedent(
        """
        from engines.gbg import presets
        from engines.solve.openspiel_bridge import as_pyspiel_game
        game = as_pyspiel_game(presets.kuhn())
        state = game.new_initial_state()
        state.apply_action(0)
        state.apply_action(1)
        print(state.information_state_string(0))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("alice:")


def test_observers_give_information_states_and_observations() -> None:
    game = as_pyspiel_game(presets.kuhn())
    state = game.new_initial_state()
    state.apply_action(0)  # Alice is dealt J♠
    state.apply_action(2)  # Bob is dealt K♠
    state.apply_action(action_vocabulary(presets.kuhn()).index("bet 1"))
    recall = game.make_py_observer()
    assert recall.string_from(state, 1) == state.deal.information_state(1)
    assert state.information_state_string(1) == recall.string_from(state, 1)
    explicit = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert explicit.string_from(state, 0) == state.deal.information_state(0)
    observation = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    seen_by_alice = observation.string_from(state, 0)
    assert seen_by_alice == state.observation_string(0)
    assert "hand:J♠" in seen_by_alice and "K♠" not in seen_by_alice
    assert "hand:K♠" in state.observation_string(1) and "J♠" not in state.observation_string(1)
    with pytest.raises(ValueError, match="no parameters"):
        game.make_py_observer(None, {"detail": 1})


# --- OpenSpiel's solvers on a GBG with non-poker phases -----------------------------------------


def standoff_kuhn() -> GameSpec:
    """Kuhn poker after a simultaneous standoff (pressing costs a chip; pressing against a
    hold takes a chip from the holder) and a risky optional peek for Bob (half the time it
    costs him a chip)."""
    ranks = [Rank(label=label, value=v) for label, v in (("J", 11), ("Q", 12), ("K", 13))]
    return GameSpec(
        name="kuhn-standoff-peek",
        deck={"ranks": ranks, "suits": ["♠"]},
        stack=3,
        ante=1,
        phases=[
            DealPhase(id="deal", count=1),
            SimultaneousPhase(
                id="standoff",
                options=(SimOption(name="press", pot_chips=1), SimOption(name="hold")),
                matrix=(SimCell(alice="press", bob="hold", transfer=1),),
            ),
            PeekPhase(id="glance", who="bob", optional=True, risk=Risk(percent=50, chips=1)),
            BettingPhase(id="bet", stake=FixedStake(size=1), raise_cap=1),
        ],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def test_cfr_exploitability_and_lp_run_on_a_gbg_with_non_poker_phases() -> None:
    spec = standoff_kuhn()
    game = as_pyspiel_game(spec)
    stats = traverse(game)
    assert stats.decision_phases == {"standoff", "glance", "bet"}
    assert stats.worst_chance_mass_error < 1e-12
    assert game.max_game_length() == 2 + 1 + 3

    uniform = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    history = []
    for _ in range(4):
        for _ in range(5):
            solver.evaluate_and_update_policy()
        history.append(exploitability.exploitability(game, solver.average_policy()))
    assert history == sorted(history, reverse=True)
    assert history[-1] < uniform / 4
    average = solver.average_policy()
    assert len(average.state_lookup) == sum(len(s) for s in stats.info_states)

    value0, value1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert value0 == pytest.approx(-value1, abs=LP_TOLERANCE)
    # In a zero-sum game a profile's value is within its NashConv of the game value.
    achieved = expected_game_score.policy_value(game.new_initial_state(), [average, average])
    nash_conv = exploitability.nash_conv(game, average)
    assert abs(achieved[0] - value0) <= nash_conv + LP_TOLERANCE


# --- engine bugs found while bridging (regression tests) ----------------------------------------


def hidden_branch_spec() -> GameSpec:
    """Bob's next phase depends on Alice's hidden card: a peek if she holds a King, else a draw."""
    ranks = [Rank(label=label, value=v) for label, v in (("J", 11), ("Q", 12), ("K", 13))]
    alice_king = Predicate(kind="holds_rank", who="alice", rank="K")
    return GameSpec(
        name="hidden-branch",
        deck={"ranks": ranks, "suits": ["♠", "♥"]},
        stack=3,
        ante=1,
        phases=[
            DealPhase(
                id="deal", count=1, next=(Edge(to="glance", when=alice_king), Edge(to="extra"))
            ),
            PeekPhase(id="glance", who="bob", optional=True, next=(Edge(to="bet"),)),
            DrawPhase(id="extra", who="bob", optional=True),
            BettingPhase(id="bet", stake=FixedStake(size=1), raise_cap=1),
        ],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def test_information_state_determines_the_menu_after_a_hidden_branch() -> None:
    """OpenSpiel requires every history of an information state to offer the same actions
    (and the phase is public: ``observation()`` shows it to both seats).  Here Bob holds J♠
    and Alice K♠ (Bob is offered a peek) or Q♠ (Bob is offered a draw).  Found while
    bridging: Bob's key was ``bob:[('card', 1, 0)]`` in both, so CFR and best response broke
    on this game; the engine now logs each phase entry as a public event."""
    spec = hidden_branch_spec()
    menus: dict[str, set[tuple[str, ...]]] = {}
    for alice_card in (4, 2):  # K♠, Q♠
        deal = new_deal(spec, explicit_chance=True)
        deal.apply_chance(alice_card)
        deal.apply_chance(0)  # Bob: J♠
        assert deal.current_player == 1
        menus.setdefault(deal.information_state(1), set()).add(deal.legal_actions())
    assert all(len(found) == 1 for found in menus.values()), menus
    game = as_pyspiel_game(spec)
    solver = cfr.CFRSolver(game)  # raised "illegal action 'draw'" before the fix
    for _ in range(5):
        solver.evaluate_and_update_policy()
    uniform = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    assert 0 <= exploitability.exploitability(game, solver.average_policy()) < uniform


def exhausted_deck_peek_spec() -> GameSpec:
    """Three cards each from a six-card deck, then a peek at the (empty) deck's top card."""
    ranks = [Rank(label=label, value=v) for label, v in (("J", 11), ("Q", 12), ("K", 13))]
    return GameSpec(
        name="exhausted-deck-peek",
        deck={"ranks": ranks, "suits": ["♠", "♥"]},
        stack=3,
        ante=1,
        phases=[
            DealPhase(id="deal", count=3),
            PeekPhase(id="glance", who="alice", target="deck_top", optional=False),
            BettingPhase(id="bet", stake=FixedStake(size=1), raise_cap=1),
        ],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def test_every_accepted_spec_has_outcomes_at_every_chance_node() -> None:
    """Found while bridging: the structural checks ignored deck-top peeks, so this spec was
    accepted and the peek's chance node had no outcome (a division by zero in
    ``chance_outcomes``).  Either rejecting the spec or traversing it cleanly is correct."""
    try:
        spec = exhausted_deck_peek_spec()
    except ValueError:
        return  # rejected by the structural checks: the fixed behaviour
    stats = traverse(as_pyspiel_game(spec))
    assert stats.worst_chance_mass_error < 1e-12
