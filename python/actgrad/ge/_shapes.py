"""Shapes as the IR holds them: a tuple of dims, -1 an unknown dim, None an unknown rank (GE's -2)."""
from __future__ import annotations


def show(shape) -> str:
    return "unknown" if shape is None else str(list(shape))


def same(a, b):
    """The shape two inputs that must be equal share (unknown dims filled from the other); None if they differ."""
    if a is None or b is None:
        return b if a is None else a
    if len(a) != len(b) or any(x != y and -1 not in (x, y) for x, y in zip(a, b)):
        return None
    return tuple(y if x == -1 else x for x, y in zip(a, b))


def broadcast(a, b):
    """NumPy broadcasting of two shapes (unknown stays unknown); ValueError if they cannot broadcast."""
    if a is None or b is None:
        return None
    out = []
    for x, y in zip((1,) * (len(b) - len(a)) + tuple(a), (1,) * (len(a) - len(b)) + tuple(b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif -1 in (x, y):
            out.append(-1)
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} cannot be broadcast")
    return tuple(out)


def accepts(declared, actual: tuple) -> bool:
    """Whether a tensor of shape `actual` fits the declared (possibly partly unknown) shape."""
    return same(declared, actual) is not None
