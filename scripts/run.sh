#!/usr/bin/env bash
# The one run command: install the package (core dependencies only: no torch, no dev tools;
# SETUP_EXTRAS=dev,rl for more), then evaluate agents on
# seeded deal codes and print the tables (default: configs/eval_quick.yaml, 200 TriPeaks Easy
# deals, then configs/eval_quick_fortythieves.yaml, 20 Forty Thieves deals; any `solitaire-env
# eval` arguments replace both, e.g. `bash scripts/run.sh --config configs/eval_tripeaks_easy.yaml`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "${SETUP_EXTRAS:-core}"
if [[ $# -eq 0 ]]; then
  python -m solitaire_env eval --config configs/eval_quick.yaml
  python -m solitaire_env eval --config configs/eval_quick_fortythieves.yaml
else
  python -m solitaire_env eval "$@"
fi
