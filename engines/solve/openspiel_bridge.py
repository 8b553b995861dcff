"""Any GBG as an OpenSpiel game, so that OpenSpiel's solvers run on it unchanged.

Why this module exists: the benchmark's ground truth on small games (game values,
exploitability of a strategy, equilibria for reference bots) comes from OpenSpiel's CFR, best
response and sequence-form LP (Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement
Learning in Games"; ``open_spiel/python/algorithms/{cfr,exploitability,sequence_form_lp}.py``).
Those algorithms take a ``pyspiel.Game``.  ``as_pyspiel_game(spec)`` registers one for a
``GameSpec`` following OpenSpiel's Python-game conventions (``open_spiel/python/games/
kuhn_poker.py``): a ``pyspiel.Game`` subclass holding the static facts, a ``pyspiel.State``
subclass that wraps our engine's ``State`` in explicit-chance mode, and ``make_py_observer``
giving information-state and observation strings.

Mapping of our engine onto OpenSpiel's:

- Actions.  Our actions are strings ("check", "bet 2", "bid 3", "swap K♠", ...); OpenSpiel's
  are integers.  ``action_vocabulary(spec)`` enumerates, from the spec alone, every string any
  phase can offer, in a canonical order; an action's id is its index there.
- Chance.  Chance outcomes are our engine's outcomes unchanged: card ids for cards, indices for
  random picks, 0/1 for coins; hence ``max_chance_outcomes`` is the deck size (at least 2).
- Players.  Seat 0 is Alice, seat 1 Bob; our ``CHANCE`` and ``TERMINAL`` become
  ``pyspiel.PlayerId.CHANCE`` and ``pyspiel.PlayerId.TERMINAL``.
- Information.  The perfect-recall information state is our ``State.information_state``,
  which reads only the events the seat has seen (so it cannot leak a hidden card).
- Bounds.  Utilities lie in ``[-stack, +stack]`` (chips are conserved and no stack goes below
  zero); ``max_game_length`` bounds the decisions along the longest path of the phase graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

import pyspiel

from engines.gbg import CHANCE, TERMINAL, GameSpec, State, new_deal
from engines.gbg.rules import game_rules
from engines.gbg.spec import (
    SEATS,
    AuctionPhase,
    BettingPhase,
    DrawPhase,
    FixedStake,
    GridStake,
    PeekPhase,
    Phase,
    SideBetPhase,
    SimultaneousPhase,
    SwapPhase,
)
from engines.gbg.structure import successors

NUM_PLAYERS: Final = 2
NAME_PREFIX: Final = "gbg_"
HASH_CHARS: Final = 12

# --- static facts computed from the spec ------------------------------------------------------


def _seat_count(who: str) -> int:
    return 2 if who == "both" else 1


def stake_sizes(spec: GameSpec, phase: BettingPhase) -> tuple[int, ...]:
    """Every bet or raise size ``phase`` can offer (ascending).

    A size is offered only when both players can pay it, and the poorer player never has more
    than ``spec.stack`` chips behind (chips are conserved), so larger sizes never appear.  Pot
    stakes are sized from the pot, which holds at most ``2 * spec.stack``; the rounding is the
    engine's (``engines.gbg.phases.BettingHandler.sizes``).
    """
    stake = phase.stake
    if isinstance(stake, FixedStake):
        sizes: set[int] = {stake.size}
    elif isinstance(stake, GridStake):
        sizes = set(stake.amounts)
    else:
        sizes = {
            max(1, (pot * percent + 50) // 100)
            for pot in range(2 * spec.stack + 1)
            for percent in stake.percents
        }
    return tuple(sorted(size for size in sizes if size <= spec.stack))


def phase_actions(spec: GameSpec, phase: Phase) -> frozenset[str]:
    """The action strings ``phase`` can offer to the player to move (a superset is allowed)."""
    if isinstance(phase, BettingPhase):
        sized = {f"{verb} {size}" for size in stake_sizes(spec, phase) for verb in ("bet", "raise")}
        return frozenset({"fold", "check", "call", *sized})
    if isinstance(phase, SimultaneousPhase):
        return frozenset(option.name for option in phase.options)
    if isinstance(phase, AuctionPhase):
        return frozenset(f"bid {bid}" for bid in phase.bids)
    if isinstance(phase, PeekPhase):
        return frozenset({"peek", "pass"}) if phase.optional else frozenset()
    if isinstance(phase, DrawPhase):
        return frozenset({"draw", "stand"}) if phase.optional else frozenset()
    if isinstance(phase, SwapPhase):
        labels = game_rules(spec).label_of
        return frozenset({"keep", *(f"swap {label}" for label in labels)})
    if isinstance(phase, SideBetPhase):
        return frozenset({"side_bet", "pass"})
    return frozenset()  # deal, reveal and position phases take no decisions


def _canonical_key(action: str) -> tuple[str, int, int, str]:
    """Sort by verb, then numeric amounts in numeric order, then labels."""
    verb, _, argument = action.partition(" ")
    if not argument:
        return (verb, 0, 0, "")
    if argument.isdigit():
        return (verb, 1, int(argument), "")
    return (verb, 2, 0, argument)


def action_vocabulary(spec: GameSpec) -> tuple[str, ...]:
    """Every action string any phase of ``spec`` can offer, sorted canonically.

    The position of an action in this tuple is its OpenSpiel action id; it depends on the spec
    alone, so ids are stable across processes.
    """
    actions: set[str] = set()
    for phase in spec.phases:
        actions |= phase_actions(spec, phase)
    return tuple(sorted(actions, key=_canonical_key))


def phase_decisions(phase: Phase) -> int:
    """An upper bound on the decisions taken inside one visit of ``phase``.

    A betting round is longest as check, ``raise_cap`` bets and raises, call; a secret choice
    (simultaneous round, auction) and a side-bet round take one decision per seat; peeks and
    draws take one per seat when optional; a swap one per seat offered it.
    """
    if isinstance(phase, BettingPhase):
        return phase.raise_cap + 2
    if isinstance(phase, SimultaneousPhase | AuctionPhase | SideBetPhase):
        return NUM_PLAYERS
    if isinstance(phase, PeekPhase | DrawPhase):
        return _seat_count(phase.who) if phase.optional else 0
    if isinstance(phase, SwapPhase):
        return _seat_count(phase.who)
    return 0


def max_game_length(spec: GameSpec) -> int:
    """The most decisions along any path of the phase graph (chance outcomes not counted,
    as OpenSpiel's ``MaxGameLength`` defines it).  Edges only go forward, so this is a
    longest-path computation on a DAG."""
    index = {phase.id: i for i, phase in enumerate(spec.phases)}
    memo: dict[int, int] = {}

    def longest(i: int) -> int:
        if i not in memo:
            rest = [longest(index[t]) for t in successors(spec, i) if t in index]
            memo[i] = phase_decisions(spec.phases[i]) + max(rest, default=0)
        return memo[i]

    for i in reversed(range(len(spec.phases))):  # deepest first, so recursion stays shallow
        longest(i)
    return longest(0)


def short_name(spec: GameSpec) -> str:
    """The registered OpenSpiel name of ``spec``: ``gbg_`` and 12 hex digits of its hash."""
    return NAME_PREFIX + spec.spec_hash[:HASH_CHARS]


class _Tables:
    """Immutable per-spec tables shared by a game and all its states.

    Python-game states are cloned by deep-copying their attributes (OpenSpiel's
    ``PyState::Clone``); ``__deepcopy__`` returns ``self`` so the tables are shared, not copied.
    """

    __slots__ = ("index", "labels", "spec", "vocabulary")

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.vocabulary = action_vocabulary(spec)
        self.index = {action: i for i, action in enumerate(self.vocabulary)}
        self.labels = tuple(game_rules(spec).label_of)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Tables:
        return self


def game_type(spec: GameSpec) -> Any:
    """The ``pyspiel.GameType`` of a GBG: sequential, explicit chance, imperfect information,
    zero-sum, rewards at the end; information-state and observation strings, no tensors."""
    return pyspiel.GameType(
        short_name=short_name(spec),
        long_name=f"GBG {spec.name} ({spec.spec_hash[:HASH_CHARS]})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=NUM_PLAYERS,
        min_num_players=NUM_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )


def game_info(spec: GameSpec) -> Any:
    """The ``pyspiel.GameInfo`` of a GBG (see the module docstring for each bound)."""
    return pyspiel.GameInfo(
        num_distinct_actions=len(action_vocabulary(spec)),
        max_chance_outcomes=max(spec.deck.size, 2),
        num_players=NUM_PLAYERS,
        min_utility=-float(spec.stack),
        max_utility=float(spec.stack),
        utility_sum=0.0,
        max_game_length=max_game_length(spec),
    )


# --- the game, its states and observers ---------------------------------------------------------


class GbgGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """A GBG as a ``pyspiel.Game``: static facts only; states come from ``new_initial_state``."""

    def __init__(self, spec: GameSpec, params: Mapping[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"GBG games take no parameters; got {dict(params)}")
        super().__init__(game_type(spec), game_info(spec), {})
        self.tables = _Tables(spec)

    @property
    def spec(self) -> GameSpec:
        return self.tables.spec

    def new_initial_state(self) -> GbgState:
        """A new deal, stopped at its first chance node."""
        return GbgState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> GbgObserver:
        """An observer giving the perfect-recall information state when
        ``iig_obs_type.perfect_recall`` (or no type is given), else the current observation.

        Only the observation types OpenSpiel's information states and default observations
        use (public information, the observing player's private information) are supported.
        """
        if isinstance(iig_obs_type, Mapping):
            # OpenSpiel calls make_py_observer(params) when it asks for no particular type.
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"GBG observers take no parameters; got {dict(params)}")
        if iig_obs_type is None:
            return GbgObserver(perfect_recall=True)
        if (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "GBG observers support public information plus the observer's private "
                "information only (OpenSpiel's information state and default observation)"
            )
        return GbgObserver(perfect_recall=bool(iig_obs_type.perfect_recall))


class GbgState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """One deal of a GBG, seen through OpenSpiel's ``State`` interface.

    ``deal`` is our engine's ``State`` in explicit-chance mode; every call is translated:
    action ids to strings through the vocabulary, player ids to OpenSpiel's, returns to floats.
    """

    def __init__(self, game: GbgGame) -> None:
        super().__init__(game)
        self.tables: _Tables = game.tables
        self.deal: State = new_deal(game.tables.spec, explicit_chance=True)

    def current_player(self) -> int:
        player = self.deal.current_player
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return player

    def _legal_actions(self, player: int) -> list[int]:
        """Ids of the legal actions of ``player`` (the player to move), ascending."""
        assert player == self.deal.current_player >= 0
        index = self.tables.index
        return sorted(index[action] for action in self.deal.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The engine's (outcome, probability) pairs at a chance node."""
        return self.deal.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.deal.current_player == CHANCE:
            self.deal.apply_chance(action)
        else:
            self.deal.apply(self.tables.vocabulary[action])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self.tables.vocabulary[action]

    def is_terminal(self) -> bool:
        return self.deal.is_terminal()

    def returns(self) -> list[float]:
        """Each seat's chip change over the deal, as floats (zero before the end)."""
        return [float(r) for r in self.deal.returns()]

    def __str__(self) -> str:
        deal, labels = self.deal, self.tables.labels
        hands = " | ".join(" ".join(labels[c] for c in hand) or "-" for hand in deal.hands)
        board = " ".join(labels[c] for c in deal.board) or "-"
        moves = ", ".join(f"{SEATS[m.seat]} {m.action}" for m in deal.history) or "-"
        return (
            f"{deal.spec.name} phase {deal.phase_id}; hands {hands}; board {board}; "
            f"stacks {deal.stacks[0]} {deal.stacks[1]}; pot {deal.pot()}; moves {moves}"
        )


def observation_string(deal: State, seat: int, labels: tuple[str, ...]) -> str:
    """What ``seat`` sees now, without recall: phase, who moves, own hand, board, other cards
    it has been shown, stacks, pot and the positions it knows."""
    own = sorted(deal.hands[seat])
    shown = sorted(deal.known_cards(seat) - set(own) - set(deal.board))
    positions = ",".join(f"{k}={v}" for k, v in sorted(deal.known_positions(seat).items()))
    return (
        f"{SEATS[seat]} phase:{deal.phase_id} to_move:{deal.current_player} "
        f"hand:{' '.join(labels[c] for c in own)} board:{' '.join(labels[c] for c in deal.board)} "
        f"shown:{' '.join(labels[c] for c in shown)} stacks:{deal.stacks[0]},{deal.stacks[1]} "
        f"pot:{deal.pot()} positions:{positions}"
    )


class GbgObserver:
    """OpenSpiel's ``PyObserver`` interface (``open_spiel/python/observation.py``), strings only.

    ``tensor`` is None, which tells OpenSpiel this observer writes no tensor.
    """

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor: Any = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: GbgState, player: int) -> None:
        """No tensor to update."""

    def string_from(self, state: GbgState, player: int) -> str:
        if self.perfect_recall:
            return state.deal.information_state(player)
        return observation_string(state.deal, player, state.tables.labels)


# --- registration --------------------------------------------------------------------------------

_REGISTERED: dict[str, GameSpec] = {}
_GAMES: dict[str, Any] = {}


def _registered_class(spec: GameSpec) -> type[GbgGame]:
    """A subclass of ``GbgGame`` bound to ``spec``, whose constructor takes only ``params``.

    OpenSpiel's registry calls the registered creator with the game parameters and keeps it
    until the process ends.  We register a class, as OpenSpiel's own Python games do
    (``kuhn_poker.py`` registers ``KuhnPokerGame``): a plain closure is freed by the registry's
    C++ destructor after the interpreter has shut down, which aborts the process at exit.
    """

    def init(self: GbgGame, params: Mapping[str, Any] | None = None) -> None:
        GbgGame.__init__(self, spec, params)

    name = f"GbgGame_{spec.spec_hash[:HASH_CHARS]}"
    return cast(type[GbgGame], type(name, (GbgGame,), {"__init__": init}))


def as_pyspiel_game(spec: GameSpec) -> Any:
    """Register ``spec`` with OpenSpiel (once per spec hash) and return the loaded game.

    Steps: derive the short name from the spec hash; refuse a different spec whose hash shares
    the 12-digit prefix; unless OpenSpiel already knows the name, register a ``GbgGame``
    subclass bound to the spec; load the game through ``pyspiel.load_game`` (so the registry
    is exercised) and cache it, so that every call with this spec returns the same game.
    """
    name = short_name(spec)
    known = _REGISTERED.get(name)
    if known is not None and known.spec_hash != spec.spec_hash:
        raise ValueError(
            f"spec {spec.name!r} and spec {known.name!r} share the OpenSpiel name {name}; "
            "rename one of them (any change of content changes the hash)"
        )
    if known is None:
        if name not in pyspiel.registered_names():
            pyspiel.register_game(game_type(spec), _registered_class(spec))
        _REGISTERED[name] = spec
    if name not in _GAMES:
        _GAMES[name] = pyspiel.load_game(name)
    return _GAMES[name]
