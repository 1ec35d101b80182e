"""Register Toy in the table of games, for a whole run: ``python -m pytest -p toygame.register``
(with ``tests/`` on ``PYTHONPATH``), or ``import toygame.register`` in a process of its own.

The table has no way to take a row out again, so a process that registers Toy keeps it:
the default test run never imports this module (``tests/test_toy_game.py`` runs it in
subprocesses).
"""

from __future__ import annotations

from solitaire_env.games import GAMES, register_game
from toygame.spec import TOY

if TOY not in GAMES:
    register_game(TOY)
