"""Sketches: the structures of schedules that rules derive from a compute DAG, and the
candidates that fill them in.

Rules, applied to the stages from the outputs back (TVM's sketch rules for CPU):
- an elementwise stage that is not an output is inlined into its readers, unless it branches
  (padding: inlined, its select would split every tile's loops at the borders);
- a stage with a reduction is tiled in several levels, `S0 S1 R0 S2 R1 S3` (spatial loops
  in four levels, reduction loops in two), its outermost spatial loops fused and parallel;
- its only reader, when elementwise over the same loops, is tiled in `S0 S1 S2 S3` and the
  reduction is computed at the reader's `S1` tile (its `S2 S3` follow the reader's split);
  an output with no such reader gets one with `cache_write` (a second sketch, beside the plain
  tiling), so that the tile accumulates in registers;
- any other stage (an output, padding) is fused, split for a vector and made parallel;
- a reduction reading an operand transposed (a product's [..., n, k]: attention's q @ k^T)
  gets a second sketch in which it reads a transposing copy of it (`TransposeReadStep`), so
  that its innermost tile, along n, loads contiguous vectors; the copy is computed at the
  root in squares (n split for a vector, k following that split: tir-vector-transpose reads
  squares of 4, 8 or 16 as rows).

Inner loops are unrolled from the innermost out while the copies of the body stay at most
`MAX_UNROLL` (TVM's `auto_unroll_max_step`).

A sketch leaves open the lengths of its splits and which inner loops are unrolled; a
`Candidate` fills them (sampled at random, then mutated), and `Candidate.state()` gives the
steps that replay it. The innermost loop is vectorized when its length suits a vector.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from xtvm.te.expr import IterVar, Select, walk
from xtvm.te.schedule import Schedule
from xtvm.topi.schedule import column_contiguous, transposed_operand
from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG, StageInfo
from xtvm.tuning.auto_scheduler.loop_state import (
    AnnotationStep,
    CacheWriteStep,
    ComputeAtStep,
    ComputeInlineStep,
    FollowSplitStep,
    FuseStep,
    ReorderStep,
    SplitStep,
    State,
    Step,
    TransposeReadStep,
    stage_of,
)

MAX_INNERMOST = 64  # longest innermost tile (TVM's max_innermost_split_factor)
MAX_UNROLL = 64  # copies of the innermost body that unrolled loops may make
VECTOR_LENGTHS = range(2, 65)  # an innermost loop this long is vectorized
VECTOR_LANES = 16  # f32 lanes of AVX-512: innermost tiles of multiples of this are preferred


@dataclass
class Sketch:
    """Steps with their splits' lengths open (ones), and the annotations that depend on them.

    `vectorize` pairs a vectorize step with the split whose last length is that loop's
    extent; `unroll` lists the loops a candidate may unroll, each with the split step and
    the level of that split (0 the outer part) whose length is the loop's extent."""

    name: str
    steps: list[Step]
    parallel: list[AnnotationStep] = field(default_factory=list)
    vectorize: list[tuple[AnnotationStep, int]] = field(default_factory=list)
    unroll: list[tuple[AnnotationStep, int, int]] = field(default_factory=list)

    @property
    def split_ids(self) -> list[int]:
        return [k for k, step in enumerate(self.steps) if isinstance(step, SplitStep)]


class SketchBuilder:
    """Records steps while applying them to a live schedule, so rules can find loops."""

    def __init__(self, dag: ComputeDAG) -> None:
        self.dag = dag
        self.s: Schedule = dag.create_schedule()
        self.steps: list[Step] = []

    def add(self, step: Step) -> int:
        step.apply(self.s, [*self.steps, step])
        self.steps.append(step)
        return len(self.steps) - 1

    def leaves(self, stage: str) -> list[IterVar]:
        return stage_of(self.s, stage).leaf_iter_vars

    def position(self, stage: str, axis: IterVar) -> int:
        return next(k for k, v in enumerate(self.leaves(stage)) if v is axis)

    def split(self, stage: str, axis: IterVar, parts: int) -> tuple[int, list[IterVar]]:
        """Split `axis` into `parts` loops; the step's index and the new loops."""
        position = self.position(stage, axis)
        extent = int(axis.dom.extent)  # type: ignore[call-overload]
        index = self.add(SplitStep(stage, position, extent, (1,) * (parts - 1)))
        return index, self.leaves(stage)[position : position + parts]

    def follow_split(self, stage: str, axis: IterVar, src: int, n_split: int) -> list[IterVar]:
        position = self.position(stage, axis)
        self.add(FollowSplitStep(stage, position, src, n_split))
        return self.leaves(stage)[position : position + n_split + 1]

    def reorder(self, stage: str, order: Sequence[IterVar]) -> None:
        self.add(ReorderStep(stage, tuple(self.position(stage, a) for a in order)))

    def fuse(self, stage: str, axes: Sequence[IterVar]) -> int:
        """Fuse adjacent loops; the position of the fused loop."""
        first = self.position(stage, axes[0])
        if len(axes) > 1:
            self.add(FuseStep(stage, tuple(self.position(stage, a) for a in axes)))
        return first


