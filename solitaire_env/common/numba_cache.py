"""Whether a numba kernel will compile on its next call: a look into numba's on-disk cache.

:func:`numba_cold` is what ``solitaire-env eval`` asks before it plays (it then says on stderr
that the first games compile).  It reads numba's cache internals, which is why it lives here and
not in code that must use public names only.
"""

from __future__ import annotations

from collections.abc import Sequence


def numba_cold(module: str, functions: Sequence[str]) -> bool:
    """Whether calling one of ``functions`` of ``module`` compiles: numba's on-disk cache holds no
    entry for it that is fresh (the source unchanged, this numba version) and made for this CPU.
    ``True`` when that cannot be told (numba's cache internals differ): better one line too many."""
    import importlib

    try:
        from numba.core import config as numba_config

        if getattr(numba_config, "DISABLE_JIT", False):  # nothing compiles
            return False
        mod = importlib.import_module(module)
        for name in functions:
            dispatcher = getattr(mod, name)
            magic = dispatcher.targetctx.codegen().magic_tuple()
            index = dispatcher._cache._cache_file._load_index()  # {} when missing or stale
            if not any(key[1] == magic for key in index):
                return True
    except Exception:  # any failure of the look-up: say it may compile
        return True
    return False
