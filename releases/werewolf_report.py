"""The report of a Werewolf release: its ratings and a page per game showing the discussion and
the votes day by day, with each player's private view (issue 47, item 4).

Why it exists: a Werewolf game is eight players talking, so the two-seat match viewer of
``releases.report`` cannot show it.  A release of the ``werewolf`` group
(``releases.werewolf``) gets, under ``report/``:

- ``index.html``: the role ratings with their intervals, each model's overall skill, the plain
  win rates, the fit's intercept, the games (each linked to its page), the integrity card and
  the files (the last two ``releases.report``'s own sections);
- ``werewolf-<game>.html``, one per game (at most :data:`MAX_GAME_PAGES`, in table order): the
  seats (player, role, team, fate), then each night and day in order: the Werewolves'
  nominations, the Doctor's protection, the Seer's inspection and finding, dawn; the discussion
  round by round (the statement the table heard, and what the player said when the moderator's
  filter changed it); every ballot and the exile; finally, for every seat, its private view
  (every line the seat was shown, as the engine renders it for that seat:
  ``engines.werewolf.render.transcript`` of ``WerewolfState.view``) and its decisions with the
  model's replies.

Everything is recomputed from the released tables: each game is replayed from its deal, rules
and moves (``arena.werewolf.tables.replayed``), so the pages show what the engine says each
seat saw, not a second record of it.  Pages are static HTML built with ``releases.report``'s
escaping helpers (every value escaped; no script of their own) and its page frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from arena.werewolf.tables import replayed
from engines.werewolf.events import Event
from engines.werewolf.render import ROLE_NAMES, event_line, transcript
from engines.werewolf.roles import NAMES, Role, name_of
from engines.werewolf.state import WerewolfState
from releases.report import (
    Markup,
    code,
    files_section,
    fmt,
    integrity_section,
    join,
    link,
    note,
    page,
    table,
    tag,
)

GAMES = "werewolf_games"
MAX_GAME_PAGES = 400
MAX_REPLY_CHARS = 2_000
NIGHT_KINDS = ("nominate", "protect", "inspect")


def game_page_name(game_id: str) -> str:
    return f"werewolf-{game_id}.html"


def _interval(row: Mapping[str, Any]) -> str:
    return f"[{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"


def ratings_section(tables: Mapping[str, pd.DataFrame]) -> Markup:
    """The role ratings (one row per model, a column per role), overall skill, win rates."""
    ratings, overall = tables.get("werewolf_ratings"), tables.get("werewolf_overall")
    if ratings is None or overall is None:
        return note("This release has no werewolf_ratings table.")
    roles = [r.value for r in Role]
    by = {(str(r["model"]), str(r["role"])): r for r in ratings.to_dict("records")}
    rows = []
    for o in overall.to_dict("records"):
        model = str(o["model"])
        cells: list[Any] = [int(o["rank"]), model]
        for role in roles:
            r = by.get((model, role))
            cells.append("–" if r is None else f"{fmt(r['skill'])} {_interval(r)}")
        cells += [f"{fmt(o['overall'])} {_interval(o)}", fmt(o["win_rate"]), int(o["seats"])]
        rows.append(cells)
    headers = ["rank", "model", *[ROLE_NAMES[Role(r)] for r in roles], "overall", "win rate"]
    parts = [
        tag("h2", "Role ratings", id="ratings"),
        note(
            "Skill in each role: what the model adds to its team's log-odds of winning when it "
            "holds that role (0 = the average model), with its 95% bootstrap interval over "
            "games; overall weighs the roles 2:1:1:4 as the deck does (docs/WEREWOLF.md)."
        ),
        table([*headers, "seats"], rows),
    ]
    fit = tables.get("werewolf_fit")
    if fit is not None and not fit.empty:
        f = fit.iloc[0]
        parts.append(
            note(
                f"Intercept (the village's log-odds between average players): {fmt(f['alpha'])} "
                f"[{fmt(f['alpha_ci_low'])}, {fmt(f['alpha_ci_high'])}]; {int(f['games'])} "
                f"games, {int(f['n_boot'])} bootstrap replicates (seed {int(f['seed'])})."
            )
        )
    rates = tables.get("werewolf_win_rates")
    if rates is not None:
        parts += [
            tag("h2", "Win rates", id="win-rates"),
            table(
                ["team", "role", "seats", "win rate"],
                [
                    [r["team"], r["role"], int(r["seats"]), fmt(r["win_rate"])]
                    for r in rates.to_dict("records")
                ],
            ),
        ]
    return join(parts)


def games_section(games: pd.DataFrame, pages: int) -> Markup:
    rows = []
    for k, g in enumerate(games.to_dict("records")):
        name = str(g["game_id"])
        cell = link(game_page_name(name), name) if k < pages else name
        players = ", ".join(f"{NAMES[s]} {p}" for s, p in enumerate(g["players"]))
        rows.append([cell, g["winner"], g["end_reason"], int(g["days"]), players])
    shown = note(
        f"{min(pages, len(games))} of the {len(games)} games have a page "
        f"(at most {MAX_GAME_PAGES}); every game is in ",
        code("tables/werewolf_games.parquet"),
        ".",
    )
    return join(
        [
            tag("h2", "Games", id="games"),
            shown,
            table(["game", "winner", "why", "days", "players"], rows),
        ]
    )


def _fates(state: WerewolfState) -> dict[int, str]:
    fates: dict[int, str] = {}
    for e in state.events:
        if e.kind == "dawn" and e.target is not None:
            fates[e.target] = f"killed, night {e.day}"
        if e.kind == "exile" and e.target is not None:
            fates[e.target] = f"exiled, day {e.day}"
    return fates


def _who(seat: int | None, players: list[str]) -> str:
    return "no one" if seat is None else f"{name_of(seat)} ({players[seat]})"


def _night_line(e: Event, players: list[str]) -> str:
    actor = _who(e.actor, players)
    if e.kind == "nominate":
        return f"{actor} nominated {_who(e.target, players)}."
    if e.kind == "protect":
        return f"{actor} protected {_who(e.target, players)}."
    if e.target is None:
        return f"{actor} inspected no one."
    verdict = "a Werewolf" if e.werewolf else "not a Werewolf"
    return f"{actor} inspected {_who(e.target, players)}: {verdict}."


def days_section(
    state: WerewolfState, players: list[str], said: Mapping[tuple[int, int, int], str]
) -> Markup:
    """Night and day, in order (module docstring)."""
    parts: list[Any] = []
    statements: list[Any] = []
    for e in state.events:
        if e.kind == "night":
            parts.append(tag("h3", f"Night {e.day}"))
        elif e.kind in NIGHT_KINDS:
            parts.append(tag("p", f"(private) {_night_line(e, players)}", class_="private"))
        elif e.kind == "dawn":
            parts.append(tag("p", event_line(e, -1)))
            parts.append(tag("h3", f"Day {e.day}: discussion"))
            statements = []
        elif e.kind == "statement":
            assert e.actor is not None
            heard = e.text or "(says nothing)"
            raw = said.get((e.day, e.actor, len(statements)))
            extra: list[Any] = []
            if raw is not None and raw != e.text:
                extra = [tag("details", tag("summary", "as said, before the filter"), raw)]
            item = tag("li", tag("strong", _who(e.actor, players)), ": ", heard, *extra)
            statements.append(item)
            parts.append(item)
        elif e.kind == "votes":
            rows = [[_who(v, players), _who(t, players) if t is not None else "abstains"]
                    for v, t in e.ballots]  # fmt: skip
            parts += [tag("h3", f"Day {e.day}: votes"), table(["voter", "ballot"], rows)]
        elif e.kind in ("exile", "game_over"):
            parts.append(tag("p", tag("strong", event_line(e, -1))))
    return join(parts)


def private_views(state: WerewolfState, players: list[str], decisions: pd.DataFrame) -> Markup:
    """Every seat's view and decisions (module docstring)."""
    parts: list[Any] = [tag("h2", "Each player's private view", id="views")]
    for seat in range(len(NAMES)):
        lines = transcript(state.view(seat))
        mine = decisions.loc[decisions["seat"] == NAMES[seat]] if not decisions.empty else decisions
        rows = []
        for d in mine.to_dict("records"):
            reply = d.get("raw_response")
            text = None if reply is None else str(reply)[:MAX_REPLY_CHARS]
            rows.append([int(d["ply"]), int(d["day"]), d["kind"], d["action"], text, d["forfeit"]])
        role = ROLE_NAMES[state.roles[seat]]
        parts.append(
            tag(
                "details",
                tag("summary", f"{NAMES[seat]} ({players[seat]}, {role}): what it saw"),
                tag("ol", *(tag("li", line) for line in lines)),
                tag("h4", "Its decisions"),
                table(["ply", "day", "kind", "action", "reply", "forfeit"], rows),
                id=f"view-{NAMES[seat]}",
            )
        )
    return join(parts)


