#!/usr/bin/env bash
# Installs solitaire-env in editable mode into the current Python, with the extras named in $1
# (comma-separated, e.g. "dev,rl,docs"; default "dev,rl"; "" or "core" for the core dependencies
# alone).
#
# torch (the rl extra) is installed first, pinned to 2.13.0, so that the rl extra does not pick
# a newer release. Which build that is depends on the index pip reads:
#   - with TORCH_INDEX_URL set (for example to PyTorch's own CPU wheel index), torch comes from
#     there: a CPU-only build of a few hundred MB;
#   - otherwise from pip's configured index (PyPI by default). There, Linux x86-64 wheels of torch
#     are CUDA builds whose NVIDIA libraries add several GB; aarch64 and macOS wheels are CPU-only.
#     A machine with a local CPU wheel of torch 2.13.0 in pip's search path (as ours have) takes it.
# A torch that is already installed is kept, whatever its build.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1-dev,rl}"
if [[ "$extras" == "core" ]]; then
  extras=""
fi
if [[ ",$extras," == *",rl,"* ]] && ! python -c "import torch" 2>/dev/null; then
  if [[ -n "${TORCH_INDEX_URL:-}" ]]; then
    python -m pip install --quiet --index-url "$TORCH_INDEX_URL" "torch==2.13.0"
  else
    python -m pip install --quiet "torch==2.13.0" || python -m pip install --quiet torch
  fi
fi
if [[ -n "$extras" ]]; then
  python -m pip install --quiet -e ".[$extras]"
else
  python -m pip install --quiet -e .
fi
