"""Words for OpenSpiel games: move names, what a seat sees, the rules text, the per-turn prompt.

Move names are stable (the same move always has the same name in the same position) and
unique within a menu:

- chess: UCI long algebraic notation (``g1f3``, ``e1g1`` for castling, ``e7e8q``), which
  depends on the move alone, so it is looked up rather than computed (SAN needs check and
  disambiguation tests for every legal move); the prompt shows the game in SAN (PGN move
  text) and the reader takes SAN as OpenSpiel writes it (``Nf3``, ``O-O``, ``exd5``,
  ``e8=Q+``) and minor variants of it (no check sign, ``0-0``, a missing or extra ``x``);
- Go: the point's coordinate in lower case (``d4``; columns a-j without i) or ``pass``;
- Hex: the cell's coordinate (``c3``), columns a.., rows 1..;
- connect four: the column's letter (``a`` to ``g``);
- breakthrough: from-square and to-square (``a2a3``; a capture is written the same way, and
  the reader also takes ``a2b3*`` or ``a2xb3``);
- liar's dice: ``bid Q-F`` (at least Q dice show face F) or ``liar``;
- heads-up hold'em: ``fold``, ``check``, ``call``, ``raise N`` (raise your total stake in the hand
  to N chips; the largest is all-in);
- any other game: OpenSpiel's own action string.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any

SIDES: dict[str, tuple[str, str]] = {
    "chess": ("Black", "White"),  # OpenSpiel's player 0 is Black; White (player 1) moves first
    "go": ("Black", "White"),
    "hex": ("x (connects top and bottom)", "o (connects left and right)"),
    "connect_four": ("x", "o"),
    "universal_poker": ("the big blind", "the small blind (acts first before the flop)"),
    "breakthrough": ("Black (moves down the board)", "White (moves up the board)"),
}

RULES: dict[str, str] = {
    "chess": (
        "You are playing chess under the FIDE rules (castling, en passant, promotion, "
        "the fifty-move rule, threefold repetition and stalemate are draws). White moves "
        "first. Each turn you get the position in Forsyth-Edwards Notation (FEN) and the "
        "game so far in PGN move order. Give your move in standard algebraic notation "
        "(SAN), for example e4, Nf3, exd5, O-O, e8=Q; UCI (e2e4) is also understood. "
        "The list of legal moves is not given: find one yourself. A game still running "
        "after {cap} moves (both sides counted) is a draw. Win by checkmate."
    ),
    "go": (
        "You are playing Go on a {board_size}x{board_size} board with area scoring and a "
        "komi of {komi} points for White. Black moves first. Place a stone on an empty "
        "point by its coordinate (column letter a-t without i, then the row number, e.g. "
        "d4), or pass. Stones without liberties are captured; suicide and repeating a "
        "position (superko) are illegal. The game ends after two passes in a row or after "
        "{max_game_length} moves, and is scored by area: stones plus surrounded empty "
        "points, plus komi for White. The higher score wins."
    ),
    "hex": (
        "You are playing Hex on a {num_rows}x{num_cols} rhombus of hexagonal cells. Players "
        "take turns placing a stone on an empty cell, named by column letter and row "
        "number (a1 is the top-left corner). x (the first player) wins by connecting the "
        "top and bottom edges with a chain of adjacent stones, o by connecting the left and "
        "right edges. Draws are impossible."
    ),
    "connect_four": (
        "You are playing connect four on a board of {columns} columns and {rows} rows. "
        "Players take turns dropping a disc into a column (named by its letter, a is the "
        "leftmost); it falls to the lowest empty cell. The first to line up {x_in_row} of "
        "their discs horizontally, vertically or diagonally wins; a full board is a draw. "
        "x moves first."
    ),
    "breakthrough": (
        "You are playing breakthrough on a {rows}x{columns} board. Each side starts with two "
        "rows of pieces. A piece moves one square straight or diagonally forward into an "
        "empty square, or captures an opposing piece one square diagonally forward (not "
        "straight). The first player to reach the opponent's home row, or to capture all "
        "opposing pieces, wins. Black moves first, down the board. Name a move by its "
        "from-square and to-square, e.g. a7a6."
    ),
    "liars_dice": (
        "You are playing liar's dice with {numdice} hidden {dice_sides}-sided die (dice) "
        "each. Players take turns bidding 'bid Q-F': at least Q dice among all dice show "
        "face F, where {dice_sides} counts as any face (wild). Each bid must be higher than "
        "the last: a larger quantity, or the same quantity of a higher face. Instead of "
        "bidding you may call 'liar': the dice are revealed; if the last bid is true the "
        "caller loses, otherwise the bidder loses."
    ),
    "universal_poker": (
        "You are playing heads-up no-limit Texas hold'em: one hand, blinds {blinds}, each "
        "player starting with {stacks} chips (the stacks are reset every hand). Each player "
        "gets two private cards; five community cards come in three rounds (flop, turn, "
        "river). Actions: fold, check (no bet to match), call (match the bet), or 'raise N', "
        "which raises your total chips in the pot this hand to N (the largest N is all-in). "
        "Best five-card hand at showdown wins the pot. Your score is the chips you win or "
        "lose. Play to maximise your expected winnings; default to game-theoretically sound "
        "play and deviate only to exploit your opponent."
    ),
}

ANSWER = 'Reply with a JSON object {{"action": "<your move>"}}{menu_hint}.'


def side_name(family: str, seat: int) -> str:
    sides = SIDES.get(family)
    return sides[seat] if sides else ("the first player", "the second player")[seat]


def rules_text(spec: Any) -> str:
    """The system prompt of ``spec``: the family's rules with its parameters, and the protocol."""
    p = dict(spec.params)
    family = spec.family
    if family == "universal_poker":
        blinds = p["blind"].split()
        p["blinds"] = "-".join(sorted(blinds, key=int))
        p["stacks"] = p["stack"].split()[0]
    p["cap"] = spec.move_cap
    template = RULES.get(family)
    if template is None:
        game_name = spec.game.get_type().long_name
        body = (
            f"You are playing {game_name} (OpenSpiel's {family!r}), a two-player zero-sum game. "
            "Each turn you see your observation of the game and the list of legal moves, "
            "named as OpenSpiel names them."
        )
    else:
        body = template.format(**p)
    protocol = spec.protocol
    if protocol.exhausted == "forfeit":
        after = "you lose the game"
    elif protocol.exhausted == "conservative":
        after = "you check if no bet is pending, else fold"
    else:
        after = "a fallback move is played for you"
    tail = (
        f'\n\nAnswer every turn with a JSON object {{"action": "<your move>"}}. If your '
        f"move cannot be read or is illegal, you are told so and may try again "
        f"{protocol.rethinks} more time(s); after that, {after}."
    )
    return f"{spec.name}\n\n{body}{tail}\n"


