"""Train on fresh games, test on unseen ones: a tabular learner through the Gymnasium wrapper
(issue 45, item 2).

A GENSTRAT learner never sees its test games: they are generated after it is trained.  This
benchmark measures what that costs a standard tabular learner.  Steps:

1. Games: accepted games of ``--config`` (the acceptance filter of the seed pool,
   ``engines.gbg.seed_pool.screen_seed``), ``--train-games`` from seeds counted up from
   ``--train-start`` and ``--test-games`` from ``--test-start`` (disjoint ranges: the held-out
   games are games the learner never played).
2. The learner: tabular Q-learning (Watkins 1989; one-step, no discount, rewards are the chips
   at the end of the deal) over a description of the decision that means the same in every
   game, since information states of one game never recur in another:
   - the state: the seat's estimated hand strength (``engines.agents.builtin.hand_strength``,
     the chance that its hand beats an unseen one at showdown, from the cards the seat knows),
     in five bins; the kinds of action on the menu (fold, check, call, bet, raise, bid, peek,
     draw, swap, side bet, pass, keep, stand, a game's own option); the pot as a share of all
     the chips, in three bins;
   - the actions: an action kind, with the smallest or the largest amount for bets, raises and
     bids; a kind with several concrete actions (swap this card or that, a game's options) is
     played uniformly among them.
   It plays ``--episodes`` deals of each training game through ``GenstratEnv`` (seats
   alternating, opponents alternating between ``random`` and ``heuristic``), epsilon-greedy
   (epsilon 0.1), with step size max(1/n, 0.02) per state-action pair.
3. Evaluation: on every game, each agent (the learner, greedy, playing uniformly where its
   table has no entry; the built-in ``random`` and ``heuristic``) plays ``--eval-deals`` play
   seeds in both seats (paired deals) against each opponent (``random``, ``heuristic``), all
   through the Gymnasium wrapper.  A game's figure is the agent's mean chips per deal; the
   table reports the mean over games with a 95% interval over games (t quantile), on the
   held-out games and, for comparison, on the training games; and the learner's paired
   difference to each baseline on the held-out games.

    .venv/bin/python benchmarks/heldout_generalization.py [--train-games 24] [--test-games 24]
        [--episodes 1500] [--eval-deals 100] [--config default] [--json] [--out DIR]

The default run takes about 80 s of CPU time on one core (79 s on 2026-12-07); docs/ADAPTERS.md
shows its table.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from scipy import stats

from arena.adapters.gymnasium_env import GenstratEnv
from arena.games import generation_config
from engines.agents.builtin import HeuristicAgent, RandomAgent, hand_strength
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.engine import State
from engines.gbg.generator import GenerationConfig
from engines.gbg.rng import derive_seed
from engines.gbg.seed_pool import screen_seed
from engines.gbg.spec import GameSpec
from engines.tournament.match import seat_rng

OPPONENTS = ("random", "heuristic")
AMOUNT_VERBS = ("bet", "raise", "bid")
FIXED_VERBS = frozenset(
    {"fold", "check", "call", "peek", "pass", "draw", "stand", "keep", "swap", "side_bet"}
)
EPSILON = 0.1
MIN_STEP = 0.02
EVAL_SALT = 0xE7A1


def accepted_games(start: int, count: int, config: GenerationConfig) -> list[tuple[int, GameSpec]]:
    """The first ``count`` accepted games of ``config`` from seed ``start`` on."""
    found: list[tuple[int, GameSpec]] = []
    seed = start
    settings = AcceptanceSettings()
    while len(found) < count:
        verdict = screen_seed(seed, config, settings)
        if verdict["accepted"]:
            found.append((seed, GameSpec.model_validate_json(verdict["spec_json"])))
        seed += 1
    return found


def kind(action: str) -> str:
    """An action's kind (a game's own option names are all ``option``)."""
    verb = action.split(" ", 1)[0]
    return verb if verb in FIXED_VERBS or verb in AMOUNT_VERBS else "option"


def abstract_actions(legal: tuple[str, ...]) -> dict[str, list[str]]:
    """``{abstract action: the concrete actions it stands for}`` for a menu."""
    out: dict[str, list[str]] = {}
    for action in legal:
        out.setdefault(kind(action), []).append(action)
    for verb in AMOUNT_VERBS:
        sized = out.pop(verb, None)
        if sized:
            by_amount = sorted(sized, key=lambda a: int(a.split(" ")[1]))
            out[f"{verb} min"] = [by_amount[0]]
            out[f"{verb} max"] = [by_amount[-1]]
    return out


def describe(deal: State, seat: int, rng: random.Random) -> tuple[Any, ...]:
    """The game-independent state of the learner's decision (see the module docstring)."""
    strength = hand_strength(deal, seat, rng)
    kinds = tuple(sorted({kind(a) for a in deal.legal_actions()}))
    pot = deal.pot() / (2 * deal.spec.stack)
    return (min(int(strength * 5), 4), kinds, 0 if pot < 0.15 else 1 if pot < 0.4 else 2)


