"""Subcommands of the ``genstrat`` CLI, one module per command group.

Each module exposes ``register(subparsers)``; heavy imports happen inside the handlers so that
``genstrat --help`` stays fast.  Every count option declares its range with ``count`` here, so a
value outside it is refused by the parser in one line with exit status 2, before any work.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engines.gbg.generator import GenerationConfig


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``low..high`` (``high`` None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low == 0:
            raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value:,}")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:,}, got {value:,}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    parse.__name__ = "count"
    return parse


def add_game_options(parser: argparse.ArgumentParser, *, style: bool = True) -> None:
    """``--config default|paper|FILE`` (the generation configuration a seed is generated under)
    and ``--style compact|paper`` (the rulebook's); both default to the run profile's
    (``$GENSTRAT_PROFILE``, else demo), so that under the paper profile a seed is the paper's game.
    """
    parser.add_argument(
        "--config",
        default=None,
        metavar="CONFIG",
        help="generation configuration of a seed: default | paper | a .json/.yaml file "
        "(default: the profile's, from $GENSTRAT_PROFILE)",
    )
    if style:
        parser.add_argument(
            "--style",
            choices=("compact", "paper"),
            default=None,
            help="rulebook style (default: the profile's)",
        )


def game_options(args: argparse.Namespace) -> tuple[GenerationConfig, str]:
    """The generation configuration and rulebook style that ``args`` and the run profile name
    (``ValueError`` in one line for a bad profile or configuration)."""
    from arena.games import generation_config
    from assets.run_profiles import get_profile

    chosen, style = args.config, getattr(args, "style", None)
    if chosen is None or style is None:
        profile = get_profile()
        chosen = profile.generation if chosen is None else chosen
        style = profile.rulebook_style if style is None else style
    return generation_config(chosen), style


def add_release_games_options(parser: argparse.ArgumentParser) -> None:
    """``--release ID`` (with ``--store DIR``): the games of a release's benchmark, by the specs
    the release carries; ``--games`` then picks among them."""
    parser.add_argument(
        "--release",
        default=None,
        metavar="ID",
        help="play the benchmark games of a release (an id in --store, a folder or a .tar.gz), "
        "with the specs it carries; --games picks among them",
    )
    parser.add_argument(
        "--store",
        default=None,
        metavar="DIR",
        help="release store (default: $GENSTRAT_RELEASES, else <project>/releases_store)",
    )


def chosen_games(
    args: argparse.Namespace, tokens: list[str] | None, profile: str | None = None
) -> list[Any]:
    """The games ``args`` name: ``tokens`` (seeds under ``--config``, presets, spec files,
    OpenSpiel games), or with ``--release`` the release's benchmark games as it carries them
    (all of them when ``tokens`` is None). ``profile``: the run profile whose configuration a
    seed takes when ``--config`` is not given (default: ``$GENSTRAT_PROFILE``'s). ``ValueError``
    in one line for a token the release does not hold or a release that does not verify."""
    from pathlib import Path

    from arena.games import catalogue_from_table, generation_config, resolve_games
    from assets.run_profiles import get_profile

    if profile is not None:  # a command that names its profile (tournament plan --profile)
        config = generation_config(args.config or get_profile(profile).generation)
    else:
        config, _ = game_options(args)
    if getattr(args, "release", None) is None:
        if tokens is None:
            raise ValueError("no games given: pass --games or --release")
        return resolve_games(tokens, config)
    from releases.opened import open_release

    release = open_release(args.release, Path(args.store).expanduser() if args.store else None)
    if "benchmark_games" not in release.table_names:
        raise ValueError(f"release {release.release_id} holds no benchmark_games table")
    catalogue = catalogue_from_table(release.table("benchmark_games"))
    wanted = list(catalogue) if tokens is None else tokens
    unknown = [t for t in wanted if t not in catalogue]
    if unknown:
        raise ValueError(
            f"release {release.release_id} has no benchmark game {unknown[0]!r}; it has "
            f"{', '.join(catalogue)}"
        )
    return resolve_games(wanted, catalogue=catalogue)