def elementwise_reader(dag: ComputeDAG, info: StageInfo) -> StageInfo | None:
    """The only reader of `info`, when it is an elementwise output over the same loops."""
    if len(info.consumers) != 1:
        return None
    reader = dag.stage(info.consumers[0])
    if reader.has_reduction or not reader.is_output:
        return None
    if reader.spatial_extents != info.spatial_extents:
        return None
    return reader


def inlinable(info: StageInfo) -> bool:
    """Elementwise, read by others and without branches: padding (a select at every point)
    stays at root, as topi's schedules keep it, since inlined it makes every tile's loops
    split at its borders."""
    if info.has_reduction or info.is_output or not info.consumers:
        return False
    return not any(isinstance(node, Select) for body in info.op.bodies for node in walk(body))


def generate_sketches(dag: ComputeDAG) -> list[Sketch]:
    """The sketches of `dag`: one per choice the rules leave (cache_write or not)."""
    tiled = [s for s in dag.stages if s.has_reduction]
    static = all(
        isinstance(a.dom.extent, int) for s in dag.stages for a in [*s.op.axis, *s.op.reduce_axis]
    )
    if not static:
        return [Sketch("default", [])]
    choices = [False, True] if any(elementwise_reader(dag, s) is None for s in tiled) else [False]
    transposes = [False, True] if transposed_reads(dag) else [False]
    return [
        build_sketch(dag, cache_write, transpose)
        for transpose in transposes
        for cache_write in choices
    ]


def transposed_reads(dag: ComputeDAG) -> list[tuple[str, str]]:
    """(stage, tensor) of each reduction that reads an operand transposed and could read it
    contiguously along its innermost axis instead (`topi.schedule.transposed_operand`)."""
    found = []
    for info in dag.stages:
        out = info.op.output(0)
        if not info.has_reduction or column_contiguous(out):
            continue
        operand = transposed_operand(out)
        if operand is not None:
            found.append((info.name, operand.name))
    return found


def build_sketch(dag: ComputeDAG, use_cache_write: bool, transpose: bool = False) -> Sketch:
    b = SketchBuilder(dag)
    name = "cache_write" if use_cache_write else "tile"
    sketch = Sketch(f"{name}+transpose" if transpose else name, [])
    for stage, tensor in transposed_reads(dag) if transpose else []:
        b.add(TransposeReadStep(stage, tensor))
        transpose_at_root(b, sketch, stage_of(b.s, f"{tensor}.T").op.name)
    for info in dag.stages:
        if inlinable(info):
            b.add(ComputeInlineStep(info.name))
    readers = [elementwise_reader(dag, s) for s in dag.stages if s.has_reduction]
    done = {reader.name for reader in readers if reader is not None}  # tiled with producers
    for info in reversed(dag.stages):
        if info.name in done or inlinable(info):
            continue
        if info.has_reduction:
            reader = elementwise_reader(dag, info)
            if reader is not None:
                tile_with_reader(b, sketch, info.name, reader.name, len(info.op.axis))
            elif use_cache_write and info.is_output:
                b.add(CacheWriteStep(info.name))
                tile_with_reader(b, sketch, f"{info.name}.local", info.name, len(info.op.axis))
            else:
                tile_at_root(b, sketch, info.name)
        else:
            elementwise_at_root(b, sketch, info.name)
        done.add(info.name)
    sketch.steps = b.steps
    return sketch


def tile_at_root(b: SketchBuilder, sketch: Sketch, stage: str) -> None:
    """`S0 S1 R0 S2 R1 S3`, S0 fused and parallel."""
    op = stage_of(b.s, stage).op
    spatial = [b.split(stage, a, 4) for a in list(op.axis)]
    reduce = [b.split(stage, a, 2) for a in list(op.reduce_axis)]
    levels = [[loops[k] for _, loops in spatial] for k in range(4)]
    r_levels = [[loops[k] for _, loops in reduce] for k in range(2)]
    b.reorder(stage, [*levels[0], *levels[1], *r_levels[0], *levels[2], *r_levels[1], *levels[3]])
    outer = b.fuse(stage, levels[0])
    unroll = [(loops[1], index, 1) for index, loops in reduce]
    unroll += [(loops[3], index, 3) for index, loops in spatial[:-1]]
    annotate(b, sketch, stage, outer, spatial[-1][0], unroll)


