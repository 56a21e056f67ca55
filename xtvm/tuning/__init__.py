"""TVM's AutoTVM: `from xtvm import autotvm` (also `tvm.autotvm`).

Templates declare knobs (`cfg.define_split`, `define_knob`, ...) on `autotvm.get_config()`;
`autotvm.task.create` makes a task of one, `autotvm.task.extract_from_program(mod, params,
target)` one per tunable kernel of a model; a tuner (`XGBTuner`, `GATuner`, `RandomTuner`,
`GridSearchTuner`) measures configs of its space in child processes
(`measure_option(builder=LocalBuilder(), runner=LocalRunner(...))`, or `RayBuilder` and
`RayRunner` on a Ray cluster) and logs them as JSON lines (`callback.log_to_file`); inside
`apply_history_best(log)` templates, and the kernels of `relay.build`, build with the best
recorded config. `tune_model` tunes a model's tasks together; `check_model_records` then drops
the records whose kernels are slower inside the model than its default build's.
"""

from xtvm.tuning import (
    callback,
    cost_model,
    features,
    measure,
    model_check,
    ray_measure,
    record,
    space,
    task,
    templates,
    tuner,
)
from xtvm.tuning.measure import (
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    RPCRunner,
    measure_option,
)
from xtvm.tuning.model_check import check_model_records
from xtvm.tuning.model_tuner import tune_model
from xtvm.tuning.ray_measure import RayBuilder, RayRunner
from xtvm.tuning.record import ApplyHistoryBest, apply_history_best
from xtvm.tuning.space import ConfigEntity, ConfigSpace, FallbackConfigEntity
from xtvm.tuning.task import (
    ApplyConfig,
    DispatchContext,
    FallbackContext,
    get_config,
    template,
)
from xtvm.tuning.tuner import (
    GATuner,
    GridSearchTuner,
    NeighbourTuner,
    RandomTuner,
    Tuner,
    XGBTuner,
)

__all__ = [
    "ApplyConfig",
    "ApplyHistoryBest",
    "ConfigEntity",
    "ConfigSpace",
    "DispatchContext",
    "FallbackConfigEntity",
    "FallbackContext",
    "GATuner",
    "GridSearchTuner",
    "LocalBuilder",
    "LocalRunner",
    "MeasureErrorNo",
    "MeasureInput",
    "MeasureResult",
    "NeighbourTuner",
    "RPCRunner",
    "RandomTuner",
    "RayBuilder",
    "RayRunner",
    "Tuner",
    "XGBTuner",
    "apply_history_best",
    "callback",
    "check_model_records",
    "cost_model",
    "features",
    "get_config",
    "measure",
    "measure_option",
    "model_check",
    "ray_measure",
    "record",
    "space",
    "task",
    "template",
    "templates",
    "tune_model",
    "tuner",
]
