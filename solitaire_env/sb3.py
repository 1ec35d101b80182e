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
``truncated_reason``) and ``is_success`` (the game was won: TriPeaks ``cleared == 28``, Forty
Thieves ``founded == 104``; what SB3's ``EvalCallback`` / sb3-contrib's ``MaskableEvalCallback``
average into ``eval/success_rate``); the other dicts are empty.

Fixed evaluation deals: ``SB3VecEnv(n, deal_codes=codes)`` (``len(codes) == n``) starts env
``i`` on ``codes[i]`` at every ``reset()``, so ``evaluate_policy`` / ``MaskableEvalCallback``
with ``n_eval_episodes == n`` plays each code exactly once per evaluation (an env's later
episodes are random deals, which the evaluation does not count).  ``exclude_codes=codes`` on the
training env keeps the same codes out of its random deals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from solitaire_env.common.deals import parse_deal_code
from solitaire_env.games import game_spec

#: The keys of the final infos that go into SB3's info dicts (those a game's batch env has),
#: besides the game's progress counter.
FINAL_KEYS = (
    "score", "moves", "cleared", "chain", "longest_chain", "deal_code", "action_mask", "illegal_reason",
    "truncated_reason",
)  # fmt: skip


class SB3VecEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over a batch env (``num_envs`` games): ``game="tripeaks"``
    (default, :class:`TriPeaksVectorEnv`) or ``"fortythieves"`` (:class:`FortyThievesVectorEnv`).

    ``env_kwargs`` go to the batch env (rules, ``reward``, ``obs_mode``, ``exclude_codes``, ...;
    ``autoreset_mode`` is always ``"same_step"``).

    ``deal_codes``: ``num_envs`` deal codes of the game; then every ``reset()`` starts env ``i``
    on ``deal_codes[i]`` (a ``ValueError`` if the length differs, a ``DealCodeError`` for a bad
    code, both at construction).  Unlike ``set_options({"deal_codes": ...})``, which SB3
    consumes at the next reset only, this holds for every reset: an evaluation env for
    ``evaluate_policy`` / ``MaskableEvalCallback`` with ``n_eval_episodes == num_envs`` plays
    each code once per evaluation.  Episodes after an automatic reset are random deals (the
    evaluation does not count them).  Options set with ``set_options`` take precedence for the
    one reset they are given to.

    The info of an env whose episode ended has ``is_success``: whether the game was won.
    """

    env: Any

    def __init__(
        self, num_envs: int = 8, *, game: str = "tripeaks", deal_codes: Sequence[str] | None = None, **env_kwargs: Any
    ) -> None:
        spec = game_spec(game)
        if spec.batch_class is None:
            raise ValueError(f"{spec.title} has no batch env")
        if env_kwargs.get("autoreset_mode", "same_step") != "same_step":
            raise ValueError("SB3VecEnv runs the batch env in autoreset_mode='same_step' (what SB3 expects)")
        env_kwargs["autoreset_mode"] = "same_step"
        env_kwargs.setdefault("copy", True)  # SB3 keeps the previous observation while stepping
        self._final_keys = tuple(dict.fromkeys((*FINAL_KEYS, spec.progress_key)))
        #: the final info counter that says an episode was won, and its value then (``is_success``)
        self._won_key, self._won_value = spec.progress_key, spec.plugin.PROGRESS_TOTAL
        self.game = spec.name
        self.env = spec.batch_class(num_envs, **env_kwargs)
        #: The deal code every reset() starts each env on (``None``: random deals).
        self.deal_codes: list[str] | None = None
        if deal_codes is not None:
            if isinstance(deal_codes, str) or not isinstance(deal_codes, Iterable):
                raise ValueError(f"deal_codes must be a list of {num_envs} deal codes, got {deal_codes!r}")
            codes = list(deal_codes)
            if len(codes) != num_envs:
                raise ValueError(f"deal_codes must have one code per env ({num_envs}), got {len(codes)}")
            self.env._check_options(codes, None)  # the batch env's check of reset(options={"deal_codes": ...})
            self.deal_codes = [str(parse_deal_code(code)) for code in codes]
        super().__init__(num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions = np.zeros(num_envs, dtype=np.int64)

    # ------------------------------------------------------------------ VecEnv protocol

    def reset(self) -> Any:
        seeds = self._seeds
        options = [o for o in self._options if o]
        if options and any(o != options[0] for o in options):
            raise ValueError("SB3VecEnv passes one options dict to every env; got different ones")
        seed: Any = None if all(s is None for s in seeds) else list(seeds)
        if options:
            reset_options: dict[str, Any] | None = options[0]
        elif self.deal_codes is not None:
            reset_options = {"deal_codes": self.deal_codes}
        else:
            reset_options = None
        obs, _ = self.env.reset(seed=seed, options=reset_options)
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
                entry["is_success"] = bool(final_info[self._won_key][i] == self._won_value)
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