def tile_with_reader(b: SketchBuilder, sketch: Sketch, stage: str, reader: str, ndim: int) -> None:
    """The reader in `S0 S1 S2 S3`, the reduction computed at its S1 tile in `R0 S2 R1 S3`."""
    reader_axes = list(stage_of(b.s, reader).leaf_iter_vars[:ndim])
    spatial = [b.split(reader, a, 4) for a in reader_axes]
    levels = [[loops[k] for _, loops in spatial] for k in range(4)]
    b.reorder(reader, [axis for level in levels for axis in level])
    outer = b.fuse(reader, levels[0])
    at = b.position(reader, levels[1][-1])
    b.add(ComputeAtStep(stage, reader, at))
    op = stage_of(b.s, stage).op
    inner = [
        b.follow_split(stage, a, index, 1) for a, (index, _) in zip(op.axis, spatial, strict=True)
    ]
    reduce = [b.split(stage, a, 2) for a in list(op.reduce_axis)]
    s_levels = [[loops[k] for loops in inner] for k in range(2)]
    r_levels = [[loops[k] for _, loops in reduce] for k in range(2)]
    b.reorder(stage, [*r_levels[0], *s_levels[0], *r_levels[1], *s_levels[1]])
    last_split = spatial[-1][0]
    unroll = [(loops[1], index, 1) for index, loops in reduce]
    unroll += [(loops[1], index, 3) for loops, (index, _) in zip(inner[:-1], spatial, strict=False)]
    annotate(b, sketch, stage, None, last_split, unroll)
    annotate(b, sketch, reader, outer, last_split, [])


def transpose_at_root(b: SketchBuilder, sketch: Sketch, stage: str) -> None:
    """A transposing copy [..., k, n] at the root: n split for a vector, k split as n is
    (a square), the outer loops fused and parallel."""
    *lead, k, n = b.leaves(stage)
    n_split, (n_outer, n_inner) = b.split(stage, n, 2)
    k_outer, k_inner = b.follow_split(stage, k, n_split, 1)
    b.reorder(stage, [*lead, n_outer, k_outer, k_inner, n_inner])
    outer = b.fuse(stage, [*lead, n_outer])
    annotate(b, sketch, stage, outer, n_split, [])


def elementwise_at_root(b: SketchBuilder, sketch: Sketch, stage: str) -> None:
    axes = list(stage_of(b.s, stage).leaf_iter_vars)
    outer = b.fuse(stage, axes)
    index, _ = b.split(stage, b.leaves(stage)[outer], 2)
    annotate(b, sketch, stage, outer, index, [])


def annotate(
    b: SketchBuilder,
    sketch: Sketch,
    stage: str,
    parallel: int | None,
    vector_split: int,
    unroll: Sequence[tuple[IterVar, int, int]],
) -> None:
    """Note the annotations of `stage`'s final loops: `parallel` (a position), the innermost
    loop vectorized by the last length of split step `vector_split`, and loops to unroll."""
    leaves = b.leaves(stage)
    if parallel is not None:
        sketch.parallel.append(AnnotationStep(stage, parallel, "parallel"))
    sketch.vectorize.append((AnnotationStep(stage, len(leaves) - 1, "vectorize"), vector_split))
    sketch.unroll.extend(
        (AnnotationStep(stage, b.position(stage, a), "unroll"), split, level)
        for a, split, level in unroll
    )


# ---------------------------------------------------------------------------------------------
# Candidates: a sketch filled in


