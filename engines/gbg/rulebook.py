"""Rulebooks: every rule the engine enforces, stated in words with its numbers.

The rulebook is the system prompt an agent plays from (paper, Section 5), so it must be
complete and unambiguous: an unstated rule is a rule the model cannot follow, and a misstated
one makes the benchmark measure the wrong thing.  ``rulebook(spec)`` renders it from the spec;
``consistency_errors(spec, text)`` is the release gate that checks, independently of the
templates, that every phase, predicate, metric rule and amount of the spec appears in the
section where it applies, and names whatever is missing.
"""

from __future__ import annotations

import re

from engines.gbg.spec import (
    Actor,
    AuctionPhase,
    BettingPhase,
    DealPhase,
    DrawPhase,
    GameSpec,
    PeekPhase,
    Phase,
    PositionPhase,
    Predicate,
    RevealPhase,
    SideBetPhase,
    SimultaneousPhase,
    SwapPhase,
)
from engines.gbg.structure import successors

SEAT_NAMES = {"alice": "Alice", "bob": "Bob"}


def chips(n: int) -> str:
    return f"{n} chip" if abs(n) == 1 else f"{n} chips"


def phase_heading(number: int, phase: Phase) -> str:
    return f"### Phase {number}: {phase.title or phase.id} ({phase.id})"


def describe_predicate(pred: Predicate, subject: str | None = None) -> str:
    """A predicate in words, e.g. ``either player holds a pair``.

    ``subject`` replaces the quantified seats (a side bet's proposition is about the bettor).
    """
    who = (
        subject
        or {
            "alice": "Alice",
            "bob": "Bob",
            "either": "either player",
            "both": "both players",
            "neither": "neither player",
        }[pred.who]
    )
    plural = subject is None and pred.who == "both"
    verb_hold = "hold" if plural else "holds"
    if pred.kind == "holds_pair":
        text = f"{who} {verb_hold} a pair (two cards of one rank) in hand"
    elif pred.kind == "holds_rank":
        text = f"{who} {verb_hold} a card of rank {pred.rank} in hand"
    elif pred.kind == "chip_leader":
        text = f"{who} {'have' if plural else 'has'} more chips behind than the opponent"
    elif pred.kind == "pot_at_least":
        text = f"the pot holds at least {chips(pred.amount or 0)}"
    elif pred.kind == "chose":
        text = f"{who} chose '{pred.option}' in phase {pred.phase}"
    else:
        text = f"{who} {verb_hold} the {pred.position} position"
    if subject is None and pred.who == "neither" and pred.kind != "pot_at_least":
        text = text.replace(f"{who} {verb_hold}", "neither player holds")
    return f"it is not the case that {text}" if pred.negate else text


def describe_actor(actor: Actor) -> str:
    fallback = SEAT_NAMES[actor.fallback]
    if actor.rule == "seat":
        return f"{SEAT_NAMES[actor.seat]} acts first"
    if actor.rule == "position":
        return (
            f"the holder of the {actor.position} position acts first "
            f"({fallback} if nobody holds it)"
        )
    who = "more" if actor.rule == "chip_leader" else "fewer"
    return f"the player with {who} chips behind acts first ({fallback} if the stacks are level)"


