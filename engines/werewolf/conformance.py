"""The moderator's rules, checked from the outside: a readable oracle over a game's record.

Why it exists: as ``engines.gbg.conformance`` is for generated games, this is the check every
Werewolf game must pass (a harness above the engine; no production module imports it).
``violations`` re-derives the rules from the deal, the history of moves and the event log
alone, without calling the moderator's phase code, and names every departure:

1. the game is within its bounds: at most ``rules.max_decisions`` moves and ``max_days`` days;
2. every event has the audience its kind prescribes (``engines.werewolf.events``): roles to
   their holder, the pack and nominations to the Werewolves, a protection to the Doctor, an
   inspection to the Seer, a ballot to its voter, everything else public;
3. each move is answered by exactly one event of its kind, by its seat, in order; the seat was
   alive, and its choice was legal: a Werewolf nominated a living non-Werewolf, the Doctor a
   living player, the Seer another living player, a voter another living player (or passed);
4. night order: the living Werewolves in seat order, then the Doctor, then the Seer, each once;
   the day's statements go round the circle ``discussion_rounds`` times from its starting
   seat; then every living player votes in seat order;
5. a Seer's finding is the truth; a statement is the filter's output for what was said;
6. dawn kills the last nomination unless the Doctor protected it; the vote exiles exactly the
   player holding more than half of the living players' votes;
7. the game ends exactly when a team has won (no Werewolf alive, or as many Werewolves as
   others), or after the last day's vote, with the winner and reason that say so, and the end
   reveals the true roles;
8. replaying the history on the deal gives the same log.
"""

from __future__ import annotations

from engines.werewolf.events import Event
from engines.werewolf.filter import filter_statement
from engines.werewolf.roles import SEATS, Role, Team, seat_of
from engines.werewolf.state import Move, WerewolfState, replay
from engines.werewolf.view import PASS

ACTION_EVENTS = {
    "nominate": "nominate",
    "protect": "protect",
    "inspect": "inspect",
    "speak": "statement",
    "vote": "ballot",
}


def _audience_problem(event: Event, roles: tuple[Role, ...]) -> str | None:
    wolves = frozenset(s for s in range(SEATS) if roles[s] is Role.WEREWOLF)
    expected: dict[str, frozenset[int] | None] = {
        "pack": wolves,
        "nominate": wolves,
        "protect": frozenset({roles.index(Role.DOCTOR)}),
        "inspect": frozenset({roles.index(Role.SEER)}),
    }
    if event.kind in ("role", "ballot"):
        want: frozenset[int] | None = frozenset({event.actor}) if event.actor is not None else None
    else:
        want = expected.get(event.kind)
    if event.audience != want:
        return f"{event.kind} event of day {event.day} has audience {event.audience}, not {want}"
    return None


def _target(action: str) -> int | None:
    return None if action == PASS else seat_of(action)


