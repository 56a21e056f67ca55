"""Tuning knobs and the space they span: `cfg.define_split`, `cfg.define_knob`, ...

A template declares its knobs on `cfg`. While a task is created `cfg` is a `ConfigSpace`
collecting them (each knob a list of candidate entities); when a schedule is built it is a
`ConfigEntity`, one point of that space, whose `cfg[name]` is the chosen entity. Outside any
tuning context it is a `FallbackConfigEntity`: the template may then set its own defaults
(`cfg["tile_y"] = SplitEntity([-1, 8])`), as TVM's topi templates do.

A point is an index into the product of the knobs (the first knob varies fastest, as in
TVM) and is written as JSON (`to_json_dict`) that `ConfigEntity.from_json_dict` replays.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

from xtvm.te.expr import IterVar
from xtvm.te.schedule import Schedule, Stage

Axis = IterVar | int


class Entity:
    """One knob's choice: its value is the attribute named `field` (TVM's name for it), which
    is also its JSON form."""

    kind: str
    field: str

    def to_json(self) -> Any:
        return getattr(self, self.field)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"{self.kind}{self.to_json()}"


class SplitEntity(Entity):
    """A split into `len(size)` loops, outermost first; `size[0]` is -1 (the rest of the
    extent). `apply` splits an axis by the inner sizes and returns the loops."""

    kind, field = "sp", "size"

    def __init__(self, size: Sequence[int]) -> None:
        self.size = [int(x) for x in size]

    def apply(self, s: Schedule, op: Any, axis: IterVar) -> list[IterVar]:
        stage = stage_of(s, op)
        loops = []
        for k in range(1, len(self.size)):
            outer, axis = stage.split(axis, factor=math.prod(self.size[k:]))
            loops.append(outer)
        return [*loops, axis]


class ReorderEntity(Entity):
    """A permutation of axes: `apply(s, op, axes)` orders them `axes[perm[0]], ...`."""

    kind, field = "re", "perm"

    def __init__(self, perm: Sequence[int]) -> None:
        self.perm = [int(x) for x in perm]

    def apply(self, s: Schedule, op: Any, axes: Sequence[IterVar]) -> list[IterVar]:
        order = [axes[k] for k in self.perm]
        stage_of(s, op).reorder(*order)
        return order


class AnnotateEntity(Entity):
    """One annotation per axis: `none`, `unroll` or `vec`."""

    kind, field = "an", "anns"
    ANNOTATIONS = ("none", "unroll", "vec")

    def __init__(self, anns: Sequence[str]) -> None:
        self.anns = list(anns)

    def apply(self, s: Schedule, op: Any, axes: Sequence[IterVar]) -> None:
        stage = stage_of(s, op)
        for axis, ann in zip(axes, self.anns, strict=True):
            if ann == "unroll":
                stage.unroll(axis)
            elif ann == "vec":
                stage.vectorize(axis)


class OtherOptionEntity(Entity):
    """A knob's value (`cfg["unroll"].val`)."""

    kind, field = "ot", "val"

    def __init__(self, val: Any) -> None:
        self.val = val

    def __repr__(self) -> str:
        return f"ot({self.val!r})"


ENTITY_KINDS: dict[str, type[Entity]] = {
    e.kind: e for e in (SplitEntity, ReorderEntity, AnnotateEntity, OtherOptionEntity)
}


def stage_of(s: Schedule, op: Any) -> Stage:
    return op if isinstance(op, Stage) else s[op]


def axis_extent(axis: Axis) -> int:
    if isinstance(axis, IterVar):
        return int(axis.dom.extent)  # type: ignore[arg-type]
    return int(axis)