# universal_poker writes ``[Round 1][Player: 0][Pot: 4]...``: the round without a colon, the
# other fields with one (universal_poker.cc's ``InformationStateString``, open_spiel 2.0.2).
_POKER_INFO = re.compile(r"\[(\w+):? ([^\]]*)\]")
ROUNDS = ("preflop", "flop", "turn", "river")


def poker_fields(info: str) -> dict[str, str]:
    """The bracketed fields of universal_poker's information-state string (``Round``,
    ``Player``, ``Pot``, ``Money``, ``Private``, ``Public``, ``Sequences``)."""
    return {k: v.strip() for k, v in _POKER_INFO.findall(info)}


def poker_street(fields: dict[str, str]) -> str:
    """The betting round's name (``preflop``, ``flop``, ``turn``, ``river``) from the fields of
    an information state; ``ValueError`` when the state names no round."""
    if "Round" not in fields:
        raise ValueError(f"no round in the poker information state {fields}")
    return ROUNDS[min(int(fields["Round"]), 3)]


def poker_names(ps: Any, seat: int, actions: list[int]) -> list[str]:
    spent = poker_spent(ps)
    names = []
    for a in actions:
        raw = ps.action_to_string(seat, a).split("move=")[-1]
        if raw == "Fold":
            names.append("fold")
        elif raw == "Call":
            names.append("call" if spent[seat] < max(spent) else "check")
        elif raw.startswith("Bet"):
            names.append(f"raise {int(raw[3:])}")
        elif raw == "AllIn":
            names.append("all-in")
        else:
            names.append(raw.lower())
    return names


