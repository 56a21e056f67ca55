"""Timing a compiled candidate on a remote device: the work of autotvm's `RPCRunner`.

`time_on_device(tracker, key, library, ...)` asks the tracker for a session with a server of
`key` (a device server `xtvm-rpc-device` or the Python one), uploads the library, fills its
arguments with random values on the device and times its entry function there. The session
ends after `timeout` seconds on the server's side (`session_timeout`), so a candidate that
hangs costs at most that; one that crashes ends only its session process. Failures come back
as a kind (`timeout`, `device`) and the server's message, never as an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.rpc.protocol import RPCError
from xtvm.rpc.tracker import connect_tracker


@dataclass
class DeviceTiming:
    """Seconds per run (one per repeat), or why there are none."""

    costs: list[float] = field(default_factory=list)
    failure: str = ""  # "", "timeout" (the session timed out) or "device" (any other)
    message: str = ""


def time_on_device(
    tracker: tuple[str, int],
    key: str,
    library: str | Path,
    entry: str,
    arg_info: Sequence[Sequence[Any]],
    number: int = 4,
    repeat: int = 3,
    min_repeat_ms: float = 0,
    timeout: float = 10,
    priority: int = 1,
) -> DeviceTiming:
    """Time `entry` of `library` on a device of `key` on random arguments ([shape, dtype]
    each, uniform in [-1, 1))."""
    library = Path(library)
    rng = np.random.default_rng(0)
    try:
        client = connect_tracker(*tracker)
        with client.request(key, priority, session_timeout=timeout, timeout=timeout) as remote:
            remote.upload(library)
            module = remote.load_module(library.name)
            dev = remote.cpu(0)
            arrays = [
                remote.array(rng.uniform(-1, 1, shape).astype(dtype), dev)
                for shape, dtype in arg_info
            ]
            timer = module.time_evaluator(entry, dev, number, repeat, min_repeat_ms)
            return DeviceTiming(timer(*arrays).results)
    except (RPCError, OSError) as exc:
        message = str(exc)
        failure = "timeout" if "timed out" in message or "within" in message else "device"
        return DeviceTiming([], failure, message)
