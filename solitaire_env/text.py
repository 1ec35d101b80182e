"""The words of the command line: what ``deal``, ``solve`` and ``hint`` print, and the move
names ``hint --moves`` reads.

One module for every game: every report starts with the same lines (code, game, rules) and
differs per game only in a few words and in the board, which each game's plugin
(:class:`~solitaire_env.common.plugin.GamePlugin`: ``deal_lines``, ``rules_text``, ``board``,
``parse_move``) provides.

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

from typing import TYPE_CHECKING, Any

from solitaire_env.common.cards import card_text
from solitaire_env.games import spec_of

if TYPE_CHECKING:
    from solitaire_env.common.result import SolveResult
    from solitaire_env.games import Deal
    from solitaire_env.hints import Hint

__all__ = [
    "STOP_WORDS",
    "deal_text",
    "game_lines",
    "hint_text",
    "one_line",
    "parse_move",
    "play_moves",
    "solve_text",
]


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


def code_lines(deal: Deal, source: str | None) -> list[str]:
    """The first lines of ``deal``'s output: the code (and what was read, if it differs) and the game."""
    if deal.code is not None:
        note = f"  (read from {source!r})" if source is not None and source != str(deal.code) else ""
        code_line = f"code:   {deal.code}{note}"
    else:
        code_line = "code:   none (a deal string)"
    return [code_line, f"game:   {spec_of(deal).title}"]


def deal_text(deal: Deal, letter: str, *, full: bool = False, source: str | None = None) -> str:
    """What ``deal`` prints: code, game, rules and the board as the player sees it (or, with
    ``full``, every card, the hidden ones labelled as such).  ``source`` is the code as the user
    typed it (named when it differs from the canonical code)."""
    lines = code_lines(deal, source) + spec_of(deal).plugin.deal_lines(deal, letter, full=full)
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- solve


def game_lines(game: Any, letter: str, source: str | None) -> list[str]:
    """The first lines of ``solve`` and ``hint``: code, game and the rules ``game`` plays by."""
    lines = []
    for line in code_lines(game.deal, source):
        label, value = line.split(":", 1)
        lines.append(f"{label + ':':<9}{value.strip()}")
    lines.append(f"rules:   {spec_of(game).plugin.rules_text(game, letter)}")
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
    game: Any,
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

    plugin = spec_of(game).plugin
    total = plugin.PROGRESS_TOTAL
    verb_done, verb_now = plugin.PROGRESS_VERBS
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
        if action == plugin.DRAW_ACTION:
            name += f" ({card_text(g.waste[-1])})"
        lines.append(f"  {i:>{width}}. {name}")
    state = "won" if g.won else "not won"
    lines.append(f"after the line: {state}, {g.progress}/{total} {verb_done}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- hint


def parse_move(game: Any, text: str) -> int:
    """The env action that ``text`` names in ``game``'s position: an action number, ``draw``, or
    an action name as ``game.action_name`` prints it.  ``ValueError`` saying why not."""
    spec = spec_of(game)
    draw = spec.plugin.DRAW_ACTION
    want = f"want an action number 0-{draw}, {spec.plugin.move_forms()}"
    word = " ".join(text.split())
    if word.isdigit():
        action = int(word)
        if action > draw:
            raise ValueError(f"not a {spec.title} action: {want}")
        return action
    if word.lower() == "draw":
        return draw
    named = spec.plugin.parse_move(game, word)
    if named is None:
        raise ValueError(want)
    return named


def play_moves(game: Any, moves: str) -> list[tuple[int, str]]:
    """Play ``--moves`` (comma-separated, see :func:`parse_move`) on ``game`` through the rules
    core; returns each played move as ``(action, name)`` (a draw's name says the card drawn).
    The first bad or illegal move is a one-line :class:`ValueError` naming its place in the
    list and why (the game's reason)."""
    tokens = [t.strip() for t in moves.split(",")]
    if tokens == [""]:
        return []
    draw = spec_of(game).plugin.DRAW_ACTION
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


def hint_text(game: Any, letter: str, h: Hint, played: list[tuple[int, str]], source: str | None) -> str:
    """What ``hint`` prints: the deal, the moves played, the board, the hint and its verdict."""
    lines = game_lines(game, letter, source)
    if played:
        lines.append(f"moves:   {len(played)} played: {' '.join(str(action) for action, _ in played)}")
        width = len(str(len(played)))
        lines += [f"  {i:>{width}}. {name}" for i, (_, name) in enumerate(played, 1)]
    else:
        lines.append("moves:   none: the position at the start of the deal")
    board = spec_of(game).plugin.board(game.public_view())
    lines += ["", *board.rstrip("\n").split("\n"), ""]
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
