"""Tuned schedules in place of the default ones: the hooks the tuners fill.

`convert-relay-to-te` asks two kinds of hook before it schedules a fused kernel:

- `schedule_tuned_kernel(name, args, outputs, target, default, constants)` for the whole
  kernel (its last `constants` arguments are the model's weights, the others what kernels
  before it computed): each function in `TUNED_KERNELS` may return a complete schedule of it
  (the auto-scheduler's best record of the kernel's compute, `auto_scheduler.ApplyHistoryBest`),
  or None;
- otherwise, per stage, `schedule_tuned(s, t, target)`: each function in `TUNED_SCHEDULES` may
  schedule the stage itself (a config found by AutoTVM, `autotvm.apply_history_best`) and say
  so by returning True; when none does, the stage gets the strategy's default schedule.

An op with several implementations (a 3x3 conv2d: direct or winograd) asks
`choose_implementation(candidates, default)` which one to build, each candidate named with the
`workload` attribute its TOPI compute would carry: each function in `IMPLEMENTATION_CHOICES`
may pick one (the one whose tuned record is fastest, as TVM's `select_implementation` does
inside an AutoTVM dispatch context) or say nothing; when none picks, `default` stays.

The tuning layer sits above the compiler, so it registers here instead of being imported (an
inversion of the dependency).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm import te

TunedSchedule = Callable[[te.Schedule, te.Tensor, str], bool]
TUNED_SCHEDULES: list[TunedSchedule] = []
TunedKernel = Callable[
    [str, Sequence[te.Tensor], Sequence[te.Tensor], str, Callable[[], te.Schedule], int],
    "te.Schedule | None",
]
TUNED_KERNELS: list[TunedKernel] = []
# (implementation name, its compute's `workload` attribute) of each candidate -> a name or None
Candidates = Sequence[tuple[str, tuple[object, ...]]]
IMPLEMENTATION_CHOICES: list[Callable[[Candidates], str | None]] = []


def schedule_tuned(s: te.Schedule, t: te.Tensor, target: str) -> bool:
    """Whether a registered function scheduled the stage of `t` for `target`."""
    return any(tuned(s, t, target) for tuned in TUNED_SCHEDULES)


def schedule_tuned_kernel(
    name: str,
    args: Sequence[te.Tensor],
    outputs: Sequence[te.Tensor],
    target: str,
    default: Callable[[], te.Schedule],
    constants: int = 0,
) -> te.Schedule | None:
    """The schedule a registered function gives the kernel `name` (its arguments and outputs
    as te tensors, the last `constants` arguments weights) for `target`, or None: the kernel
    keeps its default schedule (which `default()` makes afresh: tuning measures it as the
    baseline to beat, and a model's task builds its candidates by it)."""
    for tuned in TUNED_KERNELS:
        s = tuned(name, args, outputs, target, default, constants)
        if s is not None:
            return s
    return None


def choose_implementation(candidates: Candidates, default: str) -> str:
    """The implementation to build of an op with several `candidates` (see the module
    docstring): the first registered function's pick, else `default`."""
    names = {name for name, _ in candidates}
    for choose in IMPLEMENTATION_CHOICES:
        picked = choose(candidates)
        if picked is not None and picked in names:
            return picked
    return default
