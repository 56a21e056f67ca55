"""Tuned schedules in place of the default ones: the hooks the tuners fill.

`convert-relay-to-te` asks two kinds of hook before it schedules a fused kernel:

- `schedule_tuned_kernel(name, args, outputs, target)` for the whole kernel: each function in
  `TUNED_KERNELS` may return a complete schedule of it (the auto-scheduler's best record of
  the kernel's compute, `auto_scheduler.ApplyHistoryBest`), or None;
- otherwise, per stage, `schedule_tuned(s, t, target)`: each function in `TUNED_SCHEDULES` may
  schedule the stage itself (a config found by AutoTVM, `autotvm.apply_history_best`) and say
  so by returning True; when none does, the stage gets the strategy's default schedule.

The tuning layer sits above the compiler, so it registers here instead of being imported (an
inversion of the dependency).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm import te

TunedSchedule = Callable[[te.Schedule, te.Tensor, str], bool]
TUNED_SCHEDULES: list[TunedSchedule] = []
TunedKernel = Callable[
    [str, Sequence[te.Tensor], Sequence[te.Tensor], str, Callable[[], te.Schedule]],
    "te.Schedule | None",
]
TUNED_KERNELS: list[TunedKernel] = []


def schedule_tuned(s: te.Schedule, t: te.Tensor, target: str) -> bool:
    """Whether a registered function scheduled the stage of `t` for `target`."""
    return any(tuned(s, t, target) for tuned in TUNED_SCHEDULES)


def schedule_tuned_kernel(
    name: str,
    args: Sequence[te.Tensor],
    outputs: Sequence[te.Tensor],
    target: str,
    default: Callable[[], te.Schedule],
) -> te.Schedule | None:
    """The schedule a registered function gives the kernel `name` (its arguments and outputs
    as te tensors) for `target`, or None: the kernel keeps its default schedule (which
    `default()` makes afresh: tuning measures it as the baseline to beat)."""
    for tuned in TUNED_KERNELS:
        s = tuned(name, args, outputs, target, default)
        if s is not None:
            return s
    return None
