"""Write the JSON Schema of each config kind to docs/schemas/ (from the pydantic models).

Run it after changing a config model: ``python scripts/write_schemas.py``; ``--check`` only
compares (exit status 1 when a committed schema differs from what the models generate).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"


def models() -> dict[str, Any]:
    """The config model of each kind: eval, hint_bench, train."""
    sys.path.insert(0, str(ROOT))
    from agents.evaluation.config import EvalConfig
    from agents.hintbench.config import HintBenchConfig
    from agents.training.config import TrainConfig

    return {"eval": EvalConfig, "hint_bench": HintBenchConfig, "train": TrainConfig}


def schema_text(model: Any) -> str:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **model.model_json_schema()}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for kind, model in models().items():
        path = SCHEMAS / f"{kind}.schema.json"
        text = schema_text(model)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(str(path.relative_to(ROOT)))
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    verb = "differ from the models (run python scripts/write_schemas.py)" if check else "written"
    print(f"{', '.join(stale)}: {verb}" if stale else "the schemas are up to date")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
