"""``genstrat game``: look at, simulate, or play one game.

- ``game show SEED [--json]``: the rulebook, or the spec as JSON with its ``spec_hash``.
- ``game simulate SEED --deals N [--json]``: random-play statistics and deals per second.
- ``game play SEED [--seat alice|bob] [--vs AGENT] [--seed S]``: a person plays one deal in the
  terminal against a built-in bot; ``rules`` at any prompt prints the rulebook.

``--config default|paper|FILE`` is the generation configuration a seed is generated under and
``--style compact|paper`` the rulebook's; both default to the run profile's
(``$GENSTRAT_PROFILE``), so ``genstrat game show 4643`` under the paper profile is the paper's
Section 3 game.

``SEED`` is a generator seed, a preset name, a spec JSON file, or an OpenSpiel game
(``openspiel:chess``, ``openspiel:go(board_size=9)``, ``openspiel:hunl``; ``arena.games``): its
rules text, random-play figures, or a game in the terminal against a built-in agent (``--vs
mcts``, ``random``, ``stockfish`` on chess; the default is ``mcts``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pipelines.commands import add_game_options, count, game_options


def register(subparsers: Any) -> None:
    game = subparsers.add_parser("game", help="show, simulate or play a game")
    sub = game.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)

    show = sub.add_parser("show", help="print the rulebook (or the spec as JSON)")
    show.add_argument("seed", metavar="SEED", help="seed, preset name or spec .json file")
    show.add_argument("--json", action="store_true", help="the spec as JSON with spec_hash")
    add_game_options(show)
    show.set_defaults(handler=show_command)

    sim = sub.add_parser("simulate", help="random-play statistics")
    sim.add_argument("seed", metavar="SEED")
    sim.add_argument("--deals", type=count(1, 100_000_000), default=10_000, metavar="N")
    sim.add_argument("--seed-offset", type=count(0), default=0, metavar="K", help="first play seed")
    sim.add_argument("--json", action="store_true")
    add_game_options(sim, style=False)
    sim.set_defaults(handler=simulate_command)

    play = sub.add_parser("play", help="play one deal in the terminal against a bot")
    play.add_argument("seed", metavar="SEED")
    play.add_argument("--seat", choices=("alice", "bob"), default="alice")
    play.add_argument(
        "--vs",
        default=None,
        metavar="AGENT",
        help="random | heuristic (default) | ...; OpenSpiel games: mcts (default) | random | "
        "stockfish",
    )
    play.add_argument(
        "--seed",
        dest="play_seed",
        type=int,
        default=None,
        metavar="S",
        help="play seed (default: random)",
    )
    add_game_options(play)
    play.set_defaults(handler=play_command)


def show_command(args: argparse.Namespace) -> int:
    from arena.games import resolve_game
    from engines.gbg import rulebook
    from engines.openspiel import is_openspiel_token

    if is_openspiel_token(args.seed):
        return _openspiel_show(args)
    config, style = game_options(args)
    spec = resolve_game(args.seed, config)
    if args.json:
        data = json.loads(spec.canonical_json())
        print(json.dumps({"spec_hash": spec.spec_hash, "spec": data}, indent=2, ensure_ascii=False))
    else:
        print(rulebook(spec, style=style), end="")
    return 0


def simulate_command(args: argparse.Namespace) -> int:
    from arena.games import resolve_game
    from engines.gbg.random_play import simulate
    from engines.openspiel import is_openspiel_token

    if is_openspiel_token(args.seed):
        return _openspiel_simulate(args)
    config, _ = game_options(args)
    spec = resolve_game(args.seed, config)
    stats = simulate(spec, args.deals, first_seed=args.seed_offset)
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    print(f"{spec.name}  ({spec.spec_hash[:12]})  {stats['deals']} random deals")
    print(f"  decisions per player      {stats['mean_decisions_per_player']:.2f}")
    print(
        f"  decided deals             {stats['decided']}  "
        f"(Alice wins {stats['alice_win_rate']:.1%} of them)"
    )
    print(f"  Alice's mean chip delta   {stats['alice_mean_chips']:+.3f}")
    print(f"  folds / showdowns         {stats['folds']} / {stats['showdowns']}")
    reached = ", ".join(f"{k} {v:.0%}" for k, v in stats["phase_reach"].items())
    print(f"  phases reached            {reached}")
    print(f"  deals per second          {stats['deals_per_second']:,.0f}")
    return 0


def play_command(args: argparse.Namespace) -> int:
    import random

    from arena.games import resolve_game
    from engines.agents import builtin_agent
    from engines.gbg import new_deal, rulebook
    from engines.gbg.render import event_line, turn_prompt
    from engines.openspiel import is_openspiel_token

    if is_openspiel_token(args.seed):
        return _openspiel_play(args)
    config, style = game_options(args)
    spec = resolve_game(args.seed, config)
    bot = builtin_agent(args.vs or "heuristic")
    me = 0 if args.seat == "alice" else 1
    play_seed = (
        args.play_seed if args.play_seed is not None else random.SystemRandom().randrange(2**31)
    )
    rng = random.Random(play_seed)
    state = new_deal(spec, play_seed)
    print(
        f"{spec.name}: you are {args.seat.capitalize()} against the {bot.name} bot "
        f"(play seed {play_seed}). Type 'rules' for the rulebook, 'quit' to stop.\n"
    )
    while not state.is_terminal():
        seat = state.current_player
        if seat != me:
            action = bot.act(state, seat, rng)
            state.apply(action)
            continue
        print(turn_prompt(state, me))
        legal = state.legal_actions()
        for i, action in enumerate(legal, 1):
            print(f"  {i}. {action}")
        choice = _ask(legal, spec_rules=lambda: rulebook(spec, style=style))
        if choice is None:
            print("Stopped.")
            return 1
        state.apply(choice)
        print()
    seen = [ev for ev in state.events if ev[0] in (2, me)]
    for ev in seen[-3:]:
        print(event_line(state, ev, me))
    mine = state.returns()[me]
    print(
        f"\nResult: you {'won' if mine > 0 else 'lost' if mine < 0 else 'broke even,'} "
        f"{abs(mine)} chip{'s' if abs(mine) != 1 else ''}."
    )
    return 0


def _ask(legal: tuple[str, ...], spec_rules: Any) -> str | None:
    """Read a choice: its number or its text; ``rules`` prints the rulebook."""
    while True:
        try:
            raw = input("your action> ").strip()
        except EOFError:
            return None
        if raw.lower() in ("quit", "exit", "q"):
            return None
        if raw.lower() in ("rules", "help", "?"):
            print(spec_rules())
            continue
        if raw.isdigit() and 1 <= int(raw) <= len(legal):
            return legal[int(raw) - 1]
        for action in legal:
            if raw.lower() == action.lower():
                return action
        print(
            f"not a legal action: {raw!r}; type a number 1-{len(legal)} or an action as listed",
            file=sys.stderr,
        )


# --- OpenSpiel games (engines.openspiel) -------------------------------------------------------


def _openspiel_spec(token: str) -> Any:
    """``engines.openspiel.parse_openspiel(token)``, with the process's own stderr held while
    OpenSpiel runs: it writes ``OpenSpiel exception: ...`` there before it raises, and the
    one-line error says the same (issue 43). What it wrote is given back unless parsing failed."""
    import os
    import tempfile

    from engines.openspiel import parse_openspiel

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            spec = parse_openspiel(token)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        held.seek(0)
        written = held.read()
    if written:
        os.write(2, written)
    return spec


def _openspiel_show(args: argparse.Namespace) -> int:
    from engines.openspiel.text import rules_text

    spec = _openspiel_spec(args.seed)
    if args.json:
        payload = {"spec_hash": spec.spec_hash, "spec": spec.canonical()}
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        print(rules_text(spec), end="")
    return 0


def _openspiel_simulate(args: argparse.Namespace) -> int:
    from engines.openspiel.random_play import simulate

    spec = _openspiel_spec(args.seed)
    stats = simulate(spec, args.deals, first_seed=args.seed_offset)
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    print(f"{spec.token}  ({spec.spec_hash[:12]})  {stats['deals']} random games")
    print(f"  moves per game            {stats['mean_moves']:.1f}")
    print(
        f"  decided games             {stats['decided']}  "
        f"(Alice wins {stats['alice_win_rate']:.1%} of them)"
    )
    print(f"  Alice's mean return       {stats['alice_mean_return']:+.3f}")
    print(f"  drawn at the move cap     {stats['adjudicated_at_cap']}")
    print(f"  moves per second          {stats['moves_per_second']:,.0f}")
    return 0


def _openspiel_play(args: argparse.Namespace) -> int:
    import random

    from arena.reference_engines import agent_plays, make_builtin
    from engines.openspiel.boards import position_text
    from engines.openspiel.text import compact_menu, move_history, rules_text, side_name

    spec = _openspiel_spec(args.seed)
    name = args.vs or "mcts"
    bot = make_builtin(name)
    if not agent_plays(name, spec):
        raise ValueError(f"built-in agent {name!r} does not play {spec.token}")
    me = 0 if args.seat == "alice" else 1
    play_seed = (
        args.play_seed if args.play_seed is not None else random.SystemRandom().randrange(2**31)
    )
    rng = random.Random(play_seed)
    state = spec.new_deal(play_seed)
    print(
        f"{spec.token}: you are {args.seat.capitalize()} ({side_name(spec.family, me)}) against "
        f"the {name} bot (play seed {play_seed}). Type 'rules' for the rules, 'quit' to stop.\n"
    )
    try:
        while not state.is_terminal():
            seat = state.current_player
            if seat != me:
                move = bot.act(state, seat, rng)
                print(f"{name} plays {move}")
                state.apply(move)
                continue
            print(position_text(state, me), end="")  # the board in Unicode, or the cards
            print(f"Moves so far: {move_history(state, me)}")
            legal = state.legal_actions()
            print("Legal moves: " + ", ".join(compact_menu(legal)))
            choice = _ask_move(state, lambda: rules_text(spec))
            if choice is None:
                print("Stopped.")
                return 1
            state.apply(choice)
            print()
    finally:
        close = getattr(bot, "close", None)
        if close is not None:
            close()
    print(position_text(state, me), end="")  # the final position
    mine = state.returns()[me]
    how = f" ({state.adjudicated})" if state.adjudicated else ""
    verdict = "won" if mine > 0 else "lost" if mine < 0 else "drew"
    amount = (
        f" {abs(mine)} chip{'s' if abs(mine) != 1 else ''}"
        if spec.family == "universal_poker"
        else ""
    )
    print(f"\nResult: you {verdict}{amount}{how}.")
    return 0


def _ask_move(state: Any, rules: Any) -> str | None:
    """Read a move by its name (leniently, as a model's reply is read); ``rules`` prints the
    rules text."""
    from engines.openspiel.text import read_move

    while True:
        try:
            raw = input("your move> ").strip()
        except EOFError:
            return None
        if raw.lower() in ("quit", "exit", "q"):
            return None
        if raw.lower() in ("rules", "help", "?"):
            print(rules())
            continue
        move = raw if raw in state.legal_actions() else read_move(state, raw)
        if move is not None:
            return str(move)
        print(f"not a legal move: {raw!r}; type a move as listed", file=sys.stderr)