@dataclass
class QLearner:
    """Tabular Q-learning over ``describe``'s states and ``abstract_actions``."""

    q: dict[tuple[Any, ...], dict[str, float]] = field(default_factory=dict)
    n: Counter[tuple[tuple[Any, ...], str]] = field(default_factory=Counter)

    def choose(
        self, state: tuple[Any, ...], options: list[str], rng: random.Random, explore: bool
    ) -> str:
        values = self.q.get(state)
        known = [o for o in options if values is not None and o in values]
        if not known or (explore and rng.random() < EPSILON):
            return rng.choice(options)
        assert values is not None
        best = max(values[o] for o in known)
        return rng.choice([o for o in known if values[o] == best])

    def update(self, state: tuple[Any, ...], action: str, target: float) -> None:
        key = (state, action)
        self.n[key] += 1
        row = self.q.setdefault(state, {})
        old = row.get(action, 0.0)
        row[action] = old + max(1.0 / self.n[key], MIN_STEP) * (target - old)

    def value(self, state: tuple[Any, ...], options: list[str]) -> float:
        row = self.q.get(state, {})
        known = [row[o] for o in options if o in row]
        return max(known) if known else 0.0


Policy = Callable[[GenstratEnv, random.Random], int]


def play_deal(env: GenstratEnv, play_seed: int, policy: Policy, rng: random.Random) -> float:
    """One deal through the wrapper; the learner's chips."""
    env.reset(seed=play_seed)
    while True:
        mine = env.deal.current_player == env.seat
        action = policy(env, rng) if mine else env.wait_action
        _, reward, terminated, _, _ = env.step(action)
        if terminated:
            return float(reward)


def learner_policy(learner: QLearner, coverage: Counter[str]) -> Policy:
    def act(env: GenstratEnv, rng: random.Random) -> int:
        deal = env.deal
        options = abstract_actions(deal.legal_actions())
        state = describe(deal, env.seat, rng)
        known = learner.q.get(state)
        coverage["known" if known and any(o in known for o in options) else "unknown"] += 1
        chosen = learner.choose(state, list(options), rng, explore=False)
        return env.game.action_id(deal, rng.choice(options[chosen]))

    return act


def builtin_policy(agent: Any) -> Policy:
    def act(env: GenstratEnv, rng: random.Random) -> int:
        deal = env.deal
        return env.game.action_id(deal, agent.act(deal, env.seat, rng))

    return act