def poker_spent(ps: Any) -> tuple[int, int]:
    """Chips each seat has put in the pot this hand (from the information state)."""
    fields = poker_fields(ps.information_state_string(0))
    money = [int(x) for x in fields["Money"].split()]
    stacks = [int(x) for x in ps.get_game().get_parameters()["stack"].split()]
    return (stacks[0] - money[0], stacks[1] - money[1])


def _chess_uci(ps: Any, actions: list[int]) -> list[str]:
    """The UCI names of ``actions`` (the board copied out of the state once)."""
    import pyspiel

    board = ps.board()
    to_move = pyspiel.chess.action_to_move
    return [str(to_move(a, board).to_lan()) for a in actions]


# Families whose move name depends only on (seat, action id), not on the position: the names
# are computed once per spec and seat and then looked up (the adapter's speed, issue 18).
CACHED_FAMILIES = frozenset({"chess", "go", "hex", "connect_four", "breakthrough", "liars_dice"})


def fresh_names(family: str, ps: Any, seat: int, actions: list[int]) -> list[str]:
    """The names of ``actions`` for ``seat`` in the pyspiel state ``ps``, computed afresh."""
    if family == "universal_poker":
        return poker_names(ps, seat, actions)
    if family == "connect_four":
        return [chr(ord("a") + a) for a in actions]
    if family == "chess":
        return _chess_uci(ps, actions)
    raw = [ps.action_to_string(seat, a) for a in actions]
    if family == "go":
        return [r.split()[-1].lower() for r in raw]
    if family == "liars_dice":
        return ["liar" if r == "Liar" else f"bid {r}" for r in raw]
    if family == "breakthrough":
        return [r.replace("*", "") for r in raw]
    return raw


class NameCache:
    """Move names by seat and action id (``names``), for the families where those fix the name
    (``CACHED_FAMILIES``), with what chess needs to name its promotions (``action_names``).

    Chess: ``last[seat]`` maps the four-letter name of each move to the last rank from the one
    before (``a7a8``) to its action id, and ``knights[seat]`` maps the id of each promotion to
    a knight to its move's four-letter name (``knight_ids[seat]``: the same ids, as a set).  A
    menu holds a promotion to a knight exactly when a pawn of the side to move can promote."""

    __slots__ = ("knight_ids", "knights", "last", "names")

    def __init__(self) -> None:
        self.names: tuple[dict[int, str], dict[int, str]] = ({}, {})
        self.last: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self.knights: tuple[dict[int, str], dict[int, str]] = ({}, {})
        self.knight_ids: tuple[set[int], set[int]] = (set(), set())

    def learn_chess(self, seat: int, actions: list[int], fresh: list[str]) -> list[str]:
        """Record freshly computed chess names; the names to cache (a queen promotion's
        without its ``q``, the name of a piece's move under the same id)."""
        last, knights = self.last[seat], self.knights[seat]
        out = []
        for a, n in zip(actions, fresh, strict=True):
            if len(n) == 5:
                if n[4] == "n":
                    knights[a] = n[:4]
                    self.knight_ids[seat].add(a)
                if n[4] == "q":
                    n = n[:4]
            if _last_rank(n, seat):
                last[n] = a
            out.append(n)
        return out

    def promote(self, seat: int, actions: list[int], names: tuple[str, ...]) -> tuple[str, ...]:
        """``names`` with a ``q`` on each queen promotion: the move of each promotion to a
        knight in ``actions`` (queen and knight promotions are legal together)."""
        knights = self.knights[seat]
        if self.knight_ids[seat].isdisjoint(actions):
            return names
        last = self.last[seat]
        out = list(names)
        for kid in self.knight_ids[seat].intersection(actions):
            four = knights[kid]
            out[actions.index(last[four])] = four + "q"
        return tuple(out)


