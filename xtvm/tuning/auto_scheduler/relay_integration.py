"""The auto-scheduler and relay: tasks from a model's kernels, records applied by relay.build.

TVM's `auto_scheduler.relay_integration`. Every fused kernel that `relay.build` makes is a
computation of te tensors; its workload key is `[hash, *shapes]`, the hash that of the
kernel's unscheduled te (stage names, bodies, shapes and dtypes), so that the same kernel in
another model, or in the same model built again, has the same key.

- `extract_tasks(mod, params, target)` lowers the model under a `TracingEnvironment`: each
  kernel with a reduction (every kernel with `include_simple_tasks`) is registered under its
  key (`register_workload_tensors`) and becomes a `SearchTask`, weighted by how many times
  the graph calls it.
- Inside `with auto_scheduler.ApplyHistoryBest(log):` (TVM also sets the pass config
  `relay.backend.use_auto_scheduler`, accepted and not needed here), `relay.build` schedules a
  kernel whose key has a successful record for the target by replaying the record's steps;
  kernels without one keep their default (or AutoTVM-tuned) schedule. Tuning such a task
  first measures the kernel's default schedule (a record of the `DefaultScheduleStep`): where
  that stays the fastest record, the kernel keeps its default schedule, so that a tuned build
  is never slower than the default one for want of trials.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xtvm.te.expr import ComputeOp, PlaceholderOp, Tensor
from xtvm.te.lower import schedule_to_module
from xtvm.te.schedule import Schedule, create_schedule, post_order_ops
from xtvm.topi.dispatch import TUNED_KERNELS
from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG
from xtvm.tuning.auto_scheduler.search_task import ApplyHistoryBest, SearchTask
from xtvm.tuning.auto_scheduler.sketch import generate_sketches
from xtvm.tuning.auto_scheduler.workload_registry import register_workload_tensors


def kernel_workload_key(args: Sequence[Tensor], outputs: Sequence[Tensor]) -> str:
    """`[hash, *shapes]` of a kernel's computation (arguments, then outputs)."""
    tensors = [*args, *outputs]
    text = str(schedule_to_module(create_schedule([t.op for t in outputs]), tensors, "kernel"))
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    return json.dumps([digest, *([int(d) for d in t.shape] for t in tensors)])  # type: ignore[call-overload]


def searchable(outputs: Sequence[Tensor], include_simple: bool) -> bool:
    """Whether the sketch rules can schedule the kernel: no output feeds another stage (the
    rules take the unread stages as the outputs), and a reduction unless `include_simple`."""
    ops = post_order_ops([t.op for t in outputs])
    read = {id(t.op) for op in ops for t in op.input_tensors}  # type: ignore[attr-defined]
    if any(id(t.op) in read or isinstance(t.op, PlaceholderOp) for t in outputs):
        return False
    return include_simple or any(isinstance(op, ComputeOp) and op.reduce_axis for op in ops)


class TracingEnvironment:
    """Notes the kernels lowered inside it: each workload key's tensors and kernel names."""

    current: TracingEnvironment | None = None

    def __init__(self, include_simple_tasks: bool = False) -> None:
        self.include_simple_tasks = include_simple_tasks
        self.tensors: dict[str, list[Tensor]] = {}
        self.kernels: dict[str, list[str]] = {}  # workload key -> kernel names
        self.defaults: dict[str, Callable[[], Schedule]] = {}  # key -> its default schedule
        self._parent: TracingEnvironment | None = None

    def add(
        self, name: str, key: str, tensors: Sequence[Tensor], default: Callable[[], Schedule]
    ) -> None:
        self.tensors.setdefault(key, list(tensors))
        self.defaults.setdefault(key, default)
        self.kernels.setdefault(key, []).append(name)

    def __enter__(self) -> TracingEnvironment:
        self._parent, TracingEnvironment.current = TracingEnvironment.current, self
        return self

    def __exit__(self, *exc: object) -> None:
        TracingEnvironment.current = self._parent


def schedule_kernel(
    name: str,
    args: Sequence[Tensor],
    outputs: Sequence[Tensor],
    target: str,
    default: Callable[[], Schedule],
    _constants: int = 0,
) -> Schedule | None:
    """The hook of `xtvm.topi.dispatch`: note the kernel while tracing, or schedule it by its
    best record inside `ApplyHistoryBest`; None leaves it to the default schedules (also
    where the best record is the default schedule itself)."""
    tracing, best = TracingEnvironment.current, ApplyHistoryBest.current
    if tracing is None and best is None:
        return None
    if not searchable(outputs, tracing.include_simple_tasks if tracing else True):
        return None
    key = kernel_workload_key(args, outputs)
    if tracing is not None:
        tracing.add(name, key, [*args, *outputs], default)
        return None
    assert best is not None
    state = best.query(target, key)
    if state is None or state.is_default:
        return None
    s = create_schedule([t.op for t in outputs])
    try:
        state.replay(s)
    except Exception as exc:
        raise ValueError(
            f"auto_scheduler: the record of kernel '{name}' ({key}) does not replay: {exc}"
        ) from exc
    best.applied[name] = key
    return s


TUNED_KERNELS.append(schedule_kernel)


def extract_tasks(
    mod: Any,
    params: Mapping[str, Any] | None = None,
    target: object = "llvm",
    include_simple_tasks: bool = False,
    **_: Any,
) -> tuple[list[SearchTask], list[int]]:
    """The search tasks of a relay module's kernels and their weights (calls per inference):
    one task per distinct computation that has a reduction (or every one, with
    `include_simple_tasks`) and that the sketch rules can schedule."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from xtvm.driver.relay_build import lower_to_te

    if not isinstance(mod, ModuleOp) and not hasattr(mod, "xdsl") and hasattr(mod, "xdsl_module"):
        mod = mod.xdsl_module()  # a relay function: the module whose @main it is
    target_text = str(target) if target is not None else "llvm"
    with TracingEnvironment(include_simple_tasks) as tracing:
        module = lower_to_te(mod, params, target_text)
    calls = Counter(op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp))
    tasks, weights = [], []
    for key, tensors in tracing.tensors.items():
        names = tracing.kernels[key]
        try:
            generate_sketches(ComputeDAG(tensors))
        except Exception as exc:  # a computation the rules do not handle keeps its default
            warnings.warn(
                f"auto_scheduler: kernel '{names[0]}' is not searchable: {exc}", stacklevel=2
            )
            continue
        register_workload_tensors(key, tensors)
        default = tracing.defaults[key]
        tasks.append(
            SearchTask(
                workload_key=key, target=target_text, desc=names[0], default_schedule=default
            )
        )
        weights.append(max(1, sum(calls[n] for n in names)))
    return tasks, weights
