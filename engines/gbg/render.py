"""What a seat sees, in words: observations, event lines and the per-turn prompt.

The paper's "Per-turn observation prompt": the game state first (phase, own hand, board, each
stack, the pot, positions, who the opponent is), then the public events and the private
observations the rules show this seat, then the decision with its legal menu and the request
for a JSON reply ``{"action": <chosen option>}``.  Everything here reads the event log through
the seat's visibility, never the hidden state.

``State.observation(seat)`` returns ``observation`` below: the state asks its compiled game,
which calls this module, so the renderer reads the state without the state importing it.
"""

from __future__ import annotations

import json
from typing import Any

from engines.gbg.state import PUBLIC, Event, State

NAMES = ("Alice", "Bob")


def _who(seat: int, viewer: int) -> str:
    return f"{NAMES[seat]} (you)" if seat == viewer else NAMES[seat]


def chips(n: int) -> str:
    return f"{n} chip" if abs(n) == 1 else f"{n} chips"


def event_line(state: State, event: Event, viewer: int) -> str:
    """One event as a line of text, phrased for ``viewer``."""
    _, kind, seat, data = event
    label = state.g.label_of
    if kind == "phase":
        phase = state.g.spec.phases[data]
        return f"-- Phase {data + 1}: {phase.title or phase.id} ({phase.id}) --"
    if kind == "card":
        return f"You are dealt {label[data]}."
    if kind == "board":
        return f"A card is dealt face up to the board: {label[data]}."
    if kind == "act":
        return f"{_who(seat, viewer)}: {data}."
    if kind == "blinds":
        return f"Forced bets: Alice posts {chips(data[0])}, Bob posts {chips(data[1])}."
    if kind == "secret":
        return f"You chose {data} (hidden from your opponent until both have chosen)."
    if kind == "reveal_choices":
        return f"Choices revealed: Alice chose {data[0]}, Bob chose {data[1]}."
    if kind == "transfer":
        return f"{_who(seat, viewer)} receives {chips(data)} from the other player."
    if kind == "auction":
        bid_a, bid_b, price = data
        outcome = (
            "nobody wins (tie, no sale)"
            if seat < 0
            else f"{_who(seat, viewer)} wins and pays {chips(price)} into the pot"
        )
        return f"Auction: Alice bid {bid_a}, Bob bid {bid_b}; {outcome}."
    if kind == "position":
        name, holder = data
        if holder == viewer:
            return f"You hold the {name} position."
        if holder < 0:
            return f"Nobody holds the {name} position."
        return f"{NAMES[holder]} holds the {name} position."
    if kind == "peek":
        return f"You see one of your opponent's cards: {label[data]}."
    if kind == "peek_top":
        return f"You see the top card of the deck: {label[data]}."
    if kind == "risk":
        if data:
            return f"{_who(seat, viewer)}'s risky peek costs {chips(data)} (paid into the pot)."
        return f"{_who(seat, viewer)}'s risky peek costs nothing."
    if kind == "discard":
        return f"You give up {label[data]}."
    if kind == "board_swap":
        given, taken = data
        return f"{_who(seat, viewer)} puts {label[given]} on the board and takes {label[taken]}."
    if kind == "swap_take":
        given, taken = data
        if seat == viewer:
            return f"You give {label[given]} and take {label[taken]} from your opponent."
        return f"Your opponent takes {label[taken]} from you and gives you {label[given]}."
    if kind == "fold":
        return f"{_who(seat, viewer)} folds."
    if kind == "show":
        a, b = (" ".join(label[c] for c in hand) for hand in data)
        return f"Showdown: Alice shows {a}; Bob shows {b}."
    if kind == "side_settle":
        verdict = "wins" if data else "loses"
        return f"{_who(seat, viewer)}'s side bet {verdict}."
    if kind == "settle":
        if seat < 0:
            return "Tie: each player takes back the chips it put into the pot."
        return f"{_who(seat, viewer)} wins the pot."
    return f"{kind}: {data}"


def visible_events(state: State, viewer: int) -> list[Event]:
    return [ev for ev in state.events if ev[0] == PUBLIC or ev[0] == viewer]


def observation(state: State, seat: int) -> dict[str, Any]:
    """The structured observation of ``seat`` (see the module docstring)."""
    g = state.g
    phase = g.spec.phases[state.phase] if state.phase >= 0 else None
    record: dict[str, Any] = {
        "game": g.spec.name,
        "you": NAMES[seat],
        "opponent": NAMES[1 - seat],
        "phase": {"id": state.phase_id, "title": phase.title if phase else "Showdown"},
        "hand": [g.label_of[c] for c in state.hands[seat]],
        "board": [g.label_of[c] for c in state.board],
        "stacks": {"Alice": state.stacks[0], "Bob": state.stacks[1]},
        "pot": state.pot(),
        "positions": state.known_positions(seat),
        "events": [event_line(state, ev, seat) for ev in visible_events(state, seat)],
        "to_act": state.current_player == seat,
    }
    if state.current_player == seat:
        record["legal_actions"] = list(state.legal_actions())
    return record


def turn_prompt(state: State, seat: int) -> str:
    """The per-turn message sent to an agent (the rulebook is sent once, as the system prompt)."""
    obs = observation(state, seat)
    lines = [
        f"You are {obs['you']}; your opponent is {obs['opponent']}.",
        f"Current phase: {obs['phase']['title']} ({obs['phase']['id']}).",
        f"Your hand: {' '.join(obs['hand']) or '(no cards)'}.",
        f"Board: {' '.join(obs['board']) or '(empty)'}.",
        f"Chips behind: Alice {obs['stacks']['Alice']}, Bob {obs['stacks']['Bob']}. "
        f"Pot: {obs['pot']}.",
    ]
    if obs["positions"]:
        held = ", ".join(f"{name}: {who}" for name, who in sorted(obs["positions"].items()))
        lines.append(f"Positions you know of: {held}.")
    lines.append("")
    lines.append("What has happened so far (what you are allowed to see):")
    lines.extend(f"- {line}" for line in obs["events"] or ["(nothing yet)"])
    lines.append("")
    if obs["to_act"]:
        menu = json.dumps(obs["legal_actions"], ensure_ascii=False)
        lines.append(f"It is your turn. Legal actions: {menu}")
        lines.append(
            'Reply with a JSON object of the form {"action": "<one of the legal actions>"}.'
        )
    return "\n".join(lines)
