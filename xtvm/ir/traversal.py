"""Graph walks shared by the Python-side expression trees (TE, Relay, schedules)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def post_order(roots: Iterable[T], children: Callable[[T], Sequence[T]]) -> list[T]:
    """Every node reachable from `roots`, each once (by identity), children (in order) before
    parents; iterative, so a graph of any depth is fine."""
    order: list[T] = []
    seen: set[int] = set()
    stack: list[tuple[T, bool]] = [(root, False) for root in reversed(list(roots))]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children(node)) if id(child) not in seen)
    return order
