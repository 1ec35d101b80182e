"""Is the TriPeaks learned base policy limited by its data, its size, or what it reads? (issue 24)

The learned base policy (``base_net``) is a 32-unit network over the 20 move features of
:func:`agents.players.playouts.position_features`, fitted to the ``rollout`` agent's move values
on 28,655 positions (1000 training games).  Played alone it stays well below its teacher.  This
fits students of other sizes to positions labelled by ``benchmarks/tp_expert_iteration.py
collect`` (the same features and values; the same loss as :func:`agents.training.base_net.fit`),
plays each *alone* (numpy, outside the playouts: a standalone policy has 0.1 s a game, not the
playouts' microseconds) on validation deals, and writes its per-deal wins in the format of
``tp_expert_iteration.py play``, so that ``tp_expert_iteration.py pair`` pairs it with any run.

    python benchmarks/tp_expert_iteration.py collect --out runs/s25/c0 --games 8000
    python benchmarks/tp_student_capacity.py --data runs/s25/c0 --hidden 256 --out runs/s25/s256
    python benchmarks/tp_student_capacity.py --data runs/s25/c0 --hidden 128,128 --out runs/s25/s128x2
    python benchmarks/tp_student_capacity.py --data runs/s25/c0 --hidden 32 --limit 28655 --out runs/s25/s32_small

``--hidden`` is the hidden layers' widths (``128,128``: two layers); ``--limit`` keeps the first
that many positions.  Writes ``OUT.npz`` (the weights) and ``OUT.json``; prints one line.
Measured figures: docs/training.md, "Session 25".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

Layers = list[tuple[np.ndarray, np.ndarray]]


def load_positions(folders: list[str]) -> Any:
    from agents.training.base_net import Positions

    parts = []
    for d in folders:
        with np.load(Path(d) / "positions.npz") as f:
            parts.append(Positions(f["features"], f["values"], f["count"]))
    return Positions.join(parts)


def fit(data: Any, hidden: list[int], *, epochs: int, lr: float, temperature: float, seed: int = 0) -> Layers:
    """A network of any depth trained by :func:`agents.training.base_net.fit_scores` (the loss of
    :func:`agents.training.base_net.fit`), in float32."""
    import torch
    from torch import nn

    from agents.players.playouts import N_FEATURES
    from agents.training.base_net import fit_scores

    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    n_in = N_FEATURES
    for h in hidden:
        layers += [nn.Linear(n_in, h), nn.ReLU()]
        n_in = h
    layers.append(nn.Linear(n_in, 1))
    model = nn.Sequential(*layers)
    fit_scores(
        model,
        data,
        epochs=epochs,
        batch_size=512,
        learning_rate=lr,
        temperature=temperature,
        seed=seed,
        dtype=torch.float32,
    )
    return [
        (m.weight.detach().numpy().astype(np.float64), m.bias.detach().numpy().astype(np.float64))
        for m in model
        if isinstance(m, nn.Linear)
    ]


def scores(layers: Layers, features: np.ndarray) -> np.ndarray:
    h = features
    for i, (w, b) in enumerate(layers):
        h = h @ w.T + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h[:, 0]


def _play_chunk(task: tuple[list[str], str]) -> tuple[list[bool], float]:
    from agents.base import public_state
    from agents.players.playouts import policy_params, position_features
    from agents.players.rollout import DEFAULT_POLICY, tripeaks_position
    from solitaire_env.solvability import make_game

    codes, path = task
    with np.load(path) as z:
        layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(int(z["n"]))]
    chain = policy_params(**DEFAULT_POLICY)
    t = time.process_time()
    won = []
    for code in codes:
        game, actions = make_game(code), []
        while not game.over:
            state = public_state(game, actions)
            action = state.legal[0]
            if len(state.legal) > 1:
                f, moves = position_features(tripeaks_position(state), chain)
                if len(moves):
                    action = int(moves[int(np.argmax(scores(layers, f)))])
            game.play(action)
            actions.append(action)
        won.append(bool(game.won))
    return won, time.process_time() - t


def main() -> None:
    from solitaire_env.common.pool import process_pool
    from solitaire_env.solvability import draw_codes

    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", required=True, help="folders of tp_expert_iteration.py collect")
    ap.add_argument("--hidden", default="32")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--temperature", type=float, default=2.0)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rules", default="E")
    ap.add_argument("--deals", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=7, help="the validation deals (seed 7: fresh in session 25)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    data = load_positions(a.data)
    if a.limit:
        data = type(data)(data.features[: a.limit], data.values[: a.limit], data.count[: a.limit])
    t0 = time.time()
    hidden = [int(h) for h in a.hidden.split(",")]
    layers = fit(data, hidden, epochs=a.epochs, lr=a.lr, temperature=a.temperature)
    fit_seconds = time.time() - t0
    path = a.out + ".npz"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    arrays = {f"w{i}": w for i, (w, _) in enumerate(layers)} | {f"b{i}": b for i, (_, b) in enumerate(layers)}
    np.savez(path, n=len(layers), **arrays)
    codes = draw_codes(a.deals, a.seed, "TP", a.rules)
    parts = [codes[i :: a.workers] for i in range(a.workers)]
    with process_pool(a.workers) as pool:
        got = pool.map(_play_chunk, [(p, path) for p in parts])
    won: list[bool] = [False] * a.deals
    for i, g in enumerate(got):
        won[i :: a.workers] = g[0]
    report = {
        "agent": f"student:{a.hidden}",
        "positions": len(data),
        "fit_seconds": round(fit_seconds, 1),
        "deals": a.deals,
        "seed": a.seed,
        "rules": a.rules,
        "wins": sum(won),
        "rate": sum(won) / a.deals,
        "cpu_per_game": sum(g[1] for g in got) / a.deals,
    }
    Path(a.out + ".json").write_text(json.dumps({**report, "won": won}))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
