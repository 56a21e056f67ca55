"""The compiler regions of a hand-annotated relay expression, as TVM's AnnotatedRegionSet
finds them.

`compiler_begin(x, "t")` opens a region for target `t`; an expression whose arguments lie in
open regions joins them (merging them into the first one's); `compiler_end` closes a region:
an argument that is a `compiler_end` is outside. Regions are numbered in the order their
begins are met in post-order, and a merged region keeps the number of the one it joined, so
numbers may have gaps (TVM names a partitioned function after its region's number).

Converting to the relay dialect marks the ops of each region with `compiler` and
`compiler_region`, so that PartitionGraph outlines exactly these regions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xtvm.api.relay.expr import COMPILER_BEGIN, COMPILER_END, Call, Expr, Op


def annotation_of(expr: Expr) -> str | None:
    """COMPILER_BEGIN or COMPILER_END for an annotation call, else None."""
    if isinstance(expr, Call) and isinstance(expr.op, Op):
        if expr.op.name in (COMPILER_BEGIN, COMPILER_END):
            return expr.op.name
    return None


def compiler_name(annotation: Call) -> str:
    return str(annotation.attrs.properties["compiler"].data)


@dataclass
class RegionSet:
    """Regions by number: a union-find whose root is the region a merge kept."""

    parent: dict[int, int] = field(default_factory=dict)
    target: dict[int, str] = field(default_factory=dict)
    member: dict[int, int] = field(default_factory=dict)
    """id(expression) -> a region number (follow `find` for the region it is in now)."""

    def find(self, region: int) -> int:
        while self.parent[region] != region:
            self.parent[region] = self.parent[self.parent[region]]
            region = self.parent[region]
        return region

    def region_of(self, expr: Expr) -> tuple[str, int] | None:
        """The target and number of the region `expr` is in, or None."""
        if id(expr) not in self.member:
            return None
        root = self.find(self.member[id(expr)])
        return self.target[root], root


class RegionError(ValueError):
    """Annotations that do not delimit regions (TVM fails the same checks)."""


def find_regions(order: Sequence[Expr], children: Callable[[Expr], list[Expr]]) -> RegionSet:
    """The regions of the expressions `order` (children before parents)."""
    regions = RegionSet()
    for expr in order:
        annotation = annotation_of(expr)
        if annotation == COMPILER_BEGIN:
            number = len(regions.parent)
            regions.parent[number] = number
            regions.target[number] = compiler_name(expr)  # type: ignore[arg-type]
            regions.member[id(expr)] = number
            continue
        args = children(expr)
        if annotation == COMPILER_END:
            (arg,) = args
            if id(arg) not in regions.member or annotation_of(arg) == COMPILER_END:
                raise RegionError("compiler_end annotates a value that no compiler_begin reaches")
            target = compiler_name(expr)  # type: ignore[arg-type]
            if regions.target[regions.find(regions.member[id(arg)])] != target:
                raise RegionError(f"compiler_end('{target}') closes a region of another target")
            continue
        open_regions = [
            regions.find(regions.member[id(a)])
            for a in args
            if annotation_of(a) != COMPILER_END and id(a) in regions.member
        ]
        if not open_regions:
            continue
        kept = open_regions[0]
        for other in open_regions[1:]:
            if regions.target[other] != regions.target[kept]:
                raise RegionError(
                    f"an expression reads regions of '{regions.target[kept]}' and "
                    f"'{regions.target[other]}' without compiler_end between them"
                )
            regions.parent[other] = kept
        regions.member[id(expr)] = kept
    return regions
