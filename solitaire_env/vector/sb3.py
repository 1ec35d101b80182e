"""The batch envs as a stable-baselines3 ``VecEnv`` (needs the ``rl`` extra).

``SB3VecEnv(num_envs=1024, **env_kwargs)`` builds a :class:`TriPeaksVectorEnv`
(``SB3VecEnv(num_envs, game="fortythieves", **env_kwargs)`` a :class:`FortyThievesVectorEnv`) in
``same_step`` autoreset mode (what SB3 expects) and speaks SB3's ``VecEnv`` protocol, so
sb3-contrib's ``MaskablePPO`` trains on it directly: it reads ``action_masks`` through
``env_method``, as it does for ``DummyVecEnv``.  Wrap it in ``VecMonitor`` for episode
statistics.

Infos: a list of ``num_envs`` dicts, as SB3 wants.  To keep a step cheap, only the envs
whose episode ended in this step get keys: ``terminal_observation``,
``TimeLimit.truncated`` and the final info of the single env (``score``, ``moves``,
``cleared``, ``chain``, ``longest_chain``, ``deal_code``, ``action_mask``, after an
illegal action ``illegal_reason``; Forty Thieves adds ``founded`` and, after a repetition,
``truncated_reason``); the other dicts are empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from solitaire_env.vector.fortythieves import FortyThievesVectorEnv
from solitaire_env.vector.tripeaks import TriPeaksVectorEnv

_FINAL_KEYS = ("score", "moves", "cleared", "chain", "longest_chain", "deal_code", "action_mask", "illegal_reason")
#: The batch env of each game and the keys of its final infos that go into SB3's info dicts.
GAMES: dict[str, tuple[type[TriPeaksVectorEnv] | type[FortyThievesVectorEnv], tuple[str, ...]]] = {
    "tripeaks": (TriPeaksVectorEnv, _FINAL_KEYS),
    "fortythieves": (FortyThievesVectorEnv, (*_FINAL_KEYS, "founded", "truncated_reason")),
}


class SB3VecEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over a batch env (``num_envs`` games): ``game="tripeaks"``
    (default, :class:`TriPeaksVectorEnv`) or ``"fortythieves"`` (:class:`FortyThievesVectorEnv`)."""

    env: TriPeaksVectorEnv | FortyThievesVectorEnv

    def __init__(self, num_envs: int = 8, *, game: str = "tripeaks", **env_kwargs: Any) -> None:
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; want one of {', '.join(GAMES)}")
        if env_kwargs.get("autoreset_mode", "same_step") != "same_step":
            raise ValueError("SB3VecEnv runs the batch env in autoreset_mode='same_step' (what SB3 expects)")
        env_kwargs["autoreset_mode"] = "same_step"
        env_kwargs.setdefault("copy", True)  # SB3 keeps the previous observation while stepping
        env_class, self._final_keys = GAMES[game]
        self.game = game
        self.env = env_class(num_envs, **env_kwargs)
        super().__init__(num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions = np.zeros(num_envs, dtype=np.int64)

    # ------------------------------------------------------------------ VecEnv protocol

    def reset(self) -> Any:
        seeds = self._seeds
        options = [o for o in self._options if o]
        if options and any(o != options[0] for o in options):
            raise ValueError("SB3VecEnv passes one options dict to every env; got different ones")
        seed: Any = None if all(s is None for s in seeds) else list(seeds)
        obs, _ = self.env.reset(seed=seed, options=options[0] if options else None)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64, copy=False)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs, final_info = info["final_obs"], info["final_info"]
            for i in np.flatnonzero(dones):
                entry = infos[i]
                entry["terminal_observation"] = final_obs[i]
                entry["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                for key in self._final_keys:
                    if key in final_info and final_info[f"_{key}"][i]:
                        value = final_info[key][i]
                        entry[key] = value.item() if isinstance(value, np.generic) else value
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The ``(num_envs, num_actions)`` bool array of legal actions (29 TriPeaks, 210 Forty Thieves)."""
        return self.env.action_masks()

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        rows = self._get_indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        self.env.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        raise NotImplementedError("the batch env does not render; replay a deal code in the single env to draw it")

    def _get_indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
