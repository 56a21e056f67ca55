// Every flag of the tools is described in --help, and no tool takes an abbreviated flag.

// RUN: xtvm-opt --help | filecheck %s --check-prefix=OPT
// OPT-LABEL: options:
// OPT:      --pass-pipeline PIPELINE
// OPT-NEXT:   MLIR's textual pipeline, anchored on the module
// OPT:      --print-ir-after-all  dump the IR after every pass to stderr
// OPT:      --split-input-file    process each piece between
// OPT:      --verify-diagnostics  check the diagnostics against the input's
// OPT:      --list-passes         list every pass
// OPT:      --load-plugin FILE.py
// OPT-NEXT:   run the xtvm_plugin(registry) hook of FILE.py
// OPT:      --allow-unregistered-dialect
// OPT-NEXT:   accept ops of dialects xtvm does not know
// The per-pass flags carry the pass's summary, and say when it has options.
// OPT:      passes:
// OPT:      --cse [OPTIONS]       Eliminate common subexpressions
// OPT:      --relay-fold-constant [OPTIONS]
// OPT-NEXT:   Evaluate
// OPT-NEXT:   (options as 'key=value ...')

// RUN: %python -m xtvm.tools.run --help | filecheck %s --check-prefix=RUNTOOL
// RUNTOOL:  --input NAME=FILE     the value of model input NAME from a .npy file
// RUNTOOL:  --benchmark N         time N runs after the warm-up
// RUNTOOL:  --warmup N

// RUN: not xtvm-opt %s --list-pass 2>&1 | filecheck %s --check-prefix=ABBREV
// RUN: not %python -m xtvm.tools.run lib.so --bench 3 2>&1 | filecheck %s --check-prefix=ABBREV
// RUN: not %python -m xtvm.tools.compile in.onnx --targ llvm 2>&1 | filecheck %s --check-prefix=ABBREV
// ABBREV: error: unrecognized arguments: --{{[a-z]+}}