def split_sizes(extent: int, parts: int, policy: str, max_factor: int | None) -> list[list[int]]:
    """The inner sizes (innermost last) of every split of `extent` into `parts` loops."""
    if policy == "factors":
        options = [f for f in range(1, extent + 1) if extent % f == 0]
    elif policy == "power2":
        options = [1 << k for k in range(extent.bit_length()) if 1 << k <= extent]
    else:
        raise ValueError(f"define_split: unknown policy '{policy}' (factors, power2)")
    if max_factor is not None:
        options = [f for f in options if f <= max_factor]
    found = []
    for inner in itertools.product(options, repeat=parts - 1):
        product = math.prod(inner)
        if product <= extent and (policy != "factors" or extent % product == 0):
            found.append([-1, *inner])
    return found


class ConfigSpace:
    """The knobs a template defines, each with its candidates; `len()` is their product."""

    def __init__(self) -> None:
        self.space_map: dict[str, list[Entity]] = {}
        self._entity_map: dict[str, Entity] = {}
        self.flop = 0.0
        self.is_fallback = False

    # --- defining knobs

    def _add(self, name: str, candidates: list[Entity]) -> None:
        if not candidates:
            raise ValueError(f"knob '{name}' has no candidates")
        if name not in self.space_map:
            self.space_map[name] = candidates
            self._entity_map.setdefault(name, candidates[0])

    def define_split(
        self,
        name: str,
        axis: Axis,
        num_outputs: int = 2,
        policy: str = "factors",
        max_factor: int | None = None,
        candidate: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """Split `axis` (an IterVar or an extent) into `num_outputs` loops; `factors` tries
        the divisors of the extent, `power2` powers of two (a guarded split), `candidate`
        the given sizes (`[[-1, 8], [-1, 16]]`)."""
        if num_outputs < 2:
            raise ValueError("define_split: num_outputs must be at least 2")
        if policy == "candidate":
            if not candidate:
                raise ValueError("define_split: policy 'candidate' needs candidate sizes")
            sizes = [list(c) for c in candidate]
        else:
            sizes = split_sizes(axis_extent(axis), num_outputs, policy, max_factor)
        self._add(name, [SplitEntity(size) for size in sizes])

    def define_knob(self, name: str, candidates: Sequence[Any]) -> None:
        """A knob taking one of `candidates` (JSON values: numbers, strings, booleans)."""
        self._add(name, [OtherOptionEntity(c) for c in candidates])

    def define_reorder(
        self,
        name: str,
        axes: Sequence[Axis],
        policy: str = "all",
        candidate: Sequence[Sequence[Any]] | None = None,
    ) -> None:
        """Orders of `axes`: every permutation (`all`), the given one (`identity`), or the
        `candidate` orders (each a list of the axes)."""
        count = len(axes)
        if policy == "all":
            perms = [list(p) for p in itertools.permutations(range(count))]
        elif policy == "identity":
            perms = [list(range(count))]
        elif policy == "candidate" and candidate is not None:
            perms = [[next(i for i, a in enumerate(axes) if a is c) for c in o] for o in candidate]
        else:
            raise ValueError(f"define_reorder: unknown policy '{policy}'")
        self._add(name, [ReorderEntity(p) for p in perms])

    def define_annotate(self, name: str, axes: Sequence[Axis], policy: str) -> None:
        """Annotations of `axes`: `try_unroll`, `try_vec` (the last axis) or `try_unroll_vec`."""
        count = len(axes)
        if policy == "try_unroll":
            choices = [["none", "unroll"]] * count
        elif policy == "try_vec":
            choices = [["none"]] * (count - 1) + [["none", "vec"]]
        elif policy == "try_unroll_vec":
            choices = [["none", "unroll"]] * (count - 1) + [["none", "unroll", "vec"]]
        else:
            raise ValueError(f"define_annotate: unknown policy '{policy}'")
        self._add(name, [AnnotateEntity(list(c)) for c in itertools.product(*choices)])

    def add_flop(self, flop: float) -> None:
        """Floating-point operations of one run (progress reports GFLOPS)."""
        self.flop += flop

    # --- reading

    def __getitem__(self, name: str) -> Any:
        return self._entity_map[name]

    def __len__(self) -> int:
        return math.prod(len(c) for c in self.space_map.values())

    def get(self, index: int) -> ConfigEntity:
        """The point `index` of the space (the first knob varies fastest)."""
        if not 0 <= index < len(self):
            raise IndexError(f"config index {index} outside a space of {len(self)}")
        chosen, rest = {}, index
        for name, candidates in self.space_map.items():
            chosen[name] = candidates[rest % len(candidates)]
            rest //= len(candidates)
        return ConfigEntity(index, chosen)

    def __iter__(self) -> Iterator[ConfigEntity]:
        return (self.get(i) for i in range(len(self)))

    def point_of(self, config: ConfigSpace) -> int | None:
        """The index of the point whose knobs take `config`'s values (the inverse of `get`),
        or None when `config` lacks a knob or gives it a value that is none of its candidates
        (a template's fallback config)."""
        index, scale = 0, 1
        for name, candidates in self.space_map.items():
            try:
                index += candidates.index(config[name]) * scale
            except (KeyError, ValueError):
                return None
            scale *= len(candidates)
        return index

    def __repr__(self) -> str:
        lines = [f"ConfigSpace (len={len(self)}):"]
        for k, (name, candidates) in enumerate(self.space_map.items()):
            lines.append(f"  {k:2d} {name}: {len(candidates)} candidates, e.g. {candidates[0]}")
        return "\n".join(lines)


class ConfigEntity(ConfigSpace):
    """One point of a space: `cfg[name]` is its entity; define_* calls change nothing."""

    def __init__(self, index: int, entity_map: dict[str, Entity]) -> None:
        super().__init__()
        self.index = index
        self._entity_map = dict(entity_map)

    def _add(self, name: str, candidates: list[Entity]) -> None:
        # A knob added to the template after this config was recorded takes its first
        # candidate, which templates keep as the old schedule: older records stay valid.
        self._entity_map.setdefault(name, candidates[0])

    def __len__(self) -> int:
        return 1

    def to_json_dict(self) -> dict[str, Any]:
        entity = [[n, e.kind, e.to_json()] for n, e in self._entity_map.items()]
        return {"index": self.index, "entity": entity}

    @staticmethod
    def from_json_dict(data: dict[str, Any]) -> ConfigEntity:
        entities = {n: ENTITY_KINDS[k](v) for n, k, v in data["entity"]}
        return ConfigEntity(int(data["index"]), entities)  # type: ignore[arg-type]

    def get_flatten_feature(self) -> list[float]:
        """The knob values as numbers (split sizes, positions of other choices)."""
        feature: list[float] = []
        for e in self._entity_map.values():
            if isinstance(e, SplitEntity):
                feature.extend(e.size[1:])
            elif isinstance(e, ReorderEntity):
                feature.extend(e.perm)
            elif isinstance(e, AnnotateEntity):
                feature.extend(AnnotateEntity.ANNOTATIONS.index(a) for a in e.anns)
            else:
                feature.append(float(e.val) if isinstance(e.val, int | float) else 0.0)
        return feature

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigEntity) and self._entity_map == other._entity_map

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        items = ", ".join(f"('{n}', {e!r})" for n, e in self._entity_map.items())
        return f"[{items}],{self.index}"


class FallbackConfigEntity(ConfigEntity):
    """The config outside any tuning context: each knob's first candidate unless the template
    sets its own default (`cfg[name] = SplitEntity(...)`)."""

    def __init__(self) -> None:
        super().__init__(-1, {})
        self.is_fallback = True

    def _add(self, name: str, candidates: list[Entity]) -> None:
        self._entity_map.setdefault(name, candidates[0])

    def __setitem__(self, name: str, entity: Entity) -> None:
        self._entity_map[name] = entity

    def fallback_split(self, name: str, inner: Sequence[int]) -> None:
        """Default `name` to the split whose inner loops have sizes `inner`."""
        self._entity_map[name] = SplitEntity([-1, *inner])
