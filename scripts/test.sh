#!/usr/bin/env bash
# The one test command: set everything up, then lint, type-check and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,rl
python -m ruff check solitaire_env agents tests
python -m ruff format --check solitaire_env agents tests
python -m mypy
python -m pytest -q -n auto "$@"  # one worker per core (pytest-xdist)