def _betting(p: BettingPhase, spec: GameSpec) -> list[str]:
    stake = p.stake
    if stake.kind == "fixed":
        sizes = f"every bet and every raise is exactly {chips(stake.size)}"
    elif stake.kind == "grid":
        grid = ", ".join(str(a) for a in stake.amounts)
        sizes = f"a bet or raise may be any amount on the wager grid {{{grid}}}"
    else:
        pct = ", ".join(f"{x}%" for x in stake.percents)
        sizes = (
            f"a bet or raise is a percentage of the pot before the action ({pct}), "
            "rounded to the nearest chip and at least 1 chip"
        )
    lines = [
        "A betting round.",
        f"- Sizes: {sizes}.",
        "- A bet or raise may not exceed what the bettor can pay after calling, nor what the "
        "opponent could pay to call it; sizes above that limit are not offered.",
        f"- At most {p.raise_cap} bets and raises in total in this round"
        + (" (the forced bets count as the first bet when they differ)." if any(p.forced) else "."),
        f"- Order: {describe_actor(p.first)}; then the players alternate.",
        "- When nothing is owed: check, or bet. When facing a bet: fold, call (match it), or "
        "raise (call and add a raise). Folding is not allowed when nothing is owed.",
        "- The round ends when both players have acted and put in the same amount; a fold ends "
        "the deal at once.",
        "- If a player has no chips behind and nothing is owed, the round is skipped.",
    ]
    if any(p.forced):
        lines.insert(
            1,
            f"- Forced bets first: Alice posts {chips(p.forced[0])} and Bob posts "
            f"{chips(p.forced[1])}; forced bets do not count as acting.",
        )
    return lines


def _simultaneous(p: SimultaneousPhase) -> list[str]:
    lines = [
        "A simultaneous round: Alice chooses first, in secret; Bob then chooses without seeing "
        "her choice; both choices are then revealed. Options:"
    ]
    for o in p.options:
        effects = []
        if o.pot_chips:
            effects.append(f"the chooser puts {chips(o.pot_chips)} into the pot (or all it has)")
        if o.score_delta:
            effects.append(f"{o.score_delta:+d} showdown points for the chooser")
        lines.append(f"- {o.name}: {'; '.join(effects) if effects else 'no effect by itself'}.")
    for cell in p.matrix:
        payer, payee = ("Bob", "Alice") if cell.transfer > 0 else ("Alice", "Bob")
        lines.append(
            f"- If Alice chooses {cell.alice} and Bob chooses {cell.bob}: {payer} pays "
            f"{payee} {chips(abs(cell.transfer))} directly (at most what {payer} has behind)."
        )
    return lines


def _auction(p: AuctionPhase) -> list[str]:
    item = {
        "card": "the top card of the deck, added privately to the winner's hand",
        "peek": "a look at one card of the opponent's hand, chosen at random",
        "position": f"the {p.item.position} position (announced to both players)",
    }[p.item.kind]
    bids = ", ".join(str(b) for b in p.bids)
    price = (
        "first price: the winner pays its own bid"
        if p.pricing == "first"
        else "second price: the winner pays the loser's bid"
    )
    tie = {
        "no_sale": "on equal bids nobody wins and nobody pays",
        "alice": "on equal bids Alice wins",
        "bob": "on equal bids Bob wins",
    }[p.tie]
    return [
        f"A sealed-bid auction for {item}.",
        f"- Bids: one of {{{bids}}}, at most what the bidder has behind. Alice bids first in "
        "secret, then Bob without seeing her bid; then both bids are revealed.",
        f"- The higher bid wins; {tie}.",
        f"- Pricing: {price}. Payments go into the pot.",
    ]


def _peek(p: PeekPhase) -> list[str]:
    who = {
        "alice": "Alice",
        "bob": "Bob",
        "both": "Each player in turn (Alice first)",
        "position": f"The holder of the {p.position} position (if anyone holds it)",
    }[p.who]
    target = (
        "one card of the opponent's hand, chosen at random"
        if p.target == "opponent_card"
        else "the top card of the deck (the next card to be dealt)"
    )
    lines = [f"An observation. {who} {'may look' if p.optional else 'looks'} at {target}."]
    if p.optional:
        lines.append("- The choice is 'peek' or 'pass'; the choice is announced, the card is not.")
    if p.cost:
        lines.append(f"- A peek costs {chips(p.cost)}, paid into the pot first.")
    if p.risk:
        lines.append(
            f"- Risk: after peeking, with probability {p.risk.percent}% the peeker pays "
            f"{chips(p.risk.chips)} into the pot (or all it has)."
        )
    return lines


