#!/usr/bin/env bash
# Installs solitaire-env in editable mode with its extras (default: dev and rl).
# torch is pinned to the CPU build first, so that the `rl` extra does not pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev,rl}"
if [[ ",$extras," == *",rl,"* ]] && ! python -c "import torch" 2>/dev/null; then
  python -m pip install --quiet "torch==2.13.0" || python -m pip install --quiet torch
fi
python -m pip install --quiet -e ".[$extras]"