def action_names(
    family: str, ps: Any, seat: int, actions: list[int], cache: NameCache
) -> tuple[str, ...]:
    """The names of ``actions`` (module docstring), through ``cache`` where names depend only
    on the seat and the action id.

    Chess almost qualifies: an action id fixes the from- and to-squares, but a move to the last
    rank from the one before is a pawn's promotion to a queen (``a7a8q``) or a piece's move
    (``a7a8``) under one id.  The cache keeps the piece's name, and such a move gets its ``q``
    when the same menu holds the promotion to a knight of that move (a distinct id, legal
    exactly when the pawn's promotion to a queen is: ``NameCache.promote``)."""
    if family not in CACHED_FAMILIES:
        return tuple(unique(fresh_names(family, ps, seat, actions), actions))
    known = cache.names[seat]
    if len(actions) == 1:  # (itemgetter of one key gives the value, not a tuple)
        actions = [*actions, *actions]
        return action_names(family, ps, seat, actions, cache)[:1]
    pick = itemgetter(*actions)  # the fastest lookup of many keys at once
    try:
        names: tuple[str, ...] = pick(known)
    except KeyError:
        missing = [a for a in actions if a not in known]
        fresh = fresh_names(family, ps, seat, missing)
        if family == "chess":
            fresh = cache.learn_chess(seat, missing, fresh)
        known.update(zip(missing, fresh, strict=True))
        names = pick(known)
    if family == "chess":
        names = cache.promote(seat, actions, names)
    return names


def _last_rank(uci: str, seat: int) -> bool:
    """A move to the last rank from the one before (a promotion, if a pawn's): from the 7th to
    the 8th for White (OpenSpiel's player 1), from the 2nd to the 1st for Black."""
    return len(uci) == 4 and (uci[1], uci[3]) == (("2", "1"), ("7", "8"))[seat]


def unique(names: list[str], actions: list[int]) -> list[str]:
    """``names``, with the action id appended where two moves would share a name (a game
    whose action strings are not unique)."""
    if len(set(names)) == len(names):
        return names
    return [f"{n} #{a}" for n, a in zip(names, actions, strict=True)]


def chess_san(state: Any) -> list[str]:
    """The game's moves in SAN, replayed from the start (for the prompt's move text)."""
    ps = state.spec.game.new_initial_state()
    out = []
    for action in state.action_history:
        out.append(ps.action_to_string(ps.current_player(), action))
        ps.apply_action(action)
    return out


def move_history(state: Any, seat: int) -> str:
    """The moves so far as ``seat`` may see them (chess as numbered PGN-style move text)."""
    if not state.moves:
        return "(none yet)"
    if state.spec.family == "chess":
        parts = []
        for i, name in enumerate(chess_san(state)):
            parts.append(f"{i // 2 + 1}. {name}" if i % 2 == 0 else name)
        return " ".join(parts)
    return ", ".join(f"{side_name(state.spec.family, s)}: {n}" for s, n in state.moves)


def observation_text(state: Any, seat: int) -> str:
    """What ``seat`` sees of the position (its information only)."""
    ps = state.ps
    family = state.spec.family
    if family == "chess":
        return f"Position (FEN): {ps.board().to_fen()}"
    if family == "universal_poker":
        f = poker_fields(ps.information_state_string(seat))
        spent = poker_spent(ps)
        board = f.get("Public", "") or "none"
        return (
            f"Round: {poker_street(f)}. Your cards: {f.get('Private', '?')}. Community "
            f"cards: {board}. Chips in the pot: you {spent[seat]}, opponent "
            f"{spent[1 - seat]}. Betting so far (r = raise to, c = call/check, f = fold, "
            f"| separates rounds): {f.get('Sequences', '') or 'none'}."
        )
    if family == "liars_dice":
        info = ps.information_state_string(seat)
        dice = info.split(" ")[0]
        return f"Your dice: {dice}."
    if family == "connect_four":
        cols = int(state.spec.params["columns"])
        letters = "".join(chr(ord("a") + c) for c in range(cols))
        return f"Board (bottom row last):\n{ps.observation_string(seat)}{letters}"
    if family == "hex":
        letters = " ".join(chr(ord("a") + c) for c in range(int(state.spec.params["num_cols"])))
        rows = ps.observation_string(seat).rstrip().split("\n")
        body = "\n".join(f"{i + 1:>2} {row}" for i, row in enumerate(rows))
        return f"Board (row numbers left, columns {letters}):\n{body}"
    game_type = ps.get_game().get_type()
    if game_type.provides_observation_string:
        return f"Position:\n{ps.observation_string(seat)}"
    return f"Your information:\n{ps.information_state_string(seat)}"


