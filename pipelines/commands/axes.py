"""``genstrat axes SEED [--budget quick|paper] [--seed S] [--workers W] [--rerun] [--config C]
[--json]``.

The five complexity axes of one game (paper, Section 3.1 and Appendix C) with their per-game
diagnostics.  ``SEED`` is a generator seed (under ``--config default|paper|FILE``, default the
run profile's configuration), a preset name or a spec JSON file (``arena.games``).  ``--json``
prints an object with ``axes`` (``state_space``,
``temporal``, ``opponent``, ``information``, ``precision``), ``sampling_error``, ``seats``
(Alice's and Bob's values), ``diagnostics`` (STD_g, decisions, replays, world fallbacks,
seconds, ...) and, with ``--rerun``, ``rerun`` (the axes at two-thirds of the budget on an
independent population draw).  Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pipelines.commands import add_game_options, count, game_options


def register(subparsers: Any) -> None:
    axes = subparsers.add_parser("axes", help="the five complexity axes of one game")
    axes.add_argument("seed", metavar="SEED", help="seed, preset name or spec .json file")
    axes.add_argument(
        "--budget", choices=("quick", "paper"), default="quick", help="simulation budget"
    )
    axes.add_argument(
        "--seed", dest="axis_seed", type=count(0), default=0, metavar="S", help="simulation seed"
    )
    axes.add_argument("--workers", type=count(1, 256), default=None, metavar="W", help="processes")
    axes.add_argument(
        "--rerun", action="store_true", help="add the rerun diagnostic (2/3 budget, new draw)"
    )
    axes.add_argument("--json", action="store_true")
    add_game_options(axes, style=False)
    axes.set_defaults(handler=axes_command)


def axes_command(args: argparse.Namespace) -> int:
    from arena.games import resolve_game
    from arena.parallel import process_pool
    from arena.progress import COMMAND_INTERVAL_S, Stages
    from engines.axes.budgets import axis_budget
    from engines.axes.compute import compute_axes, compute_with_rerun

    config, _ = game_options(args)
    spec = resolve_game(args.seed, config)
    budget = axis_budget(args.budget)
    with (
        Stages(unit="tasks", every_s=COMMAND_INTERVAL_S) as progress,
        process_pool(args.workers) as pool,
    ):
        if args.rerun:
            report = compute_with_rerun(spec, budget, args.axis_seed, pool=pool, progress=progress)
        else:
            report = compute_axes(
                spec,
                budget.model_copy(update={"rerun": False}),
                args.axis_seed,
                pool=pool,
                progress=progress,
            )
    data = {
        "game": args.seed,
        "name": spec.name,
        "spec_hash": spec.spec_hash,
        "budget": budget.name,
        "seed": args.axis_seed,
        **report.to_dict(),
    }
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{spec.name}  ({spec.spec_hash[:12]})  budget {budget.name}, seed {args.axis_seed}")
    print(
        f"  {'axis':<13}{'value':>9}{'error':>9}{'alice':>9}{'bob':>9}"
        + (f"{'rerun':>9}" if report.rerun else "")
    )
    for name, value in data["axes"].items():
        error = data["sampling_error"][name]
        seats = data["seats"].get(name, [None, None])
        cells = [value, error, *seats] + ([data["rerun"][name]] if report.rerun else [])
        print(f"  {name:<13}" + "".join(_cell(c) for c in cells))
    d = data["diagnostics"]
    print(
        f"  STD_g {d['std_g']:.3f}; decisions {d['decisions'][0]}+{d['decisions'][1]}; "
        f"replays {d['replays']:,}; world fallbacks {d['world_fallback_share']:.1%}; "
        f"{d['seconds']:.1f}s"
    )
    return 0


def _cell(value: float | None) -> str:
    return f"{'-':>9}" if value is None else f"{value:>9.3f}"
