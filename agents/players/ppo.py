"""``ppo``: a trained MaskablePPO policy: the published ones (numpy), a ``.npz`` export, or a ``model.zip``.

    make_agent("ppo", "tripeaks")                                      # the published policy of the rules played
    make_agent("ppo", "tripeaks", model="runs/tp/best_model.npz")      # a numpy export: no torch needed
    make_agent("ppo", "tripeaks", model="runs/tp.zip")                 # torch; env kwargs from the sidecar
    make_agent("ppo", "tripeaks", model="runs/tp.zip", obs_mode="dict")  # no sidecar: say it

**Published policies.** Without ``model`` the agent plays the policy that README publishes for
the game, from ``agents/players/data/`` (:data:`PUBLISHED_POLICIES`): TriPeaks Easy's or
Classic's by the K-A wrap of the position played, Forty Thieves'.  Each is the numpy export
(:mod:`agents.training.export`, :class:`agents.players.scorers.ScorerNet`) of its config's
``best_model.zip``; numpy plays it, so the core install (no torch) runs ``eval --agents ppo``.
They are distilled policies: a network fitted to a search's move values, then PPO.  A ``.npz``
model plays the same way; a ``.zip`` needs the ``rl`` extra (torch, sb3-contrib).

The agent never sees hidden cards.  In an evaluation it reads the observation the env returned
(:meth:`PpoAgent.act_observed`), when that env's observation mode is the model's and the model
takes no advice.  Otherwise (:meth:`PpoAgent.act`: a public state alone, another observation
mode, a model with advice) it computes the observation from the public state: the never-seen
places are filled with the unseen cards in sorted order (``state.with_unseen(sorted unseen)``,
which deals and replays the episode's actions) and the env's observer encodes that game.  The
``flat`` and ``dict`` observations depend on seen cards only (``docs/environments.md``), so any
filling gives the very observation the env showed the policy in training, and both ways give
the same observation, so the same move.  The ``oracle`` modes, which
show hidden cards, are refused.  The action is the one ``model.predict(obs,
action_masks=state.mask, deterministic=True)`` returns (always a legal move), computed from the
policy network's logits without ``predict``'s per-call distribution objects (:meth:`PpoAgent.greedy`:
the best legal logit, or, when two are too close to be sure after rounding, the argmax of the
exact masked probabilities ``predict`` takes it from); ``tests/agents/test_agents_ppo.py`` checks it is
``predict``'s action on hundreds of states and on made-up ties.

Threads and processes
---------------------
The agent sets torch's intra-op threads of its process to ``torch_threads`` (default 1,
``torch.set_num_threads``) before it loads the model.  A one-observation forward pass of a small
MLP gains nothing from more threads, an evaluation runs one agent per worker process, and,
above all, torch's OpenMP thread pool does not survive ``fork``: a worker forked from a process
that had already run a multi-threaded torch operation (the evaluation checks every agent by
building it once in the parent; a training run evaluates its model) hangs in its first torch
call unless it goes down to one thread first.  This is process-wide: ``torch_threads=None``
leaves torch's setting alone (then do not fork after using torch with several threads).

The sidecar (``<model>.json``)
------------------------------
A model file says nothing about the env it was trained on, so a small JSON file next to it
does: for ``runs/tp.zip`` it is ``runs/tp.json`` (``runs/tp.zip.json`` is read too)::

    {"game": "tripeaks", "env_kwargs": {"obs_mode": "flat", "reward": "score"}}

and, for a model trained with advice (:mod:`agents.training.advice`), ``"advice": "base_policy"``: the
agent appends the base policy's move, computed from the public state, to the observation.
A Forty Thieves model whose observation space is the move features'
(:mod:`agents.training.move_features`, ``ppo.features: moves``) gets them, made from the
public state, whatever the sidecar's ``obs_mode`` says.

``game``: ``"tripeaks"`` or ``"fortythieves"`` (the agent refuses a model of the other game);
``env_kwargs``: the keyword arguments of ``gym.make("solitaire_env/TriPeaks-v0", ...)`` (or
``FortyThieves-v0``) used in training.  Only what changes the observation matters to the agent
(``obs_mode``); the rules come from the game being played.  :func:`write_sidecar` writes one.
Options given to the agent (``obs_mode=``, ``env_kwargs=``) override the sidecar's.

Options: ``model`` (the path, required), ``obs_mode``, ``env_kwargs``, ``deterministic``
(default ``True``: the most probable legal action; ``False`` samples the masked policy with a
generator seeded from the agent's seed and the public information, so the choice is still
reproducible), ``device`` (default ``"cpu"``), ``torch_threads`` (default 1, see above),
``advice`` (``"base_policy"``: the model's observation ends with the base policy's move,
:mod:`agents.training.advice`; default: what the sidecar says).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, EnvOutput, GameName, PublicState
from agents.players.scorers import ScorerNet
from agents.training.game_features import for_game
from solitaire_env.games import ENV_IDS, game_spec  # the registered env of each game (re-exported

__all__ = [
    "ENV_IDS",
    "PUBLISHED_POLICIES",
    "PpoAgent",
    "published_policy",
    "read_sidecar",
    "sidecar_path",
    "write_sidecar",
]

#: What the ``advice`` of a sidecar may name (:mod:`agents.training.advice`).
ADVICE = ("base_policy",)


def model_file(model: str | Path) -> Path:
    """The file SB3 loads for ``model`` (it appends ``.zip`` when the path has no suffix)."""
    path = Path(model)
    if not path.exists() and path.suffix != ".zip" and path.with_name(path.name + ".zip").exists():
        return path.with_name(path.name + ".zip")
    return path


def sidecar_path(model: str | Path) -> Path:
    """The sidecar of a model file: ``name.zip`` -> ``name.json``."""
    path = Path(model)
    return path.with_suffix(".json") if path.suffix == ".zip" else path.with_name(path.name + ".json")


def write_sidecar(
    model: str | Path, game: GameName, env_kwargs: dict[str, Any] | None = None, advice: str | None = None
) -> Path:
    """Write the sidecar of a model saved at ``model``; returns its path.  ``advice``:
    ``"base_policy"`` when the model's observations end with :mod:`agents.training.advice`'s one-hot."""
    if game not in ENV_IDS:
        raise ValueError(f"unknown game {game!r}; want 'tripeaks' or 'fortythieves'")
    if advice not in (None, *ADVICE):
        raise ValueError(f"unknown advice {advice!r}; want one of {', '.join(ADVICE)} or None")
    data: dict[str, Any] = {"game": game, "env_kwargs": dict(env_kwargs or {})}
    if advice is not None:
        data["advice"] = advice
    out = sidecar_path(model)
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return out


def read_sidecar(model: str | Path) -> dict[str, Any] | None:
    """The sidecar of a model file as a dict (``None`` if there is none); ``ValueError`` if unreadable."""
    path = model_file(model)
    for candidate in (sidecar_path(path), path.with_name(path.name + ".json")):
        if not candidate.is_file():
            continue
        try:
            data = json.loads(candidate.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"cannot read the ppo model sidecar {candidate}: {error}") from None
        if (
            not isinstance(data, dict)
            or data.get("game") not in ENV_IDS
            or not isinstance(data.get("env_kwargs", {}), dict)
            or data.get("advice") not in (None, *ADVICE)
        ):
            raise ValueError(
                f'the ppo model sidecar {candidate} must hold {{"game": "tripeaks" | "fortythieves", '
                f'"env_kwargs": {{...}}[, "advice": "base_policy"]}}, got {data!r}'
            )
        return {
            "game": data["game"],
            "env_kwargs": dict(data.get("env_kwargs", {})),
            "advice": data.get("advice"),
            "path": str(candidate),
        }
    return None


def _same_space(a: Any, b: Any) -> bool:
    """Whether two observation spaces take the same observations (shape and keys)."""
    from gymnasium import spaces

    if isinstance(a, spaces.Dict) and isinstance(b, spaces.Dict):
        return set(a.spaces) == set(b.spaces) and all(_same_space(a[k], b[k]) for k in a.spaces)
    return type(a) is type(b) and a.shape == b.shape


#: The published policies (agents/players/data/), played when no ``model`` is given: TriPeaks
#: by the rules' K-A wrap (Easy: wrap, Classic: none), Forty Thieves.  ``solitaire-env export``
#: made each from its config's ``model.zip`` (``configs/ppo_tripeaks_easy.yaml``,
#: ``ppo_tripeaks_classic.yaml``, ``ppo_fortythieves.yaml``; docs/training.md).
PUBLISHED_POLICIES: dict[tuple[GameName, str], str] = {
    ("tripeaks", "E"): "tripeaks_easy_ppo.npz",
    ("tripeaks", "C"): "tripeaks_classic_ppo.npz",
    ("fortythieves", "N"): "fortythieves_ppo.npz",
}


def published_policy(game: GameName, rule: str | None = None) -> Path:
    """The path of the published policy of ``game`` under its rule letter (``None``: the game's
    default rule; TriPeaks ``E`` Easy, ``C`` Classic)."""
    letter = game_spec(game).default_rule if rule is None else rule
    return Path(__file__).with_name("data") / PUBLISHED_POLICIES[(game, letter)]


class PpoAgent(Agent):
    """A MaskablePPO policy: a saved ``model.zip`` (torch), its numpy export (``.npz``), or, with
    no ``model``, the published policy of the rules played (numpy; see the module docstring)."""

    name = "ppo"
    games = ("tripeaks", "fortythieves")
    label = "learned policy"

    def __init__(
        self,
        game: GameName,
        seed: int = 0,
        *,
        model: str | Path | None = None,
        obs_mode: str | None = None,
        env_kwargs: dict[str, Any] | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        torch_threads: int | None = 1,
        advice: str | None = None,
    ) -> None:
        super().__init__(game, seed)
        if torch_threads is not None and (
            isinstance(torch_threads, bool) or not isinstance(torch_threads, int) or torch_threads < 1
        ):
            raise ValueError(f"torch_threads must be a whole number >= 1 or None, got {torch_threads!r}")
        #: the published policies by K-A wrap when no model is given (loaded on first use)
        self.published = model is None
        path = published_policy(game) if model is None else model_file(model)
        if not path.is_file():
            raise FileNotFoundError(f"ppo model file not found: {path}")
        #: the numpy policy (a ``.npz``; by rule letter for the published ones), else none: torch
        self.nets: dict[str, ScorerNet] = {}
        self._rule = game_spec(game).default_rule
        kwargs: dict[str, Any] = {}
        if path.suffix == ".npz":
            net = ScorerNet.load(path)
            if net.game != game:
                raise ValueError(f"the ppo policy {path} was trained on {net.game}, not {game}")
            self.nets[self._rule] = net
            kwargs.update(net.env_kwargs)
            if advice is None:
                advice = net.advice
        else:
            sidecar = read_sidecar(path)
            if sidecar is not None:
                if sidecar["game"] != game:
                    raise ValueError(f"the ppo model {path} was trained on {sidecar['game']}, not {game}")
                kwargs.update(sidecar["env_kwargs"])
            if advice is None and sidecar is not None:
                advice = sidecar["advice"]
        if advice not in (None, "none", *ADVICE):
            raise ValueError(f"unknown advice {advice!r}; want one of {', '.join(ADVICE)}")
        if advice in ADVICE and not for_game("advice", game):
            raise ValueError(f"advice {advice!r} is for TriPeaks models")
        #: ``"base_policy"``: the observation ends with the base policy's move (:mod:`agents.training.advice`).
        self.advice = None if advice in (None, "none") else str(advice)
        kwargs.update(env_kwargs or {})
        if obs_mode is not None:
            kwargs["obs_mode"] = obs_mode
        mode = kwargs.get("obs_mode", "flat")
        if str(mode).startswith("oracle"):
            raise ValueError(f"the ppo agent plays fair: obs_mode {mode!r} shows hidden cards")
        kwargs.pop("render_mode", None)
        self.model_path = path
        self.env_kwargs = kwargs
        self.deterministic = bool(deterministic)
        import gymnasium as gym

        import solitaire_env  # noqa: F401 (registers the envs)

        env = gym.make(ENV_IDS[game], **kwargs)
        self.observer = env.unwrapped.observer  # type: ignore[attr-defined]
        env.close()
        from agents.training.move_features import MoveFeatures

        #: Forty Thieves models on move features (:mod:`agents.training.move_features`): their maker.
        self.move_features: MoveFeatures | None = None
        if self.nets:
            if self.nets[self._rule].kind == "moves":
                self.move_features = MoveFeatures()
            return
        self._load_torch(path, device, torch_threads)

    def _load_torch(self, path: Path, device: str, torch_threads: int | None) -> None:
        """Load a ``model.zip`` with sb3-contrib and check that its observations are the ones
        this agent makes."""
        from agents.extras import require_rl

        require_rl("the ppo agent")  # one line naming the pip command when the extra is missing
        import torch
        from gymnasium import spaces
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.preprocessing import is_image_space

        from agents.training.move_features import MoveFeatures, takes_move_features

        if torch_threads is not None:  # before any torch work in this process (see the module docstring)
            torch.set_num_threads(torch_threads)
        try:
            self.model = MaskablePPO.load(str(path), device=device)
        except Exception as error:
            raise ValueError(f"cannot load the ppo model {path}: {type(error).__name__}: {error}") from None
        self.policy: Any = self.model.policy
        self.policy.set_training_mode(False)  # what predict() does on every call
        space = self.policy.observation_space
        self._flat_input = isinstance(space, spaces.Box) and not is_image_space(space)
        self._batch_shape = (-1, *space.shape) if isinstance(space, spaces.Box) else ()
        self._device = self.policy.device  # the property walks the parameters on every read
        want = self.observer.space
        if for_game("moves", self.game) and takes_move_features(self.model.observation_space):
            self.move_features = MoveFeatures()
            want = self.model.observation_space
        if self.advice is not None:
            from agents.training.advice import ADVICE_SIZE

            if not isinstance(want, spaces.Box) or len(want.shape) != 1:
                raise ValueError(f"advice needs flat observations, but env kwargs {self.env_kwargs} give {want}")
            want = spaces.Box(0.0, 1.0, (want.shape[0] + ADVICE_SIZE,), np.float32)
        old_rows = 210 * 21 + 8  # the move features before rows 21-23 (the lookahead's) came in
        if for_game("moves", self.game) and getattr(self.model.observation_space, "shape", None) == (old_rows,):
            raise ValueError(
                f"the ppo model {path} was trained on the older move features (21 numbers a move); "
                "this version's have 24 (agents/training/move_features.py): train it again"
            )
        if not _same_space(want, self.model.observation_space):
            raise ValueError(
                f"the ppo model {path} takes observations {self.model.observation_space}, but env kwargs "
                f"{self.env_kwargs} and advice {self.advice} give {want} "
                "(give the right obs_mode and advice, or a sidecar)"
            )

    def net_for(self, state: PublicState) -> ScorerNet | None:
        """The numpy policy that plays ``state`` (``None`` for a torch model): the published one
        of the state's rules when no model was given."""
        if not self.nets:
            return None
        if not self.published:
            return self.nets[self._rule]
        rule = game_spec(self.game).rule_letter(state.rules)
        net = self.nets.get(rule)
        if net is None:
            net = self.nets[rule] = ScorerNet.load(published_policy(self.game, rule))
        return net

    def observation(self, state: PublicState) -> Any:
        """The env's observation of the public state (built from seen cards only), followed by
        the base policy's move when the model takes advice (computed from the public state)."""
        if self.move_features is not None:
            return self.move_features(state)
        obs = self.observer.encode(state.with_unseen(list(state.unseen)))
        if self.advice is not None:
            from agents.training.advice import public_advice, with_advice

            return with_advice(obs, public_advice(state))
        return obs

    def act(self, state: PublicState) -> int:
        return self._choose(state, self.observation(state))

    def act_observed(self, state: PublicState, output: EnvOutput) -> int:
        """:meth:`act`, with the env's own observation when it is the one the model takes (the
        env's observation mode is the model's and the model takes no advice): no game is
        rebuilt from the public state.  Else :meth:`act`'s observation from the public state."""
        if self.advice is not None or self.move_features is not None or output.obs_mode != self.observer.mode:
            return self.act(state)
        return self._choose(state, output.observation)

    def _choose(self, state: PublicState, obs: Any) -> int:
        net = self.net_for(state)
        if self.deterministic:
            return net.greedy(obs, state.mask) if net is not None else self.greedy(obs, state.mask)
        probs = self.probabilities(state, obs)
        return int(state.rng(self.seed).choice(len(probs), p=probs))

    def logits(self, obs: Any) -> Any:
        """The policy network's action logits of one observation, a ``(1, num_actions)`` tensor."""
        import torch
        from stable_baselines3.common.preprocessing import preprocess_obs

        policy = self.policy
        if self._flat_input and isinstance(obs, np.ndarray):  # obs_to_tensor's work for a flat Box
            tensor = torch.as_tensor(obs.reshape(self._batch_shape), device=self._device)
        else:
            tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            features = policy.pi_features_extractor(
                preprocess_obs(tensor, policy.observation_space, normalize_images=policy.normalize_images)
            )
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        return logits.reshape(-1, logits.shape[-1])

    def masked_probs(self, obs: Any, mask: np.ndarray) -> Any:
        """The masked policy's probabilities of one observation, a ``(1, num_actions)`` tensor.

        Exactly what ``model.predict`` computes, without its distribution objects: the logits
        normalized (``logits - logsumexp``, as ``torch.distributions.Categorical`` does), illegal
        actions set to -1e8 and normalized again (sb3-contrib's ``MaskableCategorical``), then the
        softmax.  ``predict(deterministic=True)`` is their argmax (ties: the first)."""
        import torch

        with torch.no_grad():
            logits = self.logits(obs)
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            masks = torch.as_tensor(mask, dtype=torch.bool, device=logits.device).reshape(logits.shape)
            logits = torch.where(masks, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            return torch.softmax(logits, dim=-1)

    def greedy(self, obs: Any, mask: np.ndarray) -> int:
        """The action ``model.predict(obs, action_masks=mask, deterministic=True)`` picks.

        Every step from the logits to ``predict``'s probabilities (subtracting a constant,
        masking, the softmax) keeps the order of the legal actions' values; rounding can only
        merge two close ones into a tie, which ``predict`` breaks by the lower index.  So when
        the best legal logit leads the next by a clear margin (1e-4 of the values' magnitude:
        hundreds of float32 roundings) it is ``predict``'s action; else the exact probabilities
        of :meth:`masked_probs` decide."""
        logits = self.logits(obs)[0].cpu().numpy()
        legal = np.flatnonzero(mask)
        values = logits[legal]
        if len(values) == 1:
            return int(legal[0])
        top = int(np.argmax(values))
        second = np.partition(values, -2)[-2]
        scale = 1.0 + float(np.abs(logits).max()) + float(np.log(len(logits)))
        if float(values[top]) - float(second) > 1e-4 * scale:
            return int(legal[top])
        return int(self.masked_probs(obs, mask).argmax(dim=1).item())

    def probabilities(self, state: PublicState, obs: Any = None) -> np.ndarray:
        """The masked policy's action probabilities (zero on illegal actions)."""
        if obs is None:
            obs = self.observation(state)
        net = self.net_for(state)
        if net is not None:
            logits = net.logits(obs).astype(np.float64)
            logits[~state.mask] = -np.inf
            weights = np.exp(logits - logits.max())
            return weights / weights.sum()
        probs = self.masked_probs(obs, state.mask)[0].cpu().numpy().astype(np.float64)
        probs[~state.mask] = 0.0
        return probs / probs.sum()
