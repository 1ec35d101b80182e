"""Issue 24, item 2: does on-policy RL add anything to the fitted base policy of the rollout agent?

The network of :mod:`agents.training.base_net` (fitted to a rollout teacher's move values) is
the start.  Each iteration plays ``--deals`` training deals ``--group`` times each with the
network's softmax policy (its scores / ``--tau``), scores each game as the fit's values do
(30 a win plus the cards cleared), and takes the advantage of a game against the mean of the
*other* games of its deal (a group baseline: no critic to train, the deal's difficulty cancels).
The update is PPO's clipped objective over the games' decisions (``--epochs`` passes, clip 0.2).
The network is then measured as the deterministic ``base_net`` agent (its best score, the numba
kernel) on validation deals, paired with the start (``pair`` of tp_expert_iteration.py).

    python benchmarks/tp_policy_gradient.py --net agents/players/data/tripeaks_easy_base.npz \
        --out runs/pg/easy --iterations 40 --deals 64 --group 8

Training deals: seed 2 from code 2000 on (codes 0-1999 labelled the expert-iteration rounds);
validation seed 1; the test deals (seed 0) are not read here.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.players.playouts import MAX_CANDIDATES, N_FEATURES
from agents.training.base_net import WIN_VALUE, load_net, save_net, split_net


def _play(
    task: tuple[list[str], np.ndarray, float, int],
) -> list[tuple[str, float, np.ndarray, np.ndarray, np.ndarray]]:
    """Each code once with the sampling policy: (code, return, features, counts, chosen)."""
    from agents.base import public_state
    from agents.players.playouts import policy_params, position_features
    from agents.players.rollout import DEFAULT_POLICY, tripeaks_position
    from solitaire_env.games import make_game

    codes, net, tau, seed = task
    w1, b1, w2, _ = split_net(net)
    chain = policy_params(**DEFAULT_POLICY)
    rng = np.random.default_rng(seed)
    out = []
    for code in codes:
        game = make_game(code)
        actions: list[int] = []
        feats, counts, chosen = [], [], []
        while not game.over:
            state = public_state(game, actions)
            legal = state.legal
            action = legal[0]
            if len(legal) > 1:
                f, moves = position_features(tripeaks_position(state), chain)
                if len(moves) > 1:
                    score = np.maximum(f @ w1.T + b1, 0.0) @ w2
                    p = np.exp((score - score.max()) / tau)
                    p /= p.sum()
                    i = int(rng.choice(len(moves), p=p))
                    row = np.zeros((MAX_CANDIDATES, N_FEATURES))
                    row[: len(moves)] = f
                    feats.append(row)
                    counts.append(len(moves))
                    chosen.append(i)
                    action = int(moves[i])
                elif len(moves) == 1:
                    action = int(moves[0])
            game.play(action)
            actions.append(action)
        ret = WIN_VALUE * bool(game.won) + float(game.cleared)
        out.append(
            (code, ret, np.array(feats).reshape(-1, MAX_CANDIDATES, N_FEATURES), np.array(counts), np.array(chosen))
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rules", default="E")
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--deals", type=int, default=64)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--tau", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save-every", type=int, default=10)
    a = ap.parse_args()

    import torch
    from torch import nn

    from solitaire_env.solvability import draw_codes

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(a.seed)
    net = load_net(a.net)
    w1, b1, w2, b2 = split_net(net)
    hidden = w1.shape[0]
    first, last = nn.Linear(N_FEATURES, hidden).double(), nn.Linear(hidden, 1).double()
    with torch.no_grad():
        first.weight.copy_(torch.as_tensor(w1))
        first.bias.copy_(torch.as_tensor(b1))
        last.weight.copy_(torch.as_tensor(w2).unsqueeze(0))
        last.bias.fill_(float(b2))
    model = nn.Sequential(first, nn.ReLU(), last)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    codes = draw_codes(2000 + a.iterations * a.deals, 2, "TP", a.rules)[2000:]
    log = []
    ctx = mp.get_context("spawn")
    t0 = time.time()
    with ctx.Pool(a.workers) as pool:
        for it in range(a.iterations):
            with torch.no_grad():
                cur = np.concatenate(
                    [
                        [N_FEATURES, hidden],
                        first.weight.numpy().ravel(),
                        first.bias.numpy(),
                        last.weight.numpy()[0],
                        [last.bias.item()],
                    ]
                )
            batch = codes[it * a.deals : (it + 1) * a.deals] * a.group
            chunks = [batch[i :: a.workers] for i in range(a.workers)]
            seeds = [a.seed * 1_000_003 + it * 101 + i for i in range(a.workers)]
            games = [g for part in pool.map(_play, [(c, cur, a.tau, s) for c, s in zip(chunks, seeds)]) for g in part]
            by_code: dict[str, list[float]] = {}
            for code, ret, *_ in games:
                by_code.setdefault(code, []).append(ret)
            feats, counts, chosen, adv = [], [], [], []
            for code, ret, f, c, ch in games:
                others = by_code[code]
                base = (sum(others) - ret) / (len(others) - 1)
                if len(c):
                    feats.append(f)
                    counts.append(c)
                    chosen.append(ch)
                    adv.append(np.full(len(c), (ret - base) / WIN_VALUE))
            x = torch.as_tensor(np.concatenate(feats))
            cnt = torch.as_tensor(np.concatenate(counts))
            act = torch.as_tensor(np.concatenate(chosen))
            A = torch.as_tensor(np.concatenate(adv))
            mask = torch.arange(MAX_CANDIDATES)[None, :] < cnt[:, None]

            def logp(x: torch.Tensor = x, mask: torch.Tensor = mask, act: torch.Tensor = act) -> torch.Tensor:
                s = model(x).squeeze(-1).masked_fill(~mask, -1e9) / a.tau
                return torch.log_softmax(s, dim=1).gather(1, act[:, None]).squeeze(1)

            with torch.no_grad():
                old = logp()
            for _ in range(a.epochs):
                ratio = torch.exp(logp() - old)
                loss = -torch.min(ratio * A, torch.clamp(ratio, 1 - a.clip, 1 + a.clip) * A).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            rets = [g[1] for g in games]
            wins = sum(r >= WIN_VALUE for r in rets)
            row = {
                "iteration": it,
                "games": len(games),
                "wins": wins,
                "mean_return": float(np.mean(rets)),
                "decisions": len(act),
                "wall_s": round(time.time() - t0, 1),
            }
            log.append(row)
            print(json.dumps(row), flush=True)
            if (it + 1) % a.save_every == 0 or it + 1 == a.iterations:
                with torch.no_grad():
                    save_net(
                        out / f"net_{it + 1}.npz",
                        np.concatenate(
                            [
                                [N_FEATURES, hidden],
                                first.weight.numpy().ravel(),
                                first.bias.numpy(),
                                last.weight.numpy()[0],
                                [last.bias.item()],
                            ]
                        ),
                    )
    (out / "log.json").write_text(json.dumps({"args": vars(a), "log": log}, indent=1))


if __name__ == "__main__":
    main()
