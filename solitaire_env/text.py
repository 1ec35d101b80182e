"""The words of the command line: what ``deal``, ``solve`` and ``hint`` print, and the move
names ``hint --moves`` reads.

One module for both games rather than a ``text.py`` in each: every report starts with the same
lines (code, game, rules) and differs per game only in a few words and in the board, which each
game's drawing in :mod:`solitaire_env.render` provides.

- :func:`deal_text`: a deal's code, game, rules and opening board (or, with ``full``, every
  card, the hidden ones labelled as such).
- :func:`solve_text`: one solved deal: the verdict, the line as env actions and in words
  (replayed through the rules core), the node count and the time.
- :func:`hint_text`: the moves played, the board as the player sees it, the hint and its verdict.
- :func:`parse_move` / :func:`play_moves`: an env action from its number or its
  ``action_name()`` text; a comma-separated list of them played on a game.

A mistake in what the user typed is a :class:`ValueError` with a one-line message (the command
line prints it as ``solitaire-env: error: <message>``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from solitaire_env.common.cards import card_text, parse_card
from solitaire_env.common.render import symbol
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.render import fortythieves_ansi
from solitaire_env.fortythieves.rules import FIRST_FOUNDATION_SRC, FOUNDATION, NUM_COLUMNS, WASTE
from solitaire_env.games import GAMES
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.render import tripeaks_ansi
from solitaire_env.tripeaks.rules import TriPeaksRules

if TYPE_CHECKING:
    from solitaire_env.common.result import SolveResult
    from solitaire_env.games import Deal
    from solitaire_env.hints import Hint

__all__ = [
    "FT_STOCK_PER_LINE",
    "GAME_TITLES",
    "RULE_NAMES",
    "STOP_WORDS",
    "deal_text",
    "ft_deal_text",
    "game_lines",
    "hint_text",
    "one_line",
    "parse_move",
    "play_moves",
    "solve_text",
    "tp_deal_text",
]

#: The TriPeaks rules by the rule letter of their deal codes.
RULE_NAMES = {"E": "Easy (K and A are adjacent)", "C": "Classic (K and A are not adjacent)"}
#: The games' titles, by the letters of their deal codes (from the table of games).
GAME_TITLES: dict[str, str] = {g.code: g.title for g in GAMES}
#: Stock cards per line in ``deal --open`` for Forty Thieves.
FT_STOCK_PER_LINE = 16


def one_line(exc: BaseException) -> str:
    """``exc`` as one line: an ``OSError`` as ``<file>: <reason>``, anything else as its text
    (or its type's name when it has none), runs of white space made one space."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        text = f"{where}{exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


# --------------------------------------------------------------------------- deal


def code_lines(deal: Deal, game: str, source: str | None) -> list[str]:
    """The first lines of ``deal``'s output: the code (and what was read, if it differs) and the game."""
    if deal.code is not None:
        note = f"  (read from {source!r})" if source is not None and source != str(deal.code) else ""
        code_line = f"code:   {deal.code}{note}"
    else:
        code_line = "code:   none (a deal string)"
    return [code_line, f"game:   {GAME_TITLES[game]}"]


def deal_text(deal: Deal, letter: str, *, full: bool = False, source: str | None = None) -> str:
    """What ``deal`` prints: code, game, rules and the board (or the full deal).  ``source`` is
    the code as the user typed it (named when it differs from the canonical code)."""
    if isinstance(deal, FortyThievesDeal):
        return ft_deal_text(deal, full=full, source=source)
    return tp_deal_text(deal, letter, full=full, source=source)


def tp_deal_text(deal: TriPeaksDeal, letter: str, *, full: bool = False, source: str | None = None) -> str:
    """What ``deal`` prints for a TriPeaks deal under the rule ``letter``: code, game, rules,
    jokers and the board at the start as the player sees it; with ``full``, every card face
    up, the waste and the stock in draw order, labelled as not what the player sees."""
    lines = code_lines(deal, "TP", source)
    lines.append(f"rules:  {RULE_NAMES[letter]}")
    if deal.jokers:
        lines.append(f"jokers: {deal.jokers} in the stock")
    rules = TriPeaksRules(wrap=letter == "E", jokers=deal.jokers, faces="open" if full else "standard")
    board = tripeaks_ansi(TriPeaksGame(deal, rules).public_view()).split("\n")
    lines.append("")
    if full:
        lines.append("FULL DEAL: every card face up, including the 18 that start face down (not what the player sees)")
        lines.append("")
        lines.extend(board[:4])
        lines.append("")
        lines.append(f"  waste {symbol(card_text(deal.waste))}")
        stock = " ".join(symbol(card_text(c)) for c in deal.stock)
        lines.append(f"  stock ({len(deal.stock)} cards, in draw order): {stock}")
    else:
        lines.append("board at the start, as the player sees it:")
        lines.append("")
        lines.extend(board[:6])
    return "\n".join(lines).rstrip("\n") + "\n"


def ft_deal_text(deal: FortyThievesDeal, *, full: bool = False, source: str | None = None) -> str:
    """What ``deal`` prints for a Forty Thieves deal: code, game, rules and the opening board
    (all 10 columns face up, stock count, empty waste and foundations); with ``full``, the
    stock in draw order too, labelled as hidden information."""
    lines = code_lines(deal, "FT", source)
    lines.append("rules:  N, the app's: 2 decks, 10 columns of 4 face up, a 64-card stock drawn once")
    board = fortythieves_ansi(FortyThievesGame(deal).public_view()).rstrip("\n").split("\n")
    counters = max(i for i, line in enumerate(board) if not line.strip())  # the blank line before the counters
    lines += ["", "board at the start, as the player sees it:", "", *board[:counters]]
    if full:
        lines += [
            "",
            f"HIDDEN: the stock, face down, in draw order ({len(deal.stock)} cards; not what the player sees):",
        ]
        for i in range(0, len(deal.stock), FT_STOCK_PER_LINE):
            part = deal.stock[i : i + FT_STOCK_PER_LINE]
            cards = " ".join(symbol(card_text(c)) for c in part)
            lines.append(f"  {i + 1:>2}-{i + len(part):<2}  {cards}")
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- solve


def game_lines(game: TriPeaksGame | FortyThievesGame, letter: str, source: str | None) -> list[str]:
    """The first lines of ``solve`` and ``hint``: code, game and the rules ``game`` plays by."""
    lines = []
    for line in code_lines(game.deal, "TP" if isinstance(game, TriPeaksGame) else "FT", source):
        label, value = line.split(":", 1)
        lines.append(f"{label + ':':<9}{value.strip()}")
    if isinstance(game, TriPeaksGame):
        rules = game.rules
        extra = [f"draw {rules.draw}"] if rules.draw != "anytime" else []
        extra += ["all cards face up"] if rules.faces != "standard" else []
        extra += [f"waste start {rules.waste_start}"] if rules.waste_start != "card" else []
        extra += [f"{rules.jokers} joker(s)"] if rules.jokers else []
        lines.append(f"rules:   {RULE_NAMES[letter]}" + (f"; {', '.join(extra)}" if extra else ""))
    else:
        lines.append(f"rules:   N (the app's); foundation return {'on' if game.rules.foundation_return else 'off'}")
    return lines


#: What each ``stopped_by`` value means, as ``solve`` and ``hint`` print it.
STOP_WORDS: dict[str, str] = {
    "won": "a winning line was found",
    "proved": "the search was exhausted: no line wins",
    "nodes": "the node budget was spent",
    "seconds": "the time budget was spent",
    "depth": "the search reached its depth cap",
    "table": "the search's table of positions is full",
}


def solve_text(
    game: TriPeaksGame | FortyThievesGame,
    letter: str,
    result: SolveResult,
    *,
    max_nodes: int | None = None,
    source: str | None = None,
    max_seconds: float | None = None,
) -> str:
    """What ``solve`` prints for one deal: the deal, the verdict, the line in actions and in
    words (replayed on a copy of ``game``), the node count and the time."""
    from solitaire_env.common.budget import search_budget

    is_tp = isinstance(game, TriPeaksGame)
    total, verb_done, verb_now = (28, "cleared", "clears") if is_tp else (104, "founded", "founds")
    lines = game_lines(game, letter, source)
    budget = search_budget(max_nodes, max_seconds).describe()
    if result.status == "solved":
        verdict = f"solved: a winning line of {len(result.line)} moves"
    elif result.status == "unsolvable":
        found = f"the best line found {verb_now} {result.best} of {total}"
        verdict = f"unsolvable: the search is exhausted, no line wins; {found}"
    else:
        verdict = (
            f"intractable: {STOP_WORDS[str(result.stopped_by)]} ({budget}) before a verdict "
            f"(not a proof either way); the best line found {verb_now} {result.best} of {total}"
        )
    lines.append(f"verdict: {verdict}")
    lines.append(f"stopped: {result.stopped_by} ({STOP_WORDS[str(result.stopped_by)]})")
    lines.append(f"nodes:   {result.nodes:,} (budget {budget})")
    lines.append(f"time:    {1000 * result.seconds:.1f} ms")
    title = "winning line" if result.status == "solved" else "best line"
    lines.append("")
    lines.append(f"{title} ({len(result.line)} actions): {' '.join(map(str, result.line)) or '(empty)'}")
    g = game.copy()
    width = len(str(len(result.line)))
    for i, action in enumerate(result.line, 1):
        name = g.action_name(action)
        reason = g.try_play(action)
        if reason is not None:  # a solver bug: say so rather than print a wrong line
            raise ValueError(f"the solver's line is illegal at move {i} ({name}): {reason}")
        if is_tp and action == 28:
            name += f" ({card_text(g.waste[-1])})"
        lines.append(f"  {i:>{width}}. {name}")
    state = "won" if g.won else "not won"
    lines.append(f"after the line: {state}, {g.progress}/{total} {verb_done}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- hint

_TP_REMOVE = re.compile(r"remove\s+(\S+)(?:\s*\(\s*slot\s+(\d+)\s*\))?", re.IGNORECASE)
_FT_PLACE = r"column\s+\d+|waste|foundation(?:\s+\d+)?"
_FT_MOVE = re.compile(rf"move\s+(.+?)\s+from\s+({_FT_PLACE})\s+to\s+({_FT_PLACE})", re.IGNORECASE)


def _ft_place(text: str, *, dest: bool) -> int:
    """A Forty Thieves place of an action name: ``column 3``, ``waste``, ``foundation 2``
    (a source), ``foundation`` (the destination)."""
    words = text.lower().split()
    if words[0] == "column" and 1 <= int(words[1]) <= NUM_COLUMNS:
        return int(words[1]) - 1
    if dest:
        if words == ["foundation"]:
            return FOUNDATION
        raise ValueError(f"a move goes to 'column 1'-'column 10' or 'foundation', not {text!r}")
    if words == ["waste"]:
        return WASTE
    if words[0] == "foundation" and len(words) == 2 and 1 <= int(words[1]) <= 8:
        return FIRST_FOUNDATION_SRC + int(words[1]) - 1
    raise ValueError(
        f"a move comes from 'column 1'-'column 10', 'waste' or 'foundation 1'-'foundation 8', not {text!r}"
    )


def parse_move(game: TriPeaksGame | FortyThievesGame, text: str) -> int:
    """The env action that ``text`` names in ``game``'s position: an action number, or an
    action name as ``game.action_name`` prints it.  ``ValueError`` saying why not."""
    is_tp = isinstance(game, TriPeaksGame)
    draw = 28 if is_tp else 209
    want = (
        "want an action number 0-28, 'draw', or 'remove <card> (slot <n>)'"
        if is_tp
        else "want an action number 0-209, 'draw', or 'move <card> from <place> to <place>'"
    )
    word = " ".join(text.split())
    if word.isdigit():
        action = int(word)
        if action > draw:
            raise ValueError(f"not a {GAME_TITLES['TP' if is_tp else 'FT']} action: {want}")
        return action
    if word.lower() == "draw":
        return draw
    if isinstance(game, TriPeaksGame):
        m = _TP_REMOVE.fullmatch(word)
        if m is None:
            raise ValueError(want)
        card_word, slot_word = m.groups()
        card = None if card_word == "??" else parse_card(card_word)
        if slot_word is not None:
            slot = int(slot_word)
            if slot >= draw:
                raise ValueError(f"no slot {slot}: slots are 0-27")
            up = game.face_up >> slot & 1 and not game.removed >> slot & 1
            if card is not None and up and game.tableau[slot] != card:
                raise ValueError(f"slot {slot} holds {card_text(game.tableau[slot])}, not {card_text(card)}")
            return slot
        if card is None:
            raise ValueError("'remove ??' needs its slot: 'remove ?? (slot <n>)'")
        showing = game.face_up & ~game.removed
        slots = [i for i in range(draw) if showing >> i & 1 and game.tableau[i] == card]
        if not slots:
            raise ValueError(f"{card_text(card)} is not a face-up card of the board")
        return slots[0]
    m = _FT_MOVE.fullmatch(word)
    if m is None:
        raise ValueError(want)
    card_word, src_word, dst_word = m.groups()
    src, dst = _ft_place(src_word, dest=False), _ft_place(dst_word, dest=True)
    if card_word.lower() != "the top card":
        card = parse_card(card_word)
        top = game.source_card(src)
        if top is not None and top != card:
            raise ValueError(f"the card on top of {src_word.lower()} is {card_text(top)}, not {card_text(card)}")
    return src * 11 + dst


def play_moves(game: TriPeaksGame | FortyThievesGame, moves: str) -> list[tuple[int, str]]:
    """Play ``--moves`` (comma-separated, see :func:`parse_move`) on ``game`` through the rules
    core; returns each played move as ``(action, name)`` (a draw's name says the card drawn).
    The first bad or illegal move is a one-line :class:`ValueError` naming its place in the
    list and why (the game's reason)."""
    tokens = [t.strip() for t in moves.split(",")]
    if tokens == [""]:
        return []
    draw = 28 if isinstance(game, TriPeaksGame) else 209
    played: list[tuple[int, str]] = []
    for i, token in enumerate(tokens, 1):
        where = f"--moves: move {i} of {len(tokens)} ({token!r})"
        if not token:
            raise ValueError(f"{where} is empty: give moves separated by single commas")
        try:
            action = parse_move(game, token)
        except ValueError as error:
            raise ValueError(f"{where}: {one_line(error)}") from None
        name = game.action_name(action)
        reason = game.try_play(action)
        if reason is not None:
            raise ValueError(f"{where}, {name}, is illegal: {game.REASONS[reason]} ({reason})")
        if action == draw:
            name += f" ({card_text(game.waste[-1])})"
        played.append((action, name))
    return played


def hint_text(
    game: TriPeaksGame | FortyThievesGame, letter: str, h: Hint, played: list[tuple[int, str]], source: str | None
) -> str:
    """What ``hint`` prints: the deal, the moves played, the board, the hint and its verdict."""
    lines = game_lines(game, letter, source)
    if played:
        lines.append(f"moves:   {len(played)} played: {' '.join(str(action) for action, _ in played)}")
        width = len(str(len(played)))
        lines += [f"  {i:>{width}}. {name}" for i, (_, name) in enumerate(played, 1)]
    else:
        lines.append("moves:   none: the position at the start of the deal")
    board = tripeaks_ansi if isinstance(game, TriPeaksGame) else fortythieves_ansi
    lines += ["", *board(game.public_view()).rstrip("\n").split("\n"), ""]
    if h.action is None:
        lines.append(f"hint:    no move: {h.reason}")
    else:
        lines.append(f"hint:    {h.action} = {h.name}")
    if h.verdict == "winnable" and h.line:
        verdict = f"winnable: {h.reason} ({len(h.line)} moves: {' '.join(map(str, h.line))})"
    elif h.verdict == "unwinnable":
        verdict = f"unwinnable: {h.reason}" + (
            f"; the move starts the line that gets furthest ({len(h.line)} moves)" if h.line else ""
        )
    else:
        verdict = f"{h.verdict}: {h.reason}"
    lines.append(f"verdict: {verdict}")
    planned = h.verdict == "unknown" and bool(h.line)  # the Forty Thieves planner's plan
    if planned:
        lines.append(f"plan:    {len(h.line)} moves to the next draw: {' '.join(map(str, h.line))}")
    if h.nodes:
        what = "the planner's searches on sampled stock orders" if planned else "the solver ran: every card is known"
        lines.append(f"nodes:   {h.nodes:,} ({what})")
    if h.stopped_by is not None:
        lines.append(f"stopped: {h.stopped_by} ({STOP_WORDS[h.stopped_by]})")
    return "\n".join(lines) + "\n"
