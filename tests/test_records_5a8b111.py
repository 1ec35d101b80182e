"""Episodes recorded by the code of commit 5a8b111 (before the modules moved into their folders)
replay bit-exact with the current code.

``tests/data/records_5a8b111/`` holds episode records written by ``solitaire-env eval
--record`` in the tree of commit 5a8b111 (random, a heuristic and rollout with a small budget,
TriPeaks Easy and Classic with rule variants, Forty Thieves with and without foundation
return) and ``traces.json``, written by the same old tree: for each record, the rewards of
every step and a digest of the whole trajectory (every observation, reward, terminated,
truncated and info value, from the reset to the last step) under several observation modes and
reward functions.  ``make_records.py`` there made both (its docstring says how to run it).

Two checks per record: ``agents.evaluation.records.Replayer`` (every action legal, the episode ends after
the last one, the same rules, score and outcome), and the trajectory, step by step, in envs made
from the record's keywords plus each variant's, equal to the old one.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env  # noqa: F401  (registers the envs)
from agents.evaluation.records import Replayer, load_record

DATA = Path(__file__).parent / "data" / "records_5a8b111"

#: The env keywords each trajectory is replayed with, on top of the record's own.
VARIANTS: dict[str, dict[str, Any]] = {
    "flat/score": {},
    "dict/progress": {"obs_mode": "dict", "reward": "progress"},
    "oracle/score": {"obs_mode": "oracle"},
    "oracle_dict/win": {"obs_mode": "oracle_dict", "reward": "win"},
}


def _bytes(value: Any) -> bytes:
    """A canonical byte string: arrays by dtype, shape and contents; scalars by their value."""
    if isinstance(value, dict):
        return b"{" + b",".join(k.encode() + b":" + _bytes(value[k]) for k in sorted(value)) + b"}"
    if isinstance(value, np.ndarray):
        return f"array({value.dtype.str},{value.shape})".encode() + np.ascontiguousarray(value).tobytes()
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value).encode()


def trajectory(record: dict[str, Any], variant: dict[str, Any], info_keys: list[str] | None = None) -> dict[str, Any]:
    """Play ``record``'s actions in a fresh env; its rewards, a digest of everything, the info keys seen.

    ``info_keys``: only these info entries count (the ones the old code returned), so that a new
    info entry is no difference; ``None``: every entry.
    """
    env = gym.make(record["env_id"], **record["env_kwargs"], **variant)
    options = {"deal_code": record["deal_code"]} if "deal_code" in record else {"deal": record["deal"]}
    digest = hashlib.sha256()
    seen: set[str] = set()

    def feed(*parts: bytes) -> None:
        for part in parts:
            digest.update(len(part).to_bytes(8, "little") + part)

    def info_bytes(info: dict[str, Any]) -> bytes:
        seen.update(info)
        return _bytes({k: v for k, v in info.items() if info_keys is None or k in info_keys})

    obs, info = env.reset(options=options)
    feed(b"reset", _bytes(obs), info_bytes(info))
    rewards = []
    for action in record["actions"]:
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(float(reward))
        feed(b"step", repr(int(action)).encode(), _bytes(obs), repr(float(reward)).encode())
        feed(repr(bool(terminated)).encode(), repr(bool(truncated)).encode(), info_bytes(info))
    env.close()
    return {"rewards": rewards, "digest": digest.hexdigest()[:32], "info_keys": sorted(seen)}


@functools.cache
def _traces() -> dict[str, Any]:
    return json.loads((DATA / "traces.json").read_text())


RECORDS = sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.json") if p.name != "traces.json")


def test_the_data_covers_the_agents_games_and_variants() -> None:
    records = [load_record(DATA / name) for name in RECORDS]
    assert set(_traces()) == set(RECORDS)
    assert {r["game"] for r in records} == {"tripeaks", "fortythieves"}
    assert {r["agent"]["name"] for r in records} >= {"random", "hint", "safe_foundation", "rollout"}
    assert {r["rules"]["wrap"] for r in records if r["game"] == "tripeaks"} == {True, False}
    assert any(r["env_kwargs"] for r in records if r["game"] == "tripeaks")  # a rule variant
    assert any(r["env_kwargs"] for r in records if r["game"] == "fortythieves")
    assert all(r["version"] for r in records) and len(records) >= 100


@pytest.mark.parametrize("name", RECORDS)
def test_an_old_record_replays_exactly(name: str) -> None:
    record = load_record(DATA / name)
    replayer = Replayer()
    try:
        replayer.replay(record, name)  # legal actions, the end, rules, score, outcome
    finally:
        replayer.close()
    old = _traces()[name]
    for label, variant in VARIANTS.items():
        new = trajectory(record, variant, old["info_keys"])
        if label == "flat/score":
            assert new["rewards"] == old["rewards"], f"{label}: the rewards differ"
        assert set(old["info_keys"]) <= set(new["info_keys"]), f"{label}: info entries are gone"
        assert new["digest"] == old["digest"][label], f"{label}: the observations, rewards, flags or info differ"
