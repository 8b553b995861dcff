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

from engines.gbg.engine import new_deal
from engines.gbg.render import NAMES, event_line, turn_prompt
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
from engines.gbg.state import PUBLIC, State
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
    if m.kind == "rank_sum":
        lines.append("- Showdown points from options and positions are added to a player's score.")
    elif m.kind == "low_sum":
        # the engine subtracts them from the sum (engines/gbg/rules.py: -sum + points)
        lines.append(
            "- Showdown points from options and positions are subtracted from a player's sum "
            "(they help it, since the lower sum wins)."
        )
    else:
        lines.append(
            "- Showdown points from options and positions are compared first: more "
            "points wins before the hands are compared."
        )
    return lines


STYLES = ("compact", "paper")


def rulebook(spec: GameSpec, style: str = "compact") -> str:
    """The complete rulebook of ``spec`` (Markdown) in ``style``: ``compact`` (every rule
    once) or ``paper`` (the paper's Appendix B style: every rule with a worked example)."""
    if style == "paper":
        return paper_rulebook(spec)
    if style != "compact":
        raise ValueError(f"unknown rulebook style {style!r}; choose one of: {', '.join(STYLES)}")
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


# --- the paper's style: every rule with a worked example -----------------------------------------


def _cards(spec: GameSpec) -> list[str]:
    """Every distinct card label of the deck, lowest rank first."""
    return [f"{r.label}{s}" for r in spec.deck.ranks for s in spec.deck.suits]


