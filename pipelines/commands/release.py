"""``genstrat release``: list, verify and pull release bundles.

``genstrat release list [--store DIR] [--json]`` shows the releases of a store, oldest first;
``genstrat release show ID`` verifies a release and shows its leaderboard, gates and sizes;
``genstrat release diff A B`` says what changed between two releases (models, ranks, strengths
with intervals, games, versions);
``genstrat release verify ID|PATH [--store DIR]`` recomputes every hash of a release (by id in
the store, or a release folder, or its ``.tar.gz``); ``genstrat release pull ID --from STORE
--to DIR`` downloads a release from a store folder or an http(s) URL, verifying every SHA-256.
The store defaults to ``$GENSTRAT_RELEASES``, else ``<project>/releases_store``. Every expected
failure is one line: exit 1 for a release or store that fails a check (tampered, unlisted or
oversized file, redirect elsewhere, deadline, a release that verifies but whose contents are not
as genstrat writes them), exit 2 for a mistake (unknown id, bad path or URL).

What a release or a store says is someone else's text: every name, version and message printed
from one passes through :func:`shown`, which drops terminal escape sequences and other control
and format characters (a model named ``\x1b[2J...`` does not clear the reader's screen).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelines.commands import count

if TYPE_CHECKING:
    from releases.errors import ReleaseFailure

# releases.download's limits, repeated so that the parser is built without importing it (a test
# checks that they agree).
DEFAULT_DEADLINE_S, MAX_DEADLINE_S = 3600, 7 * 24 * 3600
DEFAULT_STALL_S, MAX_STALL_S = 60, 3600

# A terminal escape sequence: CSI (ESC [ ... final byte, or its 8-bit form), OSC and the other
# string sequences (ESC ] ... BEL or ST), or ESC and one character.
ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)


def shown(value: object) -> str:
    """``value`` as text that is safe to print to a terminal: escape sequences removed, then
    every other control or format character (C0, DEL, C1, bidirectional overrides, zero-width
    characters) removed, tabs and line breaks made spaces."""
    text = ESCAPE.sub("", str(value))
    text = re.sub(r"[\t\n\r\v\f]", " ", text)
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


def register(subparsers: Any) -> None:
    """Add ``release`` and its subcommands to the CLI."""
    release = subparsers.add_parser("release", help="versioned, attested release bundles")
    sub = release.add_subparsers(dest="release_command", metavar="SUBCOMMAND", required=True)
    store_help = "release store folder (default: $GENSTRAT_RELEASES, else <project>/releases_store)"

    listing = sub.add_parser("list", help="the releases of a store, oldest first")
    listing.add_argument("--store", type=Path, default=None, metavar="DIR", help=store_help)
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(handler=list_command)

    check = sub.add_parser(
        "verify",
        help="recompute every hash of a release",
        description="Verify a release by id (in the store), by folder, or by .tar.gz archive.",
    )
    check.add_argument("target", metavar="ID|PATH", help="release id, release folder or .tar.gz")
    check.add_argument("--store", type=Path, default=None, metavar="DIR", help=store_help)
    check.set_defaults(handler=verify_command)

    show = sub.add_parser(
        "show",
        help="a release's leaderboard, gates and sizes",
        description="Verify a release, then show its leaderboard, gates, versions and sizes.",
    )
    show.add_argument("target", metavar="ID|PATH", help="release id, release folder or .tar.gz")
    show.add_argument("--store", type=Path, default=None, metavar="DIR", help=store_help)
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    show.set_defaults(handler=show_command)

    diff = sub.add_parser(
        "diff",
        help="what changed between two releases",
        description="Models added or removed, rank and strength changes with intervals, games "
        "added or removed, engine and code versions: what to check after a refresh.",
    )
    diff.add_argument("old", metavar="A", help="the earlier release (id, folder or .tar.gz)")
    diff.add_argument("new", metavar="B", help="the later release")
    diff.add_argument("--store", type=Path, default=None, metavar="DIR", help=store_help)
    diff.add_argument("--json", action="store_true", help="print JSON instead of text")
    diff.set_defaults(handler=diff_command)

    fetch = sub.add_parser(
        "pull",
        help="download a release and verify it",
        description=(
            "Download a release from a store (a folder or an http(s) URL) into DIR/<id>, "
            "resuming interrupted downloads; refuse it, keeping nothing, if any hash differs."
        ),
    )
    fetch.add_argument("release_id", metavar="ID", help="release id (gs-...)")
    fetch.add_argument(
        "--from", dest="source", required=True, metavar="STORE", help="store folder or URL"
    )
    fetch.add_argument("--to", dest="dest", required=True, type=Path, metavar="DIR")
    fetch.add_argument("--quiet", action="store_true", help="no progress bar")
    fetch.add_argument(
        "--deadline",
        type=count(1, MAX_DEADLINE_S),
        default=DEFAULT_DEADLINE_S,
        metavar="SECONDS",
        help=f"give up, keeping nothing, if the pull takes longer (default {DEFAULT_DEADLINE_S})",
    )
    fetch.add_argument(
        "--stall-timeout",
        type=count(1, MAX_STALL_S),
        default=DEFAULT_STALL_S,
        metavar="SECONDS",
        help=f"a connection silent this long fails and is retried (default {DEFAULT_STALL_S})",
    )
    fetch.set_defaults(handler=pull_command)


def _store(args: argparse.Namespace) -> Path:
    from releases.store import default_store

    store: Path | None = args.store
    return store.expanduser().resolve() if store is not None else default_store()


def list_command(args: argparse.Namespace) -> int:
    from releases.store import list_releases

    listing = list_releases(_store(args))
    if args.json:
        print(json.dumps(listing, indent=2))
        return 0
    releases = listing["releases"]
    if not releases:
        print(f"no releases in {listing['store']}")
        return 0
    print(f"{len(releases)} release(s) in {shown(listing['store'])}, oldest first:")
    print(f"  {'release id':<35}  {'published (UTC)':<20}  {'profile':<7}  engine  files  gates")
    for entry in releases:
        gates = entry.get("gates")
        gates = gates if isinstance(gates, dict) else {}
        verdict = f"{sum(bool(v) for v in gates.values())}/{len(gates)} passed"
        kind = f"  [{shown(entry['benchmark'])}]" if entry.get("benchmark") else ""  # issue 18
        print(
            f"  {shown(entry.get('release_id')):<35}  {shown(entry.get('published_at', '')):<20}  "
            f"{shown(entry.get('profile') or ''):<7}  {shown(entry.get('engine_version', '')):<6}  "
            f"{shown(entry.get('files', 0)):>5}  {verdict}{kind}"
        )
    return 0


def _failed(exc: ReleaseFailure) -> int:
    """A release or store that failed a check: one line, exit status 1."""
    from pipelines.cli import one_line

    print(f"genstrat: error: {shown(one_line(str(exc)))}", file=sys.stderr)
    return 1


def verify_command(args: argparse.Namespace) -> int:
    from releases.errors import ReleaseFailure
    from releases.store import verify

    try:
        print(shown(verify(args.target, _store(args)).line()))
    except ReleaseFailure as exc:
        return _failed(exc)
    return 0


def _interval(low: float, high: float) -> str:
    return f"[{low:+.3f}, {high:+.3f}]"


def show_command(args: argparse.Namespace) -> int:
    from releases.errors import ReleaseFailure
    from releases.opened import open_release

    try:
        return _show(open_release(args.target, _store(args) if args.store else None), args.json)
    except ReleaseFailure as exc:
        return _failed(exc)


def _show(release: Any, as_json: bool) -> int:
    """Print an opened release (``releases.opened.OpenedRelease``, its context and card checked
    when it was opened, its leaderboard by ``leaderboard()``)."""
    manifest, card = release.manifest, release.integrity
    board = release.leaderboard()
    gates: dict[str, Any] = card["gates"]
    tables: dict[str, int] = {
        Path(e["path"]).stem: int(e.get("rows") or 0)
        for e in manifest["files"]
        if e["path"].startswith("tables/")
    }
    files, size = len(manifest["files"]), sum(int(e["bytes"]) for e in manifest["files"])
    if as_json:
        payload = {
            "release_id": release.release_id,
            "path": str(release.path),
            "profile": manifest["profile"]["name"],
            **({"benchmark": manifest["benchmark"]} if manifest.get("benchmark") else {}),
            "engine_version": manifest.get("engine_version"),
            "code_version": manifest.get("code_version"),
            "analysis": release.analysis_settings(),
            "leaderboard": [] if board is None else board.to_dict("records"),
            "gates": {
                n: {"passed": g["passed"], "message": g["message"]} for n, g in gates.items()
            },
            "sizes": {"files": files, "bytes": size, "tables": tables},
        }
        print(json.dumps(payload, indent=2, default=str))
        return 0
    profile = shown(manifest["profile"]["name"])
    kind = f", benchmark {shown(manifest['benchmark'])}" if manifest.get("benchmark") else ""
    print(f"release {release.release_id} ({profile} profile{kind}) at {shown(release.path)}")
    engine, code = shown(manifest.get("engine_version")), shown(manifest.get("code_version"))
    print(f"  engine {engine}, code {code}")
    print(f"  {files} files, {size:,} bytes; every SHA-256 verified")
    if board is not None:
        settings = release.analysis_settings()
        print(f"leaderboard (chips/game, 95% interval, B = {settings['bootstrap']}):")
        for row in board.sort_values("rank").to_dict("records"):
            print(
                f"  {int(row['rank']):>3}. {shown(row['model']):<24} {float(row['alpha']):+.3f} "
                f"{_interval(float(row['ci_low']), float(row['ci_high']))}"
            )
    passed = sum(bool(g["passed"]) for g in gates.values())
    print(f"gates: {passed}/{len(gates)} passed")
    for name, gate in gates.items():
        print(f"  {'ok ' if gate['passed'] else 'FAILED'} {shown(name)}: {shown(gate['message'])}")
    print("tables: " + ", ".join(f"{n} ({r:,} rows)" for n, r in tables.items()))
    return 0


def diff_command(args: argparse.Namespace) -> int:
    from releases.errors import ReleaseFailure
    from releases.opened import compare_releases, open_release

    store = _store(args) if args.store else None
    try:
        change = compare_releases(open_release(args.old, store), open_release(args.new, store))
    except ReleaseFailure as exc:
        return _failed(exc)
    if args.json:
        print(json.dumps(change, indent=2))
        return 0
    print(f"{change['old']} -> {change['new']}")
    for label, key in (("engine", "engine_version"), ("code", "code_version")):
        before, after = (shown(v) for v in change[key])
        print(f"  {label}: {before}" + ("" if before == after else f" -> {after}"))
    lists = {
        "models added": "models_added",
        "models removed": "models_removed",
        "games added": "games_added",
        "games removed": "games_removed",
    }
    for label, key in lists.items():
        if change[key]:
            print(f"  {label}: {', '.join(shown(v) for v in change[key])}")
    print("  model                     rank      strength (chips/game, 95% interval)")
    for row in change["models"]:
        (r0, r1), (a0, a1) = row["rank"], row["alpha"]
        (l0, h0), (l1, h1) = row["interval"]
        rank = f"{r0}" if r0 == r1 else f"{r0} -> {r1}"
        print(
            f"  {shown(row['model']):<24}  {rank:<8}  {a0:+.3f} {_interval(l0, h0)} -> "
            f"{a1:+.3f} {_interval(l1, h1)} ({row['alpha_change']:+.3f})"
        )
    return 0


def pull_command(args: argparse.Namespace) -> int:
    from releases.download import pull
    from releases.errors import ReleaseFailure

    try:
        verified = pull(
            args.release_id,
            args.source,
            args.dest,
            progress=not args.quiet,
            deadline_s=args.deadline,
            stall_s=args.stall_timeout,
        )
    except ReleaseFailure as exc:
        return _failed(exc)
    print(f"pulled {verified.release_id} into {shown(verified.path)}")
    print(shown(verified.line()))
    return 0