def game_body(row: Mapping[str, Any], decisions: pd.DataFrame) -> Markup:
    state = replayed(row)
    players = [str(p) for p in row["players"]]
    fates = _fates(state)
    seats = [
        [NAMES[s], players[s], ROLE_NAMES[r], "Werewolves" if r is Role.WEREWOLF else "village",
         fates.get(s, "survived")]
        for s, r in enumerate(state.roles)
    ]  # fmt: skip
    said: dict[tuple[int, int, int], str] = {}
    speeches = decisions.loc[decisions["kind"] == "speak"] if not decisions.empty else decisions
    order: dict[int, int] = {}
    for d in speeches.to_dict("records"):
        day = int(d["day"])
        k = order.get(day, 0)
        order[day] = k + 1
        if d.get("said") is not None:
            said[(day, int(NAMES.index(str(d["seat"]))), k)] = str(d["said"])
    summary = note(
        f"The {state.winner} won ({state.end_reason}) after {state.day} day(s). Rules: "
        f"{row['rules']}. Lines marked (private) were seen only by the players they name; the "
        "views below show what each seat was shown."
    )
    return join(
        [
            summary,
            tag("h2", "Seats"),
            table(["seat", "player", "role", "team", "fate"], seats),
            tag("h2", "Day by day", id="days"),
            days_section(state, players, said),
            private_views(state, players, decisions),
            note(link("index.html#games", "All games")),
        ]
    )


def werewolf_pages(
    tables: Mapping[str, pd.DataFrame],
    manifest: Mapping[str, Any],
    integrity: Mapping[str, Any] | None = None,
) -> dict[str, bytes]:
    """The report files of a Werewolf release (module docstring), ``{path under report/:
    bytes}``; none for a release without ``werewolf_games``.  Deterministic."""
    games = tables.get(GAMES)
    if games is None:
        return {}
    context = dict(manifest)
    decisions = tables.get("werewolf_decisions", pd.DataFrame(columns=["game_id", "seat"]))
    pages = min(len(games), MAX_GAME_PAGES)
    index = join(
        [
            ratings_section(tables),
            games_section(games, pages),
            integrity_section(integrity),
            files_section(manifest),
        ]
    )
    files = {"index.html": page("Werewolf release", index, context)}
    files["werewolf.html"] = files["index.html"]
    by_game = {str(k): g for k, g in decisions.groupby("game_id", sort=False)}
    empty = decisions.iloc[0:0]
    for row in games.head(pages).to_dict("records"):
        name = str(row["game_id"])
        body = game_body(row, by_game.get(name, empty).sort_values("ply"))
        files[game_page_name(name)] = page(f"Werewolf game {name}", body, context)
    return files
