"""The procedural generator of GBGs (paper, Section 3 and Appendix A).

``generate(seed, config)`` draws a game from an integer seed and a ``GenerationConfig``; the
pair fully determines it.  Steps, in the paper's order:

1. the phase graph: how many phases and of which kinds (at least one betting round), in order;
2. inside it: ranks, suits and hand sizes; stacks and the ante;
3. each phase's parameters: betting stakes, raise caps and who acts first; auction items, bid
   grids and pricing; simultaneous options and their effects; observation triggers, costs and
   risks; position criteria and perks; draws, swaps, board reveals and side bets;
4. the showdown metric and its bonus rules;
5. branch predicates on some edges (each skips ahead to a later phase or to the showdown);
6. structural checks and repairs: each repair that fires is recorded on the game
   (``spec.generation["repairs"]``), and the repaired spec must pass every structural check.

Determinism: all draws come from ``random.Random`` seeded by the text "<seed>:<config hash>"
(seeded through SHA-512, identical in every process and on every machine); nothing depends on
``hash()``, dict or set order.  Complexity is a dial: ``GenerationConfig.complexity`` relaxes
every cap together.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engines.gbg.inertness import position_readers
from engines.gbg.spec import (
    Actor,
    AuctionItem,
    AuctionPhase,
    BettingPhase,
    DealPhase,
    Deck,
    DrawPhase,
    Edge,
    FixedStake,
    GameSpec,
    GridStake,
    Metric,
    PeekPhase,
    Perk,
    PositionPhase,
    PotStake,
    Predicate,
    Rank,
    RevealPhase,
    Risk,
    ScoreRule,
    Showdown,
    SideBetPhase,
    SimCell,
    SimOption,
    SimultaneousPhase,
    SwapPhase,
)
from engines.gbg.structure import cards_needed, structural_errors

GENERATOR_VERSION = 1

RANK_POOL = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_POOL = ("♠", "♥", "♦", "♣")
OPTION_POOL = ("press", "hold", "bluff", "charge", "guard", "feint", "wait")
POSITION_POOL = ("marker", "leader", "dealer", "sheriff", "scout", "crown")
OPTIONAL_KINDS = (
    "auction",
    "simultaneous",
    "peek",
    "draw",
    "swap",
    "position",
    "side_bet",
    "reveal",
)


def _declared_max(model: type[BaseModel], field: str) -> int:
    """The largest value ``model.field`` accepts (its ``le`` constraint)."""
    for constraint in model.model_fields[field].metadata:
        limit = getattr(constraint, "le", None)
        if limit is not None:
            return int(limit)
    raise ValueError(f"{model.__name__}.{field} declares no maximum")


# The caps whose scaled value a spec bounds: the complexity dial saturates at these.
SPEC_LIMITS = {
    "max_raise_cap": _declared_max(BettingPhase, "raise_cap"),
    "max_hand": _declared_max(DealPhase, "count"),
}


# Fields added after version 1 of the configuration, with the values that keep a configuration
# that does not set them identical (same canonical JSON, same hash, same games) to before.
LATER_FIELDS: dict[str, Any] = {
    "label": "default",
    "revision": 0,
    "min_phases": 2,
    "position_roles": False,
    "reject_inert": False,
    "min_stack": 6,
    "ante_divisor": 5,
    "branch_count": "rate",
    "min_branches": 0,
    "max_conditions_per_phase": 1,
    "end_with_betting": False,
    "max_per_kind": 2,
    "phase_ceilings": 0,
    "kind_attempts": 50,
    "max_skip": 0,
}


class GenerationConfig(BaseModel):
    """Caps and feature rates of the generator.  Versioned and hashed; stored with every game.

    ``complexity`` (1.0 = the paper's setting) scales every cap together: a complexity of 2
    allows twice the phases, ranks, betting rounds, raises and so on.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = GENERATOR_VERSION
    complexity: float = Field(default=1.0, ge=0.5, le=4.0)
    min_ranks: int = Field(default=3, ge=2)
    max_ranks: int = Field(default=6, ge=2, le=13)
    max_suits: int = Field(default=3, ge=1, le=4)
    max_hand: int = Field(default=3, ge=1, le=5)
    max_phases: int = Field(default=7, ge=1, le=40)
    max_betting_rounds: int = Field(default=3, ge=1, le=6)
    max_raise_cap: int = Field(default=3, ge=1, le=6)
    max_stack: int = Field(default=20, ge=4, le=1000)
    max_auctions: int = Field(default=1, ge=0)
    max_simultaneous: int = Field(default=1, ge=0)
    max_branches: int = Field(default=2, ge=0)
    max_side_bets: int = Field(default=1, ge=0)
    feature_rates: dict[str, float] = Field(
        default_factory=lambda: {
            "auction": 0.35,
            "simultaneous": 0.4,
            "peek": 0.5,
            "draw": 0.4,
            "swap": 0.3,
            "position": 0.45,
            "side_bet": 0.25,
            "reveal": 0.45,
        }
    )
    branch_rate: float = Field(default=0.45, ge=0.0, le=1.0)
    # Added with the paper's configuration; at these defaults they leave the canonical JSON
    # (and so the hash and every game) of a configuration exactly as before they existed.
    label: str = Field(default="default", min_length=1, max_length=40)
    revision: int = Field(default=0, ge=0)
    min_phases: int = Field(default=2, ge=2, le=20)
    position_roles: bool = False
    reject_inert: bool = False
    # Added with revision 2 of the paper's configuration (issue 40), under the same rule.
    # The stack is drawn from min_stack..max_stack and the ante from 1..stack // ante_divisor.
    min_stack: int = Field(default=6, ge=4, le=1000)
    ante_divisor: int = Field(default=5, ge=2, le=20)
    # How branch conditions are placed: ``rate`` (each phase, in order, gets one with
    # probability branch_rate until max_branches are placed; the default's way) or
    # ``per_phase`` (see ``_branches_per_phase``: up to max_conditions_per_phase on a phase, at
    # least min_branches in a game, each skipping at most max_skip phases ahead).
    branch_count: Literal["rate", "per_phase"] = "rate"
    min_branches: int = Field(default=0, ge=0)
    max_conditions_per_phase: int = Field(default=1, ge=1, le=4)
    # The phase graph ends with a betting round (the last betting round drawn is moved to the
    # end), so that what a peek, a position or an auction gives can still be acted on.
    end_with_betting: bool = False
    # How many phases of each optional kind without a cap of its own (peek, draw, swap,
    # position, reveal) a game may have.
    max_per_kind: int = Field(default=2, ge=1, le=6)
    # How the number of phases is drawn: with no ceilings, uniformly over
    # min_phases..max_phases; with n ceilings, a ceiling is drawn uniformly over that range, the
    # next uniformly from min_phases to it, n times, and the number uniformly from min_phases
    # to the last ceiling (every count up to the cap occurs, the smaller ones more often).
    phase_ceilings: int = Field(default=0, ge=0, le=4)
    # How far a ``per_phase`` branch may skip: to a phase drawn uniformly from the one after
    # the next to max_skip phases ahead (or the showdown, when it is that near); 0: as far as
    # the showdown.
    max_skip: int = Field(default=0, ge=0, le=40)
    # Draws of an optional kind (each kept with its feature rate, within its limit) before the
    # phase graph is left with fewer phases than drawn.
    kind_attempts: int = Field(default=50, ge=1, le=1000)

    def canonical_json(self) -> str:
        data = self.model_dump(mode="json")
        for name, default in LATER_FIELDS.items():
            if data[name] == default:
                del data[name]
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @property
    def config_hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def cap(self, name: str) -> int:
        """The cap ``name`` relaxed by the complexity dial: at least 1, and at most what a spec
        may declare (a raise cap above 6 or a deal of more than 7 cards is not a valid game, so
        a high dial saturates there instead of producing invalid specs)."""
        value: int = getattr(self, name)
        scaled = max(1, round(value * self.complexity))
        limit = SPEC_LIMITS.get(name)
        return scaled if limit is None else min(scaled, limit)


# The paper's configuration (Section 3; issues 17 and 40), revision 2: every count drawn across
# its range, the caps being caps and not targets.  Phases: a ceiling drawn uniformly from 2 to
# 30, then the number uniformly up to it (the deal comes on top: 3 to 31 phases, the smaller
# more often).  Branch conditions: each phase that can skip ahead gets one with probability
# 0.52, and a second with the same probability, at least 1 and at most 12 in a game, each
# skipping to one of the next 10 phases or the showdown.  Decks of 3 to 5 ranks in 1 or 2
# suits (more when a repair adds suits), hands of 1 to 3 cards, stacks of 6 to 20 chips,
# antes up to a third of the stack; the last phase is a betting round, every position has a
# role, and inert phases are rejected.  Over seeds 0..12,350 the paper's five criteria accept
# 17.3% (the paper: 2,000 of 12,351, 16.2%), 16.9% with inert phases rejected too; games
# shaped like the paper's seed 4643 occur, and the paper profile's benchmark puts our
# example4643 at its 74th percentile on state space and 86th on temporal contingency (the
# paper: 82nd and 88th): benchmarks/generator_distribution.py and
# benchmarks/example4643_percentiles.py, docs/NOTES.md.  Revision 1 (issue 17) drew 10 to 13
# phases and exactly 8 branch conditions.  A change of any number here is a new revision,
# and the hash tells every revision apart.
PAPER_CONFIG = GenerationConfig(
    label="paper",
    revision=2,
    min_ranks=3,
    max_ranks=5,
    max_suits=2,
    max_hand=3,
    min_phases=2,
    max_phases=30,
    phase_ceilings=1,
    max_per_kind=5,
    kind_attempts=150,
    max_betting_rounds=6,
    max_raise_cap=6,
    min_stack=6,
    max_stack=20,
    ante_divisor=3,
    max_auctions=1,
    max_simultaneous=1,
    max_branches=12,
    min_branches=1,
    max_conditions_per_phase=2,
    branch_count="per_phase",
    max_side_bets=1,
    feature_rates={
        "auction": 0.5,
        "simultaneous": 0.6,
        "peek": 0.7,
        "draw": 0.5,
        "swap": 0.4,
        "position": 0.6,
        "side_bet": 0.4,
        "reveal": 0.5,
    },
    branch_rate=0.52,
    max_skip=10,
    end_with_betting=True,
    position_roles=True,
    reject_inert=True,
)

CONFIGS: dict[str, GenerationConfig] = {"default": GenerationConfig(), "paper": PAPER_CONFIG}


def named_config(name: str) -> GenerationConfig:
    """The generation configuration called ``name`` (``default`` or ``paper``)."""
    try:
        return CONFIGS[name]
    except KeyError:
        raise ValueError(
            f"unknown generation configuration {name!r}; choose one of: {', '.join(CONFIGS)}"
        ) from None


class _Draw:
    """The generator's draws, with the game under construction."""

    def __init__(self, seed: int, config: GenerationConfig) -> None:
        self.rng = random.Random(f"{seed}:{config.config_hash}")
        self.config = config
        self.repairs: list[str] = []

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: list[Any] | tuple[Any, ...]) -> Any:
        return options[self.rng.randrange(len(options))]

    def between(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, max(lo, hi))


