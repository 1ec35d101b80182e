"""`solitaire-env bench`: a tiny run prints ratio lines; bad arguments are one line and exit 2."""

from __future__ import annotations

import pytest

from solitaire_env.cli import main


def test_bench_vector_prints_one_ratio_line_per_batch_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--only", "vector", "--rounds", "1", "--steps", "400", "--num-envs", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machine: ")
    assert out[1].startswith("TriPeaks-v0 batch env (8 envs)") and "x CartPole (target >= 40x)" in out[1]
    assert out[2].startswith("FortyThieves-v0 batch env (8 envs)") and "x CartPole (target >= 2.5x)" in out[2]
    # the ratio to its own single env, shown without a target
    assert out[3].startswith("FortyThieves-v0 batch env (8 envs)") and "x FortyThieves-v0 single env" in out[3]
    assert "target" not in out[3] and len(out) == 4


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--rounds", "0"],
        ["bench", "--only", "gpu"],
        ["bench", "--num-envs", "-3"],
        ["bench", "--steps", "many"],
    ],
)
def test_bench_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("solitaire-env: error: ")