def _describe(p: Phase, spec: GameSpec) -> list[str]:
    if isinstance(p, DealPhase):
        return [f"Each player is dealt {p.count} private card(s), alternately, Alice first."]
    if isinstance(p, RevealPhase):
        return [f"{p.count} card(s) are dealt face up to the board, seen by both players."]
    if isinstance(p, BettingPhase):
        return _betting(p, spec)
    if isinstance(p, SimultaneousPhase):
        return _simultaneous(p)
    if isinstance(p, AuctionPhase):
        return _auction(p)
    if isinstance(p, PeekPhase):
        return _peek(p)
    if isinstance(p, DrawPhase):
        who = {"alice": "Alice", "bob": "Bob", "both": "Each player (Alice first)"}[p.who]
        if p.optional:
            return [
                f"{who} may draw {p.count} private card(s) from the deck ('draw') or not "
                "('stand'); the choice is announced, the cards are not."
            ]
        return [f"{who} draws {p.count} private card(s) from the deck."]
    if isinstance(p, SwapPhase):
        who = {"alice": "Alice", "bob": "Bob", "both": "Each player (Alice first)"}[p.who]
        how = {
            "deck": "gives up one card of its hand (face down) and draws a fresh private "
            "card from the deck",
            "board": "takes the last board card into its hand and puts one of its own cards "
            "face up on the board in its place (skipped while the board is empty)",
            "opponent": "gives one card of its choice to the opponent and takes one of the "
            "opponent's cards at random; both players then know both cards",
        }[p.source]
        return [
            f"A swap. {who} may 'keep' its hand, or 'swap <card>': it {how}. "
            "Whether a player swapped is announced."
        ]
    if isinstance(p, PositionPhase):
        crit = {
            "high_card": "the player with the highest card in hand (then the next highest)",
            "high_sum": "the player with the highest sum of rank values in hand",
            "low_sum": "the player with the lowest sum of rank values in hand",
            "pair": "the player holding a pair (two cards of one rank) when the other does not",
            "chip_leader": "the player with more chips behind",
        }[p.criterion]
        lines = [
            f"The {p.name} position goes to {crit}; on a tie nobody holds it.",
            "- It is hidden: only the holder is told (the other player is told nothing)."
            if p.hidden
            else "- It is public: both players are told who holds it.",
        ]
        if p.perk and p.perk.kind == "peek":
            lines.append("- Perk: the holder looks at one card of the opponent's hand, at random.")
        elif p.perk:
            lines.append(f"- Perk: the holder gains {p.perk.points:+d} showdown points.")
        return lines
    assert isinstance(p, SideBetPhase)
    return [
        f"Side bets. Each player in turn (Alice first) may place a side bet of "
        f"{chips(p.stake)} ('side_bet') or 'pass'. A side bet is on the proposition that at "
        f"the end of the deal {describe_predicate(p.proposition, subject='the bettor')}.",
        f"- The opponent covers it: both put {chips(p.stake)} aside (not into the pot). It is "
        "offered only while both players have that much behind.",
        f"- At the end of the deal, even after a fold, the bettor takes both stakes "
        f"({chips(2 * p.stake)}) if the proposition holds, and the opponent takes them otherwise.",
    ]


def _edges(spec: GameSpec, index: int) -> str:
    p = spec.phases[index]
    names = {q.id: f"phase {q.id}" for q in spec.phases}
    names["showdown"] = "the showdown"
    if not p.next:
        return f"Then: go to {names[successors(spec, index)[0]]}."
    parts = []
    for edge in p.next:
        if edge.when is None:
            parts.append(f"otherwise go to {names[edge.to]}")
        else:
            parts.append(f"if {describe_predicate(edge.when)}, go to {names[edge.to]}")
    return "Then: " + "; ".join(parts) + "."


