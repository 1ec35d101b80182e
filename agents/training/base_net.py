"""Expert iteration for the TriPeaks ``rollout`` agent: a small network as its base policy.

The rollout agent (:class:`agents.players.rollout.TriPeaksRollout`) plays each candidate move in
many fillings of the unseen cards, followed by a fair *base policy* to the end of the game, and
picks the move that wins most often.  Its hand-written base policy never draws while a removal
is legal.  Here the base policy is learned instead: a one-hidden-layer network scores each
candidate move (the legal removals and the draw) from the inputs of
:func:`agents.players.playouts.position_features` (what the hand-written policy's chain search
sees, plus a few numbers about the position), and plays the best.  It runs inside the numba
playouts (``MODE_NET``, :func:`agents.players.playouts.net_params`), so a rollout with it costs
about what the hand-written one costs.

One round of expert iteration:

1. **collect** (:func:`collect`): games of a *behaviour* agent on training deals; at each
   position with a removal legal and a choice, the *teacher* (a rollout agent, with the
   hand-written base policy or the previous round's network) values every legal move by
   rollouts; the position's candidate inputs and the moves' values are kept;
2. **fit** (:func:`fit`): the network's scores, softmaxed over a position's candidates, are
   fitted to the softmax of the teacher's values (cross-entropy, values in cards: a win counts
   30 plus the 28 cards, as in :mod:`agents.training.pretrain`);
3. the rollout agent with the fitted network is the next round's teacher.

Everything here reads public states only: the teacher is a fair agent and the inputs are a
function of the public state.  Files: :func:`agents.players.net_file.save_net` /
:func:`agents.players.net_file.load_net` (``.npz``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import public_state
from agents.players.net_file import split_net
from agents.players.playouts import MAX_CANDIDATES, N_FEATURES, net_array, position_features
from agents.players.rollout import DEFAULT_POLICY, TriPeaksRollout, tripeaks_position
from solitaire_env.dealing import make_game
from solitaire_env.tripeaks.rules import DRAW

__all__ = ["WIN_VALUE", "Positions", "collect", "fit", "fit_scores"]

#: A win's value in cards, on top of the 28 cleared (the pretraining's ``win_bonus``).
WIN_VALUE = 30.0


@dataclass
class Positions:
    """Labelled positions: ``features`` (n, MAX_CANDIDATES, N_FEATURES), ``values`` (n,
    MAX_CANDIDATES; the teacher's value of each candidate in cards), ``count`` (n; candidates
    per position, the rows past it are padding)."""

    features: np.ndarray
    values: np.ndarray
    count: np.ndarray

    @staticmethod
    def join(parts: list[Positions]) -> Positions:
        return Positions(
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.values for p in parts]),
            np.concatenate([p.count for p in parts]),
        )

    def __len__(self) -> int:
        return int(self.count.shape[0])


def _chain_params() -> np.ndarray:
    from agents.players.playouts import policy_params

    return policy_params(**DEFAULT_POLICY)


def collect(
    codes: list[str],
    teacher: TriPeaksRollout,
    behaviour: Any | None = None,
    *,
    epsilon: float = 0.0,
    seed: int = 0,
) -> tuple[Positions, list[bool]]:
    """Play ``codes`` with ``behaviour`` (an agent; default: the teacher's own choice), label every
    position where a removal is legal and there is a choice with the teacher's move values, and
    return them with the games' results.  ``epsilon``: the share of the behaviour's moves played
    uniformly at random instead (from a generator seeded by ``seed``; the labels are not)."""
    chain = _chain_params()
    rng = np.random.default_rng(seed)
    feats: list[np.ndarray] = []
    values: list[np.ndarray] = []
    counts: list[int] = []
    won: list[bool] = []
    for code in codes:
        game = make_game(code)
        actions: list[int] = []
        while not game.over:
            state = public_state(game, actions)
            legal = state.legal
            action = legal[0]
            if len(legal) > 1:
                x = tripeaks_position(state)
                f, moves = position_features(x, chain)
                paths, samples, wins, cleared = teacher.evaluate(state)
                value = {
                    int(paths[i, 0]): (WIN_VALUE * wins[i] + cleared[i]) / max(int(samples[i]), 1)
                    for i in range(len(paths))
                }
                if len(moves) > 1:
                    row = np.zeros((MAX_CANDIDATES, N_FEATURES), dtype=np.float32)
                    row[: len(moves)] = f
                    v = np.zeros(MAX_CANDIDATES, dtype=np.float32)
                    v[: len(moves)] = [value[int(m)] for m in moves]
                    feats.append(row)
                    values.append(v)
                    counts.append(len(moves))
                if behaviour is None:
                    best = max(
                        range(len(paths)), key=lambda i: (wins[i], cleared[i], paths[i, 0] != DRAW, -paths[i, 0])
                    )
                    action = int(paths[best, 0])
                else:
                    action = int(behaviour.act(state))
                if epsilon > 0 and rng.random() < epsilon:
                    action = int(legal[rng.integers(len(legal))])
            game.play(action)
            actions.append(action)
        won.append(bool(game.won))
    if not counts:
        empty = np.zeros((0, MAX_CANDIDATES, N_FEATURES), np.float32)
        return Positions(empty, np.zeros((0, MAX_CANDIDATES), np.float32), np.zeros(0, np.int64)), won
    return Positions(np.stack(feats), np.stack(values), np.array(counts, dtype=np.int64)), won


def fit(
    data: Positions,
    *,
    hidden: int = 32,
    epochs: int = 30,
    batch_size: int = 512,
    learning_rate: float = 3e-3,
    temperature: float = 2.0,
    seed: int = 0,
    init: np.ndarray | None = None,
) -> np.ndarray:
    """Fit the network to ``data`` (see the module docstring); returns it as
    :func:`agents.players.playouts.net_array`.  ``temperature``: the targets are
    ``softmax(values / temperature)``.  ``init``: start from this network (same width)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    first, last = nn.Linear(N_FEATURES, hidden).double(), nn.Linear(hidden, 1).double()
    model = nn.Sequential(first, nn.ReLU(), last)
    if init is not None:
        w1, b1, w2, b2 = split_net(init)
        with torch.no_grad():
            first.weight.copy_(torch.as_tensor(w1))
            first.bias.copy_(torch.as_tensor(b1))
            last.weight.copy_(torch.as_tensor(w2).unsqueeze(0))
            last.bias.fill_(float(b2))
    fit_scores(
        model,
        data,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        temperature=temperature,
        seed=seed,
        dtype=torch.float64,
    )
    with torch.no_grad():
        return net_array(
            first.weight.numpy().copy(),
            first.bias.numpy().copy(),
            last.weight.numpy()[0].copy(),
            float(last.bias.item()),
        )


def fit_scores(
    model: Any,
    data: Positions,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    temperature: float,
    seed: int,
    dtype: Any,
) -> None:
    """Train ``model`` (a torch module: a candidate's inputs to its score) in place by the loss of
    :func:`fit`: the softmax of its scores over a position's candidates against the softmax of
    the teacher's values / ``temperature`` (cross-entropy), Adam with a cosine decay, the
    positions shuffled by a generator seeded by ``seed``; tensors in ``dtype``."""
    import torch

    gen = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate)
    x_all = torch.as_tensor(data.features, dtype=dtype)
    mask_all = torch.as_tensor(np.arange(MAX_CANDIDATES)[None, :] < data.count[:, None])
    target_all = torch.softmax(
        torch.as_tensor(data.values, dtype=dtype).masked_fill(~mask_all, -1e9) / temperature, dim=1
    )
    n = len(data)
    steps = max(1, epochs * ((n + batch_size - 1) // batch_size))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(epochs):
        order = gen.permutation(n)
        for start in range(0, n, batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            logits = model(x_all[idx]).squeeze(-1).masked_fill(~mask_all[idx], -1e9)
            loss = -(target_all[idx] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
