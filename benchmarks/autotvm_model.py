"""A whole model tuned with AutoTVM templates from its default schedules (`autotvm.tune_model`),
against its default build (batch 1, random weights, 1 thread); never asserted.

The model's tunable kernels become tasks (`autotvm.task.extract_from_program`, weighted by
their calls); every task's default config (today's topi schedule) is measured first, then
rounds of trials go to the kernels holding the most time, each searched outward from its
default (`NeighbourTuner`, or `--tuner xgb/ga/random`), and the winners are measured again
next to their defaults. Unless `--no-model-check`, the chosen records are then checked inside
the model (`autotvm.check_model_records`: every kernel of the default and the tuned build timed
at one thread, interleaved; a record whose kernels are slower in the tuned model is dropped).
The model is built again inside `apply_history_best` of the records kept.
Printed: a per-task table (calls, trials, default and chosen kernel ms), the seconds a trial
took, the median latency of the default and tuned builds timed interleaved in one run, the
largest difference of the outputs, and whether a rebuild lowers to the same kernels.

    python benchmarks/autotvm_model.py resnet-18 --minutes 12
    python benchmarks/autotvm_model.py squeezenet --minutes 10

Earlier, with spaces of 28-126 configs around each default (12 minutes, load 8 to 2):
every best config was within 14 % of its default; default 13.25 ms, tuned 13.37 ms.

With the deeper knobs (TVM's oh_factor / ic_bn / unroll_kw for conv2d, winograd row tiles up
to 16 and channel blocks outside; 280-4032 configs a task), `--minutes 25` for resnet-18 and
mobilenet run side by side (load 9-14 on the 2 cores), then each verified and timed alone
with `--minutes 0 --repeat 40`:

- resnet-18: 365 measurements (3.7 s each). Winograd 56x56 1.24x (0.425 -> 0.342 ms, 4
  calls; 7-row tiles), winograd 14x14 1.25x (0.453 -> 0.364 ms, 3 calls; 8-row tiles), the
  7x7x512 conv2d 1.08x (3 calls); kernel time 10.18 -> 9.30 ms (1.095x). Whole model,
  interleaved: median 51.6 -> 48.3 ms (1.07x), fastest run 31.3 -> 27.2 ms (1.15x), at load
  8-10 (the kernels sum to 10 ms: medians and fastest runs mostly measure the load). Verified
  and timed again from the same log at load 1-5 (`--repeat 60`): the paired re-measurement
  kept only winograd 14x14 (1.25x) and the 7x7x512 conv2d (1.01x), as the other defaults now
  timed faster (winograd 56x56 0.393 ms); kernel time saved 0.29 ms; whole model median
  13.79 -> 14.16 ms (0.97x), fastest run 12.77 -> 12.38 ms (1.03x). A rebuild from the
  records lowers to the same kernels and gives identical outputs.
- Why not 1.2x: at 1 thread the direct conv2d kernels already run at 88-93 % of one core's
  FMA peak (276 GFLOP/s; the 7x7x512 layer 73 %). Were every direct conv2d at 100 % of the
  peak and the winograd ones as tuned, the kernels would take 8.38 ms: 1.21x, before the
  model's other operators: tuning schedules alone cannot give this model 1.2x; a different
  algorithm per layer could (the 7x7x512 layer, 3 calls and 34 % of the time, is direct).
- mobilenet (relay.testing): 652 measurements; depthwise 56x56x128 1.20x, the rest
  1.00-1.08x; the pointwise conv2d kernels (most of the time) run at about 89 % of the peak.
  Kernel time saved 0.05 ms of about 5 ms; the whole-model timings were noise at that load
  (fastest runs 7.7 against 12.8 ms for near-identical builds).
- squeezenet (onnx light model, odd 55/27/13 shapes), `--minutes 15` alone at load 7-14:
  330 measurements; winograd 13x13 1.40x and 1.37x, a 1x1 conv2d 1.24x; kernel time saved
  0.15 ms (2 calls each); its last conv2d (1000 classes, 30 % of the time) runs at 96 % of
  the peak. Whole model, fastest interleaved run 2.91 -> 2.74 ms (1.06x), medians 7.04 ->
  7.00 ms; identical outputs from a rebuild.

With an implementation chosen per layer (a 3x3 stride-1 conv2d that could be direct or
winograd has a task of each; `choose_implementations` re-checks the other one against the
layer's default one in interleaved pairs, and the build takes the faster by the records),
thread-clock measurements and every best re-checked against its default:

- resnet-18, `--minutes 25` (load 9-10 on the 2 cores, other work running): 17 tasks, 549
  measurements in 1619 s (2.0 s each). The 7x7x512 conv2d's schedule 1.52x (1.364 -> 0.896
  ms, 3 calls; 7-column by 2-row tiles, rows outside), winograd 14x14 1.14x, 28x28 1.12x,
  56x56 1.09x, the 14x14x256 conv2d 1.20x; kernel time saved 1.92 ms by the records. No
  other implementation won its re-check: winograd on 7x7x512 (4 tiles) 1.010 ms against the
  tuned direct 0.896 ms; direct on the winograd layers 0.84-0.89 ms against 0.32-0.42 ms.
  320 of the 549 trials went to those (hence `ALTERNATIVE_HOPE` since). Whole model,
  interleaved, thread clock: median 13.54 -> 14.12 ms (0.96x), fastest 12.92 -> 13.41 ms;
  wall clock medians 48.9 -> 52.9 ms (the load). A rebuild lowers alike, identical outputs.
  The kernels' isolated gains do not show in the model: a build with the 7x7x512 record
  alone is 1.1-1.4 ms slower than the default build (thread-clock medians 14.35 -> 15.39
  ms), though that kernel timed alone was 0.3 ms a call faster. Timed alone, a kernel ran
  on inputs and weights its previous run left in cache; in the model its 9 MB of weights
  come from memory. Hence `cache_flush` (on by default here since).
- Same records, `--minutes 0` (every decision re-checked again, no new trials), unflushed:
  the 7x7x512 schedule kept (1.34x alone), winograd 56x56/14x14 back to their defaults;
  whole model 13.20 -> 13.95 ms (0.95x). Flushed: the 7x7x512 schedule only 1.00x (1.196
  -> 1.192 ms), and winograd for the 7x7x512 layers *won* its re-check against the direct
  one (1.144 against 1.192 ms, so the build uses it); whole model, thread clock, median
  15.14 -> 15.45 ms (0.98x), fastest run 14.40 -> 14.39 ms (1.00x); wall 0.95x at load 10.
  Outputs within 2.3e-10 of the default build's (winograd rounds differently).
- squeezenet, `--minutes 12` (not flushed; load 10 -> 4): 22 tasks, 254 measurements in
  797 s. The four direct alternatives of its winograd layers were 1.3-2.8x slower at their
  defaults and got one trial each (`ALTERNATIVE_HOPE`); winograd 13x13x48 1.22x, the 1000-
  class conv2d 1.10x; kernel time saved 0.15 ms. Whole model, thread clock, median 3.455 ->
  3.400 ms (1.02x), fastest 3.207 -> 3.093 ms (1.04x); wall 0.99x. Identical outputs.
- The goal, 1.2x in 30 minutes, is not met by either model.

MODEL may be an .onnx file (its inputs from the .npz beside it, as `export_models.py` writes
them); `--kernels N` also times every kernel inside both built models (thread clock, median of
N runs), which is where an isolated gain shows or not. Candidates were chosen by
`kernel_headroom.py` (time each model would save were every kernel at 85 % of its
roofline): BERT-base 1.29x, ShuffleNet 1.53x were the largest that the templates' knobs
address.

- bert.dynamo (BERT-base, seq 128; `/tmp/full/bert.dynamo.onnx --minutes 27`, flushed,
  load 2-7): 7 tasks, 3495 measurements in 1631 s. Isolated (cold caches): FFN down-
  projection 128x3072x768 1.26x (3.648 -> 2.892 ms, packed weight panels), attention
  batch_matmuls 1.23x and 1.28x, up-projection 1.01x, QKV 128x768x2304 1.39x in the search
  but rejected by its re-check (2.862 ms both). Inside the models, thread clock: the
  down-projection 35.89 -> 35.86 ms for its 12 calls (1.00x), the up-projection 32.55 ->
  34.68 ms (0.94x), all kernels 111.16 -> 112.94 ms (0.98x); whole model median 123.4 ->
  131.4 ms (0.94x), fastest run 109.7 -> 112.7 ms (0.97x). In the model the down-projection
  already ran at 78 % of the peak (2.99 ms a call): the 52 % (4.4 ms) `kernel_headroom.py`
  had measured came while other processes loaded the memory bus (its 9.4 MB of weights
  stream from memory each call; the thread clock does not remove that). Timed alone with a
  flushed cache the default lost more than in the model (its input comes warm from the GELU
  before it), so the search chased a gain the model does not have. A rebuild lowers to the
  same kernels, identical outputs.
- shufflenet (onnx light, `--no-flush`: its activations stay in cache between kernels; with
  the `plane` knob, so that the 7x7 group conv2d's default is what the template measures):
  8 + 19 minutes (resumed), 15 tasks, 4496 measurements (0.29 s each). Isolated: the stem
  1.41x, the first group conv2d 1.74x, 272x14x14 group conv2d 1.15x (15 calls; 4 rows of
  14 in the tile), depthwise 1.12-1.40x; the 136x28x28 and 544x7x7 group conv2d (13 calls)
  kept their defaults after 448 and 576 trials; kernel time saved 0.18 ms of 2.3 by the
  isolated timings. Whole model, thread clock, interleaved: median 2.341 -> 3.552 ms
  (0.66x), fastest 2.087 -> 3.254 ms. Inside the model the 272x14x14 kernels ran 2.3-2.6x
  *slower* (0.377 -> 0.962 ms for 8 calls): a tile of 4 rows of 14 is a guarded split, and
  the same config built by relay.build (0.080-0.112 ms) is not the kernel the template
  built and timed (0.043 ms); with rows that divide 14 the two agree within 1.2x, either
  way. Hence `tile_oh` offers divisors of the rows only since. The 272x7x7 record (a plane
  tile of 17 channels) diverges alike: 0.023 ms built by the template (its default 0.026),
  0.036 ms built by relay.build, whose default takes 0.016 ms. With the records the new
  space could have given (that one dropped; default and tuned builds timed 60 runs
  interleaved): median 2.922 -> 2.820 ms (1.04x), fastest 2.181 -> 2.011 ms (1.08x), kernels
  in the model 2.244 -> 2.250 ms (1.00x); without any row-tiled record 1.09x / 0.99x /
  1.06x. Outputs within 8e-3 of 4.8e4 (reduction blocks reorder sums); rebuilds identical.
- The goal (1.2x within 30 minutes) is not met by any model measured: ResNet-18 1.00x,
  SqueezeNet 1.02-1.06x, BERT-base 0.94-0.98x, ShuffleNet 1.00-1.09x. What stands between
  the isolated gains and the model is measurement, not knobs: a candidate is timed as the
  template builds it, alone, with caches either flushed or warm, while relay.build's fused
  kernel in the model differs in code (guarded splits, fused epilogues) and in cache state.
- vgg19 (onnx light), with the winograd transform knobs (`unroll_input`, `unroll_output`,
  `block_r`): `winograd_knobs.py`'s grid (64 measurements, 2 minutes) then `--minutes 14
  --log` resuming from it (476 measurements in all, 2.2 s each), thread clock, caches
  flushed. Winograd layers, the template's default -> chosen ms: 224x224x64 11.95 -> 7.67
  (1.56x), 112x112x64 1.38x, 112x112x128 1.52x, 56x56x128 1.13x, 56x56x256 1.29x (3
  calls), 28x28x256 1.02x, 28x28x512 1.32x (3 calls), 14x14x512 1.21x (4 calls); the
  chosen configs all fold the output transform, six of eight the input one, four compute
  the input transform per block (28 or 196 tiles, with 7-row register tiles); the
  first dense 1.12x. Inside the model the same kernels went 1.10-1.53x; kernels 96.2 ->
  78.6 ms (1.22x). Whole model, interleaved: median 97.30 -> 78.18 ms (1.24x), fastest
  96.10 -> 77.21 ms (1.24x), wall clock 1.20x; a rebuild lowers alike, identical outputs.
  The goal's 1.2x within 30 minutes is met on this model. Configs with the transform knobs
  off were few in this search (3-19 a layer, as it moved on from the grid's best) and the
  best of them 1.00-1.22x (the product's tile: 28x28x512 1.22x, 14x14x512 1.11x).
  (Measured before candidates were built as the model's kernels: see the last paragraph.)

With the in-model check (`autotvm.check_model_records`, on by default since):

- shufflenet (onnx light), `--minutes 10 --kernels 30 --repeat 60`, load 2.4-3.1 on the 2
  cores: 15 tasks, 2183 measurements in 616 s; timed alone, 12 of the 15 decided records
  were 1.15-1.68x faster than their defaults. Inside the model 8 of them were slower (check
  1): the stem conv2d 1.46x alone, 0.48x in the model (0.162 -> 0.336 ms); the 136x28x28 group
  conv2d 1.65x alone, 0.69x in the model (7 calls, 0.353 -> 0.512 ms); three depthwise
  0.78-0.92x, the dense 0.91x. All kernels in check 1: 2.408 -> 2.706 ms (0.89x); check 2,
  without those 8: 2.289 -> 2.167 ms (1.06x), nothing more dropped; the check took 15 s.
  Whole model, thread clock, 60 runs interleaved: median 2.223 -> 2.089 ms (1.06x), fastest
  2.024 -> 1.898 ms (1.07x); identical outputs, a rebuild lowers alike. The same records
  without the check and with it, timed side by side afterwards (another check: the same 8
  dropped): default 2.398 ms, tuned as tuned 2.624 ms (0.91x), tuned and checked 2.253 ms
  (1.06x) by medians; fastest runs 2.065 / 2.215 (0.93x) / 1.867 ms (1.11x). Once more
  (the builds' order reversed every round since): 7 dropped (a 1-call depthwise at 1.02x now
  kept), as tuned 0.94x / 0.89x, checked 1.09x / 1.02x (median / fastest).
- An 8-minute shufflenet tuning (1030 measurements) alike: as tuned 0.97x / 0.99x (median /
  fastest), checked 1.07x / 1.09x; 6 + 1 + 1 records dropped in three checks, the last check
  still dropping one (noise-level 0.97-0.99x rows of single calls: `settled` False).
- The goal (1.2x within 30 minutes) is still not met; the check makes a tuning no slower than
  the default build, where it was 0.66-0.91x.

With candidates built as the model's own fused kernels (`Task.kernel`: relay.build's code of
the kernel, epilogue included; with `cache_flush`, the inputs the kernels before it wrote
read back into cache) and the in-model check, one command each on a quiet machine:

- vgg19, `--minutes 28 --kernels 10` from no records: 20 tasks, 1599 measurements in 1740 s
  (0.93 s each), then the model check (45 s: the 25088x4096 dense, 1.01x alone, 0.97x in
  the model, dropped). Winograd layers alone -> in the model: 224x224x64 1.59x -> 1.48x,
  112x112x128 1.53x -> 1.61x, 112x112x64 1.54x -> 1.44x, 56x56x256 1.26x -> 1.20x (3 calls),
  28x28x512 1.23x -> 1.23x (3 calls), 14x14x512 1.25x -> 1.21x (4 calls). Whole model,
  thread clock, interleaved: median 99.19 -> 78.96 ms (1.26x), fastest 94.44 -> 76.93 ms
  (1.23x), wall clock 1.25x, all kernels 97.32 -> 77.53 ms (1.26x); a rebuild lowers alike,
  identical outputs. The goal's 1.2x within 30 minutes is met from scratch.
- shufflenet, `--minutes 15 --no-flush --kernels 20`: 15 tasks, 3432 measurements in 598 s
  (the search ended before the budget); alone and in the model now agree (stem 1.35x ->
  1.33x, 24x56x56 group conv2d 1.65x -> 1.56x, 272x14x14 depthwise 1.38x -> 1.34x, 544x7x7
  depthwise 1.38x -> 1.37x); the check dropped 2 of 15 records (0.98x and 1.00x in the
  model). Whole model: median 1.984 -> 1.944 ms (1.02x), fastest 1.04x, wall clock 1.06x,
  kernels 1.07x. The 1x1 group conv2d layers, 80 % of its time, kept their defaults: tiles
  that do not divide their 34 or 68 channels a group ran 2-18x slower, the divisor ones no
  faster than the default.
"""