def _example_hands(spec: GameSpec, size: int) -> tuple[list[str], list[str]]:
    """Two example hands of ``size`` cards each, dealt from the deck without repeats: Alice's
    from the high ranks, Bob's from the low ranks (copies allowing, a deck card appears once)."""
    cards = _cards(spec) * spec.deck.copies
    size = max(1, min(size, len(cards) // 2))
    return cards[::-1][:size], cards[:size]


def _value(spec: GameSpec, card: str) -> int:
    label = card[:-1]
    return next(r.value for r in spec.deck.ranks if r.label == label)


def _sum_score(spec: GameSpec, hand: list[str]) -> tuple[int, list[str]]:
    """A hand's rank sum with the showdown rules, and the terms that make it up."""
    total = sum(_value(spec, c) for c in hand)
    terms = [" + ".join(str(_value(spec, c)) for c in hand)]
    for rule in spec.showdown.metric.rules:
        n = sum(1 for c in hand if c[:-1] == rule.rank)
        if rule.kind == "per_card" and n:
            total += rule.points * n
            terms.append(f"{rule.points:+d} x {n} for {rule.rank}")
        elif rule.kind == "pair_of" and n >= 2:
            total += rule.points
            terms.append(f"{rule.points:+d} for the pair of {rule.rank}s")
    return total, terms


def _bet_sizes(p: BettingPhase, pot: int) -> list[int]:
    stake = p.stake
    if stake.kind == "fixed":
        return [stake.size]
    if stake.kind == "grid":
        return list(stake.amounts)
    return sorted({max(1, (pot * x + 50) // 100) for x in stake.percents})


def _example_betting(p: BettingPhase, spec: GameSpec) -> list[str]:
    pot = 2 * spec.ante + sum(p.forced)
    sizes = _bet_sizes(p, pot)
    bet = sizes[0]
    lines = [
        f"Example: suppose nothing has been bet yet in this round and the pot holds "
        f"{chips(pot)} (both antes{' and the forced bets' if any(p.forced) else ''}). The "
        f"first player may check or bet; say it bets {chips(bet)}, so the pot holds "
        f"{chips(pot + bet)}. The other player now faces a bet of {chips(bet)}: it may fold "
        f"(the bettor takes the pot of {chips(pot + bet)} and the deal ends at once), call "
        f"(it puts in {chips(bet)}, the pot holds {chips(pot + 2 * bet)} and the round ends), "
        + (
            f"or raise (it calls {chips(bet)} and adds a raise on top)."
            if p.raise_cap > 1
            else "but not raise: the bet already used the round's only bet or raise."
        )
    ]
    if p.stake.kind == "pot":
        x = p.stake.percents[-1]
        lines.append(
            f"Example of a pot-sized amount: with {chips(pot)} in the pot, a {x}% bet is "
            f"({pot} x {x} / 100, rounded to the nearest chip, halves up) "
            f"{chips(max(1, (pot * x + 50) // 100))}."
        )
    elif p.stake.kind == "grid" and len(sizes) > 1:
        gap = next((x for x in range(sizes[0], sizes[-1]) if x not in sizes), None)
        other = (
            f"but not {chips(gap)}, which is not on the grid"
            if gap is not None
            else f"but never more than {chips(sizes[-1])}"
        )
        lines.append(
            f"Example of the grid: a player with enough chips may bet {chips(sizes[0])} or "
            f"{chips(sizes[-1])}, {other}."
        )
    lines.append(
        "Example of the end of a round: if both players check, the round ends with nothing "
        "added to the pot and play moves on."
    )
    return lines


def _example_simultaneous(p: SimultaneousPhase) -> list[str]:
    a, b = p.options[0], p.options[-1]
    cell = next((c for c in p.matrix if c.alice == a.name and c.bob == b.name), None)
    effects = []
    for who, o in (("Alice", a), ("Bob", b)):
        parts = []
        if o.pot_chips:
            parts.append(f"puts {chips(o.pot_chips)} into the pot")
        if o.score_delta:
            parts.append(f"gains {o.score_delta:+d} showdown points")
        effects.append(f"{who} {' and '.join(parts) if parts else 'has no effect from her choice'}")
    effects[1] = effects[1].replace("her choice", "his choice")
    text = (
        f"Example: Alice chooses {a.name} and Bob chooses {b.name}. Both choices are revealed "
        f"together: {effects[0]}; {effects[1]}."
    )
    if cell is not None:
        payer, payee = ("Bob", "Alice") if cell.transfer > 0 else ("Alice", "Bob")
        text += f" For this pair of choices {payer} also pays {payee} {chips(abs(cell.transfer))}."
    else:
        text += " No direct payment is listed for this pair of choices."
    return [text, "Neither player learns the other's choice before making its own."]


def _example_auction(p: AuctionPhase) -> list[str]:
    low, high = p.bids[0], p.bids[-1]
    price = high if p.pricing == "first" else low
    tie = {
        "no_sale": "nobody wins the item and nobody pays",
        "alice": "Alice wins the item and pays her bid",
        "bob": "Bob wins the item and pays his bid",
    }[p.tie]
    return [
        f"Example: Alice bids {high} and Bob bids {low}. Alice's bid is higher, so she wins "
        f"and pays {chips(price)} into the pot ({p.pricing} price); Bob pays nothing.",
        f"Example of a tie: if both bid {high}, {tie}.",
    ]


def _example_peek(p: PeekPhase) -> list[str]:
    who = {"alice": "Alice", "bob": "Bob", "both": "Alice", "position": "the holder"}[p.who]
    lines = []
    if p.optional:
        cost = f" pays {chips(p.cost)} into the pot and" if p.cost else ""
        lines.append(
            f"Example: {who} chooses 'peek',{cost} looks at the card; the opponent is told "
            f"that {who} peeked but not which card {who} saw. Choosing 'pass' costs nothing "
            "and shows nothing."
        )
    else:
        lines.append(f"Example: {who} is shown the card privately; the opponent is not told it.")
    if p.risk:
        lines.append(
            f"Example of the risk: after peeking, a chance draw decides whether the peeker pays "
            f"{chips(p.risk.chips)}; this happens in {p.risk.percent} of 100 peeks on average."
        )
    if p.who == "position":
        lines.append("If nobody holds the position, nobody looks and play moves on.")
    return lines


def _example_position(p: PositionPhase, spec: GameSpec) -> list[str]:
    a, b = _example_hands(
        spec, spec.phases[0].count if isinstance(spec.phases[0], DealPhase) else 1
    )
    crit = p.criterion
    if crit == "chip_leader":
        text = (
            "Example: if Alice has 9 chips behind and Bob 7, Alice holds the position; with "
            "equal stacks nobody does."
        )
    elif crit == "pair":
        text = (
            "Example: a player holding two cards of the same rank, when the other player holds "
            "no such pair, holds the position; if both or neither hold a pair, nobody does."
        )
    else:
        va = sorted((_value(spec, c) for c in a), reverse=True)
        vb = sorted((_value(spec, c) for c in b), reverse=True)
        if crit == "high_card":
            alice_wins = va > vb
            how = f"highest cards {va[0]} against {vb[0]}"
        elif crit == "high_sum":
            alice_wins = sum(va) > sum(vb)
            how = f"sums {sum(va)} against {sum(vb)}"
        else:
            alice_wins = sum(va) < sum(vb)
            how = f"sums {sum(va)} against {sum(vb)}, the lower sum taking it"
        holder = "Alice" if alice_wins else "Bob"
        if va == vb:
            holder = "nobody"
        text = (
            f"Example: with Alice holding {', '.join(a)} and Bob holding {', '.join(b)} "
            f"({how}), {holder} holds the {p.name} position."
        )
    lines = [text]
    lines.append(
        "Only the holder is told; the other player is not told whether the opponent holds it."
        if p.hidden
        else "Both players are told who holds it, or that nobody does."
    )
    if p.perk and p.perk.kind == "peek":
        lines.append("The holder then sees one of the opponent's cards, chosen at random.")
    elif p.perk:
        lines.append(
            f"At the showdown the holder's score includes the perk of {p.perk.points:+d} points."
        )
    return lines


def _example_side_bet(p: SideBetPhase, spec: GameSpec) -> list[str]:
    prop = describe_predicate(p.proposition, subject="the bettor")
    return [
        f"Example: Alice places the side bet; Bob covers it, and each sets {chips(p.stake)} "
        f"aside. At the end of the deal, if {prop.replace('the bettor', 'Alice')}, Alice takes "
        f"both stakes ({chips(2 * p.stake)}, a gain of {chips(p.stake)}); otherwise Bob takes "
        f"them. This happens whoever wins the pot, and even if someone folded."
    ]


def _example_cards(p: Phase) -> list[str]:
    if isinstance(p, DealPhase):
        return [
            f"Example: the dealer gives Alice a card, then Bob a card, until each holds "
            f"{p.count}; each player sees only its own cards."
        ]
    if isinstance(p, RevealPhase):
        return [
            f"Example: {p.count} card(s) are turned face up in the middle; both players see "
            "them, and they stay on the board until the end of the deal."
        ]
    if isinstance(p, DrawPhase):
        return [
            f"Example: a player who draws receives {p.count} card(s) face down from the top of "
            "the deck and adds them to its hand; the opponent sees how many, not which."
        ]
    if isinstance(p, SwapPhase):
        return [
            "Example: a player who swaps names one card of its hand, e.g. 'swap <card>'; a "
            "player who keeps says 'keep' and its hand does not change."
        ]
    return []


def _example(p: Phase, spec: GameSpec) -> list[str]:
    if isinstance(p, BettingPhase):
        return _example_betting(p, spec)
    if isinstance(p, SimultaneousPhase):
        return _example_simultaneous(p)
    if isinstance(p, AuctionPhase):
        return _example_auction(p)
    if isinstance(p, PeekPhase):
        return _example_peek(p)
    if isinstance(p, PositionPhase):
        return _example_position(p, spec)
    if isinstance(p, SideBetPhase):
        return _example_side_bet(p, spec)
    return _example_cards(p)


def _example_edges(spec: GameSpec, index: int) -> list[str]:
    p = spec.phases[index]
    if not any(e.when is not None for e in p.next):
        return []
    first = next(e for e in p.next if e.when is not None)
    conditions = sum(e.when is not None for e in p.next)
    rest = next((e.to for e in p.next if e.when is None), "showdown")
    after = (
        "the next condition is checked in the same way"
        if conditions > 1
        else f"play continues at {'the showdown' if rest == 'showdown' else 'phase ' + rest}"
    )
    return [
        f"Example of the branch: when this phase ends, the first condition is checked. If "
        f"{describe_predicate(first.when) if first.when else ''}, play goes to "
        f"{'the showdown' if first.to == 'showdown' else 'phase ' + first.to}, skipping every "
        f"phase in between; if not, {after}."
    ]


def _example_showdown(spec: GameSpec) -> list[str]:
    m = spec.showdown.metric
    size = max(1, cards_in_hand(spec))
    a, b = _example_hands(spec, size)
    if m.kind in ("rank_sum", "low_sum") and not m.use_board:
        sa, ta = _sum_score(spec, a)
        sb, tb = _sum_score(spec, b)
        if sa == sb:
            verdict = "the scores are equal: a tie, and each player takes back its own chips"
        elif (sa > sb) == (m.kind == "rank_sum"):
            verdict = "Alice wins the pot"
        else:
            verdict = "Bob wins the pot"
        return [
            f"Example: Alice shows {', '.join(a)} and scores {sa} ({'; '.join(ta)}); Bob shows "
            f"{', '.join(b)} and scores {sb} ({'; '.join(tb)}). With no showdown points from "
            f"options or positions, {verdict}.",
            "Example of showdown points: a player with +2 showdown points adds 2 to its score "
            + (
                "(which helps it)."
                if m.kind == "rank_sum"
                else "before the comparison; under "
                "this lower-wins metric the points are subtracted from its sum (which helps it)."
            ),
        ]
    if m.kind == "high_card" and not m.use_board:
        return [
            f"Example: Alice shows {', '.join(a)} and Bob shows {', '.join(b)}. Their highest "
            f"cards are compared first, then the next highest, and so on; with no showdown "
            f"points on either side, {'Alice' if a != b else 'nobody'} wins.",
            "Example of showdown points: a player with 1 showdown point beats a player with "
            "none, whatever their cards.",
        ]
    return [
        "Example: with no showdown points on either side, the hands (and the board where the "
        "metric uses it) are compared as described above; equal hands are a tie and each "
        "player takes back its own chips.",
        "Example of showdown points: a player with 1 showdown point beats a player with none, "
        "whatever their cards.",
    ]


# --- the paper's style, continued: the terms, the phases at a glance, one deal played out -------

# (phase kind, or "" for every game; term; meaning).  A game's rulebook defines the terms of the
# kinds of phase it has, so the list grows with the game.
TERMS: tuple[tuple[str, str, str], ...] = (
    ("", "Deal", "one play of the game, from the shuffle to the settlement of the pot"),
    ("", "Chips behind", "the chips a player still holds, not yet put into the pot"),
    ("", "Ante", "the chips each player puts into the pot before any card is dealt"),
    ("", "Pot", "the chips put in by both players; the winner of the deal takes all of them"),
    ("", "Private card", "a card in a player's hand, seen only by that player"),
    ("betting", "Check", "pass the turn without betting, allowed only when nothing is owed"),
    ("betting", "Bet", "put chips into the pot that the opponent must match to stay in"),
    ("betting", "Call", "put in exactly what is needed to match the opponent's bet"),
    ("betting", "Raise", "call the opponent's bet and add a further bet on top of it"),
    ("betting", "Fold", "give up the deal: the opponent takes the pot and no hand is shown"),
    ("reveal", "Board", "cards dealt face up in the middle, seen by both players"),
    (
        "simultaneous",
        "Simultaneous round",
        "both players choose an option without seeing the other's choice; then both are shown",
    ),
    (
        "auction",
        "Sealed bid",
        "a bid made in secret; the bids are compared only once both players have bid",
    ),
    ("peek", "Peek", "a private look at a card; the opponent learns that it happened, not what"),
    ("draw", "Draw", "take further private cards from the deck into the hand"),
    ("swap", "Swap", "exchange a card of the hand for another, as the phase's rule says"),
    ("position", "Position", "a named role held by at most one player, given by a rule"),
    (
        "side_bet",
        "Side bet",
        "a wager beside the pot on a proposition, settled at the end of the deal",
    ),
    ("", "Showdown", "the end of a deal without a fold: the hands are shown and compared"),
    ("", "Result", "a player's chips at the end of the deal minus its chips at the start"),
)


def _terms(spec: GameSpec) -> list[str]:
    kinds = {p.kind for p in spec.phases}
    lines = [
        f"- **{term}**: {meaning}." for kind, term, meaning in TERMS if not kind or kind in kinds
    ]
    if any(e.when is not None for p in spec.phases for e in p.next):
        lines.append(
            "- **Branch condition**: a condition checked when a phase ends; when it holds, play "
            "jumps to the phase it names and the phases in between are not played."
        )
    return lines


def _decisions(p: Phase) -> str:
    """Who decides what in phase ``p``, in a few words (the table of phases)."""
    seats = {"alice": "Alice", "bob": "Bob", "both": "Alice, then Bob"}
    if isinstance(p, BettingPhase):
        return "both in turn: check, bet, call, raise or fold"
    if isinstance(p, SimultaneousPhase):
        return "both at once: " + ", ".join(o.name for o in p.options)
    if isinstance(p, AuctionPhase):
        return "both bid in secret: " + ", ".join(str(b) for b in p.bids)
    if isinstance(p, PeekPhase):
        who = f"the {p.position} holder" if p.who == "position" else seats[p.who]
        return f"{who}: peek or pass" if p.optional else "none"
    if isinstance(p, DrawPhase):
        return f"{seats[p.who]}: draw or stand" if p.optional else "none"
    if isinstance(p, SwapPhase):
        return f"{seats[p.who]}: keep or swap a card"
    if isinstance(p, SideBetPhase):
        return "Alice, then Bob: side bet or pass"
    return "none"


def _phase_table(spec: GameSpec) -> list[str]:
    """One row per phase: its number, name, kind, decisions and where play goes next."""
    lines = [
        "| # | phase | kind | decisions | then |",
        "|---|---|---|---|---|",
    ]
    for i, p in enumerate(spec.phases):
        targets = [e.to for e in p.next] or list(successors(spec, i)[:1])
        then = " or ".join(
            "the showdown" if t == "showdown" else f"phase {t}" for t in dict.fromkeys(targets)
        )
        if any(e.when is not None for e in p.next):
            then += " (by its conditions)"
        lines.append(
            f"| {i + 1} | {p.title or p.id} ({p.id}) | {p.kind} | {_decisions(p)} | {then} |"
        )
    return lines


# The example deals: (play seed, the seat that bets, whose messages are shown).  The first shows
# the message each player receives at its first decision, the second (another shuffle, the other
# player betting) the message at its last decision, which carries the whole history a player
# sees late in a deal.  The same deals in every rulebook build.
EXAMPLE_DEALS: tuple[tuple[int, int, str], ...] = ((0, 0, "first"), (1, 1, "last"))


def _example_choice(seat: int, bettor: int, legal: tuple[str, ...]) -> str:
    """The choice an example deal shows: the ``bettor`` bets the smallest amount it may, the
    other player calls or checks; otherwise the first listed action other than folding (the
    deal reaches the showdown whenever the rules let it)."""

    def amount(action: str) -> int:
        return int(action.rsplit(" ", 1)[1])

    if seat == bettor:
        bets = [a for a in legal if a.startswith("bet ")]
        if bets:
            return min(bets, key=amount)
    for wanted in ("call", "check"):
        if wanted in legal:
            return wanted
    return next((a for a in legal if a != "fold"), legal[0])


def _status(state: State) -> str:
    return (
        f"(The pot holds {chips(state.pot())}; behind: Alice {state.stacks[0]}, "
        f"Bob {state.stacks[1]}.)"
    )


def _message(state: State, when: str) -> list[str]:
    seat = state.current_player
    pronoun = "her" if seat == 0 else "his"
    return [
        f"The message {NAMES[seat]} receives at {pronoun} {when} decision (the rulebook is "
        "sent before it):",
        "```",
        turn_prompt(state, seat),
        "```",
    ]


def _example_deal(spec: GameSpec, seed: int, bettor: int, messages: str) -> list[str]:
    """One complete deal of ``spec`` played by the engine (play ``seed``, the choices of
    ``_example_choice``): every event as the players are told it, the pot and the stacks
    before each decision where they changed, the phases a condition skips, and the messages
    sent at each player's ``first`` decision, or at the ``last`` decision of the deal, exactly
    as they are sent."""
    state = new_deal(spec, seed, tree=False)
    assert isinstance(state, State)
    ids = [p.id for p in spec.phases]
    out: list[str] = []
    shown: set[int] = set()
    last: tuple[int, list[str]] = (0, [])  # where the last decision's message goes, and it
    done = 0
    current = -1
    told = 0  # lines told in the current phase
    status = ""  # the last pot and stacks stated

    def close(upto: int) -> None:
        """End the current phase's narration; name the phases skipped before ``upto``."""
        if current >= 0 and not told:
            out.append("- (nothing is told to either player)")
        if upto > current + 1:
            skipped = ", ".join(ids[current + 1 : upto])
            out.append(f"Not played (a condition sent play past them): {skipped}.")

    def narrate() -> None:
        nonlocal done, current, told
        for event in state.events[done:]:
            seen, kind, _, data = event
            if kind == "phase":
                close(data)
                current, told = data, 0
                p = spec.phases[data]
                out.extend(["", f"Phase {data + 1}, {p.title or p.id} ({p.id}):"])
                continue
            if kind == "show":
                close(len(ids))
                current, told = -1, 0
                out.extend(["", "At the showdown:"])
            line = event_line(state, event, -1 if seen == PUBLIC else seen)
            out.append(f"- {line}" if seen == PUBLIC else f"- [{NAMES[seen]}] {line}")
            told += 1
        done = len(state.events)

    while not state.is_terminal():
        narrate()
        now = _status(state)
        if now != status:
            out.append(now)
            status = now
        seat = state.current_player
        if messages == "first" and seat not in shown:
            shown.add(seat)
            out += _message(state, "first")
        elif messages == "last":
            last = (len(out), _message(state, "last"))
        state.apply(_example_choice(seat, bettor, state.legal_actions()))
    narrate()
    at, message = last
    out[at:at] = message
    alice, bob = state.returns()
    return [*out, "", f"Result of this deal: Alice {alice:+d}, Bob {bob:+d}."]


def _example_deals(spec: GameSpec) -> list[str]:
    out = [
        "Here are complete deals of this game as the engine plays them: one shuffle each, and "
        "one choice among the legal actions at each decision (not advice: another choice is "
        "often better). A line marked with a player's name in brackets is told to that player "
        "only; every other line is told to both.",
    ]
    for number, (seed, bettor, messages) in enumerate(EXAMPLE_DEALS, start=1):
        out += [
            "",
            f"### Example deal {number}: {NAMES[bettor]} bets when {NAMES[bettor]} may, "
            f"{NAMES[1 - bettor]} calls or checks",
            *_example_deal(spec, seed, bettor, messages),
        ]
    return out


def cards_in_hand(spec: GameSpec) -> int:
    return spec.phases[0].count if isinstance(spec.phases[0], DealPhase) else 1


def paper_rulebook(spec: GameSpec) -> str:
    """The rulebook in the paper's style (Appendix B): an overview, the terms of the kinds of
    phase the game has, its phases at a glance, the information each player has, every rule
    stated as in the compact rulebook followed by a worked example with the game's own
    numbers, and complete deals played out on the engine with the messages the players
    receive.  Its length follows the game's size, as the paper's 8,600 to 39,000 characters
    do.  The consistency gate reads it exactly as the compact one (same sections)."""
    deck = spec.deck
    ranks = ", ".join(f"{r.label} (value {r.value})" for r in deck.ranks)
    suits = ", ".join(deck.suits)
    copies = f", {deck.copies} copies of each card" if deck.copies > 1 else ""
    cards = _cards(spec)
    kinds = [p.title or p.id for p in spec.phases]
    pot = 2 * spec.ante
    out = [
        f"# Rulebook: {spec.name}",
        "",
        "## Overview",
        "This is a two-player zero-sum card game between Alice and Bob, played one deal at a "
        "time. Your goal is to end the deal with as many chips as possible: whatever one player "
        "wins, the other loses, so every chip you gain is a chip your opponent loses.",
        f"A deal runs through {len(spec.phases)} phases in order ({', '.join(kinds)}), some of "
        "which may be skipped by the conditions stated below, and ends either when a player "
        "folds or at the showdown, where the hands are compared.",
        "Example: if Alice ends the deal with 3 chips more than she started with, Bob ends it "
        "with 3 chips fewer; Alice's chip lead over Bob is then 6.",
        "",
        "## Terms",
        *_terms(spec),
        "",
        "## The phases at a glance",
        *_phase_table(spec),
        "",
        "## Cards",
        f"The deck has {deck.size} cards: ranks {ranks}; suits {suits}{copies}. A card is "
        "written as its rank followed by its suit. The deck is shuffled before every deal.",
        f"The cards are: {', '.join(cards)}.",
        f"Example: {cards[-1]} is the card of rank {deck.ranks[-1].label} (value "
        f"{deck.ranks[-1].value}) in suit {deck.suits[-1]}; it outranks {cards[0]} (value "
        f"{deck.ranks[0].value}). Suits have no order of their own.",
        "",
        "## Chips",
        f"Each player starts with {chips(spec.stack)}. Each player antes {chips(spec.ante)} "
        "into the pot before the deal. You can never bet more than you have behind.",
        f"Example: after the antes the pot holds {chips(pot)} and each player has "
        f"{chips(spec.stack - spec.ante)} behind. Chips in the pot belong to nobody until the "
        "deal is settled.",
        "",
        "## What each player knows",
        "- You always see your own cards, the board (cards dealt face up), both players' chips "
        "behind, the pot, the current phase and every action announced so far.",
        "- You never see the opponent's private cards unless a rule shows you one (a peek, a "
        "swap with the opponent, or the showdown).",
        "- Positions are announced as their rules state (to both players, or to the holder only).",
        "Example: if your opponent peeks at one of your cards, you are told that it peeked, but "
        "not which card it saw.",
        "",
        "## Sequence of play",
    ]
    for i, p in enumerate(spec.phases):
        out.append("")
        out.append(phase_heading(i + 1, p))
        out.extend(_describe(p, spec))
        out.extend(_example(p, spec))
        out.append(_edges(spec, i))
        out.extend(_example_edges(spec, i))
    out += ["", "## Showdown", *_metric(spec), *_example_showdown(spec)]
    out += [
        "",
        "## Settlement",
        "- If a player folds, the other player takes the whole pot and the hands are not shown.",
        "- At the showdown both hands are shown and the winner takes the whole pot.",
        "- On a tie, each player takes back exactly the chips it put into the pot.",
        "- Your result for the deal is your chips at the end minus your chips at the start.",
        f"Example: Alice and Bob each put {chips(spec.ante)} in as antes and then 2 chips "
        f"each in betting; the pot holds {chips(pot + 4)}. If Bob wins at the showdown he "
        f"takes all {pot + 4}: his result is +{spec.ante + 2} and Alice's is -{spec.ante + 2}. "
        "On a tie each takes back what it put in, and both results are 0.",
        "",
        "## Example deals",
        *_example_deals(spec),
        "",
        "## Your turn",
        "At each decision you receive what you can see so far and the list of legal actions. "
        'Reply with a JSON object {"action": "<one of the legal actions>"}, copying the action '
        "exactly as listed.",
        'Example: if the legal actions are "check" and "bet 2", reply {"action": "bet 2"} to '
        "bet. A reply that is not one of the listed actions cannot be played.",
    ]
    return "\n".join(out) + "\n"
