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
seat saw, not a second record of it.  The pages are templates in
``releases/templates/werewolf_*.html.j2``, rendered through ``releases.report.TEMPLATES`` (every
value escaped; no script of their own) in its page frame; this module computes their values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from markupsafe import Markup

from arena.werewolf.tables import replayed
from engines.werewolf.events import Event
from engines.werewolf.render import ROLE_NAMES, event_line, transcript
from engines.werewolf.roles import NAMES, Role, name_of
from engines.werewolf.state import WerewolfState
from releases.report import files_section, fmt, integrity_section, page, render

GAMES = "werewolf_games"
# What the pages read of ``werewolf_decisions`` (a release without it shows no decisions).
DECISION_COLUMNS = ["game_id", "seat", "ply", "day", "kind", "action", "forfeit"]
MAX_GAME_PAGES = 400
MAX_REPLY_CHARS = 2_000
NIGHT_KINDS = ("nominate", "protect", "inspect")


def game_page_name(game_id: str) -> str:
    return f"werewolf-{game_id}.html"


def _interval(row: Mapping[str, Any]) -> str:
    return f"[{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"


def ratings_section(tables: Mapping[str, pd.DataFrame]) -> Markup:
    """The role ratings (one row per model, a column per role), overall skill, the intercept,
    win rates (``werewolf_ratings.html.j2``)."""
    ratings, overall = tables.get("werewolf_ratings"), tables.get("werewolf_overall")
    if ratings is None or overall is None:
        return render("werewolf_ratings.html.j2", rows=None)
    roles = [r.value for r in Role]
    by = {(str(r["model"]), str(r["role"])): r for r in ratings.to_dict("records")}
    rows = []
    for o in overall.to_dict("records"):
        model = str(o["model"])
        skills = []
        for role in roles:
            r = by.get((model, role))
            skills.append("–" if r is None else f"{fmt(r['skill'])} {_interval(r)}")
        rows.append(
            {
                "rank": int(o["rank"]),
                "model": model,
                "skills": skills,
                "overall": f"{fmt(o['overall'])} {_interval(o)}",
                "win_rate": fmt(o["win_rate"]),
                "seats": int(o["seats"]),
            }
        )
    fit = tables.get("werewolf_fit")
    intercept = None
    if fit is not None and not fit.empty:
        f = fit.iloc[0]
        intercept = {
            "alpha": fmt(f["alpha"]),
            "low": fmt(f["alpha_ci_low"]),
            "high": fmt(f["alpha_ci_high"]),
            "games": int(f["games"]),
            "n_boot": int(f["n_boot"]),
            "seed": int(f["seed"]),
        }
    rates = tables.get("werewolf_win_rates")
    win_rates = None
    if rates is not None:
        win_rates = [
            {
                "team": r["team"],
                "role": r["role"],
                "seats": int(r["seats"]),
                "win_rate": fmt(r["win_rate"]),
            }
            for r in rates.to_dict("records")
        ]
    return render(
        "werewolf_ratings.html.j2",
        rows=rows,
        roles=[ROLE_NAMES[Role(r)] for r in roles],
        fit=intercept,
        win_rates=win_rates,
    )