def violations(state: WerewolfState) -> list[str]:
    """Every departure of ``state`` from the rules (module docstring); empty when it conforms."""
    rules, roles = state.rules, state.roles
    problems: list[str] = []
    if len(state.history) > rules.max_decisions:
        problems.append(f"{len(state.history)} moves, more than the bound {rules.max_decisions}")
    if state.day > rules.max_days:
        problems.append(f"day {state.day} is past max_days {rules.max_days}")
    problems += [p for e in state.events if (p := _audience_problem(e, roles)) is not None]

    wolves = [s for s in range(SEATS) if roles[s] is Role.WEREWOLF]
    doctor, seer = roles.index(Role.DOCTOR), roles.index(Role.SEER)
    alive = set(range(SEATS))
    moves = list(state.history)
    expected_queue: list[tuple[str, int]] = []
    nominations: list[int] = []
    protected: int | None = None
    ballots: list[tuple[int, int | None]] = []
    day = 0
    ended = False

    def begin_night() -> None:
        nonlocal day, nominations, protected
        day += 1
        nominations, protected = [], None
        expected_queue[:] = [("nominate", w) for w in wolves if w in alive]
        expected_queue.extend(
            (k, s) for k, s in (("protect", doctor), ("inspect", seer)) if s in alive
        )

    def winner_now() -> tuple[Team, str] | None:
        w = sum(1 for s in wolves if s in alive)
        if w == 0:
            return Team.VILLAGE, "werewolves_dead"
        if w >= len(alive) - w:
            return Team.WEREWOLVES, "parity"
        return None

    events = [e for e in state.events if e.kind not in ("role", "pack")]
    k = 0  # the next move
    for i, event in enumerate(events):
        following = events[i + 1] if i + 1 < len(events) else None
        if ended:  # the rules ended the game at the previous event: this must be its end
            if event.kind != "game_over" or event is not events[-1]:
                problems.append(f"{event.kind} event after the end")
            break
        if event.kind == "night":
            begin_night()
            if event.day != day:
                problems.append(f"night {event.day} announced as night {day}")
            continue
        if event.kind in ACTION_EVENTS.values():
            if k >= len(moves):
                problems.append(f"{event.kind} event without a move")
                break
            move = moves[k]
            k += 1
            problems += _check_move(
                move, event, expected_queue, alive, roles, rules.statement_chars
            )
            if move.kind == "nominate" and move.action != PASS:
                nominations.append(seat_of(move.action))
            elif move.kind == "protect":
                protected = _target(move.action)
            elif move.kind == "vote":
                ballots.append((move.seat, _target(move.action)))
            continue
        if event.kind == "dawn":
            if expected_queue:
                problems.append(f"dawn of day {day} before {expected_queue[0]} moved")
            victim = nominations[-1] if nominations else None
            died = victim if victim is not None and victim != protected else None
            if event.target != died:
                problems.append(f"dawn of day {day} kills {event.target}, the rules kill {died}")
            if died is not None:
                alive.discard(died)
            end = winner_now()
            if end is None:
                start = (day - 1) % SEATS
                circle = sorted(alive, key=lambda s: (s - start) % SEATS)
                expected_queue[:] = [
                    ("speak", s) for _ in range(rules.discussion_rounds) for s in circle
                ]
                expected_queue.extend(("vote", s) for s in sorted(alive))
                ballots = []
            else:
                ended = _check_end(state, following, end, problems)
            continue
        if event.kind == "votes":
            if expected_queue:
                problems.append(f"votes of day {day} announced before {expected_queue[0]} moved")
            if list(event.ballots) != ballots:
                problems.append(f"votes of day {day} announced as {event.ballots}, cast {ballots}")
            continue
        if event.kind == "exile":
            counts: dict[int, int] = {}
            for _, t in ballots:
                if t is not None:
                    counts[t] = counts.get(t, 0) + 1
            majority = [s for s, n in counts.items() if n > len(alive) / 2]
            exiled = majority[0] if majority else None
            if event.target != exiled:
                problems.append(f"day {day} exiles {event.target}, the rules exile {exiled}")
            if exiled is not None:
                alive.discard(exiled)
            end = winner_now()
            if end is None and day >= rules.max_days:
                end = Team.WEREWOLVES, "day_limit"
            if end is not None:
                ended = _check_end(state, following, end, problems)
            continue
        if event.kind == "game_over":
            problems.append("the game ended when no team had won")
            break
        problems.append(f"unexpected {event.kind} event")
    if k != len(moves):
        problems.append(f"{len(moves) - k} moves without their event")
    if not state.is_over and state.request is not None and expected_queue:
        want = expected_queue[0]
        if (state.request.kind, state.request.seat) != want:
            problems.append(f"the moderator asks {state.request}, the rules ask {want}")
    try:
        if state.events != replay(roles, state.history, rules).events:
            problems.append("replaying the history gives another log")
    except ValueError as exc:
        problems.append(f"the history does not replay: {exc}")
    return problems


def _check_move(
    move: Move,
    event: Event,
    queue: list[tuple[str, int]],
    alive: set[int],
    roles: tuple[Role, ...],
    limit: int,
) -> list[str]:
    """Rules 3-5 for one move and its event."""
    out: list[str] = []
    where = f"move {move.ply} ({move.kind} of seat {move.seat})"
    if ACTION_EVENTS[move.kind] != event.kind or event.actor != move.seat:
        return [f"{where} answered by a {event.kind} event of seat {event.actor}"]
    if not queue or queue[0] != (move.kind, move.seat):
        out.append(f"{where} out of turn; the rules ask {queue[0] if queue else 'nothing'}")
    else:
        queue.pop(0)
    if move.seat not in alive:
        out.append(f"{where} by a dead player")
    if move.kind == "speak":
        if event.text != filter_statement(move.action, limit):
            out.append(f"{where}: the log holds {event.text!r}, not the filtered statement")
        return out
    target = _target(move.action)
    if event.target != target:
        out.append(f"{where}: the event names {event.target}, the move {target}")
    if target is not None:
        legal = target in alive
        if move.kind == "nominate":
            legal = legal and roles[target] is not Role.WEREWOLF
        elif move.kind in ("inspect", "vote"):
            legal = legal and target != move.seat
        if not legal:
            out.append(f"{where}: {move.action} is not a legal {move.kind}")
        if move.kind == "inspect" and event.werewolf != (roles[target] is Role.WEREWOLF):
            out.append(f"{where}: the Seer was told {event.werewolf} about {move.action}")
    return out


def _check_end(
    state: WerewolfState, following: Event | None, end: tuple[Team, str], problems: list[str]
) -> bool:
    """Rule 7 at the point the rules end the game: the next event ends it, truthfully."""
    if following is None or following.kind != "game_over":
        problems.append(f"the rules end the game ({end[1]}); the moderator goes on")
        return True
    if (following.winner, following.reason) != end:
        problems.append(f"the game ends {following.winner}/{following.reason}; the rules say {end}")
    if following.roles != state.roles:
        problems.append("the end reveals other roles than the deal's")
    return True