from __future__ import annotations

import os

os.environ.setdefault("XTVM_NUM_THREADS", "1")  # before xtvm starts any thread pool

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from models import interleaved_samples, load_model

from xtvm.runtime.profiling import executor_of, interleaved_kernel_seconds


def main() -> None:
    import xtvm as tvm
    from xtvm import autotvm, relay
    from xtvm.api.relay import testing
    from xtvm.contrib import graph_executor
    from xtvm.driver.relay_build import lower_for_build

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "model",
        nargs="?",
        default="resnet-18",
        help="resnet-N, mobilenet, a light model or an .onnx file (inputs: the .npz beside it)",
    )
    parser.add_argument("--minutes", type=float, default=12, help="tuning time budget")
    parser.add_argument("--trials", type=int, default=10000, help="measurements in all")
    parser.add_argument("--per-round", type=int, default=4, help="trials per task round")
    parser.add_argument("--tuner", default="neighbour", help="neighbour, xgb, ga or random")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per build")
    parser.add_argument("--log", type=Path, help="records to keep (and resume from)")
    parser.add_argument(
        "--no-flush",
        dest="flush",
        action="store_false",
        help="time kernels with warm caches (default: evicted before each run, as in a model)",
    )
    parser.add_argument(
        "--clock", default="thread", help="thread (CPU time at 1 thread: load adds nothing) or wall"
    )
    parser.add_argument(
        "--kernels", type=int, default=20, help="runs timing each kernel in the models (0: not)"
    )
    parser.add_argument(
        "--no-model-check",
        dest="model_check",
        action="store_false",
        help="build with every chosen record (default: drop those slower inside the model)",
    )
    options = parser.parse_args()
    log = options.log or Path(tempfile.mkdtemp()) / "records.json"
    best_log = log.with_suffix(".best.json")

    if options.model.startswith("resnet-") or options.model == "mobilenet":
        if options.model == "mobilenet":
            mod, params = testing.mobilenet.get_workload(batch_size=1)
        else:
            layers = int(options.model[7:])
            mod, params = testing.resnet.get_workload(num_layers=layers, batch_size=1)
        x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224))
        inputs = {"data": x.astype("float32")}
    else:
        mod, params, inputs = load_model(options.model)
    tasks = autotvm.task.extract_from_program(mod, params=params, target="llvm")
    start = time.perf_counter()
    results = autotvm.tune_model(
        tasks,
        autotvm.measure_option(
            builder=autotvm.LocalBuilder(timeout=40),  # big kernels build slowly under load
            runner=autotvm.LocalRunner(
                number=2, repeat=3, timeout=20, clock=options.clock, cache_flush=options.flush
            ),
        ),
        n_trial=options.trials,
        time_budget_s=60 * options.minutes,
        log=log,
        best_log=best_log,
        per_round=options.per_round,
        tuner=options.tuner,
    )
    tuning_s = time.perf_counter() - start
    if options.model_check:
        start = time.perf_counter()
        check = autotvm.check_model_records(
            mod, params, best_log, inputs, out=log.with_suffix(".checked.json")
        )
        print(check.table())
        print(
            f"model check: kept {len(check.kept)} of {len(check.kept) + len(check.dropped)} "
            f"records ({time.perf_counter() - start:.0f} s)"
        )
        best_log = log.with_suffix(".checked.json")

    def build() -> graph_executor.GraphModule:
        factory = relay.build(mod, target="llvm", params=params)
        module = graph_executor.GraphModule(factory["default"](tvm.cpu()))
        module.set_input(**inputs)
        return module

    default = build()
    with autotvm.apply_history_best(best_log):
        tuned = build()
        kernels = str(lower_for_build(mod, params, "llvm")[1])
        same = kernels == str(lower_for_build(mod, params, "llvm")[1])
        rebuilt = build()
    clock = time.thread_time if options.clock == "thread" else time.perf_counter
    samples = interleaved_samples([default.run, tuned.run], options.repeat, clock=clock)
    ms = [1e3 * statistics.median(t) for t in samples]
    fastest = [1e3 * min(t) for t in samples]  # the least disturbed run, on a loaded machine
    walls = interleaved_samples([default.run, tuned.run], options.repeat)
    wall_ms = [1e3 * statistics.median(t) for t in walls]
    for module in (default, tuned, rebuilt):
        module.run()
    difference = np.abs(tuned.get_output(0).numpy() - default.get_output(0).numpy()).max()
    identical = np.array_equal(tuned.get_output(0).numpy(), rebuilt.get_output(0).numpy())

    trials = sum(len(r.history) for r in results)
    seconds = [r.all_cost for res in results for _, r in res.history if r.all_cost > 0]
    print(f"{options.model}: {len(tasks)} tasks, {trials} measurements in {tuning_s:.0f} s")
    print(f"seconds a measurement (build and timing): median {statistics.median(seconds):.2f}")
    print("(alt: an implementation of a layer not built by default; used: it won its re-check)")
    header = f"{'task':44} {'calls':>5} {'trials':>6} {'default ms':>10} {'chosen ms':>9} {'x':>5}"
    print(f"{header} impl")
    saved = 0.0
    for r in results:
        ratio = r.default_cost / r.chosen_cost
        if r.task.built_by_default:
            saved += r.task.calls * (r.default_cost - r.chosen_cost)
        name = f"{r.task.name.split('.')[0]} {r.task.args[0]}x{r.task.args[1]}"
        impl = "" if r.task.built_by_default else ("alt, used" if r.used else "alt, not used")
        print(
            f"{name[:44]:44} {r.task.calls:5} {len(r.history):6} {r.default_cost * 1e3:10.3f} "
            f"{r.chosen_cost * 1e3:9.3f} {ratio:5.2f} {impl}"
        )
    print(f"kernel time saved by schedules (default implementations): {saved * 1e3:.2f} ms")
    print(f"a rebuild lowers alike: {same}; its outputs are identical: {identical}")
    print(f"{'build':10} {'median ms':>9} {'vs default':>11} {'fastest ms':>10} {'vs default':>11}")
    for name, value, low in zip(("default", "tuned"), ms, fastest, strict=True):
        ratios = f"{ms[0] / value:10.2f}x {low:10.3f} {fastest[0] / low:10.2f}x"
        print(f"{name:10} {value:9.3f} {ratios}")
    print(f"wall clock, medians: default {wall_ms[0]:.3f} ms, tuned {wall_ms[1]:.3f} ms "
          f"({wall_ms[0] / wall_ms[1]:.2f}x)")  # fmt: skip
    print(f"largest |tuned - default|: {difference:.2e}")
    if options.kernels:
        in_model(default, tuned, options.kernels)


