"""TVM's auto-scheduler (Ansor): `from xtvm import auto_scheduler` (also `tvm.auto_scheduler`).

Template-free: a workload registered with `@auto_scheduler.register_workload` returns te
tensors; `SearchTask(func=, args=, target=)` derives sketches from its compute by rules
(`sketch`), fills and evolves them under a cost model (`search_policy`, `cost_model`), and
measures candidates with AutoTVM's builder and runner, each a replayable list of steps
(`loop_state`) logged as JSON lines (`measure_record`). `TaskScheduler` shares trials among
tasks. `extract_tasks(mod, params, target)` makes tasks of a relay model's kernels, and inside
`ApplyHistoryBest(log)` relay.build schedules them by their best records (`relay_integration`).
"""

from xtvm.tuning.auto_scheduler import (
    compute_dag,
    cost_model,
    loop_state,
    measure_record,
    relay_integration,
    search_policy,
    search_task,
    sketch,
    task_scheduler,
    workload_registry,
)
from xtvm.tuning.auto_scheduler.compute_dag import ComputeDAG
from xtvm.tuning.auto_scheduler.cost_model import RandomModel, XGBModel
from xtvm.tuning.auto_scheduler.loop_state import State
from xtvm.tuning.auto_scheduler.measure_record import (
    MeasureInput,
    RecordReader,
    RecordToFile,
    load_best_record,
    load_records,
    save_records,
)
from xtvm.tuning.auto_scheduler.relay_integration import extract_tasks
from xtvm.tuning.auto_scheduler.search_policy import LocalRunner, SketchPolicy
from xtvm.tuning.auto_scheduler.search_task import ApplyHistoryBest, SearchTask, TuningOptions
from xtvm.tuning.auto_scheduler.task_scheduler import TaskScheduler
from xtvm.tuning.auto_scheduler.workload_registry import (
    make_workload_key,
    register_workload,
    register_workload_tensors,
)
from xtvm.tuning.measure import LocalBuilder, MeasureResult
from xtvm.tuning.ray_measure import RayBuilder, RayRunner

__all__ = [
    "ApplyHistoryBest",
    "ComputeDAG",
    "LocalBuilder",
    "LocalRunner",
    "MeasureInput",
    "MeasureResult",
    "RandomModel",
    "RayBuilder",
    "RayRunner",
    "RecordReader",
    "RecordToFile",
    "SearchTask",
    "SketchPolicy",
    "State",
    "TaskScheduler",
    "TuningOptions",
    "XGBModel",
    "compute_dag",
    "cost_model",
    "extract_tasks",
    "load_best_record",
    "load_records",
    "loop_state",
    "make_workload_key",
    "measure_record",
    "register_workload",
    "register_workload_tensors",
    "relay_integration",
    "save_records",
    "search_policy",
    "search_task",
    "sketch",
    "task_scheduler",
    "workload_registry",
]
