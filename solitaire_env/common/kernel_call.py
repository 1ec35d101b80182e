"""A faster Python call of a numba kernel that takes NamedTuples of arrays.

A numba dispatcher types every argument of every call before it picks the compiled overload.
It types arrays and plain scalars in C, but a NamedTuple goes to its Python fallback
(``typeof`` of each field): a call with a NamedTuple of ten arrays costs several microseconds,
a few times the kernel's own work for the short searches a planner runs by the thousand.

:class:`KernelCall` wraps a dispatcher and remembers, for the few argument sets it was called
with last, the compiled overload they select; a call with the same argument *objects* (and
scalars of the same Python types) goes straight to that overload's ``entry_point``, the
compiled wrapper the dispatcher itself would call.  Anything else takes the dispatcher's own
path (compiling if need be).  The results are the dispatcher's: the same machine code runs.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import is_, itemgetter
from typing import Any

import numpy as np
from numba.core.typing.typeof import Purpose, typeof

__all__ = ["KernelCall"]

#: Python ints that numba types as ``int64`` (a larger one is ``uint64`` or an error).
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: Python scalar types whose numba type is fixed by the type alone (bool before int: a bool is
#: an int to ``isinstance``, not to numba; ints also need the int64 range, checked per call).
_SCALARS = (bool, int, float, complex, type(None))


def _getter(positions: list[int]) -> Callable[[tuple[object, ...]], tuple[object, ...]]:
    """A function of the arguments that returns those at ``positions`` as a tuple (in C)."""
    if not positions:
        return lambda args: ()
    if len(positions) == 1:  # itemgetter of one position returns the item, of two a tuple
        return itemgetter(positions[0], positions[0])
    return itemgetter(*positions)


def _fixed_type(value: object) -> bool:
    """Whether ``value``'s numba type is fixed for as long as the object lives: an array, a
    numpy scalar, an immutable Python scalar of a fixed numba type, or a tuple (a NamedTuple
    too) of those."""
    kind = type(value)
    if kind is np.ndarray or kind in _SCALARS:
        return kind is not int or _INT64_MIN <= value <= _INT64_MAX  # type: ignore[operator]
    if isinstance(value, (np.number, np.bool_)):
        return True
    if isinstance(value, tuple):
        return all(_fixed_type(v) for v in value)
    return False


class KernelCall:
    """Call a numba dispatcher, skipping its argument typing when the arguments are those of
    one of its last ``size`` calls.

    ``KernelCall(dispatcher)(*args)`` returns ``dispatcher(*args)``.  The first call with an
    argument set takes the dispatcher's path and remembers the compiled overload it ran: the
    dispatcher's only overload when it has one, else the overload of the arguments' numba types
    (numba's ``typeof`` in Python, slow).  A later call takes that overload's ``entry_point``
    (the compiled wrapper the dispatcher calls) directly when, position by position:

    - an array or tuple argument (a NamedTuple of arrays: the search state) is the *same
      object* as in the remembered call (``is``);
    - a scalar argument is the same object as in the last such call, or has the same Python
      type (``bool``, ``int``, ``float``, ...; a bool is not an int here, as it is not to numba);

    and the dispatcher has compiled no overload since.

    Why this is sound: the dispatcher chooses the overload from the arguments' numba types and
    its overloads only.  A scalar's numba type is fixed by its Python type, but for an ``int``
    beyond the int64 range (numba makes it ``uint64``): the entry point cannot unbox such an
    int and raises ``OverflowError`` before the kernel runs, and the call then takes the
    dispatcher's path.  A tuple is immutable, so the same tuple object holds the same arrays; an
    array's numba type (dtype, number of dimensions, layout, read-only flag) is that of the
    object as long as nobody assigns its ``dtype``, ``shape`` or ``strides`` attributes or
    clears its writeable flag in place, which the search code never does.  So the same objects
    have the same numba types as when the overload was chosen, and the dispatcher would choose
    it again.  An argument of any other kind (a list, a dict, an object the dispatcher
    reflects), keyword arguments, or types of no overload are never remembered: those calls
    always take the dispatcher's path.

    The remembered argument sets are kept alive (that is what makes ``is`` sound: a live object's
    identity is not reused); at most ``size`` of them, the least recently used dropped first.
    Give a ``KernelCall`` the lifetime of the state it is called with (an attribute of the
    object that owns the arrays, a local of the function that makes them), or call
    :meth:`forget`, so that it does not hold large arrays after their owner let them go.
    """

    __slots__ = ("_entries", "dispatcher", "size")

    def __init__(self, dispatcher: Any, size: int = 2) -> None:
        self.dispatcher = dispatcher
        self.size = size
        #: per remembered call (most recent first): the arguments' Python types, a getter of its
        #: array and tuple arguments and those objects, the arguments of the last call that
        #: took it, the overload's entry point
        self._entries: list[list[Any]] = []

    def __call__(self, *args: object, **kwargs: object) -> Any:
        if kwargs:
            return self.dispatcher(*args, **kwargs)
        try:
            for entry in self._entries:  # the same objects as the last call of an entry took
                if all(map(is_, args, entry[3])) and len(args) == len(entry[3]) and len(entry[5]) == entry[6]:
                    return entry[4](*args)
            types = tuple(map(type, args))
            entries = self._entries
            for k, entry in enumerate(entries):  # the same arrays and tuples, scalars of the same types
                if entry[0] == types and all(map(is_, entry[1](args), entry[2])) and len(entry[5]) == entry[6]:
                    entry[3] = args
                    if k:
                        entries.insert(0, entries.pop(k))
                    return entry[4](*args)
        except OverflowError:
            if all(_INT64_MIN <= a <= _INT64_MAX for a in args if type(a) is int):
                raise  # the kernel's own error: the arguments were unboxed
            return self.dispatcher(*args)  # an int beyond int64: numba types it otherwise
        return self._first_call(args)

    def _first_call(self, args: tuple[object, ...]) -> Any:
        """The dispatcher's path; remember the overload when the arguments allow it."""
        result = self.dispatcher(*args)
        if all(map(_fixed_type, args)):
            overloads = self.dispatcher.overloads
            if len(overloads) == 1:  # the overload the call ran: the only one there is
                (compiled,) = overloads.values()
            else:  # numba's typeof in Python: slow (about 15 us an array), the rare case
                compiled = overloads.get(tuple(typeof(a, Purpose.argument) for a in args))
            if compiled is not None:
                types = tuple(map(type, args))
                same = _getter([i for i, kind in enumerate(types) if kind is np.ndarray or issubclass(kind, tuple)])
                entry = [types, same, same(args), args, compiled.entry_point, overloads, len(overloads)]
                self._entries.insert(0, entry)
                del self._entries[self.size :]
        return result

    def forget(self) -> None:
        """Drop the remembered calls (and the references to their arguments)."""
        self._entries.clear()

    def __reduce__(self) -> tuple[type, tuple[Any, int]]:
        """Pickled without the remembered calls (entry points do not pickle)."""
        return KernelCall, (self.dispatcher, self.size)

    def __repr__(self) -> str:
        return f"KernelCall({self.dispatcher!r}, remembered={len(self._entries)})"
