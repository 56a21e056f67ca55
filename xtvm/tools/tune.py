"""xtvm-tune: tune the kernels of a model with AutoTVM and log the measured configs.

    xtvm-tune model.onnx --trials 64 --log records.json [--tuner xgb|ga|random|grid]
              [--ray ADDRESS [--ray-workers N]]
    xtvm-tune model.onnx --minutes 10 --log records.json --distill best.json
    xtvm-compile model.onnx --tuning-records records.json -o model.so

Each tunable kernel relay.build makes of the model (dense and matmul, batch_matmul,
conv2d: `autotvm.task.extract_from_program`) is a task; each gets up to `--trials`
measured configs, built and timed in child processes. Records are appended to `--log` as
they are measured; configs already in it are not measured again (an interrupted run
resumes) and count toward `--trials`. `--distill OUT` writes the best record of each
kernel to OUT at the end. `--ray ADDRESS` builds and times the candidates on a Ray cluster
(`ray.init(address=ADDRESS)`; `local` starts a local instance) with `--ray-workers`
measuring actors (`RayBuilder`, `RayRunner`; `pip install 'xtvm[distributed]'`).

With `--minutes M` the kernels are tuned together from their default schedules
(`autotvm.tune_model`): defaults measured first, trials going to the kernels that hold the
time, `--trials` measurements in all (default: as many as M minutes allow), the tuner
`neighbour` unless `--tuner` names another; `--distill OUT` then gets each kernel's decided
record (its default unless a searched config beat it measured again next to it).

After `--distill OUT` the records are checked inside the model (`autotvm.check_model_records`):
the model is built by default and with OUT's records, every kernel of both builds timed at
one thread in interleaved rounds (`--check-runs` runs), and each record whose kernels are
slower in the tuned model than the same layers' kernels in the default model is dropped from
OUT (a kernel tuned alone can still be slower as the model runs it). `--no-model-check`
leaves OUT as distilled.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from xtvm.tools.cli import run_tool
from xtvm.tools.compile import ToolError, add_model_arguments, load_model

TUNERS = ("xgb", "ga", "random", "grid", "neighbour")


def build_argparser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        allow_abbrev=False, prog="xtvm-tune", description="Tune a model's kernels (AutoTVM)."
    )
    p.add_argument("input", help="an .onnx model or a relay .mlir file with @main")
    p.add_argument("--log", required=True, help="records file (JSON lines), appended to")
    p.add_argument(
        "--trials", type=int, help="configs measured per kernel (32), or in all with --minutes"
    )
    p.add_argument("--tuner", choices=TUNERS, help="search (xgb; neighbour with --minutes)")
    p.add_argument("--minutes", type=float, help="tune the whole model within M minutes")
    p.add_argument("--target", default="llvm", help="target string (default: llvm, the host)")
    p.add_argument("--early-stopping", type=int, help="stop a kernel after N trials no better")
    p.add_argument("--number", type=int, default=4, help="runs per measurement")
    p.add_argument("--repeat", type=int, default=3, help="measurements per config")
    p.add_argument("--timeout", type=float, default=10, help="seconds per build and per run")
    p.add_argument("--seed", type=int, default=0, help="seed of the random choices")
    p.add_argument("--distill", metavar="OUT", help="write the best record per kernel to OUT")
    p.add_argument(
        "--no-model-check",
        dest="model_check",
        action="store_false",
        help="keep every distilled record (default: drop those slower inside the model)",
    )
    p.add_argument("--check-runs", type=int, default=20, help="runs timing the model's kernels")
    p.add_argument("--ray", metavar="ADDRESS", help="measure on a Ray cluster ('local': start one)")
    p.add_argument("--ray-workers", type=int, default=1, help="measuring actors on Ray")
    add_model_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    return p


def make_tuner(name: str, task: object, seed: int) -> object:
    from xtvm import autotvm

    if name == "neighbour":
        return autotvm.NeighbourTuner(task, seed=seed)  # type: ignore[arg-type]
    if name == "xgb":
        return autotvm.XGBTuner(task, plan_size=16, seed=seed)  # type: ignore[arg-type]
    if name == "ga":
        return autotvm.GATuner(task, seed=seed)  # type: ignore[arg-type]
    if name == "random":
        return autotvm.RandomTuner(task, seed=seed)  # type: ignore[arg-type]
    return autotvm.GridSearchTuner(task)  # type: ignore[arg-type]


def measure_option(args: argparse.Namespace) -> dict[str, object]:
    """Local child processes, or a Ray cluster with `--ray`."""
    from xtvm import autotvm

    measure = {"number": args.number, "repeat": args.repeat, "timeout": args.timeout}
    if args.ray is None:
        return autotvm.measure_option(
            builder=autotvm.LocalBuilder(timeout=args.timeout),
            runner=autotvm.LocalRunner(**measure),
        )
    from xtvm.tuning.ray_measure import ray_module

    if args.ray_workers < 1:
        raise ToolError("--ray-workers must be at least 1")
    try:
        ray_module(None if args.ray == "local" else args.ray)
    except ImportError as exc:
        raise ToolError(str(exc)) from None
    except Exception as exc:  # no cluster at the address, or it refused us
        raise ToolError(f"cannot join the Ray cluster at '{args.ray}': {exc}") from None
    return autotvm.measure_option(
        builder=autotvm.RayBuilder(timeout=args.timeout),
        runner=autotvm.RayRunner(**measure, num_workers=args.ray_workers),
    )


def run(args: argparse.Namespace) -> int:
    from xtvm import autotvm

    if args.trials is not None and args.trials < 1:
        raise ToolError("--trials must be at least 1")
    if args.check_runs < 1:
        raise ToolError("--check-runs must be at least 1")
    if args.minutes is not None and not args.minutes > 0:
        raise ToolError("--minutes must be positive")
    log = Path(args.log)
    if not log.resolve().parent.is_dir():
        raise ToolError(f"cannot write '{log}': no such directory")
    module, params = load_model(args)
    tasks = autotvm.task.extract_from_program(module, params=params, target=args.target)
    history = list(autotvm.record.load_from_file(log, args.target)) if log.is_file() else []
    print(f"{len(tasks)} tunable kernels, {len(history)} records in '{log}'")
    option = measure_option(args)
    if args.minutes is not None:
        tune_whole_model(args, tasks, option, log)
        return check_in_model(args, module, params)
    args.tuner = args.tuner or "xgb"
    args.trials = args.trials or 32
    for k, task in enumerate(tasks):
        tuner = make_tuner(args.tuner, task, args.seed)
        resumed = tuner.load_history(history)  # type: ignore[attr-defined]
        trials = min(args.trials, len(task.config_space))
        prefix = f"[{k + 1}/{len(tasks)}] {task.name} "
        callbacks = [autotvm.callback.log_to_file(log)]
        if not args.quiet:
            callbacks.append(autotvm.callback.progress_bar(trials, prefix))
        tuner.tune(  # type: ignore[attr-defined]
            n_trial=trials,
            measure_option=option,
            early_stopping=args.early_stopping,
            callbacks=callbacks,
        )
        best = tuner.best_flops / 1e9  # type: ignore[attr-defined]
        print(
            f"{prefix}{task.args}: best {best:.2f} GFLOPS after {tuner.trial} trials"  # type: ignore[attr-defined]
            f" ({resumed} resumed)"
        )
    if args.distill:
        count = autotvm.record.distill(log, args.distill)
        print(f"wrote the best of {count} kernels to '{args.distill}'")
    return check_in_model(args, module, params)


def check_in_model(args: argparse.Namespace, module: object, params: dict[str, object]) -> int:
    """Drop the distilled records whose kernels are slower inside the model (random inputs)."""
    if not args.distill or not args.model_check:
        return 0
    from xtvm.tuning.model_check import ModelCheckError, check_model_records

    try:
        check = check_model_records(
            module, params, args.distill, target=args.target, out=args.distill, runs=args.check_runs
        )
    except ModelCheckError as exc:
        raise ToolError(f"model check: {exc}") from None
    print(check.table())
    print(
        f"model check: kept {len(check.kept)} of {len(check.kept) + len(check.dropped)} "
        f"records in '{args.distill}'"
    )
    return 0


def tune_whole_model(
    args: argparse.Namespace, tasks: Sequence[object], option: dict[str, object], log: Path
) -> None:
    """`--minutes`: every kernel from its default, together (`autotvm.tune_model`)."""
    from xtvm import autotvm
    from xtvm.tuning.model_tuner import TUNERS as MODEL_TUNERS

    tuner = args.tuner or "neighbour"
    if tuner not in MODEL_TUNERS:
        raise ToolError(f"--minutes tunes with {', '.join(MODEL_TUNERS)}, not {tuner}")
    results = autotvm.tune_model(
        tasks,  # type: ignore[arg-type]
        option,
        n_trial=args.trials or 1_000_000,
        time_budget_s=60 * args.minutes,
        log=log,
        best_log=args.distill,
        tuner=tuner,
        seed=args.seed,
        verbose=not args.quiet,
    )
    for r in results:
        speedup = r.default_cost / r.chosen_cost if r.chosen is not None else float("nan")
        print(
            f"{r.task.name} {r.task.args}: {len(r.history)} measured, default "
            f"{r.default_cost * 1e3:.3f} ms, chosen {r.chosen_cost * 1e3:.3f} ms ({speedup:.2f}x)"
        )
    if args.distill:
        print(f"wrote the chosen config of {len(results)} kernels to '{args.distill}'")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_argparser().parse_args(argv)
    from xtvm.tuning.record import RecordError  # a --log line that is not a record

    return run_tool("xtvm-tune", run, args, (ToolError, RecordError))


if __name__ == "__main__":
    sys.exit(main())
