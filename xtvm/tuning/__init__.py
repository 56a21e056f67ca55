"""TVM's AutoTVM: `from xtvm import autotvm` (also `tvm.autotvm`).

Templates declare knobs (`cfg.define_split`, `define_knob`, ...) on `autotvm.get_config()`;
`autotvm.task.create` makes a task of one; a tuner (`GridSearchTuner`, `RandomTuner`)
measures configs of its space in child processes (`measure_option(builder=LocalBuilder(),
runner=LocalRunner(...))`) and logs them as JSON lines (`callback.log_to_file`); inside
`apply_history_best(log)` templates build with the best recorded config.
"""

from xtvm.tuning import callback, measure, record, space, task, templates, tuner
from xtvm.tuning.measure import (
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    RPCRunner,
    measure_option,
)
from xtvm.tuning.record import ApplyHistoryBest, apply_history_best
from xtvm.tuning.space import ConfigEntity, ConfigSpace, FallbackConfigEntity
from xtvm.tuning.task import ApplyConfig, DispatchContext, get_config, template
from xtvm.tuning.tuner import GridSearchTuner, RandomTuner, Tuner

__all__ = [
    "ApplyConfig",
    "ApplyHistoryBest",
    "ConfigEntity",
    "ConfigSpace",
    "DispatchContext",
    "FallbackConfigEntity",
    "GridSearchTuner",
    "LocalBuilder",
    "LocalRunner",
    "MeasureErrorNo",
    "MeasureInput",
    "MeasureResult",
    "RPCRunner",
    "RandomTuner",
    "Tuner",
    "apply_history_best",
    "callback",
    "get_config",
    "measure",
    "measure_option",
    "record",
    "space",
    "task",
    "template",
    "templates",
    "tuner",
]
