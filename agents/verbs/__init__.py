"""The verbs that ``agents`` adds to ``solitaire-env``: eval, hint-bench, replay, train, export.

``pyproject.toml`` names :data:`VERBS` in the entry-point group ``solitaire_env.verbs``, where
:mod:`solitaire_env.cli` finds it when it builds its parser.  Each verb is one module; each
imports the agents it runs only when it runs, so listing the verbs imports nothing heavy.
"""

from __future__ import annotations

from agents.verbs import evaluate, hint_bench, replay, train
from solitaire_env.cli_args import VerbTable

#: The verbs, in the order ``solitaire-env --help`` lists them.
VERBS = VerbTable()
for _part in (evaluate, hint_bench, replay, train):
    VERBS.update(_part.VERBS)
