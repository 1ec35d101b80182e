"""``python -m solitaire_env``: the ``solitaire-env`` command."""

from solitaire_env.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
