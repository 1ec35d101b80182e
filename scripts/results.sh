#!/usr/bin/env bash
# The README's results table: every agent but ppo on TriPeaks Easy and Classic (1000 deals each)
# and Forty Thieves (100 deals), seed 0, all cores. Results land in results/<config name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
for config in eval_tripeaks_easy eval_tripeaks_classic eval_fortythieves; do
  python -m solitaire_env eval --config "configs/$config.yaml" "$@"
done
