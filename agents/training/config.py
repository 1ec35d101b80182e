"""The training config: :class:`TrainConfig`, a pydantic model validated from YAML or from a mapping.

:func:`load_train_config` reads a YAML file (with the command line's overrides); every mistake of a
config is named in one :class:`~agents.settings.ConfigError`, one line each.  A check that depends on
another key (the env keywords on the game, the policy on the observation mode) is skipped while that
key is wrong.  Each key's meaning is its field's description (also in ``docs/schemas/train.schema.json``);
the decisions behind them are in ``docs/training.md``; the run is :mod:`agents.training.train`.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_serializer, field_validator

from agents import settings as cfg
from agents.evaluation.config import AgentList, EvalConfig
from agents.training.game_features import for_game
from solitaire_env.games import game_spec

__all__ = ["PPO_KEYS", "TRAIN_KEYS", "TrainConfig", "load_train_config"]

#: Env keywords of the batch env a training config may set besides the game's rule options
#: (the table of games' ``env_options``); ``wrap`` comes from ``rules``.
_TRAIN_ENV_OPTIONS = ("reward", "win_bonus", "obs_mode", "illegal_action", "illegal_penalty")
Layers = list[Annotated[int, Field(ge=1, strict=True)]]
Average = Annotated[float | None, Field(gt=0, lt=1), cfg.real(lambda v: 0 < v < 1, "a decay between 0 and 1")]
TargetKL = Annotated[float | None, Field(gt=0), cfg.real(lambda v: v > 0, "a number > 0 or null")]
Minutes = Annotated[float | None, Field(gt=0), cfg.real(lambda v: v > 0, "a number of minutes > 0 (or null)")]
Number = Annotated[int | float, cfg.real(lambda v: True, "a number")]


def _net_arch(arch: Any) -> Any:
    def sizes(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in v)

    split = isinstance(arch, dict) and set(arch) == {"pi", "vf"} and all(map(sizes, arch.values()))
    if not (arch is None or sizes(arch) or split):
        cfg.fail(f"want a list of layer sizes ([256, 256]) or {{pi: [...], vf: [...]}}, got {arch!r}")
    return arch


class PPO(cfg.Settings):
    """The ``ppo`` block: MaskablePPO's keywords, the policy and the network (null: SB3's default)."""

    learning_rate: cfg.NonNegative = Field(None, description="Adam's step size")
    n_steps: cfg.OptWhole1 = Field(None, description="env steps per env between updates")
    batch_size: cfg.OptWhole1 = Field(None, description="minibatch size")
    n_epochs: cfg.OptWhole1 = Field(None, description="passes over each rollout")
    gamma: cfg.NonNegative = Field(None, description="discount factor")
    gae_lambda: cfg.NonNegative = Field(None, description="GAE's lambda")
    clip_range: cfg.NonNegative = Field(None, description="PPO's clipping")
    normalize_advantage: cfg.Flag | None = Field(None, description="normalize the advantages")
    ent_coef: cfg.NonNegative = Field(None, description="entropy bonus coefficient")
    vf_coef: cfg.NonNegative = Field(None, description="value loss coefficient")
    max_grad_norm: cfg.NonNegative = Field(None, description="gradient clipping")
    target_kl: TargetKL = Field(None, description="stop an update's epochs past this KL divergence")
    features: Literal["none", "chain", "afterstate", "moves"] | None = Field(None, description="in front of the "
        "MLP: none; chain (TriPeaks, agents.training.features); afterstate (TriPeaks: the position each move leads "
        "to is scored); moves (Forty Thieves: each legal move's row of move features is scored)")  # fmt: skip
    net_arch: Annotated[Layers | dict[str, Layers] | None, BeforeValidator(_net_arch)] = Field(None, description=
        "layer sizes ([256, 256]) or {pi: [...], vf: [...]}; with afterstate or moves a list only")  # fmt: skip
    activation_fn: Literal["tanh", "relu"] | None = Field(None, description="the MLP's activation")
    torch_threads: cfg.OptWhole1 = Field(None, description="torch threads of the learner (default 2)")
    policy: Literal["MlpPolicy", "MultiInputPolicy"] | None = Field(None, description="SB3's policy: MlpPolicy "
        "for obs_mode flat, MultiInputPolicy for dict (absent: chosen from obs_mode)")  # fmt: skip


class Pretrain(cfg.Settings):
    """The ``pretrain`` block: the TriPeaks warm start (:mod:`agents.training.pretrain`; null: its default)."""

    minutes: cfg.Positive = Field(None, description="wall-clock budget of the warm start (10)")
    samples: cfg.OptWhole1 = Field(None, description="rollouts per move of the teacher's values (32)")
    steps: cfg.OptWhole1 = Field(None, description="steps per collection (16)")
    epsilon: cfg.Fraction = Field(None, description="share of random moves while collecting (0.1)")
    temperature: cfg.Positive = Field(None, description="the values' temperature (4)")
    epochs: cfg.OptWhole1 = Field(None, description="passes over each collection (2)")
    replay: cfg.OptWhole1 = Field(None, description="collections kept for replay (8)")
    batch_size: cfg.OptWhole1 = Field(None, description="minibatch size (4096)")
    learning_rate: cfg.Positive = Field(None, description="Adam's step size (3e-4)")
    final_learning_rate: cfg.Positive = Field(None, description="the rate falls in a straight line to this")
    threads: cfg.OptWhole1 = Field(None, description="torch threads (2)")
    loss: Literal["squared", "cross_entropy"] | None = Field(None, description="the fit's loss (squared)")
    average: Average = Field(None, description="decay of a moving average of the weights, such as 0.998")
    symmetry: cfg.Flag | None = Field(None, description="fit each position under a random symmetry (false)")
    critic_every: cfg.OptWhole1 = Field(None, description="fit the value head on every k-th batch (1)")


class Imitation(cfg.Settings):
    """The ``imitation`` block: Forty Thieves' warm start on a teacher's moves (:mod:`agents.training.imitation`)."""

    teacher: Literal["planner", "lookahead"] | None = Field(None, description="whose moves are learned (planner)")
    teacher_options: dict[str, Number] | None = Field(None, description="the teacher's numeric options")
    games: cfg.OptWhole1 = Field(None, description="the teacher's games (1000)")
    minutes: cfg.Positive = Field(None, description="a guard on the collection (40)")
    workers: cfg.OptWhole1 = Field(None, description="processes playing the teacher's games (2)")
    epsilon: cfg.Fraction = Field(None, description="share of random moves among the teacher's (0)")
    tolerance: cfg.NonNegative = Field(None, description="also the first moves of plans this close (0)")
    epochs: cfg.OptWhole1 = Field(None, description="passes over the positions (8)")
    batch_size: cfg.OptWhole1 = Field(None, description="minibatch size (512)")
    learning_rate: cfg.Positive = Field(None, description="Adam's step size (1e-3)")
    final_learning_rate: cfg.Positive = Field(None, description="the rate falls in a straight line to this (1e-4)")
    lookahead_bonus: cfg.NonNegative = Field(None, description="added to the lookahead move's score (0)")

    @field_validator("teacher_options")
    @classmethod
    def _options(cls, options: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if options is not None and (info.context or {}).get("deep"):
            from agents.registry import make_agent

            try:
                make_agent(info.data.get("teacher") or "planner", "fortythieves", **options)
            except (TypeError, ValueError) as error:
                cfg.fail(str(error))
        return options


class Validation(cfg.Settings):
    """The ``validation`` block: the deals evaluated during training (the best model kept)."""

    deals: cfg.Whole1 = Field(200, description="how many validation deals")
    seed: cfg.Whole0 = Field(1, description="their seed (not the test's)")
    every: cfg.Whole1 = Field(500_000, description="env steps between validations")


class Test(cfg.Settings):
    """The ``test`` block: the held-out deals after training, the comparison agents."""

    deals: cfg.Whole0 = Field(1000, description="how many test deals (0: no test)")
    seed: cfg.Whole0 = Field(0, description="their seed")
    agents: AgentList = Field((), description="the agents compared with the trained one (as in eval)")
    workers: cfg.OptWhole1 = Field(None, description="the evaluation's worker processes (null: all cores)")


#: What a key goes with (given the game, the env and the ppo block), and what it says otherwise.
_GOES_WITH = {
    "advice": (lambda g, env, ppo: for_game("advice", g) and env.get("obs_mode", "flat") == "flat",
               "{} is for TriPeaks with flat observations (game tripeaks, obs_mode flat)"),
    "shaping": (lambda g, env, ppo: for_game("shaping", g) and env.get("reward", "score") == "progress",
                "{} is for TriPeaks with reward progress (its potential counts cards and the win bonus)"),
    "pretrain": (lambda g, env, ppo: for_game("pretrain", g) and env.get("reward", "score") == "progress",
                 "is for TriPeaks with reward progress (the move values count cards and the win bonus)"),
    "imitation": (lambda g, env, ppo: for_game("imitation", g) and ppo is not None and ppo.features == "moves",
                  "is for Forty Thieves with ppo.features moves (the teacher is a Forty Thieves agent)"),
}  # fmt: skip


class TrainConfig(cfg.Settings):
    """A validated training run (:meth:`from_mapping` makes one with every check)."""

    game: cfg.Game = Field("tripeaks", description="tripeaks (tp) or fortythieves (ft)")
    rules: cfg.Rules = Field(None, validate_default=True, description="TriPeaks E (Easy) or C; Forty Thieves N")
    env: dict[str, Any] = Field({}, description="the batch env's keywords: the game's rule options and reward, "
                                "win_bonus, obs_mode (flat or dict), illegal_action, illegal_penalty")  # fmt: skip
    advice: Literal["none", "base_policy"] = Field("none", description="base_policy: the base policy's move "
                                                   "follows the observation (TriPeaks, flat)")  # fmt: skip
    shaping: Literal["none", "playout"] = Field("none", description="playout: potential-based reward shaping "
                                                "(TriPeaks, reward progress)")  # fmt: skip
    num_envs: cfg.Whole1 = Field(256, description="games stepped together")
    seed: cfg.Whole0 = Field(0, description="the envs' deal streams and PPO's seed")
    timesteps: cfg.Whole1 = Field(1_000_000, description="env steps to learn (with resume: steps to add)")
    minutes: Minutes = Field(None, description="a wall-clock limit of the learning (null: none)")
    ppo: PPO = Field(PPO(), validate_default=True, description="MaskablePPO's settings")
    resume: cfg.PathStr = Field(None, description="a saved model (model.zip of an earlier run) to go on training")
    pretrain: Pretrain | None = Field(None, description="the TriPeaks warm start ({}: the defaults)")
    imitation: Imitation | None = Field(None, description="the Forty Thieves warm start")
    validation: Validation = Field(Validation(), description="the validation deals")
    test: Test = Field(Test(), validate_default=True, description="the test deals and the agents compared")
    out: cfg.Folder = Field("runs/ppo", description="the output folder")

    _rules = field_validator("rules", mode="before")(cfg.rule_letter)

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, env: Any, info: ValidationInfo) -> Any:
        env, game = {} if env is None else env, info.data.get("game")
        if game is None or not isinstance(env, dict):
            return env
        found = cfg.env_problems(env, game, (*game_spec(game).env_options, *_TRAIN_ENV_OPTIONS))
        if str(mode := env.get("obs_mode", "flat")).startswith("oracle"):
            found.append(f"obs_mode {mode!r} shows hidden cards; a trained policy plays fair (flat or dict)")
        cfg.raise_all(found)
        if (info.context or {}).get("deep") and "rules" in info.data:  # the batch env once (no rl extra needed)
            try:
                TrainConfig.model_construct(game=game, rules=info.data["rules"], env=env).make_env().close()
            except (ValueError, TypeError) as error:
                cfg.fail(" ".join(str(error).split()))
        return env

    @field_validator("advice", "shaping", "pretrain", "imitation")
    @classmethod
    def _goes_with(cls, value: Any, info: ValidationInfo) -> Any:
        name, (fits, text) = info.field_name or "", _GOES_WITH[info.field_name or ""]
        warm = name in ("pretrain", "imitation") and value is not None and info.data.get("resume")
        found = ["warm-starts a new policy; it does not go with resume"] if warm else []
        if value not in (None, "none") and {"game", "env"} <= info.data.keys():
            found += [] if fits(info.data["game"], info.data["env"], info.data.get("ppo")) else [text.format(value)]
        cfg.raise_all(found)
        return value

    @field_validator("ppo")
    @classmethod
    def _ppo(cls, ppo: PPO, info: ValidationInfo) -> PPO:
        found, features, fits = [], ppo.features, {"game", "env"} <= info.data.keys()
        mode, game = info.data.get("env", {}).get("obs_mode", "flat"), info.data.get("game")
        want = "MultiInputPolicy" if mode == "dict" else "MlpPolicy"
        if fits and ppo.policy not in (None, want):
            found.append(("policy", f"obs_mode {mode!r} needs {want}, got {ppo.policy!r}"))
        if fits and features in ("chain", "afterstate") and not (for_game(features, game) and mode == "flat"):
            found.append(("features", f"{features} reads the flat TriPeaks observation (game tripeaks, obs_mode flat)"))
        if fits and features == "moves" and not (for_game("moves", game) and mode == "flat"):
            found.append(("features", "moves is for Forty Thieves with flat observations (game fortythieves, "
                                      "obs_mode flat)"))  # fmt: skip
        if features in ("afterstate", "moves") and isinstance(ppo.net_arch, dict):
            found.append(("net_arch", "with features afterstate, a list of layer sizes (the scorer's and the "
                                      "critic's)"))  # fmt: skip
        cfg.raise_all(found)
        return ppo.model_copy(update={"policy": ppo.policy or want})

    @field_validator("resume")
    @classmethod
    def _resume(cls, resume: str | None) -> str | None:
        if resume is not None and not (os.path.isfile(resume) or os.path.isfile(resume + ".zip")):
            cfg.fail(f"model file {resume!r} not found")
        return resume

    @field_validator("test")
    @classmethod
    def _test(cls, test: Test, info: ValidationInfo) -> Test:
        if test.deals and "validation" in info.data and (seed := info.data["validation"].seed) == test.seed:
            cfg.fail(f"validation.seed and test.seed are both {seed}: the validation deals would be test deals; "
                     "give them different seeds")  # fmt: skip
        if "game" in info.data and test.agents and (info.context or {}).get("deep"):
            try:
                EvalConfig(game=info.data["game"], rules=info.data.get("rules"), agents=test.agents).check_agents()
            except cfg.ConfigError as error:
                cfg.raise_all(error.problems)
        return test

    @field_serializer("ppo", "pretrain", "imitation")
    def _given(self, block: cfg.Settings | None) -> dict[str, Any] | None:
        return None if block is None else block.given()

    @classmethod
    def from_mapping(cls, data: Any, source: str | None = None) -> TrainConfig:
        """Validate ``data`` (absent keys take their defaults); every mistake in one :class:`ConfigError`."""
        return cfg.validate(cls, data, source)

    def make_env(self) -> Any:
        """One batch env of the config's game and keywords (without the ``rl`` extra's SB3 wrapper)."""
        return game_spec(self.game).batch_class(1, **self.env_kwargs)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The batch env's keywords (``wrap`` included, from ``rules``)."""
        return {**self.env, **game_spec(self.game).letter_options[self.rules]}

    @property
    def rule_kwargs(self) -> dict[str, Any]:
        """The keywords that change the game (what an evaluation run takes as ``env``)."""
        return {k: v for k, v in self.env.items() if k in game_spec(self.game).env_options}

    @property
    def ppo_kwargs(self) -> dict[str, Any]:
        return self.ppo.given()

    def to_dict(self) -> dict[str, Any]:
        """The settings as a mapping :meth:`from_mapping` accepts (what ``metrics.json`` stores)."""
        return self.model_dump(mode="json")

    def describe(self) -> list[str]:
        """The settings of the run in a few lines (what a run prints at its start)."""
        given = None if self.pretrain is None else ", ".join(f"{k}={v}" for k, v in self.pretrain.given().items())
        test, v = self.test, self.validation
        agents = " ".join(a.key for a in test.agents) or "(none)"
        return [
            f"game {self.game}, rules {self.rules}, {self.num_envs} envs, seed {self.seed}; {self.timesteps:,} "
            "timesteps" + (f" or {self.minutes:g} minutes, whichever comes first" if self.minutes else ""),
            f"env: {', '.join(f'{k}={x}' for k, x in self.env_kwargs.items())}",
            f"ppo: {', '.join(f'{k}={x}' for k, x in self.ppo_kwargs.items()) or '(MaskablePPO defaults)'}",
            f"advice {self.advice}; shaping {self.shaping}; pretrain {'none' if given is None else given or 'defaults'}"
            + ("" if self.imitation is None else f"; imitation {self.imitation.given()}"),
            f"validation: {v.deals} deals (seed {v.seed}) every {v.every:,} steps; test: "
            + (f"{test.deals} deals (seed {test.seed}), compared with {agents}" if test.deals else "none"),
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]

    def dry_run_text(self) -> str:
        """What ``solitaire-env train --dry-run`` prints once the config has passed its checks, a
        line each (:meth:`describe` is the shorter block a run prints at its start)."""
        test, v = self.test, self.validation
        agents = " ".join(a.key for a in test.agents) or "(none)"
        lines = [
            f"config ok: {self.game}, rules {self.rules}, {self.num_envs} envs, {self.timesteps:,} timesteps"
            + (f" or {self.minutes:g} minutes" if self.minutes else "") + f", seed {self.seed}",
            f"env: {self.env or '(defaults)'}",
            f"ppo: {self.ppo_kwargs or '(defaults)'}",
            f"advice: {self.advice}; shaping: {self.shaping}; pretrain: "
            + ("none" if self.pretrain is None else str(self.pretrain.given() or "the defaults"))
            + ("" if self.imitation is None else f"; imitation: {self.imitation.given()}"),
            f"validation: {v.deals} deals (seed {v.seed}) every {v.every:,} steps",
            f"test: {test.deals} deals (seed {test.seed}), compared with: {agents}" if test.deals
            else "test: none (test.deals is 0)",
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]  # fmt: skip
        return "".join(f"{line}\n" for line in lines)


TRAIN_KEYS, PPO_KEYS = tuple(TrainConfig.model_fields), tuple(PPO.model_fields)


def load_train_config(path: str, **overrides: Any) -> TrainConfig:
    """Read and validate a YAML training config; ``overrides`` (not ``None``) replace its keys."""
    data = cfg.load_config_file(path)
    if not data:  # a default run is a million steps of hours: never by accident
        raise cfg.ConfigError(f"{path}: the config is empty; a training config sets at least game, timesteps or "
                              "minutes (see configs/ppo_smoke.yaml and docs/training.md)")  # fmt: skip
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)  # a bad value may come from the command line: say so in the message's "where"
    source = f"{path} (with --{', --'.join(k.replace('_', '-') for k in given)})" if given else path
    return TrainConfig.from_mapping(data, source=source)
