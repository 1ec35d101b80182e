#!/usr/bin/env bash
# The one run command: install the package (core dependencies only), then evaluate agents on
# seeded deal codes and print the table (default: configs/eval_quick.yaml; any `solitaire-env
# eval` arguments replace it, e.g. `bash scripts/run.sh --config configs/eval_tripeaks_easy.yaml`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "${SETUP_EXTRAS:-dev}"
if [[ $# -eq 0 ]]; then
  set -- --config configs/eval_quick.yaml
fi
python -m solitaire_env eval "$@"
