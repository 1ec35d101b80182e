"""Toy: a one-suit patience of 13 cards, a game that lives only in the tests.

It is a game folder as the package's games have one (deal, rules, game, knowledge, observe,
render, env, solver, session, plugin), and :mod:`toygame.spec` holds its row of the table of
games.  Nothing of the package names it: :mod:`toygame.register` adds the row
(``solitaire_env.games.register_game``), and the generic suites then test it with the others.
"""
