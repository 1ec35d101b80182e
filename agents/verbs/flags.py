"""The settings of a verb that reads a YAML config (``eval``, ``hint-bench``): the file's, with
the flags given on top."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from solitaire_env.cli_args import CLIError


def config_with_flags(args: argparse.Namespace, keys: Sequence[str], env_flags: Sequence[str]) -> dict[str, Any]:
    """The settings of ``--config`` (if given) with the flags given on top: ``keys`` by name,
    ``env_flags`` and ``--foundation-return`` into its ``env`` mapping."""
    from agents.settings import load_config_file

    raw: dict[str, Any] = load_config_file(args.config) if args.config is not None else {}
    for key in keys:
        if getattr(args, key) is not None:
            raw[key] = getattr(args, key)
    flags = {k: getattr(args, k) for k in env_flags}
    if args.foundation_return is not None:
        flags["foundation_return"] = args.foundation_return == "on"
    flags = {k: v for k, v in flags.items() if v is not None}
    if flags:
        env = raw.get("env") or {}
        if not isinstance(env, dict):
            raise CLIError(f"{args.config}: env: want a mapping of env keywords, got {env!r}")
        raw["env"] = {**env, **flags}
    return raw
