"""Without the ``rl`` extra, ``train`` and the ``ppo`` agent end in one line naming the pip command.

The subprocess tests make the extra unimportable by putting, first on ``PYTHONPATH``, packages
of the same names whose ``__init__`` raises ``ModuleNotFoundError`` as a missing package does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.extras import MissingExtraError, require_rl
from agents.settings import ConfigError

ROOT = Path(__file__).resolve().parents[2]
PIP = "pip install 'solitaire-env[rl]'"
RL = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard")


def hide(tmp_path: Path, names: tuple[str, ...]) -> dict[str, str]:
    """An environment in which the packages ``names`` do not import."""
    stubs = tmp_path / "stubs"
    for name in names:
        (stubs / name).mkdir(parents=True, exist_ok=True)
        (stubs / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n"
        )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(stubs), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solitaire_env", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize(
    ("hidden", "named"),
    [(RL, "torch is not installed"), (("tensorboard",), "tensorboard is not installed")],
    ids=["rl", "tensorboard"],
)
def test_train_without_the_extra_is_one_line(tmp_path: Path, hidden: tuple[str, ...], named: str) -> None:
    out = tmp_path / "run"
    done = run(
        ["train", "--config", "configs/ppo_smoke.yaml", "--out", str(out), "--no-progress"], hide(tmp_path, hidden)
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert PIP in lines[0] and named in lines[0] and lines[0].startswith("solitaire-env: error: train needs")
    assert not out.exists()  # nothing was made


def test_eval_of_a_ppo_agent_without_the_extra_is_one_line(tmp_path: Path) -> None:
    model = tmp_path / "model.zip"
    model.write_bytes(b"not looked at: the extra is checked first")
    done = run(["eval", "--agents", f"ppo:model={model}", "--deals", "2", "--no-progress"], hide(tmp_path, RL))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert PIP in lines[0] and "the ppo agent needs the rl extra" in lines[0]


def test_require_rl_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sb3_contrib")
    require_rl("train", tensorboard=True)  # all there: nothing to say
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # import now fails as for a missing package
    with pytest.raises(MissingExtraError) as info:
        require_rl("the ppo agent")
    assert str(info.value) == f"the ppo agent needs the rl extra: {PIP} (sb3-contrib is not installed)"
    # a ValueError for the CLI's one-line errors, an ImportError for `except ImportError`
    assert isinstance(info.value, ValueError) and isinstance(info.value, ImportError)
    assert not isinstance(info.value, ConfigError)
