"""The training config: :class:`TrainConfig`, a pydantic model validated from YAML or from a mapping.

:func:`load_train_config` reads a YAML file (with the command line's overrides) and
:meth:`TrainConfig.from_mapping` checks every key: all the mistakes of a config in one
:class:`~agents.evaluation.config.ConfigError`, one line each.  A check that depends on another key
(the env keywords on the game, the policy on the observation mode) is skipped while that key is
wrong.  Each key's meaning is its field's description (also in ``docs/schemas/train.schema.json``);
the decisions behind them are in ``docs/training.md``; the run is :mod:`agents.training.train`.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, Strict, ValidationInfo, field_serializer, field_validator

from agents.evaluation.config import AgentList, EvalConfig
from agents.settings import (
    ENV_OPTIONS,
    ConfigError,
    Flag,
    Folder,
    Fraction,
    Game,
    NonNegative,
    OptWhole1,
    PathStr,
    Positive,
    Rules,
    Settings,
    Whole0,
    Whole1,
    env_problems,
    fail,
    load_config_file,
    raise_all,
    real,
    rule_letter,
    validate,
)

__all__ = ["PPO_KEYS", "TRAIN_KEYS", "TrainConfig", "load_train_config"]

#: Env keywords of the batch env a training config may set (besides the rule options of
#: :data:`agents.evaluation.config.ENV_OPTIONS`); ``wrap`` comes from ``rules``.
_TRAIN_ENV_OPTIONS = ("reward", "win_bonus", "obs_mode", "illegal_action", "illegal_penalty")
Layers = list[Annotated[int, Field(ge=1, strict=True)]]
Average = Annotated[
    float | None, Field(gt=0, lt=1), real(lambda v: 0 < v < 1, "a decay between 0 and 1 (such as 0.998)")
]
TargetKL = Annotated[float | None, Field(gt=0), real(lambda v: v > 0, "a number > 0 or null")]
Minutes = Annotated[
    float | None, Field(gt=0), real(lambda v: v > 0, "a number of minutes > 0 (or null for no time limit)")
]


def _net_arch(arch: Any) -> Any:
    def sizes(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in v)

    if arch is not None and not (
        sizes(arch) or (isinstance(arch, dict) and set(arch) == {"pi", "vf"} and all(map(sizes, arch.values())))
    ):
        fail(f"want a list of layer sizes ([256, 256]) or {{pi: [...], vf: [...]}}, got {arch!r}")
    return arch


class PPO(Settings):
    """The ``ppo`` block: MaskablePPO's keyword arguments, the policy and the network (null: SB3's default)."""

    learning_rate: NonNegative = Field(None, description="Adam's step size")
    n_steps: OptWhole1 = Field(None, description="env steps per env between updates")
    batch_size: OptWhole1 = Field(None, description="minibatch size")
    n_epochs: OptWhole1 = Field(None, description="passes over each rollout")
    gamma: NonNegative = Field(None, description="discount factor")
    gae_lambda: NonNegative = Field(None, description="GAE's lambda")
    clip_range: NonNegative = Field(None, description="PPO's clipping")
    normalize_advantage: Flag | None = Field(None, description="normalize the advantages")
    ent_coef: NonNegative = Field(None, description="entropy bonus coefficient")
    vf_coef: NonNegative = Field(None, description="value loss coefficient")
    max_grad_norm: NonNegative = Field(None, description="gradient clipping")
    target_kl: TargetKL = Field(None, description="stop an update's epochs past this KL divergence")
    features: Literal["none", "chain", "afterstate", "moves"] | None = Field(
        None,
        description="what stands in "
        "front of the MLP: none (the observation), chain (agents.training.features), afterstate (the position each "
        "move leads to is scored), moves (Forty Thieves: each legal move's row of move features)",
    )
    net_arch: Annotated[Layers | dict[str, Layers] | None, BeforeValidator(_net_arch)] = Field(
        None, description="layer sizes ([256, 256]) or {pi: [...], vf: [...]}"
    )
    activation_fn: Literal["tanh", "relu"] | None = Field(None, description="the MLP's activation")
    torch_threads: OptWhole1 = Field(None, description="torch threads of the learner")
    policy: Literal["MlpPolicy", "MultiInputPolicy"] | None = Field(
        None, description="SB3's policy class: MlpPolicy (default; obs_mode flat) or MultiInputPolicy (obs_mode dict)"
    )


class Pretrain(Settings):
    """The ``pretrain`` block (:mod:`agents.training.pretrain`; null: its default)."""

    minutes: Positive = Field(None, description="wall-clock budget of the warm start")
    samples: OptWhole1 = Field(None, description="rollouts per move of the teacher's values")
    steps: OptWhole1 = Field(None, description="steps per position collection")
    epsilon: Fraction = Field(None, description="share of random moves while collecting")
    temperature: Positive = Field(None, description="the values' temperature")
    epochs: OptWhole1 = Field(None, description="passes over each collection")
    replay: OptWhole1 = Field(None, description="collections kept for replay")
    batch_size: OptWhole1 = Field(None, description="minibatch size")
    learning_rate: Positive = Field(None, description="Adam's step size")
    final_learning_rate: Positive = Field(None, description="the rate falls linearly to this over minutes")
    threads: OptWhole1 = Field(None, description="torch threads")
    loss: Literal["squared", "cross_entropy"] | None = Field(None, description="the fit's loss")
    average: Average = Field(None, description="decay of an average of the weights")
    symmetry: Flag | None = Field(None, description="also fit the mirrored positions")
    critic_every: OptWhole1 = Field(None, description="fit the critic every this many collections")


class Imitation(Settings):
    """The ``imitation`` block (Forty Thieves, :mod:`agents.training.imitation`; null: its default)."""

    teacher: Literal["planner", "lookahead"] | None = Field(None, description="the agent whose moves are learned")
    teacher_options: dict[str, Annotated[int, Strict()] | Annotated[float, Strict()]] | None = Field(
        None, description="the teacher's numeric options"
    )
    games: OptWhole1 = Field(None, description="the teacher's games")
    minutes: Positive = Field(None, description="wall-clock budget")
    workers: OptWhole1 = Field(None, description="processes playing the teacher's games")
    epsilon: Fraction = Field(None, description="share of random moves")
    tolerance: NonNegative = Field(None, description="plans scored this close to the teacher's count as good")
    epochs: OptWhole1 = Field(None, description="passes over the positions")
    batch_size: OptWhole1 = Field(None, description="minibatch size")
    learning_rate: Positive = Field(None, description="Adam's step size")
    final_learning_rate: Positive = Field(None, description="the rate falls linearly to this")
    lookahead_bonus: NonNegative = Field(None, description="extra weight of the lookahead's move")

    @field_validator("teacher_options")
    @classmethod
    def _options(cls, options: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if options is not None and (info.context or {}).get("deep"):
            from agents.registry import make_agent

            try:
                make_agent(info.data.get("teacher") or "planner", "fortythieves", **options)
            except (TypeError, ValueError) as error:
                fail(str(error))
        return options


class Validation(Settings):
    """The ``validation`` block: the deals evaluated during training (the best model kept)."""

    deals: Whole1 = Field(200, description="how many validation deals")
    seed: Whole0 = Field(1, description="their seed (not the test's)")
    every: Whole1 = Field(500_000, description="env steps between validations")


class Test(Settings):
    """The ``test`` block: the held-out deals after training, the comparison agents."""

    deals: Whole0 = Field(1000, description="how many test deals (0: no test)")
    seed: Whole0 = Field(0, description="their seed")
    agents: AgentList = Field((), description="comparison agents (as in eval)")
    workers: OptWhole1 = Field(None, description="worker processes (null: all cores)")


def _fits(info: ValidationInfo) -> bool:
    """Whether the game and env are valid, so that what goes with them can be checked."""
    return "game" in info.data and "env" in info.data


class TrainConfig(Settings):
    """A validated training run (:meth:`from_mapping` makes one with every check)."""

    game: Game = Field("tripeaks", description="tripeaks (tp) or fortythieves (ft)")
    rules: Rules = Field(None, validate_default=True, description="TriPeaks E (Easy) or C (Classic); Forty Thieves N")
    env: dict[str, Any] = Field(
        {},
        description="the batch env's keywords: the game's rule options and reward, "
        "win_bonus, obs_mode (flat or dict), illegal_action, illegal_penalty",
    )
    advice: Literal["none", "base_policy"] = Field(
        "none",
        description="base_policy: the base policy's move "
        "appended to the observation (TriPeaks, flat; agents.training.advice)",
    )
    shaping: Literal["none", "playout"] = Field(
        "none",
        description="playout: potential-based reward shaping (TriPeaks, reward progress; agents.training.shaping)",
    )
    num_envs: Whole1 = Field(256, description="envs stepped together")
    seed: Whole0 = Field(0, description="the seed of the envs, the policy and PPO")
    timesteps: Whole1 = Field(1_000_000, description="env steps to train (with resume: steps to add)")
    minutes: Minutes = Field(None, description="wall-clock limit of the learning (null: none)")
    ppo: PPO = Field(PPO(), validate_default=True, description="MaskablePPO's settings")
    resume: PathStr = Field(None, description="a saved model (model.zip of an earlier run) to go on training")
    pretrain: Pretrain | None = Field(None, description="TriPeaks warm start on the move values ({}: the defaults)")
    imitation: Imitation | None = Field(None, description="Forty Thieves warm start on the planner's moves")
    validation: Validation = Field(Validation(), description="the validation deals")
    test: Test = Field(Test(), validate_default=True, description="the test deals and the agents compared")
    out: Folder = Field("runs/ppo", description="the output folder")

    _rules = field_validator("rules", mode="before")(rule_letter)

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, env: Any, info: ValidationInfo) -> Any:
        env = {} if env is None else env
        if "game" not in info.data or not isinstance(env, dict):
            return env
        found = env_problems(env, info.data["game"], (*ENV_OPTIONS[info.data["game"]], *_TRAIN_ENV_OPTIONS))
        mode = env.get("obs_mode", "flat")
        if isinstance(mode, str) and mode.startswith("oracle"):
            found.append(f"obs_mode {mode!r} shows hidden cards; a trained policy plays fair (flat or dict)")
        raise_all(found)
        if (info.context or {}).get(
            "deep"
        ) and "rules" in info.data:  # the batch env once (not its SB3 wrapper: no rl extra needed)
            from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
            from solitaire_env.tripeaks.batch import TriPeaksVectorEnv

            wrap = {"wrap": info.data["rules"] == "E"} if info.data["game"] == "tripeaks" else {}
            try:
                (TriPeaksVectorEnv if info.data["game"] == "tripeaks" else FortyThievesVectorEnv)(
                    1, **env, **wrap
                ).close()
            except (ValueError, TypeError) as error:
                fail(" ".join(str(error).split()))
        return env

    @field_validator("advice", "shaping")
    @classmethod
    def _aids(cls, aid: str, info: ValidationInfo) -> str:
        if aid == "none" or not _fits(info):
            return aid
        game, env = info.data["game"], info.data["env"]
        if info.field_name == "advice" and (game != "tripeaks" or env.get("obs_mode", "flat") != "flat"):
            fail(f"{aid} is for TriPeaks with flat observations (game tripeaks, obs_mode flat)")
        if info.field_name == "shaping" and (game != "tripeaks" or env.get("reward", "score") != "progress"):
            fail(f"{aid} is for TriPeaks with reward progress (its potential counts cards and the win bonus)")
        return aid

    @field_validator("ppo")
    @classmethod
    def _ppo(cls, ppo: PPO, info: ValidationInfo) -> PPO:
        found: list[tuple[str, str]] = []
        mode = info.data.get("env", {}).get("obs_mode", "flat")
        want = "MultiInputPolicy" if mode == "dict" else "MlpPolicy"
        if _fits(info) and ppo.policy not in (None, want):
            found.append(("policy", f"obs_mode {mode!r} needs {want}, got {ppo.policy!r}"))
        game, features = info.data.get("game"), ppo.features
        if _fits(info) and features in ("chain", "afterstate") and (game != "tripeaks" or mode != "flat"):
            found.append(("features", f"{features} reads the flat TriPeaks observation (game tripeaks, obs_mode flat)"))
        if _fits(info) and features == "moves" and (game != "fortythieves" or mode != "flat"):
            found.append(
                ("features", "moves is for Forty Thieves with flat observations (game fortythieves, obs_mode flat)")
            )
        if features in ("afterstate", "moves") and isinstance(ppo.net_arch, dict):
            found.append(
                ("net_arch", "with features afterstate, a list of layer sizes (the scorer's and the critic's)")
            )
        raise_all(found)
        return ppo.model_copy(update={"policy": ppo.policy or want})

    @field_validator("resume")
    @classmethod
    def _resume(cls, resume: str | None) -> str | None:
        if resume is not None and not (os.path.isfile(resume) or os.path.isfile(resume + ".zip")):
            fail(f"model file {resume!r} not found")
        return resume

    @field_validator("pretrain")
    @classmethod
    def _pretrain(cls, block: Pretrain | None, info: ValidationInfo) -> Pretrain | None:
        found = ["warm-starts a new policy; it does not go with resume"] if block and info.data.get("resume") else []
        env = info.data.get("env", {})
        if (
            block is not None
            and _fits(info)
            and (info.data["game"] != "tripeaks" or env.get("reward", "score") != "progress")
        ):
            found.append("is for TriPeaks with reward progress (the move values count cards and the win bonus)")
        raise_all(found)
        return block

    @field_validator("imitation")
    @classmethod
    def _imitation(cls, block: Imitation | None, info: ValidationInfo) -> Imitation | None:
        found = ["warm-starts a new policy; it does not go with resume"] if block and info.data.get("resume") else []
        features = info.data["ppo"].features if "ppo" in info.data else None
        if block is not None and _fits(info) and (info.data["game"] != "fortythieves" or features != "moves"):
            found.append("is for Forty Thieves with ppo.features moves (the teacher is a Forty Thieves agent)")
        raise_all(found)
        return block

    @field_validator("test")
    @classmethod
    def _test(cls, test: Test, info: ValidationInfo) -> Test:
        seed = info.data["validation"].seed if "validation" in info.data else None
        if test.deals and seed == test.seed:
            fail(
                f"validation.seed and test.seed are both {seed}: the validation deals would be test deals; "
                "give them different seeds"
            )
        if "game" in info.data and test.agents and (info.context or {}).get("deep"):
            try:
                EvalConfig(game=info.data["game"], rules=info.data.get("rules"), agents=test.agents).check_agents()
            except ConfigError as error:
                raise_all(error.problems)
        return test

    @field_serializer("ppo", "pretrain", "imitation")
    def _given(self, block: Settings | None) -> dict[str, Any] | None:
        return None if block is None else block.given()

    @classmethod
    def from_mapping(cls, data: Any, source: str | None = None) -> TrainConfig:
        """Validate ``data`` (absent keys take their defaults); every mistake in one :class:`ConfigError`."""
        return validate(cls, data, source)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The batch env's keywords (``wrap`` included, from ``rules``)."""
        return {**self.env, **({"wrap": self.rules == "E"} if self.game == "tripeaks" else {})}

    @property
    def rule_kwargs(self) -> dict[str, Any]:
        """The keywords that change the game (what an evaluation run takes as ``env``)."""
        return {k: v for k, v in self.env.items() if k in ENV_OPTIONS[self.game]}

    @property
    def ppo_kwargs(self) -> dict[str, Any]:
        return self.ppo.given()

    def to_dict(self) -> dict[str, Any]:
        """The settings as a mapping :meth:`from_mapping` accepts (what ``metrics.json`` stores)."""
        return self.model_dump(mode="json")

    def describe(self) -> list[str]:
        """The settings of the run in a few lines (what a run prints at its start)."""
        limit = f"{self.timesteps:,} timesteps" + (
            f" or {self.minutes:g} minutes, whichever comes first" if self.minutes else ""
        )
        env = ", ".join(f"{k}={v}" for k, v in self.env_kwargs.items())
        ppo = ", ".join(f"{k}={v}" for k, v in self.ppo_kwargs.items())
        given = self.pretrain.given() if self.pretrain is not None else None
        pretrain = "none" if given is None else (", ".join(f"{k}={v}" for k, v in given.items()) or "defaults")
        agents = " ".join(a.key for a in self.test.agents) or "(none)"
        test = f"{self.test.deals} deals (seed {self.test.seed}), compared with {agents}" if self.test.deals else "none"
        return [
            f"game {self.game}, rules {self.rules}, {self.num_envs} envs, seed {self.seed}; {limit}",
            f"env: {env}",
            f"ppo: {ppo or '(MaskablePPO defaults)'}",
            f"advice {self.advice}; shaping {self.shaping}; pretrain {pretrain}"
            + ("" if self.imitation is None else f"; imitation {self.imitation.given()}"),
            f"validation: {self.validation.deals} deals (seed {self.validation.seed}) every "
            f"{self.validation.every:,} steps; test: {test}",
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]

    def dry_run_text(self) -> str:
        """The settings in a few lines, each ending in a newline: what ``solitaire-env train
        --dry-run`` prints once the config has passed its checks (the first line says so)."""
        limit = f"{self.timesteps:,} timesteps" + (f" or {self.minutes:g} minutes" if self.minutes else "")
        pretrain = "none" if self.pretrain is None else self.pretrain.given() or "the defaults"
        agents = " ".join(a.key for a in self.test.agents) or "(none)"
        test = (
            f"{self.test.deals} deals (seed {self.test.seed}), compared with: {agents}"
            if self.test.deals
            else "none (test.deals is 0)"
        )
        lines = [
            f"config ok: {self.game}, rules {self.rules}, {self.num_envs} envs, {limit}, seed {self.seed}",
            f"env: {self.env or '(defaults)'}",
            f"ppo: {self.ppo_kwargs or '(defaults)'}",
            f"advice: {self.advice}; shaping: {self.shaping}; pretrain: {pretrain}"
            + ("" if self.imitation is None else f"; imitation: {self.imitation.given()}"),
            f"validation: {self.validation.deals} deals (seed {self.validation.seed}) every {self.validation.every:,} steps",
            f"test: {test}",
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]
        return "".join(f"{line}\n" for line in lines)


TRAIN_KEYS, PPO_KEYS = tuple(TrainConfig.model_fields), tuple(PPO.model_fields)


def load_train_config(path: str, **overrides: Any) -> TrainConfig:
    """Read and validate a YAML training config; ``overrides`` (not ``None``) replace its keys."""
    data = load_config_file(path)
    if not data:  # a default run is a million steps of hours: never by accident
        raise ConfigError(
            f"{path}: the config is empty; a training config sets at least game, timesteps or minutes "
            "(see configs/ppo_smoke.yaml and docs/training.md)"
        )
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)
    # a bad value may come from the command line: say so in the message's "where"
    source = f"{path} (with --{', --'.join(k.replace('_', '-') for k in given)})" if given else path
    return TrainConfig.from_mapping(data, source=source)