def in_model(default: Any, tuned: Any, runs: int) -> None:
    """Each kernel's thread-clock time inside the default and the tuned model (median of
    `runs` runs, the two models in interleaved rounds, summed over its calls), slowest first:
    what the isolated timings left out."""
    totals: list[dict[str, float]] = [{}, {}]
    calls: list[dict[str, int]] = [{}, {}]
    timed = interleaved_kernel_seconds([default, tuned], runs, pause=0.05)
    for module, per_call, total, count in zip((default, tuned), timed, totals, calls, strict=True):
        for name, seconds in zip(executor_of(module).call_names, per_call, strict=True):
            total[name] = total.get(name, 0.0) + seconds
            count[name] = count.get(name, 0) + 1
    print(f"in the model ({runs} runs, thread clock): kernel, calls, default ms, tuned ms")
    whole = sum(totals[0].values())
    for name in sorted({*totals[0], *totals[1]}, key=lambda n: -max(t.get(n, 0) for t in totals)):
        before, after = totals[0].get(name, 0.0), totals[1].get(name, 0.0)
        if max(before, after) > 0.002 * whole or abs(before - after) > 0.005 * before:
            ratio = f"{before / after:5.2f}x" if before and after else "  new" if after else ""
            print(f"  {name[:56]:56} {max(calls[0].get(name, 0), calls[1].get(name, 0)):5} "
                  f"{before * 1e3:8.3f} {after * 1e3:8.3f} {ratio}")  # fmt: skip
    before, after = sum(totals[0].values()), sum(totals[1].values())
    print(
        f"  {'all kernels':56} {'':5} {before * 1e3:8.3f} {after * 1e3:8.3f} {before / after:5.2f}x"
    )


if __name__ == "__main__":
    main()
