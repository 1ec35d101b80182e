#!/usr/bin/env bash
# The one test command: set everything up, then lint, type-check, build the docs site strictly
# and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,rl,docs
python -m ruff check solitaire_env agents tests docs/hooks
python -m ruff format --check solitaire_env agents tests docs/hooks
# Every warning fails: a broken link or anchor, a page missing from the nav, a public name whose
# docstring cannot be collected (not --quiet: it hides the warnings, and they then fail nothing).
# The site goes to a temporary folder, removed afterwards.
site="$(mktemp -d)"
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --site-dir "$site"
# mypy runs beside the compilation of the numba kernels (each kernel once, into the cache that
# the test workers read); a mypy failure still fails the command
python -m mypy &
mypy_pid=$!
python scripts/compile_kernels.py
wait "$mypy_pid"
python -m pytest -q -n auto "$@"  # one worker per core (pytest-xdist)