def _phase_kinds(d: _Draw) -> list[str]:
    """Step 1: the phase graph's kinds, in order (the deal comes first, always)."""
    c = d.config
    ceiling = c.cap("max_phases")
    for _ in range(c.phase_ceilings):
        ceiling = d.between(c.min_phases, ceiling)
    total = d.between(c.min_phases, ceiling)
    bets = d.between(1, min(c.cap("max_betting_rounds"), total))
    limits = {
        "auction": c.cap("max_auctions") if c.max_auctions else 0,
        "simultaneous": c.cap("max_simultaneous") if c.max_simultaneous else 0,
        "side_bet": c.cap("max_side_bets") if c.max_side_bets else 0,
    }
    kinds = ["betting"] * bets
    counts: dict[str, int] = {}
    attempts = 0
    while len(kinds) < total and attempts < c.kind_attempts:
        attempts += 1
        kind = d.pick(OPTIONAL_KINDS)
        if not d.chance(c.feature_rates.get(kind, 0.0)):
            continue
        if counts.get(kind, 0) >= limits.get(kind, c.max_per_kind):
            continue
        counts[kind] = counts.get(kind, 0) + 1
        kinds.insert(d.rng.randrange(len(kinds) + 1), kind)
    if c.end_with_betting:
        last = len(kinds) - 1 - kinds[::-1].index("betting")
        kinds.append(kinds.pop(last))
    return kinds