def games_section(games: pd.DataFrame, pages: int) -> Markup:
    """Every game, the first ``pages`` linked to their pages (``werewolf_games.html.j2``)."""
    rows = []
    for k, g in enumerate(games.to_dict("records")):
        name = str(g["game_id"])
        rows.append(
            {
                "game": name,
                "page": game_page_name(name) if k < pages else None,
                "winner": g["winner"],
                "why": g["end_reason"],
                "days": int(g["days"]),
                "players": ", ".join(f"{NAMES[s]} {p}" for s, p in enumerate(g["players"])),
            }
        )
    return render(
        "werewolf_games.html.j2",
        rows=rows,
        paged=min(pages, len(games)),
        total=len(games),
        most=MAX_GAME_PAGES,
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


def _days(
    state: WerewolfState, players: list[str], said: Mapping[tuple[int, int, int], str]
) -> list[dict[str, Any]]:
    """Night and day in order (module docstring), as ``werewolf_days.html.j2`` shows them."""
    events: list[dict[str, Any]] = []
    statements = 0  # the day's statements so far
    for e in state.events:
        if e.kind == "night":
            events.append({"kind": "night", "day": e.day})
        elif e.kind in NIGHT_KINDS:
            events.append({"kind": "private", "line": _night_line(e, players)})
        elif e.kind == "dawn":
            events.append({"kind": "dawn", "day": e.day, "line": event_line(e, -1)})
            statements = 0
        elif e.kind == "statement":
            assert e.actor is not None
            raw = said.get((e.day, e.actor, statements))
            statements += 1
            events.append(
                {
                    "kind": "statement",
                    "who": _who(e.actor, players),
                    "heard": e.text or "(says nothing)",
                    "said": raw if raw is not None and raw != e.text else None,
                }
            )
        elif e.kind == "votes":
            ballots = [(_who(v, players), _who(t, players) if t is not None else "abstains")
                       for v, t in e.ballots]  # fmt: skip
            events.append({"kind": "votes", "day": e.day, "ballots": ballots})
        elif e.kind in ("exile", "game_over"):
            events.append({"kind": "end", "line": event_line(e, -1)})
    return events


def _views(
    state: WerewolfState, players: list[str], decisions: pd.DataFrame
) -> list[dict[str, Any]]:
    """Every seat's view and decisions (module docstring), for ``werewolf_views.html.j2``."""
    views = []
    for seat in range(len(NAMES)):
        mine = decisions.loc[decisions["seat"] == NAMES[seat]] if not decisions.empty else decisions
        rows = []
        for d in mine.to_dict("records"):
            reply = d.get("raw_response")
            if not isinstance(reply, str):  # no reply kept (None, or a missing value: NaN)
                reply = None
            rows.append(
                {
                    "ply": int(d["ply"]),
                    "day": int(d["day"]),
                    "kind": d["kind"],
                    "action": d["action"],
                    "reply": None if reply is None else reply[:MAX_REPLY_CHARS],
                    "forfeit": d["forfeit"],
                }
            )
        views.append(
            {
                "seat": NAMES[seat],
                "player": players[seat],
                "role": ROLE_NAMES[state.roles[seat]],
                "lines": transcript(state.view(seat)),
                "decisions": rows,
            }
        )
    return views


def game_body(row: Mapping[str, Any], decisions: pd.DataFrame) -> Markup:
    """A game's page body (``werewolf_game.html.j2``), its game replayed from ``row``."""
    state = replayed(row)
    players = [str(p) for p in row["players"]]
    fates = _fates(state)
    seats = [
        {
            "seat": NAMES[s],
            "player": players[s],
            "role": ROLE_NAMES[r],
            "team": "Werewolves" if r is Role.WEREWOLF else "village",
            "fate": fates.get(s, "survived"),
        }
        for s, r in enumerate(state.roles)
    ]
    said: dict[tuple[int, int, int], str] = {}
    speeches = decisions.loc[decisions["kind"] == "speak"] if not decisions.empty else decisions
    order: dict[int, int] = {}
    for d in speeches.to_dict("records"):
        day = int(d["day"])
        k = order.get(day, 0)
        order[day] = k + 1
        if d.get("said") is not None:
            said[(day, int(NAMES.index(str(d["seat"]))), k)] = str(d["said"])
    return render(
        "werewolf_game.html.j2",
        winner=f"{state.winner}",
        end_reason=f"{state.end_reason}",
        days=state.day,
        rules=f"{row['rules']}",
        seats=seats,
        events=_days(state, players, said),
        views=_views(state, players, decisions),
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
    decisions = tables.get("werewolf_decisions", pd.DataFrame(columns=DECISION_COLUMNS))
    pages = min(len(games), MAX_GAME_PAGES)
    index = Markup("").join(
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
