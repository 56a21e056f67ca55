"""Templates, tasks and which config a template gets.

`@autotvm.template("name")` registers a function of JSON-able arguments (shapes, dtypes) that
returns `(schedule, tensors)` and reads its knobs from `autotvm.get_config()`. Called
directly, it asks the current dispatch context for the config of its workload (`(name,
*args)`) and target: `apply_history_best(records)` gives the best measured one, and outside
any context the fallback config gives the template's defaults. `task.create(name, args,
target)` makes a `Task`, whose `config_space` comes from running the template once.

`relay.build` meets the same templates through its kernels: a tunable stage (a product or a
conv2d, whose te compute carries its `workload` attribute) has a workload key
(`KERNEL_WORKLOADS`), and inside a dispatch context that holds a config for that key and the
target the stage is scheduled by the template's kernel schedule (`KERNEL_SCHEDULES`, the hook
`xtvm.topi.dispatch` calls) instead of its default one. Outside any context, or with no
record for the key, the default schedule stays: an untuned build is unchanged.
`extract_from_program(mod, params, target)` lowers the model under a tracing context that
notes each tunable kernel's key: one task each. Such a task also holds the model's own fused
kernel of its workload (`ModelKernel`: its tensors and the default schedule of the whole
kernel, epilogue included), and a candidate of it is that kernel scheduled with the candidate's
config, what `relay.build` makes of it under `apply_history_best`; timed alone, the template's
kernel differed from the model's (no epilogue, other loop bounds and register pressure) and
its gains did not carry into the model.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xtvm import te
from xtvm.topi.dispatch import IMPLEMENTATION_CHOICES, TUNED_KERNELS, TUNED_SCHEDULES
from xtvm.tuning import space  # noqa: F401  (TVM's `autotvm.task.space`)
from xtvm.tuning.space import ConfigEntity, ConfigSpace, FallbackConfigEntity

Workload = tuple[Any, ...]
# name -> the undecorated template; xtvm's own (templates.py) register as the package loads
TEMPLATES: dict[str, Callable[..., Any]] = {}
# template name -> its schedule of a kernel's stage `(s, t)`, knobs read from get_config()
KERNEL_SCHEDULES: dict[str, Callable[[te.Schedule, te.Tensor], None]] = {}
# the workload key of a kernel's stage, or None when no template tunes it; the first answer
KERNEL_WORKLOADS: list[Callable[[te.Tensor], Workload | None]] = []
# the same of a TOPI compute's `workload` attribute and tag (a compute not built yet)
TEMPLATE_WORKLOADS: list[Callable[[Sequence[Any], str], Workload | None]] = []


def target_kind(target: object) -> str:
    """The kind of a target (`llvm` of `llvm -mcpu=skylake`): what records are matched by."""
    return str(target).split()[0] if target is not None else "llvm"


def current_target() -> str:
    from xtvm.target import Target

    target = Target.current()
    return str(target) if target is not None else "llvm"


class DispatchContext:
    """Says which config a workload gets; contexts nest, the innermost asked first (TVM's
    `autotvm.DispatchContext`: a subclass answers in `_query_inside`, None to ask the
    enclosing context)."""

    current: DispatchContext | None = None

    def __init__(self) -> None:
        self._parent: DispatchContext | None = None

    def _query_inside(self, target: str, workload: Workload) -> ConfigSpace | None:
        return None

    def _cost(self, target: str, workload: Workload) -> float | None:
        return None

    def cost(self, target: str, workload: Workload) -> float | None:
        """Seconds a run of `workload` takes under the config this context gives it (its
        tuned record's), or None when no context has a record of it."""
        found = self._cost(target, workload)
        if found is not None or self._parent is None:
            return found
        return self._parent.cost(target, workload)

    def query(self, target: object, workload: Workload) -> ConfigSpace:
        config = self._query_inside(str(target), workload)
        if config is not None:
            return config
        assert self._parent is not None, "the fallback context answers every query"
        return self._parent.query(target, workload)

    def update(self, target: object, workload: Workload, config: ConfigSpace) -> None:
        """Make `config` this context's answer for `workload` (where it keeps answers)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no configs to update")

    def __enter__(self) -> DispatchContext:
        self._parent, DispatchContext.current = DispatchContext.current, self
        return self

    def __exit__(self, *exc: object) -> None:
        DispatchContext.current = self._parent


class FallbackContext(DispatchContext):
    """The root context: a `FallbackConfigEntity` (the template's defaults) per target and
    workload, kept in `memory` so a template's own fallback settings persist; entered, it
    answers every query inside (TVM's `autotvm.FallbackContext`)."""

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[tuple[str, Workload], ConfigSpace] = {}
        self.silent = True

    def _query_inside(self, target: str, workload: Workload) -> ConfigSpace:
        key = (str(target), workload)
        if key not in self.memory:
            self.memory[key] = FallbackConfigEntity()
        return self.memory[key]

    def clear_cache(self, target: object, workload: Workload) -> None:
        """Forget the config kept for `workload` (the next query makes a fresh one)."""
        self.memory.pop((str(target), workload), None)

    def update(self, target: object, workload: Workload, config: ConfigSpace) -> None:
        self.memory[(str(target), workload)] = config


DispatchContext.current = FallbackContext()


class ApplyConfig(DispatchContext):
    """Every workload gets `config` (a point, or a space collecting knobs)."""

    def __init__(self, config: ConfigSpace) -> None:
        super().__init__()
        self.config = config

    def _query_inside(self, target: str, workload: Workload) -> ConfigSpace:
        return self.config


_CURRENT_CONFIG: list[ConfigSpace] = []


def get_config() -> Any:
    """The config of the template being run (call it in a template)."""
    if not _CURRENT_CONFIG:
        raise RuntimeError("autotvm.get_config() is called inside an autotvm.template only")
    return _CURRENT_CONFIG[-1]


def workload_of(name: str, args: Sequence[Any]) -> Workload:
    return (name, *(tuple(a) if isinstance(a, list) else a for a in args))


def template(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a template under `name`; calling it builds the schedule of the config that
    the current dispatch context picks for `(name, *args)`."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        TEMPLATES[name] = func

        @functools.wraps(func)
        def dispatch(*args: Any) -> Any:
            assert DispatchContext.current is not None
            config = DispatchContext.current.query(current_target(), workload_of(name, args))
            return run_template(func, config, args)

        dispatch.template_name = name  # type: ignore[attr-defined]
        return dispatch

    return register


def run_template(func: Callable[..., Any], config: ConfigSpace, args: Sequence[Any]) -> Any:
    _CURRENT_CONFIG.append(config)
    try:
        return func(*args)
    finally:
        _CURRENT_CONFIG.pop()


def lookup_template(name: str) -> Callable[..., Any]:
    if name not in TEMPLATES:
        known = ", ".join(sorted(TEMPLATES)) or "none"
        raise KeyError(f"no autotvm template '{name}' (templates: {known})")
    return TEMPLATES[name]


@dataclass(frozen=True)
class ModelKernel:
    """A fused kernel of a model as `relay.build` makes it: its te tensors (arguments, then
    outputs), of which the first `inputs` are what kernels before it computed (the rest of
    the arguments are weights), and `schedule`, which schedules the whole kernel afresh,
    asking the current dispatch context for the config of each tunable stage (the default
    schedule outside one)."""

    name: str
    tensors: tuple[te.Tensor, ...]
    inputs: int
    schedule: Callable[[], te.Schedule]


class Task:
    """A template applied to arguments, for a target: what a tuner searches. With `kernel`
    (a task of `extract_from_program`), a config is built as that model kernel scheduled with
    it; without, as the template's own kernel."""

    def __init__(
        self,
        name: str,
        args: Sequence[Any],
        target: object = "llvm",
        kernel: ModelKernel | None = None,
    ) -> None:
        self.name = name
        self.args = tuple(args)
        self.target = str(target) if target is not None else "llvm"
        self.kernel = kernel
        self._space: ConfigSpace | None = None
        self.calls = 1  # kernels of the model with this workload (`extract_from_program`)
        # the workloads of every implementation of its layer (itself included) when the
        # layer has several, and whether this one is built without records
        self.implementations: tuple[Workload, ...] = ()
        self.built_by_default = True

    @property
    def workload(self) -> Workload:
        return workload_of(self.name, self.args)

    @property
    def func(self) -> Callable[..., Any]:
        return lookup_template(self.name)

    @property
    def config_space(self) -> ConfigSpace:
        if self._space is None:
            space = ConfigSpace()
            run_template(self.func, space, self.args)
            self._space = space
        return self._space

    @property
    def flop(self) -> float:
        return self.config_space.flop

    def default_index(self) -> int | None:
        """The point of the space that the fallback config is (the default schedule), or
        None when a knob's default is none of its candidates."""
        fallback = FallbackConfigEntity()
        run_template(self.func, fallback, self.args)
        return self.config_space.point_of(fallback)

    def instantiate(self, config: ConfigSpace) -> Any:
        """`(schedule, tensors)` under `config`: of the model kernel when the task has one,
        else of the template."""
        if self.kernel is None:
            return run_template(self.func, config, self.args)
        with ApplyConfig(config):
            return self.kernel.schedule(), list(self.kernel.tensors)

    def __getstate__(self) -> dict[str, Any]:
        """A task sent to another process (a Ray build) without its model kernel, whose
        schedule closes over the model's lowering: there the template's kernel is built."""
        return {**self.__dict__, "kernel": None}

    def __repr__(self) -> str:
        return f"Task(func_name={self.name}, args={self.args}, target={self.target})"


def create(task_name: str, args: Sequence[Any], target: object = "llvm") -> Task:
    """A task of the template `task_name` with `args`; its config space is built now."""
    task = Task(task_name, args, target)
    _ = task.config_space
    return task


def kernel_workload(t: te.Tensor) -> Workload | None:
    """The workload key of the stage of `t` when a template tunes it."""
    for workload_of_stage in KERNEL_WORKLOADS:
        found = workload_of_stage(t)
        if found is not None:
            return workload_of(found[0], found[1:])
    return None


def schedule_kernel(s: te.Schedule, t: te.Tensor, target: str) -> bool:
    """Schedule the stage of `t` by its template when the dispatch context has a config for
    its workload and `target` (the hook of `xtvm.topi.dispatch`)."""
    context = DispatchContext.current
    if context is None or isinstance(context, FallbackContext) or s[t].scheduled:
        return False
    workload = kernel_workload(t)
    if workload is None or not workload[0].endswith(f".{target_kind(target)}"):
        return False  # no template, or one for another target (`dense.llvm` on cuda)
    config = context.query(target, workload)
    if config.is_fallback:
        return False
    run_template(KERNEL_SCHEDULES[workload[0]], config, (s, t))
    return True


TUNED_SCHEDULES.append(schedule_kernel)


def template_workload(workload: Sequence[Any], tag: str = "") -> Workload | None:
    """The workload key of a TOPI compute's `workload` attribute when a template tunes it."""
    for workload_of_compute in TEMPLATE_WORKLOADS:
        found = workload_of_compute(workload, tag)
        if found is not None:
            return workload_of(found[0], found[1:])
    return None


def choose_by_records(candidates: Sequence[tuple[str, tuple[Any, ...]]]) -> str | None:
    """The implementation of an op whose tuned record is fastest, when the dispatch context
    has a record of every candidate (the hook of `xtvm.topi.dispatch`); None leaves the
    compiler's default. A tracing context notes every candidate's workload: each gets a
    task, so a tuning measures the implementations the model could be built with."""
    context = DispatchContext.current
    keys = [(name, template_workload(workload)) for name, workload in candidates]
    outer = context
    while outer is not None and not isinstance(outer, TracingContext):
        outer = outer._parent
    if outer is not None:
        outer.note_alternatives([key for _, key in keys if key is not None])
    if context is None or any(key is None for _, key in keys):
        return None
    target = current_target()
    costs = [(context.cost(target, key), name) for name, key in keys]  # type: ignore[arg-type]
    if any(cost is None for cost, _ in costs):
        return None
    return min(costs, key=lambda c: c[0])[1]  # type: ignore[arg-type,return-value]


IMPLEMENTATION_CHOICES.append(choose_by_records)


class TracingContext(DispatchContext):
    """Notes the workload of every query (in order, each once) and the kernels that asked
    for it (by name: a whole-kernel hook of `xtvm.topi.dispatch` says which kernel is being
    scheduled, while the context is entered), and the workloads of every implementation an
    op could be built with (`choose_by_records`); answers none of them."""

    def __init__(self) -> None:
        super().__init__()
        self.workloads: dict[Workload, str] = {}
        self.kernels: dict[Workload, set[str]] = {}
        self.kernel: ModelKernel | None = None  # the kernel being scheduled
        self.model_kernels: dict[Workload, list[ModelKernel]] = {}  # those asking for each
        self.asked: dict[str, set[Workload]] = {}  # kernel name -> the workloads it asked for
        # workloads of implementations an op could be built with: the layers offering each
        self.alternatives: dict[Workload, int] = {}
        self.groups: dict[Workload, tuple[Workload, ...]] = {}  # each one's layer's all

    def note_alternatives(self, workloads: Sequence[Workload]) -> None:
        for workload in workloads:
            self.alternatives[workload] = self.alternatives.get(workload, 0) + 1
            self.groups[workload] = tuple(workloads)

    def _note_kernel(
        self,
        name: str,
        args: Sequence[te.Tensor],
        outputs: Sequence[te.Tensor],
        _target: str,
        default: Callable[[], te.Schedule],
        constants: int = 0,
    ) -> None:
        self.kernel = ModelKernel(name, (*args, *outputs), len(args) - constants, default)

    def __enter__(self) -> DispatchContext:
        TUNED_KERNELS.insert(0, self._note_kernel)
        return super().__enter__()

    def __exit__(self, *exc: object) -> None:
        TUNED_KERNELS.remove(self._note_kernel)
        super().__exit__(*exc)

    def _query_inside(self, target: str, workload: Workload) -> ConfigSpace | None:
        self.workloads.setdefault(workload, target)
        name = "" if self.kernel is None else self.kernel.name
        self.kernels.setdefault(workload, set()).add(name)
        if self.kernel is not None:
            self.model_kernels.setdefault(workload, []).append(self.kernel)
            self.asked.setdefault(name, set()).add(workload)
        return None

    def model_kernel(self, workload: Workload, calls: Mapping[str, int]) -> ModelKernel | None:
        """The model kernel a task of `workload` measures: of the kernels asking for it only
        (one tunable stage: a config of another workload would not fit the others), the one
        called most."""
        alone = [k for k in self.model_kernels.get(workload, []) if len(self.asked[k.name]) == 1]
        return max(alone, key=lambda k: calls.get(k.name, 0), default=None)


def extract_from_program(
    mod: Any,
    params: Mapping[str, Any] | None = None,
    target: object = "llvm",
    ops: Sequence[object] | None = None,
) -> list[Task]:
    """A task for each tunable kernel of a relay module (`IRModule`, its xdsl module, or
    its main function `mod["main"]`): the kernels relay.build makes of it for `target`, one
    task per distinct workload (dense and matmul, batch_matmul, conv2d). `ops` keeps only
    the tasks of those ops (names such as `nn.dense` or `conv2d`). A task's `calls` is how
    many calls of the model's kernels have its workload (a weight for `tune_model`); its
    `kernel`, the model's fused kernel that it measures (the most called one of the workload).
    An op with several implementations (a 3x3 conv2d, direct or winograd) gives a task of each
    (the one not built weighted by its layers): `apply_history_best` then builds each layer
    with the implementation whose record is fastest."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from xtvm.driver.relay_build import lower_to_te

    if not isinstance(mod, ModuleOp) and not hasattr(mod, "xdsl") and hasattr(mod, "xdsl_module"):
        mod = mod.xdsl_module()  # a relay function: the module whose @main it is

    target_text = str(target) if target is not None else "llvm"
    with TracingContext() as tracing:
        lowered = lower_to_te(mod, params, target_text)
    assert isinstance(tracing, TracingContext)
    # identical kernels are built once and called from several places: count the calls
    calls: dict[str, int] = {}
    for op in lowered.walk():
        if isinstance(op, func.CallOp):
            callee = op.callee.string_value()
            calls[callee] = calls.get(callee, 0) + 1
    wanted = None if ops is None else {str(op).split(".")[-1] for op in ops}
    tasks = []
    offered = [w for w in tracing.alternatives if w not in tracing.workloads]
    for workload in [*tracing.workloads, *offered]:
        name = workload[0]
        if wanted is not None and not any(name.startswith(op) for op in wanted):
            continue
        task = create(name, workload[1:], target_text)
        if workload in tracing.workloads:
            task.calls = max(1, sum(calls.get(k, 0) for k in tracing.kernels[workload]))
            task.kernel = tracing.model_kernel(workload, calls)
        else:  # an implementation not built: weighted by the layers that could use it
            task.calls = tracing.alternatives[workload]
            task.built_by_default = False
        task.implementations = tracing.groups.get(workload, ())
        tasks.append(task)
    return tasks


__all__ = [
    "ApplyConfig",
    "ConfigEntity",
    "DispatchContext",
    "FallbackContext",
    "ModelKernel",
    "Task",
    "TracingContext",
    "create",
    "extract_from_program",
    "get_config",
    "template",
]