def _metric(spec: GameSpec) -> list[str]:
    m = spec.showdown.metric
    board = " plus the board cards" if m.use_board else ""
    if m.kind == "high_card":
        lines = [
            f"Highest card wins: compare the highest card in hand{board}, then the next "
            "highest, and so on."
        ]
    elif m.kind == "rank_sum":
        lines = [f"Each hand scores the sum of its rank values (hand{board}); higher score wins."]
    elif m.kind == "low_sum":
        lines = [f"Each hand scores the sum of its rank values (hand{board}); LOWER score wins."]
    elif m.kind == "pair_with_board":
        lines = [
            "A hand card of the same rank as a board card (a pair with the board) wins; "
            "otherwise the higher hand card wins."
        ]
    else:
        lines = [
            "Best five-card poker hand from the two hand cards and the board wins "
            "(straight flush, four of a kind, full house, flush, straight, three of a kind, "
            "two pair, pair, high card; the ace plays high, or low in A-2-3-4-5)."
        ]
    for rule in m.rules:
        if rule.kind == "pair_of":
            lines.append(f"- {rule.points:+d} points for a pair of {rule.rank}s (at most once).")
        else:
            lines.append(f"- {rule.points:+d} points for each {rule.rank}.")
    if m.kind in ("rank_sum", "low_sum"):
        lines.append(
            "- Showdown points from options and positions are added to a player's "
            "score" + (" (and so count against it)." if m.kind == "low_sum" else ".")
        )
    else:
        lines.append(
            "- Showdown points from options and positions are compared first: more "
            "points wins before the hands are compared."
        )
    return lines


def rulebook(spec: GameSpec) -> str:
    """The complete rulebook of ``spec`` (Markdown)."""
    deck = spec.deck
    ranks = ", ".join(f"{r.label} (value {r.value})" for r in deck.ranks)
    suits = ", ".join(deck.suits)
    copies = f", {deck.copies} copies of each card" if deck.copies > 1 else ""
    out = [
        f"# Rulebook: {spec.name}",
        "",
        "A two-player zero-sum card game between Alice and Bob, one deal at a time. Your goal "
        "is to end the deal with as many chips as possible: whatever one player wins, the other "
        "loses.",
        "",
        "## Cards",
        f"The deck has {deck.size} cards: ranks {ranks}; suits {suits}{copies}. A card is "
        "written as its rank followed by its suit. The deck is shuffled before every deal.",
        "",
        "## Chips",
        f"Each player starts with {chips(spec.stack)}. Each player antes {chips(spec.ante)} "
        "into the pot before the deal. You can never bet more than you have behind.",
        "",
        "## Sequence of play",
    ]
    for i, p in enumerate(spec.phases):
        out.append("")
        out.append(phase_heading(i + 1, p))
        out.extend(_describe(p, spec))
        out.append(_edges(spec, i))
    out += ["", "## Showdown", *_metric(spec)]
    out += [
        "",
        "## Settlement",
        "- If a player folds, the other player takes the whole pot and the hands are not shown.",
        "- At the showdown both hands are shown and the winner takes the whole pot.",
        "- On a tie, each player takes back exactly the chips it put into the pot.",
        "- Your result for the deal is your chips at the end minus your chips at the start.",
        "",
        "## Your turn",
        "At each decision you receive what you can see so far and the list of legal actions. "
        'Reply with a JSON object {"action": "<one of the legal actions>"}, copying the action '
        "exactly as listed.",
    ]
    return "\n".join(out) + "\n"


# --- the consistency gate ----------------------------------------------------------------------


