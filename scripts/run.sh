#!/usr/bin/env bash
# The one run command: install the package (core dependencies only), then play seeded
# TriPeaks episodes with random legal moves and print their results.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "${SETUP_EXTRAS:-dev}"
python -m solitaire_env.demo "$@"
