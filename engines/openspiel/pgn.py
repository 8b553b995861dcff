"""Chess games in Portable Game Notation (issue 46, item 4; Game Arena records every chess game
in PGN).

:func:`match_pgn` writes one recorded match (a match row and its moves, ``engines.tournament``'s
schemas) as a PGN game in the export format of the PGN standard (Steven J. Edwards, "Portable
Game Notation Specification and Implementation Guide", 1994, section 8): the Seven Tag Roster
(``Event``, ``Site``, ``Date``, ``Round``, ``White``, ``Black``, ``Result``) then our own tags,
and the move text in SAN with move numbers, lines of at most 79 characters, ending with the
result. The moves are replayed on OpenSpiel from the match's play seed, so the SAN is OpenSpiel's
(check and mate signs included) and a recorded move that is not legal stops the export with a
``ValueError`` naming it.

Seats: OpenSpiel's player 1 is White and moves first, player 0 is Black, so Bob (seat 1) has
White and Alice (seat 0) Black in every deal; the seat-swapped deal of a run swaps the colours.

The result: a complete or forfeited match's chip deltas (``1-0``, ``0-1``, ``1/2-1/2``); a match
that ended without a result (``timeout``, ``error``) is ``*``. ``Termination`` says how it ended
(the standard's values: ``normal``; ``adjudication`` for a draw at the move cap; ``rules
infraction`` for a forfeit, an illegal move after the rethinks ran out; ``unterminated``), and
the reason is the game's closing comment. ``Date`` is ``????.??.??``: a release holds no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.openspiel.spec import OpenSpielSpec

LINE = 79  # the export format's longest line (section 8.2.6: "less than 80")
RESULTS = {1: "1-0", -1: "0-1", 0: "1/2-1/2"}


def tag_value(value: Any) -> str:
    """A tag's value as a PGN string: quotes and backslashes escaped (section 7), no newlines."""
    text = " ".join(str(value).split())
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def comment(text: str) -> str:
    """A brace comment (section 5): braces cannot nest, so they are taken out of the text."""
    return "{" + " ".join(text.replace("{", "(").replace("}", ")").split()) + "}"


def san_moves(spec: OpenSpielSpec, play_seed: int, actions: Sequence[str]) -> tuple[list[str], Any]:
    """The SAN of each recorded move (our UCI names, ``actions``), replayed from ``play_seed``,
    and the final ``OpenSpielState``; ``ValueError`` naming the first move that is not legal."""
    state = spec.new_deal(play_seed)
    sans = []
    for k, name in enumerate(actions):
        if state.is_terminal():
            raise ValueError(f"move {k + 1} ({name}) comes after the game ended")
        try:
            action = state.action_id(name)
        except ValueError:
            raise ValueError(f"move {k + 1} ({name}) is not legal in the replayed game") from None
        sans.append(state.ps.action_to_string(state.current_player, action))
        state.apply(name)
    return sans, state


def played(move: Mapping[str, Any]) -> bool:
    """Whether a move row is a move played: the row of the move that ended a forfeited or failed
    match has an empty action (``arena.tournament.play.with_unfinished``)."""
    action = move.get("action")
    return isinstance(action, str) and action != ""


def movetext(sans: Sequence[str], result: str, closing: str | None) -> str:
    """Numbered SAN, wrapped at :data:`LINE` characters, then the closing comment and result."""
    tokens = []
    for k, san in enumerate(sans):
        if k % 2 == 0:
            tokens.append(f"{k // 2 + 1}.")
        tokens.append(san)
    if closing:
        tokens.append(comment(closing))
    tokens.append(result)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


def outcome(match: Mapping[str, Any], final: Any) -> tuple[str, str, str | None]:
    """(Result, Termination, closing comment) of a match row and its replayed final state. The
    comment is ours, never the match's error text (which can name a machine's folders)."""
    status = str(match.get("status"))
    delta = match.get("bob_chip_delta")  # Bob has White
    if status not in ("complete", "forfeit") or delta is None:
        return "*", "unterminated", f"no result: the match ended with status {status}"
    score = (int(delta) > 0) - (int(delta) < 0)
    result = RESULTS[score]
    if status == "forfeit":
        loser = "White" if score < 0 else "Black"
        return result, "rules infraction", f"{loser} forfeits: no legal move after its rethinks"
    if final.adjudicated is not None:
        return result, "adjudication", final.adjudicated
    return result, "normal", None


def match_pgn(
    spec: OpenSpielSpec, match: Mapping[str, Any], moves: Sequence[Mapping[str, Any]]
) -> tuple[str, dict[str, Any]]:
    """One chess match as a PGN game (the module docstring), and its summary: result,
    termination, plies and the final position's FEN.

    ``moves``: the match's move rows in order; a row without an action (:func:`played`: the
    move that ended a forfeited or failed match) is not a move of the game."""
    if spec.family != "chess":
        raise ValueError(f"{spec.token} is not chess: only chess games are written in PGN")
    actions = [str(m["action"]) for m in moves if played(m)]
    n_moves = match.get("n_moves")
    if n_moves is not None and int(n_moves) != len(actions):
        recorded = len(actions)
        raise ValueError(f"the match records {int(n_moves)} moves, its moves table {recorded}")
    sans, final = san_moves(spec, int(match["play_seed"]), actions)
    result, termination, closing = outcome(match, final)
    tags = [
        ("Event", f"GENSTRAT {spec.token}"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", f"{int(match['run_index'])}.{int(match['deal'])}"),
        ("White", match["bob"]),
        ("Black", match["alice"]),
        ("Result", result),
        ("Termination", termination),
        ("PlyCount", len(sans)),
        ("MatchId", match["match_id"]),
        ("RunId", match.get("run_id")),
        ("PlaySeed", match["play_seed"]),
        ("SpecHash", spec.spec_hash),
    ]
    header = "\n".join(f"[{name} {tag_value(value)}]" for name, value in tags)
    text = f"{header}\n\n{movetext(sans, result, closing)}\n"
    summary = {
        "result": result,
        "termination": termination,
        "plies": len(sans),
        "final_fen": final.ps.board().to_fen(),
    }
    return text, summary
