"""Transform steps: a schedule as a replayable list of TVM's auto-scheduler steps.

A candidate schedule is a list of steps, each naming its stage by name and its loops by their
position among the stage's loops at that point (`iter_id`, as TVM's steps do), so that the list
replays onto a fresh schedule of the workload (`replay`), prints as the te calls it makes
(`State.__str__`) and is stored in a record as JSON (`to_json`/`step_from_json`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xtvm.te.expr import IterVar
from xtvm.te.schedule import Schedule, Stage


def stage_of(s: Schedule, name: str) -> Stage:
    for stage in s.stages:
        if stage.op.name == name:
            return stage
    raise KeyError(f"no stage '{name}' (stages: {', '.join(t.op.name for t in s.stages)})")


def leaf(stage: Stage, iter_id: int) -> IterVar:
    return stage.leaf_iter_vars[iter_id]


def split_by_lengths(stage: Stage, axis: IterVar, lengths: Sequence[int]) -> None:
    """Split `axis` into len(lengths) + 1 loops, the inner ones of `lengths` (outer first)."""
    rest = axis
    for k in range(len(lengths)):
        _, rest = stage.split(rest, factor=math.prod(lengths[k:]))


@dataclass(frozen=True)
class Step:
    kind: ClassVar[str]
    stage: str

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        raise NotImplementedError

    def to_json(self) -> list[Any]:
        return [self.kind, *self.__dict__.values()]


@dataclass(frozen=True)
class CacheWriteStep(Step):
    """`s.cache_write(T, "local")`: a stage `T.local` computes T, T becomes its copy."""

    kind: ClassVar[str] = "CW"

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        s.cache_write(stage_of(s, self.stage).tensor, "local")

    def __str__(self) -> str:
        return f'{self.stage}.local = s.cache_write({self.stage}, "local")'


@dataclass(frozen=True)
class TransposeReadStep(Step):
    """`s.transpose_read(tensor, [stage])`: the stage reads `tensor` (a product's operand
    [..., n, k]) from a copy with its last two axes swapped, a new stage `<tensor>.T`."""

    kind: ClassVar[str] = "TR"
    tensor: str

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        source = next((t for t in stage.reads if t.name == self.tensor), None)
        if source is None:
            raise ValueError(f"stage '{self.stage}' reads no tensor '{self.tensor}'")
        s.transpose_read(source, [stage.op])

    def __str__(self) -> str:
        return f"{self.tensor}.T = s.transpose_read({self.tensor}, [{self.stage}])"


@dataclass(frozen=True)
class ComputeInlineStep(Step):
    kind: ClassVar[str] = "CI"

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage_of(s, self.stage).compute_inline()

    def __str__(self) -> str:
        return f"s[{self.stage}].compute_inline()"


@dataclass(frozen=True)
class SplitStep(Step):
    """Split loop `iter_id` (of `extent`) into len(lengths) + 1 loops, inner ones `lengths`."""

    kind: ClassVar[str] = "SP"
    iter_id: int
    extent: int
    lengths: tuple[int, ...]

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        split_by_lengths(stage, leaf(stage, self.iter_id), self.lengths)

    def __str__(self) -> str:
        return f"s[{self.stage}].split(loop {self.iter_id} of {self.extent}, {list(self.lengths)})"


@dataclass(frozen=True)
class FollowSplitStep(Step):
    """Split loop `iter_id` like the last `n_split` lengths of the split step `src_step_id`
    (a producer computed at its consumer's tile follows the consumer's inner tiles)."""

    kind: ClassVar[str] = "FSP"
    iter_id: int
    src_step_id: int
    n_split: int

    def lengths(self, steps: Sequence[Step]) -> tuple[int, ...]:
        src = steps[self.src_step_id]
        assert isinstance(src, SplitStep)
        return src.lengths[len(src.lengths) - self.n_split :]

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        split_by_lengths(stage, leaf(stage, self.iter_id), self.lengths(steps))

    def __str__(self) -> str:
        return (
            f"s[{self.stage}].split(loop {self.iter_id}, as the last {self.n_split} of step "
            f"{self.src_step_id})"
        )


@dataclass(frozen=True)
class ReorderStep(Step):
    kind: ClassVar[str] = "RE"
    after_ids: tuple[int, ...]

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        stage.reorder(*[leaf(stage, k) for k in self.after_ids])

    def __str__(self) -> str:
        return f"s[{self.stage}].reorder(loops {list(self.after_ids)})"


@dataclass(frozen=True)
class FuseStep(Step):
    kind: ClassVar[str] = "FU"
    fused_ids: tuple[int, ...]

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        stage.fuse(*[leaf(stage, k) for k in self.fused_ids])

    def __str__(self) -> str:
        return f"s[{self.stage}].fuse(loops {list(self.fused_ids)})"


@dataclass(frozen=True)
class ComputeAtStep(Step):
    kind: ClassVar[str] = "CA"
    target_stage: str
    target_iter_id: int

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        target = stage_of(s, self.target_stage)
        stage_of(s, self.stage).compute_at(target, leaf(target, self.target_iter_id))

    def __str__(self) -> str:
        return f"s[{self.stage}].compute_at(s[{self.target_stage}], loop {self.target_iter_id})"


@dataclass(frozen=True)
class AnnotationStep(Step):
    """Mark loop `iter_id` `parallel`, `vectorize` or `unroll`."""

    kind: ClassVar[str] = "AN"
    iter_id: int
    annotation: str

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        stage = stage_of(s, self.stage)
        getattr(stage, self.annotation)(leaf(stage, self.iter_id))

    def __str__(self) -> str:
        return f"s[{self.stage}].{self.annotation}(loop {self.iter_id})"


@dataclass(frozen=True)
class DefaultScheduleStep(Step):
    """The compiler's default schedule of the whole kernel: the baseline a record of a relay
    kernel must beat to be applied. Only its task can build it (`SearchTask.instantiate`)."""

    kind: ClassVar[str] = "DS"

    def apply(self, s: Schedule, steps: Sequence[Step]) -> None:
        raise ValueError("the default schedule is the compiler's: only its SearchTask builds it")

    def __str__(self) -> str:
        return "the default schedule"


STEP_KINDS: dict[str, type[Step]] = {
    cls.kind: cls
    for cls in (
        CacheWriteStep,
        TransposeReadStep,
        ComputeInlineStep,
        SplitStep,
        FollowSplitStep,
        ReorderStep,
        FuseStep,
        ComputeAtStep,
        AnnotationStep,
        DefaultScheduleStep,
    )
}


def step_from_json(data: Sequence[Any]) -> Step:
    kind, *fields = data
    if kind not in STEP_KINDS:
        raise ValueError(f"unknown auto_scheduler step '{kind}' (known: {', '.join(STEP_KINDS)})")
    fields = [tuple(f) if isinstance(f, list) else f for f in fields]
    return STEP_KINDS[kind](*fields)


@dataclass(frozen=True)
class State:
    """A candidate schedule: the steps that make it from the workload's default schedule."""

    steps: tuple[Step, ...]

    def __str__(self) -> str:
        return "\n".join(str(step) for step in self.steps)

    def to_json(self) -> list[list[Any]]:
        return [step.to_json() for step in self.steps]

    @staticmethod
    def from_json(data: Sequence[Sequence[Any]]) -> State:
        return State(tuple(step_from_json(d) for d in data))

    @property
    def is_default(self) -> bool:
        return any(isinstance(step, DefaultScheduleStep) for step in self.steps)

    def replay(self, s: Schedule) -> Schedule:
        """Apply the steps to `s` (a fresh schedule of the workload), in order."""
        for step in self.steps:
            step.apply(s, self.steps)
        return s


DEFAULT_STATE = State((DefaultScheduleStep("*"),))
