"""Tuned schedules in place of the default ones: the hook AutoTVM fills.

`convert-relay-to-te` asks `schedule_tuned(s, t, target)` before a stage gets its default
schedule. Each function in `TUNED_SCHEDULES` may schedule the stage itself (a config found
by tuning, `autotvm.apply_history_best`) and say so by returning True; when none does, the
stage gets the strategy's default schedule. The tuning layer sits above the compiler, so it
registers here instead of being imported (an inversion of the dependency).
"""

from __future__ import annotations

from collections.abc import Callable

from xtvm import te

TunedSchedule = Callable[[te.Schedule, te.Tensor, str], bool]
TUNED_SCHEDULES: list[TunedSchedule] = []


def schedule_tuned(s: te.Schedule, t: te.Tensor, target: str) -> bool:
    """Whether a registered function scheduled the stage of `t` for `target`."""
    return any(tuned(s, t, target) for tuned in TUNED_SCHEDULES)