def _deck(d: _Draw) -> Deck:
    c = d.config
    n_ranks = d.between(c.min_ranks, min(len(RANK_POOL), c.cap("max_ranks")))
    start = d.between(0, len(RANK_POOL) - n_ranks)
    labels = RANK_POOL[start : start + n_ranks]
    ranks = [Rank(label=lbl, value=RANK_POOL.index(lbl) + 2) for lbl in labels]
    suits = SUIT_POOL[: d.between(1, min(4, c.cap("max_suits")))]
    return Deck(ranks=tuple(ranks), suits=tuple(suits))


def _stake(d: _Draw, stack: int) -> Any:
    kind = d.pick(("fixed", "fixed", "grid", "pot"))
    if kind == "fixed":
        return FixedStake(size=d.between(1, max(1, stack // 5)))
    if kind == "grid":
        top = d.between(2, max(2, stack // 2))
        amounts = sorted({1, top, *(d.between(1, top) for _ in range(d.between(1, 4)))})
        return GridStake(amounts=tuple(amounts))
    return PotStake(percents=tuple(sorted(d.rng.sample([25, 50, 75, 100, 150], d.between(1, 3)))))


def _predicate(
    d: _Draw, ranks: list[str], chosen: list[tuple[str, str]], positions: list[str]
) -> Predicate:
    kinds = ["holds_pair", "holds_rank", "chip_leader", "pot_at_least"]
    if chosen:
        kinds.append("chose")
    if positions:
        kinds.append("holds_position")
    kind = d.pick(kinds)
    who = d.pick(("alice", "bob", "either", "either", "both", "neither"))
    negate = d.chance(0.15)
    if kind == "holds_rank":
        return Predicate(kind=kind, who=who, rank=d.pick(ranks), negate=negate)
    if kind == "pot_at_least":
        return Predicate(kind=kind, amount=d.between(2, 12), negate=negate)
    if kind == "chose":
        phase, option = d.pick(chosen)
        return Predicate(
            kind=kind,
            who=d.pick(("alice", "bob", "either")),
            phase=phase,
            option=option,
            negate=negate,
        )
    if kind == "holds_position":
        return Predicate(
            kind=kind, who=d.pick(("alice", "bob")), position=d.pick(positions), negate=negate
        )
    if kind == "chip_leader":
        return Predicate(kind=kind, who=d.pick(("alice", "bob")), negate=negate)
    return Predicate(kind=kind, who=who, negate=negate)


def _build_phase(d: _Draw, kind: str, index: int, ctx: dict[str, Any]) -> Any:
    """Step 3: one phase's parameters."""
    c = d.config
    pid = f"{kind}{index}"
    stack: int = ctx["stack"]
    positions: list[str] = ctx["positions"]
    if kind == "betting":
        rule = d.pick(("seat", "seat", "seat", "chip_leader", "position"))
        if rule == "position" and positions:
            first = Actor(
                rule="position", position=d.pick(positions), fallback=d.pick(("alice", "bob"))
            )
        elif rule == "chip_leader":
            first = Actor(
                rule=d.pick(("chip_leader", "chip_trailer")), fallback=d.pick(("alice", "bob"))
            )
        else:
            first = Actor(seat=d.pick(("alice", "bob")))
        ctx["bets"] += 1
        return BettingPhase(
            id=pid,
            title=f"Betting round {ctx['bets']}",
            stake=_stake(d, stack),
            raise_cap=d.between(1, c.cap("max_raise_cap")),
            first=first,
        )
    if kind == "simultaneous":
        names = sorted(d.rng.sample(OPTION_POOL, d.between(2, 3)))
        options = tuple(
            SimOption(name=n, pot_chips=d.pick((0, 0, 1, 2)), score_delta=d.pick((0, 0, 1, 2, 3)))
            for n in names
        )
        cells = tuple(
            SimCell(alice=a, bob=b, transfer=d.pick((-2, -1, 1, 2)))
            for a in names
            for b in names
            if a != b and d.chance(0.3)
        )
        ctx["chosen"] += [(pid, n) for n in names]
        return SimultaneousPhase(id=pid, title="Simultaneous round", options=options, matrix=cells)
    if kind == "auction":
        item_kind = d.pick(("card", "peek", "position"))
        item = AuctionItem(kind=item_kind)
        if item_kind == "position":
            name = d.pick([p for p in POSITION_POOL if p not in positions] or ["crown"])
            positions.append(name)
            item = AuctionItem(kind="position", position=name)
        bids = tuple(range(0, d.between(2, min(6, max(2, stack // 3))) + 1))
        return AuctionPhase(
            id=pid,
            title="Auction",
            item=item,
            bids=bids,
            pricing=d.pick(("first", "second")),
            tie=d.pick(("no_sale", "alice", "bob")),
        )
    if kind == "peek":
        who = d.pick(("alice", "bob", "both", "both", "position"))
        position = d.pick(positions) if who == "position" and positions else None
        if who == "position" and position is None:
            who = "both"
        optional = d.chance(0.75)
        cost = d.pick((0, 0, 1, 2)) if optional else 0
        risk = (
            Risk(percent=d.pick((25, 50, 75)), chips=d.between(1, 2))
            if optional and not cost and d.chance(0.4)
            else None
        )
        if optional:
            ctx["chosen"] += [(pid, "peek")]
        return PeekPhase(
            id=pid,
            title="Observation",
            who=who,
            position=position,
            target=d.pick(("opponent_card", "opponent_card", "deck_top")),
            optional=optional,
            cost=cost,
            risk=risk,
        )
    if kind == "draw":
        optional = d.chance(0.5)
        if optional:
            ctx["chosen"] += [(pid, "draw")]
        return DrawPhase(
            id=pid,
            title="Draw",
            who=d.pick(("alice", "bob", "both", "both")),
            count=1,
            optional=optional,
        )
    if kind == "swap":
        sources = ["deck", "opponent"] + (["board"] if ctx["reveals"] else [])
        ctx["chosen"] += [(pid, "swap")]
        return SwapPhase(
            id=pid, title="Swap", who=d.pick(("alice", "bob", "both")), source=d.pick(sources)
        )
    if kind == "position":
        name = d.pick([p for p in POSITION_POOL if p not in positions] or ["crown"])
        positions.append(name)
        perks = (
            ("peek", "peek", "score_bonus")
            if c.position_roles
            else (None, "peek", "peek", "score_bonus")
        )
        perk = d.pick(perks)
        return PositionPhase(
            id=pid,
            title=f"The {name}",
            name=name,
            criterion=d.pick(("high_card", "high_sum", "low_sum", "pair", "chip_leader")),
            hidden=d.chance(0.5),
            perk=None
            if perk is None
            else Perk(kind=perk, points=d.between(1, 3) if perk == "score_bonus" else 0),
        )
    if kind == "side_bet":
        ctx["chosen"] += [(pid, "side_bet")]
        kind_ = d.pick(("holds_pair", "holds_rank") + (("holds_position",) if positions else ()))
        proposition = Predicate(
            kind=kind_,
            who="alice",
            rank=d.pick(ctx["ranks"]) if kind_ == "holds_rank" else None,
            position=d.pick(positions) if kind_ == "holds_position" else None,
        )
        return SideBetPhase(
            id=pid,
            title="Side bets",
            stake=d.between(1, max(1, stack // 6)),
            proposition=proposition,
        )
    ctx["reveals"] += 1
    return RevealPhase(id=pid, title="Board reveal", count=d.between(1, 2))


def _metric(d: _Draw, ranks: list[str], hand: int, board: int) -> Metric:
    """Step 4: the showdown metric."""
    kinds = ["high_card", "rank_sum", "rank_sum", "low_sum"]
    if board:
        kinds.append("pair_with_board")
    if hand + board >= 5:
        kinds.append("best_five")
    kind = d.pick(kinds)
    rules: tuple[ScoreRule, ...] = ()
    if kind in ("rank_sum", "low_sum"):
        rules = tuple(
            ScoreRule(kind=d.pick(("pair_of", "per_card")), rank=r, points=d.pick((-3, -2, 2, 3)))
            for r in sorted(d.rng.sample(ranks, d.between(0, min(2, len(ranks)))))
        )
    return Metric(
        kind=kind,
        rules=rules,
        use_board=bool(board)
        and kind != "pair_with_board"
        and kind != "best_five"
        and d.chance(0.5),
    )


def generate(seed: int, config: GenerationConfig | None = None) -> GameSpec:
    """The game of ``seed`` under ``config`` (the default config when None)."""
    if seed < 0:
        raise ValueError(f"game seed must be a non-negative integer, got {seed}")
    config = config or GenerationConfig()
    d = _Draw(seed, config)
    kinds = _phase_kinds(d)
    deck = _deck(d)
    ranks = [r.label for r in deck.ranks]
    stack = d.between(config.min_stack, config.cap("max_stack"))
    ante = d.between(1, max(1, stack // config.ante_divisor))
    hand = d.between(1, config.cap("max_hand"))
    ctx: dict[str, Any] = {
        "stack": stack,
        "positions": [],
        "chosen": [],
        "reveals": 0,
        "bets": 0,
        "ranks": ranks,
    }
    phases: list[Any] = [DealPhase(id="deal", title="Deal", count=hand)]
    for i, kind in enumerate(kinds, start=1):
        phases.append(_build_phase(d, kind, i, ctx))
    if config.position_roles:
        phases = _give_auctions_roles(d, phases)
    board = sum(p.count for p in phases if p.kind == "reveal")
    metric = _metric(d, ranks, hand, board)
    if config.branch_count == "per_phase":
        phases = _branches_per_phase(d, phases, ranks, ctx)
    else:
        phases = _branches(d, phases, ranks, ctx)
    draft: dict[str, Any] = {
        "name": f"gbg-{seed}",
        "deck": deck,
        "stack": stack,
        "ante": ante,
        "phases": phases,
        "showdown": Showdown(metric=metric),
    }
    draft = repair(d, draft)
    draft["generation"] = {
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "config_hash": config.config_hash,
        "config": json.loads(config.canonical_json()),
        "repairs": list(d.repairs),
    }
    return GameSpec(**draft)


def _branches(d: _Draw, phases: list[Any], ranks: list[str], ctx: dict[str, Any]) -> list[Any]:
    """Step 5: conditional edges that skip ahead (to a later phase or the showdown)."""
    budget = d.config.cap("max_branches") if d.config.max_branches else 0
    out = list(phases)
    for i in range(1, len(out) - 1):
        if budget <= 0 or not d.chance(d.config.branch_rate):
            continue
        chosen = [(p, o) for p, o in ctx["chosen"] if _index(out, p) < i + 1]
        positions = [p for p in ctx["positions"] if _defined_before(out, p, i + 1)]
        pred = _predicate(d, ranks, chosen, positions)
        skip_to = d.between(i + 2, len(out))
        target = out[skip_to].id if skip_to < len(out) else "showdown"
        following = out[i + 1].id
        out[i] = out[i].model_copy(
            update={"next": (Edge(to=target, when=pred), Edge(to=following))}
        )
        budget -= 1
    return out


def _branches_per_phase(
    d: _Draw, phases: list[Any], ranks: list[str], ctx: dict[str, Any]
) -> list[Any]:
    """Step 5 with ``branch_count="per_phase"``.  Each phase that can skip ahead (after the
    deal, and not the last one) gets a condition with probability ``branch_rate``, and
    another with the same probability while it holds fewer than ``max_conditions_per_phase``,
    until ``max_branches`` are placed (so a longer game has more conditions, as in the
    paper's example, which has three in nine phases).  A game left with fewer than
    ``min_branches`` gets the rest on phases drawn uniformly among those with room.  Each
    condition skips to a phase drawn uniformly from the one after the next to ``max_skip``
    phases ahead (the showdown when it is that near); a phase's conditions are tried in the
    order they were drawn, then its plain edge to the next phase."""
    c = d.config
    out = list(phases)
    sites = list(range(1, len(out) - 1))
    top = min(len(sites) * c.max_conditions_per_phase, c.cap("max_branches"))
    if not c.max_branches:
        top = 0
    conditions: dict[int, list[Edge]] = {}

    def add(i: int) -> None:
        chosen = [(p, o) for p, o in ctx["chosen"] if _index(out, p) < i + 1]
        positions = [p for p in ctx["positions"] if _defined_before(out, p, i + 1)]
        pred = _predicate(d, ranks, chosen, positions)
        last = len(out) if not c.max_skip else min(len(out), i + 1 + c.max_skip)
        skip_to = d.between(i + 2, last)
        target = out[skip_to].id if skip_to < len(out) else "showdown"
        conditions.setdefault(i, []).append(Edge(to=target, when=pred))

    placed = 0
    for i in sites:
        while (
            placed < top
            and len(conditions.get(i, [])) < c.max_conditions_per_phase
            and d.chance(c.branch_rate)
        ):
            add(i)
            placed += 1
    for _ in range(min(c.min_branches, top) - placed):
        free = [i for i in sites if len(conditions.get(i, [])) < c.max_conditions_per_phase]
        add(d.pick(free))
    for i, edges in sorted(conditions.items()):
        out[i] = out[i].model_copy(update={"next": (*edges, Edge(to=out[i + 1].id))})
    return out


def _give_auctions_roles(d: _Draw, phases: list[Any]) -> list[Any]:
    """An auctioned position is worth something only when a rule reads it: the first betting
    round after the auction is opened by its holder; with no betting round after it, the
    auction sells a peek instead (the paper's configuration, ``position_roles``).

    A rule reads the position exactly when the inertness check says so
    (``engines.gbg.inertness.position_readers``): a peek by the holder counts only while the
    holder may still decide after it, so a position read by nothing but a peek after the last
    decision is given a betting round's first move (or the auction a peek) like an unread one.
    """
    out = list(phases)
    for i, p in enumerate(out):
        if p.kind != "auction" or p.item.kind != "position":
            continue
        # The readers depend on the phases alone (what follows the auction and who decides).
        phases_only: dict[str, Any] = {"phases": tuple(out)}
        draft = GameSpec.model_construct(**phases_only)
        if position_readers(draft, p.item.position or "", i):
            continue
        later = [k for k in range(i + 1, len(out)) if out[k].kind == "betting"]
        if later:
            k = later[0]
            actor = Actor(rule="position", position=p.item.position, fallback=d.pick(SEATS_DRAW))
            out[k] = out[k].model_copy(update={"first": actor})
        else:
            out[i] = p.model_copy(update={"item": AuctionItem(kind="peek")})
            out = [_without_position(q, p.item.position) if k > i else q for k, q in enumerate(out)]
    return out


def _without_position(phase: Any, position: str | None) -> Any:
    """A later peek by the holder of a position that is no longer sold becomes a peek by both
    players (it came after the holder's last decision, or the position would have been read)."""
    if phase.kind == "peek" and phase.who == "position" and phase.position == position:
        return phase.model_copy(update={"who": "both", "position": None})
    return phase


SEATS_DRAW = ("alice", "bob")


def _index(phases: list[Any], pid: str) -> int:
    return next((k for k, p in enumerate(phases) if p.id == pid), 10**6)


def _defined_before(phases: list[Any], position: str, end: int) -> bool:
    for p in phases[:end]:
        if p.kind == "position" and p.name == position:
            return True
        if p.kind == "auction" and p.item.kind == "position" and p.item.position == position:
            return True
    return False


def repair(d: _Draw, draft: dict[str, Any]) -> dict[str, Any]:
    """Step 6: apply structural repairs until the draft passes every check; record each."""
    for _ in range(12):
        spec = GameSpec.model_construct(**draft)
        errors = structural_errors(spec)
        if not errors:
            return draft
        draft = _repair_once(d, draft, errors)
    raise AssertionError(
        f"generator could not repair: {structural_errors(GameSpec.model_construct(**draft))}"
    )


def _repair_once(d: _Draw, draft: dict[str, Any], errors: list[str]) -> dict[str, Any]:
    text = " | ".join(errors)
    deck: Deck = draft["deck"]
    phases: list[Any] = list(draft["phases"])
    if "the longest path deals" in text:
        if len(deck.suits) < len(SUIT_POOL):
            draft["deck"] = deck.model_copy(update={"suits": SUIT_POOL[: len(deck.suits) + 1]})
            d.repairs.append("deck too small for the cards dealt: added a suit")
        elif phases[0].count > 1:
            phases[0] = phases[0].model_copy(update={"count": phases[0].count - 1})
            draft["phases"] = phases
            d.repairs.append("deck too small for the cards dealt: dealt one card fewer")
        else:
            draft["deck"] = deck.model_copy(update={"copies": deck.copies + 1})
            d.repairs.append("deck too small for the cards dealt: doubled the deck")
        return draft
    if "needs at least five cards" in text or "needs a board reveal" in text:
        draft["showdown"] = Showdown(metric=Metric(kind="high_card"))
        d.repairs.append("showdown metric lacked the cards it needs: switched to high card")
        return draft
    if "exceed the stack" in text:
        draft["ante"] = 1
        d.repairs.append("ante plus forced bets exceeded the stack: ante set to 1")
        return draft
    # Any other structural error comes from a branch: drop the offending edge's predicate.
    for i, p in enumerate(phases):
        if p.next and any(f"phase '{p.id}'" in e for e in errors):
            phases[i] = p.model_copy(update={"next": ()})
            d.repairs.append(f"phase {p.id}: removed a branch that referred to nothing valid")
            draft["phases"] = phases
            return draft
    raise AssertionError(f"no repair for: {text}")


def max_cards(spec: GameSpec) -> int:
    return cards_needed(spec)[0]