def _required(spec: GameSpec) -> list[tuple[str, str | None, str]]:
    """(item description, phase id or None for anywhere, text that must appear)."""
    req: list[tuple[str, str | None, str]] = [
        ("stack", None, f"starts with {chips(spec.stack)}"),
        ("ante", None, f"antes {chips(spec.ante)}"),
        ("deck size", None, f"{spec.deck.size} cards"),
    ]
    req += [(f"rank {r.label}", None, f"{r.label} (value {r.value})") for r in spec.deck.ranks]
    for i, p in enumerate(spec.phases):
        pid = p.id
        req.append((f"phase {pid}", None, phase_heading(i + 1, p)))
        for edge in p.next:
            if edge.when is not None:
                req.append((f"branch of {pid}", pid, describe_predicate(edge.when)))
        if isinstance(p, BettingPhase):
            req.append((f"raise cap of {pid}", pid, f"At most {p.raise_cap} bets"))
            if p.stake.kind == "fixed":
                req.append((f"bet size of {pid}", pid, chips(p.stake.size)))
            elif p.stake.kind == "grid":
                req += [(f"grid amount {a} of {pid}", pid, str(a)) for a in p.stake.amounts]
            else:
                req += [(f"pot percent {x} of {pid}", pid, f"{x}%") for x in p.stake.percents]
            if any(p.forced):
                req.append((f"forced bets of {pid}", pid, f"Alice posts {chips(p.forced[0])}"))
                req.append((f"forced bets of {pid}", pid, f"Bob posts {chips(p.forced[1])}"))
        elif isinstance(p, SimultaneousPhase):
            for o in p.options:
                req.append((f"option {o.name} of {pid}", pid, f"- {o.name}:"))
                if o.pot_chips:
                    req.append((f"cost of {o.name}", pid, chips(o.pot_chips)))
                if o.score_delta:
                    req.append((f"points of {o.name}", pid, f"{o.score_delta:+d}"))
            for c in p.matrix:
                req.append((f"matrix {c.alice}/{c.bob} of {pid}", pid, chips(abs(c.transfer))))
        elif isinstance(p, AuctionPhase):
            req += [(f"bid {b} of {pid}", pid, str(b)) for b in p.bids]
            req.append((f"pricing of {pid}", pid, f"{p.pricing} price"))
        elif isinstance(p, PeekPhase):
            if p.cost:
                req.append((f"peek cost of {pid}", pid, chips(p.cost)))
            if p.risk:
                req.append((f"risk percent of {pid}", pid, f"{p.risk.percent}%"))
                req.append((f"risk chips of {pid}", pid, chips(p.risk.chips)))
        elif isinstance(p, DrawPhase | RevealPhase | DealPhase):
            req.append((f"card count of {pid}", pid, f"{p.count} "))
        elif isinstance(p, PositionPhase):
            req.append((f"position {p.name}", pid, f"The {p.name} position"))
            if p.perk and p.perk.kind == "score_bonus":
                req.append((f"perk of {p.name}", pid, f"{p.perk.points:+d}"))
        elif isinstance(p, SideBetPhase):
            req.append((f"side bet stake of {pid}", pid, chips(p.stake)))
            proposition = describe_predicate(p.proposition, subject="the bettor")
            req.append((f"side bet proposition of {pid}", pid, proposition))
    for rule in spec.showdown.metric.rules:
        req.append((f"showdown rule for {rule.rank}", "showdown", f"{rule.points:+d} points"))
    return req


def _sections(text: str) -> dict[str, str]:
    """Split a rulebook into phase sections (by heading id) and the showdown section."""
    sections: dict[str, str] = {}
    parts = re.split(r"^### Phase \d+: .*\(([a-z0-9_]+)\)$", text, flags=re.MULTILINE)
    for pid, body in zip(parts[1::2], parts[2::2], strict=True):
        sections[pid] = body.split("\n## ")[0]
    show = text.split("## Showdown", 1)
    sections["showdown"] = show[1].split("\n## ")[0] if len(show) == 2 else ""
    return sections


def consistency_errors(spec: GameSpec, text: str) -> list[str]:
    """Every item of ``spec`` the rulebook ``text`` fails to state, as one line each."""
    sections = _sections(text)
    errors = []
    for item, where, needle in _required(spec):
        haystack = text if where is None else sections.get(where, "")
        if needle not in haystack:
            place = "the rulebook" if where is None else f"the section of {where}"
            errors.append(f"{item}: {needle!r} not stated in {place}")
    return errors