def train(games: list[tuple[int, GameSpec]], episodes: int, seed: int) -> QLearner:
    """Q-learning through the wrapper on each training game in turn (module docstring)."""
    learner = QLearner()
    rng = random.Random(seed)
    for game_seed, spec in games:
        made = {
            (opponent, seat): GenstratEnv(spec, opponent=opponent, seat=seat)
            for opponent in OPPONENTS
            for seat in (0, 1)
        }
        for episode in range(episodes):
            env = made[(OPPONENTS[episode % 2], (episode // 2) % 2)]
            env.reset(seed=derive_seed(seed, game_seed, episode))
            previous: tuple[tuple[Any, ...], str] | None = None
            while True:
                deal = env.deal
                if deal.current_player != env.seat:  # over before the learner's decision
                    env.step(env.wait_action)
                    break
                options = abstract_actions(deal.legal_actions())
                state = describe(deal, env.seat, rng)
                if previous is not None:
                    learner.update(*previous, learner.value(state, list(options)))
                chosen = learner.choose(state, list(options), rng, explore=True)
                action = env.game.action_id(deal, rng.choice(options[chosen]))
                _, reward, terminated, _, _ = env.step(action)
                previous = (state, chosen)
                if terminated:
                    learner.update(*previous, reward)
                    break
    return learner


def evaluate(
    games: list[tuple[int, GameSpec]], policies: dict[str, Policy], deals: int
) -> dict[str, dict[str, list[float]]]:
    """``{agent: {opponent: [mean chips per deal, one per game]}}`` over paired deals."""
    out: dict[str, dict[str, list[float]]] = {a: {o: [] for o in OPPONENTS} for a in policies}
    for game_seed, spec in games:
        for opponent in OPPONENTS:
            envs = [GenstratEnv(spec, opponent=opponent, seat=seat) for seat in (0, 1)]
            for name, policy in policies.items():
                total = 0.0
                for k in range(deals):
                    play_seed = derive_seed(EVAL_SALT, game_seed, k)
                    for seat, env in enumerate(envs):
                        rng = seat_rng(play_seed, seat, seat)
                        total += play_deal(env, play_seed, policy, rng)
                out[name][opponent].append(total / (2 * deals))
    return out


def interval(values: list[float]) -> dict[str, float]:
    """Mean and 95% t interval over games."""
    array = np.asarray(values, dtype=float)
    mean = float(array.mean())
    if len(array) < 2:
        return {"mean": mean, "low": math.nan, "high": math.nan}
    half = float(stats.t.ppf(0.975, len(array) - 1) * array.std(ddof=1) / math.sqrt(len(array)))
    return {"mean": round(mean, 4), "low": round(mean - half, 4), "high": round(mean + half, 4)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    config = generation_config(args.config)
    wall, started = time.perf_counter(), time.process_time()
    train_games = accepted_games(args.train_start, args.train_games, config)
    test_games = accepted_games(args.test_start, args.test_games, config)
    if train_games[-1][0] >= test_games[0][0]:
        raise SystemExit("the training seeds reach the held-out ones: raise --test-start")
    screened = time.process_time()
    learner = train(train_games, args.episodes, args.seed)
    trained = time.process_time()
    coverage: Counter[str] = Counter()
    policies = {
        "q-learner": learner_policy(learner, coverage),
        "random": builtin_policy(RandomAgent()),
        "heuristic": builtin_policy(HeuristicAgent()),
    }
    held_out = evaluate(test_games, policies, args.eval_deals)
    held_out_coverage = coverage["known"] / max(1, coverage["known"] + coverage["unknown"])
    coverage.clear()
    in_sample = evaluate(train_games, policies, args.eval_deals)
    finished = time.process_time()
    table = {
        split: {
            agent: {opponent: interval(v) for opponent, v in by_opponent.items()}
            for agent, by_opponent in figures.items()
        }
        for split, figures in (("held_out", held_out), ("training", in_sample))
    }
    differences = {
        f"q-learner - {baseline}": {
            opponent: interval(
                [
                    a - b
                    for a, b in zip(
                        held_out["q-learner"][opponent], held_out[baseline][opponent], strict=True
                    )
                ]
            )
            for opponent in OPPONENTS
        }
        for baseline in ("random", "heuristic")
    }
    return {
        "config": config.label,
        "train_seeds": [s for s, _ in train_games],
        "test_seeds": [s for s, _ in test_games],
        "episodes_per_training_game": args.episodes,
        "eval_deals_per_seat": args.eval_deals,
        "q_table_states": len(learner.q),
        "held_out_decisions_with_a_learnt_state": round(held_out_coverage, 4),
        "chips_per_deal": table,
        "held_out_differences": differences,
        "cpu_seconds": {
            "games": round(screened - started, 1),
            "training": round(trained - screened, 1),
            "evaluation": round(finished - trained, 1),
        },
        "wall_seconds": round(time.perf_counter() - wall, 1),
    }


def print_report(report: dict[str, Any]) -> None:
    print(
        f"Train on {len(report['train_seeds'])} generated games ({report['config']} "
        f"configuration, {report['episodes_per_training_game']} deals each), test on "
        f"{len(report['test_seeds'])} held-out ones; chips per deal, mean over games "
        f"[95% interval], {report['eval_deals_per_seat']} play seeds x 2 seats per game"
    )
    print(f"{'split':<10} {'agent':<11} {'vs random':>26} {'vs heuristic':>26}")
    for split, by_agent in report["chips_per_deal"].items():
        for agent, by_opponent in by_agent.items():
            cells = [
                f"{c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]"
                for c in (by_opponent[o] for o in OPPONENTS)
            ]
            print(f"{split:<10} {agent:<11} {cells[0]:>26} {cells[1]:>26}")
    print("held-out paired differences:")
    for name, by_opponent in report["held_out_differences"].items():
        cells = [
            f"{c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]"
            for c in (by_opponent[o] for o in OPPONENTS)
        ]
        print(f"  {name:<23} {cells[0]:>26} {cells[1]:>26}")
    print(
        f"{report['q_table_states']} learnt states; "
        f"{report['held_out_decisions_with_a_learnt_state']:.1%} of held-out decisions reach "
        f"one; CPU seconds {report['cpu_seconds']}, {report['wall_seconds']} s wall"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-games", type=int, default=24)
    parser.add_argument("--test-games", type=int, default=24)
    parser.add_argument("--train-start", type=int, default=0, help="first training seed")
    parser.add_argument("--test-start", type=int, default=500_000, help="first held-out seed")
    parser.add_argument("--episodes", type=int, default=1500, help="deals per training game")
    parser.add_argument("--eval-deals", type=int, default=100, help="play seeds per game")
    parser.add_argument("--config", default="default", help="default, paper or a file")
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", type=Path, help="also write the JSON report into this folder")
    args = parser.parse_args(argv)
    if args.train_games < 1 or args.test_games < 2 or args.episodes < 1 or args.eval_deals < 1:
        parser.error("give at least 1 training game, 2 held-out games, 1 episode and 1 deal")
    report = run(args)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        name = (
            f"heldout_generalization_{report['config']}_g{args.train_games}x{args.test_games}"
            f"_e{args.episodes}_d{args.eval_deals}.json"
        )
        (args.out / name).write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