@dataclass(frozen=True)
class Candidate:
    """A sketch with its splits' lengths and its unrolled loops chosen."""

    sketch: int
    lengths: tuple[tuple[int, ...], ...]  # per SplitStep of the sketch, in order
    unroll: tuple[bool, ...]

    def state(self, sketches: Sequence[Sketch]) -> State:
        sketch = sketches[self.sketch]
        steps = list(sketch.steps)
        for index, lengths in zip(sketch.split_ids, self.lengths, strict=True):
            old = steps[index]
            assert isinstance(old, SplitStep)
            steps[index] = SplitStep(old.stage, old.iter_id, old.extent, lengths)
        steps.extend(sketch.parallel)
        for step, split in sketch.vectorize:
            if steps[split].lengths[-1] in VECTOR_LENGTHS:  # type: ignore[attr-defined]
                steps.append(step)
        # loops unrolled from the innermost out, while the copies of the body stay few
        unrolled, copies = [], 1
        for (step, split, level), on in reversed(
            list(zip(sketch.unroll, self.unroll, strict=True))
        ):
            lengths = steps[split].lengths  # type: ignore[attr-defined]
            parts = [steps[split].extent // math.prod(lengths), *lengths]  # type: ignore[attr-defined]
            if on and copies * parts[level] <= MAX_UNROLL:
                unrolled.insert(0, step)
                copies *= parts[level]
        return State(tuple(steps + unrolled))


def decode(state: State, sketches: Sequence[Sketch]) -> Candidate | None:
    """The candidate whose steps `state` are (a record's), or None if no sketch made it."""
    for k, sketch in enumerate(sketches):
        if len(state.steps) < len(sketch.steps):
            continue
        lengths = []
        for index in sketch.split_ids:
            step = state.steps[index]
            if not isinstance(step, SplitStep):
                break
            lengths.append(step.lengths)
        else:
            tail = set(state.steps[len(sketch.steps) :])
            flags = tuple(step in tail for step, _, _ in sketch.unroll)
            candidate = Candidate(k, tuple(lengths), flags)
            if candidate.state(sketches) == state:
                return candidate
    return None


@cache
def factorizations(extent: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write `extent` as an ordered product of `parts` factors."""
    if parts == 1:
        return [(extent,)]
    found = []
    for first in range(1, extent + 1):
        if extent % first == 0:
            found.extend((first, *rest) for rest in factorizations(extent // first, parts - 1))
    return found


def sample_lengths(rng: random.Random, step: SplitStep, vectorized: bool) -> tuple[int, ...]:
    """Inner lengths of a perfect tiling of the step's loop (the outer part is the rest)."""
    options = [
        f[1:] for f in factorizations(step.extent, len(step.lengths) + 1) if f[-1] <= MAX_INNERMOST
    ]
    if vectorized and rng.random() < 0.8:
        lanes = [f for f in options if f[-1] % VECTOR_LANES == 0]
        options = lanes or options
    return rng.choice(options)


def vectorized_splits(sketch: Sketch) -> set[int]:
    return {split for _, split in sketch.vectorize}


def sample(rng: random.Random, sketches: Sequence[Sketch]) -> Candidate:
    k = rng.randrange(len(sketches))
    sketch = sketches[k]
    vectorized = vectorized_splits(sketch)
    lengths = tuple(
        sample_lengths(rng, sketch.steps[i], i in vectorized)  # type: ignore[arg-type]
        for i in sketch.split_ids
    )
    unroll = tuple(rng.random() < 0.5 for _ in sketch.unroll)
    return Candidate(k, lengths, unroll)


def prime_factors(n: int) -> list[int]:
    found, p = [], 2
    while n > 1:
        while n % p == 0:
            found.append(p)
            n //= p
        p += 1
    return found


def mutate(rng: random.Random, candidate: Candidate, sketches: Sequence[Sketch]) -> Candidate:
    """Move a prime factor between two levels of one split (TVM's MutateTileSize), or flip
    whether one loop is unrolled."""
    sketch = sketches[candidate.sketch]
    lengths = [list(ls) for ls in candidate.lengths]
    if candidate.unroll and (not lengths or rng.random() < 0.2):
        flags = list(candidate.unroll)
        k = rng.randrange(len(flags))
        flags[k] = not flags[k]
        return Candidate(candidate.sketch, candidate.lengths, tuple(flags))
    if not lengths:
        return candidate
    j = rng.randrange(len(lengths))
    extent = sketch.steps[sketch.split_ids[j]].extent  # type: ignore[attr-defined]
    parts = [extent // math.prod(lengths[j]), *lengths[j]]
    movable = [k for k, p in enumerate(parts) if p > 1]
    if not movable:
        return candidate
    src = rng.choice(movable)
    dst = rng.choice([k for k in range(len(parts)) if k != src])
    factor = rng.choice(prime_factors(parts[src]))
    parts[src] //= factor
    parts[dst] *= factor
    if parts[-1] > MAX_INNERMOST:
        return candidate
    lengths[j] = parts[1:]
    return Candidate(candidate.sketch, tuple(tuple(ls) for ls in lengths), candidate.unroll)
