"""How far a fair TriPeaks agent's late-game moves are from the best fair moves.

Late in a game (at most ``MAX_FACE_DOWN`` face-down cards, and a search of at most ``--nodes``
positions) :func:`agents.players.endgame.fair_values` gives the exact win probability of every
legal move for a player who knows only what was seen.  This plays an agent on ``--deals`` deals
and, at every such decision with a choice, compares the agent's move with the best one: the
*regret* is the win probability given up.  The sum over the games, divided by the games, is the
share of games the agent loses to its late-game moves alone (what an exact late game would buy).

Run (from the repository root):

    python benchmarks/tp_fair_regret.py --agent rollout --deals 150 --seed 1 --nodes 200000

Each agent is seeded per deal as ``solitaire-env eval`` seeds it (``agent_seed(seed, code)``), so
its games are those of an evaluation with the same seed.  Output: one line per 50 games, then the
totals.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="rollout", help="an agent spec, NAME or NAME:KEY=VALUE,...")
    ap.add_argument("--rules", default="E", choices=["E", "C"])
    ap.add_argument("--deals", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1, help="seed of the deal codes (1: the validation deals)")
    ap.add_argument("--nodes", type=int, default=200_000, help="the search's limit per decision")
    a = ap.parse_args()

    from agents.base import decide, public_state
    from agents.evaluation.backends import agent_seed
    from agents.evaluation.specs import parse_agent_spec
    from agents.players.endgame import fair_values, new_table
    from agents.players.rollout import tripeaks_position
    from agents.registry import make_agent
    from solitaire_env.solvability import draw_codes, make_game

    spec = parse_agent_spec(a.agent, "--agent")
    table = new_table()
    wins = decisions = searched = wrong = 0
    regret = search_seconds = 0.0
    for i, code in enumerate(draw_codes(a.deals, a.seed, "TP", a.rules), 1):
        agent = make_agent(spec.name, "tripeaks", seed=agent_seed(a.seed, code), **dict(spec.options))
        game, actions = make_game(code), []
        while not game.over:
            legal = game.legal_actions()
            action = decide(agent, game, actions)
            if len(legal) > 1:
                decisions += 1
                x = tripeaks_position(public_state(game, actions))
                t = time.process_time()
                moves, values, _ = fair_values(
                    x.layout, x.removed, x.key, x.unseen, len(x.stock) - x.pos, x.wrap, x.when_stuck, a.nodes, table
                )
                search_seconds += time.process_time() - t
                if len(moves):
                    searched += 1
                    value = dict(zip(moves.tolist(), values.tolist()))
                    lost = float(values.max()) - value[action]
                    if lost > 1e-9:
                        wrong += 1
                        regret += lost
            game.play(action)
            actions.append(action)
        wins += game.won
        if i % 50 == 0 or i == a.deals:
            print(
                f"{i} games: {wins} won; {decisions} decisions with a choice, {searched} searched exactly, "
                f"{wrong} not the best; regret {regret:.3f} games ({100 * regret / i:.3f} % of games); "
                f"search {search_seconds / i:.2f} CPU s a game",
                flush=True,
            )


if __name__ == "__main__":
    main()