def turn_prompt(state: Any, seat: int) -> str:
    """The per-turn prompt: the seat's view, the moves so far, the menu (if the protocol lists
    it), and the answer format."""
    family = state.spec.family
    parts = [f"You play {side_name(family, seat)}.", observation_text(state, seat)]
    parts.append(f"Moves so far: {move_history(state, seat)}")
    legal = state.legal_actions()
    hint = ""
    if state.spec.protocol.show_legal:
        parts.append("Legal moves: " + ", ".join(compact_menu(legal)))
        hint = ", naming one of the legal moves"
    parts.append(ANSWER.format(menu_hint=hint))
    return "\n\n".join(parts) + "\n"


def compact_menu(legal: tuple[str, ...]) -> list[str]:
    """The menu with a run of ``raise N`` shown as one range (``raise N`` for N from A to B)."""
    raises = [int(a.split(" ")[1]) for a in legal if a.startswith("raise ")]
    others = [a for a in legal if not a.startswith("raise ")]
    if len(raises) > 3 and raises == list(range(raises[0], raises[-1] + 1)):
        return [*others, f"raise N (any whole N from {raises[0]} to {raises[-1]})"]
    return list(legal)


_SAN_NOISE = re.compile(r"[+#!?]")


def _san_key(text: str) -> str:
    t = _SAN_NOISE.sub("", text.strip()).replace("0-0-0", "O-O-O").replace("0-0", "O-O")
    t = t.replace("x", "").replace("=", "").replace(":", "")
    if t.lower() in ("o-o", "o-o-o"):
        return t.upper()
    return t


def read_move(state: Any, said: str) -> str | None:
    """A legal move that ``said`` names, by the family's lenient rules, if any."""
    legal: tuple[str, ...] = state.legal_actions()
    text = said.strip().strip(".").strip()
    if not text:
        return None
    lowered: dict[str, str] = {a.casefold(): a for a in legal}
    if text.casefold() in lowered and state.spec.family != "chess":
        return lowered[text.casefold()]
    family = state.spec.family
    if family == "chess":
        if text.lower() in legal:  # UCI, the menu's names
            return text.lower()
        key = _san_key(text)
        san = {
            state.ps.action_to_string(state.current_player, a): name
            for a, name in zip(state.action_ids(), legal, strict=True)
        }
        by_key = {_san_key(s): name for s, name in san.items()}
        if key in by_key:
            return by_key[key]
        uci = text.lower().replace("-", "")
        if uci in legal:
            return uci
        # A pawn or piece letter in the wrong case (``nf3``): only when it names one move.
        loose = [name for k, name in by_key.items() if k.casefold() == key.casefold()]
        return loose[0] if len(loose) == 1 else None
    if family == "breakthrough":
        key = text.lower().replace("x", "").replace("*", "").replace("-", "")
        for a in legal:
            if a.lower().replace("*", "") == key:
                return a
        return None
    if family == "liars_dice":
        key = text.lower().removeprefix("bid").strip().replace(" ", "")
        return lowered.get(f"bid {key}") or ("liar" if key in ("liar", "challenge") else None)
    if family == "connect_four":
        key = text.lower().removeprefix("column").strip()
        return lowered.get(key)
    if family == "universal_poker":
        key = " ".join(text.lower().replace("raise to", "raise").replace("bet", "raise").split())
        if key == "all-in" or key == "allin":
            raises = [a for a in legal if a.startswith("raise ")]
            return raises[-1] if raises else None
        return lowered.get(key)
    return None


def conservative_move(legal: tuple[str, ...]) -> str:
    """Game Arena's poker default: check if no bet is pending, else fold."""
    if "check" in legal:
        return "check"
    if "fold" in legal:
        return "fold"
    return legal[0]
