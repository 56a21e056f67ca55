"""A GEMM and a 3x3 convolution on the VTA-like accelerator of vta.mlir, run on its simulator.

    python examples/accelerators/vta/run_gemm.py [--size 256]

The target is data: `xtvm.target.load("vta.mlir")` makes its scratchpads storage scopes and its
8x8x8 GEMM a tensor intrinsic. The schedule is VTA's: output blocks of TM x TN accumulate in the
`acc` scratchpad over chunks of TK of the reduction, whose input and weight tiles are loaded
into `inp` and `wgt`; inside, 8x8x8 blocks are tensorized with the GEMM intrinsic (reset on the
first chunk, update after). The accel backend turns the cache copies into DMA calls; the
simulator (vta_sim.c, compiled here with the system C compiler) counts their bytes, which this
script compares with the schedule's analytic count. The 3x3 convolution runs twice: as an
im2col GEMM, and tensorized directly (VTA's way: the intrinsic's input tile a strided window of
the input rows); an element-wise add runs on the ALU intrinsic over accumulator tiles.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parents[2]) not in sys.path:  # run from a checkout without installing xtvm
    sys.path.insert(0, str(HERE.parents[2]))

import xtvm  # noqa: E402
import xtvm.target  # noqa: E402
from xtvm import te  # noqa: E402
from xtvm.backends.accel import build_accel, load_simulator  # noqa: E402
from xtvm.runtime.module import Module  # noqa: E402

BLOCK = 8  # the GEMM intrinsic's tile
COUNTERS = (
    "load_bytes",
    "store_bytes",
    "inp_load_bytes",
    "wgt_load_bytes",
    "acc_load_bytes",
    "acc_store_bytes",
    "dma_calls",
    "gemm_calls",
    "gemm_reset_calls",
    "alu_calls",
    "macs",
)


class Counters(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in COUNTERS]


def simulator() -> ctypes.CDLL:
    """The simulator library (compiled once per process); kernels link against it."""
    return load_simulator([HERE / "vta_sim.c"])


def read_counters(sim: ctypes.CDLL) -> dict[str, int]:
    out = Counters()
    sim.vta_sim_read_counters(ctypes.byref(out))
    return {name: int(getattr(out, name)) for name in COUNTERS}


@dataclass(frozen=True)
class Gemm:
    """`C[i, j] = sum_k A[i, k] * B[j, k]` (int8 x int8 -> int32) and its tiling."""

    m: int
    n: int
    k: int
    tm: int = 64
    tn: int = 64
    tk: int = 64

    def check(self) -> None:
        for size, tile in ((self.m, self.tm), (self.n, self.tn), (self.k, self.tk)):
            if size % tile or tile % BLOCK:
                raise ValueError(f"tile {tile} must divide {size} and be a multiple of {BLOCK}")

    def analytic(self, tensorized: bool = True) -> dict[str, int]:
        """What the schedule moves and computes, counted from its loops (no intrinsic calls
        when the 8x8x8 blocks stay C loops)."""
        blocks = (self.m // self.tm) * (self.n // self.tn)
        chunks = blocks * (self.k // self.tk)
        return {
            "inp_load_bytes": chunks * self.tm * self.tk,
            "wgt_load_bytes": chunks * self.tn * self.tk,
            "acc_store_bytes": self.m * self.n * 4,
            "load_bytes": chunks * (self.tm + self.tn) * self.tk,
            "store_bytes": self.m * self.n * 4,
            "gemm_calls": (self.m // BLOCK) * (self.n // BLOCK) * (self.k // BLOCK) * tensorized,
            "gemm_reset_calls": (self.m // BLOCK) * (self.n // BLOCK) * tensorized,
        }


def schedule_gemm(g: Gemm, tensorize: bool = True) -> tuple[te.Schedule, list[te.Tensor]]:
    g.check()
    A = te.placeholder((g.m, g.k), "int8", name="A")
    B = te.placeholder((g.n, g.k), "int8", name="B")
    k = te.reduce_axis((0, g.k), name="k")
    C = te.compute(
        (g.m, g.n),
        lambda i, j: te.sum(A[i, k].astype("int32") * B[j, k].astype("int32"), axis=k),
        name="C",
    )
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "acc")
    AA = s.cache_read(A, "inp", [CL])
    BB = s.cache_read(B, "wgt", [CL])
    i, j = s[C].op.axis
    _, jo, _, _ = s[C].tile(i, j, g.tm, g.tn)
    s[CL].compute_at(s[C], jo)
    ic, jc = s[CL].op.axis
    (kc,) = s[CL].op.reduce_axis
    ko, ki = s[CL].split(kc, factor=g.tk)
    ico, ici = s[CL].split(ic, factor=BLOCK)
    jco, jci = s[CL].split(jc, factor=BLOCK)
    kio, kii = s[CL].split(ki, factor=BLOCK)
    s[CL].reorder(ko, ico, jco, kio, ici, jci, kii)
    s[AA].compute_at(s[CL], ko)
    s[BB].compute_at(s[CL], ko)
    if tensorize:
        s[CL].tensorize(ici, "vta_gemm_8x8x8")
    return s, [A, B, C]


def load_target() -> xtvm.target.AccelTarget:
    return xtvm.target.load(HERE / "vta.mlir")


def build_gemm(g: Gemm, tensorize: bool, name: str = "gemm") -> tuple[Module, ctypes.CDLL]:
    target = load_target()
    sim = simulator()
    s, args = schedule_gemm(g, tensorize)
    module = xtvm.lower(s, args, name=name)
    return build_accel(module.xdsl, target, sim), sim


def run_gemm(g: Gemm, tensorize: bool = True, seed: int = 0) -> dict[str, object]:
    """Build, run and check a GEMM; the simulator's counters and the analytic ones.

    Without tensorize, the 8x8x8 blocks are loops of C on the scratchpads (same DMA traffic).
    """
    kernel, sim = build_gemm(g, tensorize)
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (g.m, g.k), dtype=np.int8)
    b = rng.integers(-128, 128, (g.n, g.k), dtype=np.int8)
    c = np.zeros((g.m, g.n), dtype=np.int32)
    sim.vta_sim_reset_counters()
    kernel(a, b, c)
    counted = read_counters(sim)
    expected = a.astype(np.int32) @ b.astype(np.int32).T
    return {
        "correct": bool(np.array_equal(c, expected)),
        "counted": counted,
        "analytic": g.analytic(tensorize),
        "source": kernel.get_source(),
    }


def im2col(data: np.ndarray, kernel: int) -> np.ndarray:
    """NHWC input (batch 1, 'same' padding) -> rows of kernel x kernel x C patches."""
    _, h, w, c = data.shape
    pad = kernel // 2
    padded = np.pad(data[0], ((pad, pad), (pad, pad), (0, 0)))
    patches = np.empty((h * w, kernel * kernel * c), dtype=data.dtype)
    for y in range(h):
        for x in range(w):
            patches[y * w + x] = padded[y : y + kernel, x : x + kernel, :].reshape(-1)
    return patches


def run_conv2d(
    size: int = 16, channels: int = 16, filters: int = 16, seed: int = 0
) -> dict[str, object]:
    """A 3x3 'same' convolution (NHWC, OHWI weights) as an im2col GEMM on the accelerator."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-8, 8, (1, size, size, channels), dtype=np.int8)
    weight = rng.integers(-8, 8, (filters, 3, 3, channels), dtype=np.int8)
    patches = im2col(data, 3)
    g = Gemm(size * size, filters, 9 * channels, tm=64, tn=min(64, filters), tk=9 * channels)
    kernel, sim = build_gemm(g, True, name="conv2d_gemm")
    out = np.zeros((g.m, g.n), dtype=np.int32)
    sim.vta_sim_reset_counters()
    kernel(np.ascontiguousarray(patches), np.ascontiguousarray(weight.reshape(filters, -1)), out)
    counted = read_counters(sim)
    reference = np.zeros((size, size, filters), dtype=np.int32)
    padded = np.pad(data[0].astype(np.int32), ((1, 1), (1, 1), (0, 0)))
    for dy in range(3):
        for dx in range(3):
            window = padded[dy : dy + size, dx : dx + size, :]
            reference += window @ weight[:, dy, dx, :].astype(np.int32).T
    return {
        "correct": bool(np.array_equal(out.reshape(size, size, filters), reference)),
        "counted": counted,
        "analytic": g.analytic(),
    }


def run_conv2d_direct(
    size: int = 16, channels: int = 16, filters: int = 16, rows: int = 4, seed: int = 0
) -> dict[str, object]:
    """The same 3x3 convolution tensorized directly, as VTA does: for each (kh, kw) and block
    of 8 input channels, 8 output columns x 8 filters are one GEMM intrinsic whose input tile
    is a strided window of the input rows in `inp`.

    Layouts: padded input HWC (padded on the host), weights HWOI (so a weight tile's unit
    dimensions lead), output HWC. A block of `rows` output rows x all filters accumulates in
    `acc`; per block of 8 input channels, its rows + 2 padded input rows and the 3x3 weights
    are loaded once.
    """
    target, sim = load_target(), simulator()
    D = te.placeholder((size + 2, size + 2, channels), "int8", name="D")
    Wt = te.placeholder((3, 3, filters, channels), "int8", name="Wt")
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    ic = te.reduce_axis((0, channels), name="ic")
    Out = te.compute(
        (size, size, filters),
        lambda h, w, oc: te.sum(
            D[h + kh, w + kw, ic].astype("int32") * Wt[kh, kw, oc, ic].astype("int32"),
            axis=[kh, kw, ic],
        ),
        name="O",
    )
    s = te.create_schedule(Out.op)
    OL = s.cache_write(Out, "acc")
    DD = s.cache_read(D, "inp", [OL])
    WW = s.cache_read(Wt, "wgt", [OL])
    h, _, oc = s[Out].op.axis
    ho, hi = s[Out].split(h, factor=rows)
    oco, oci = s[Out].split(oc, factor=filters)
    s[Out].reorder(ho, oco, hi, s[Out].op.axis[1], oci)
    s[OL].compute_at(s[Out], oco)
    hc, wc, occ = s[OL].op.axis
    rkh, rkw, ric = s[OL].op.reduce_axis
    wco, wci = s[OL].split(wc, factor=BLOCK)
    occo, occi = s[OL].split(occ, factor=BLOCK)
    ico, ici = s[OL].split(ric, factor=BLOCK)
    s[OL].reorder(ico, rkh, rkw, hc, wco, occo, wci, occi, ici)
    s[DD].compute_at(s[OL], ico)
    s[WW].compute_at(s[OL], ico)
    s[OL].tensorize(wci, "vta_gemm_8x8x8")
    kernel = build_accel(xtvm.lower(s, [D, Wt, Out], name="conv2d").xdsl, target, sim)
    rng = np.random.default_rng(seed)
    data = rng.integers(-8, 8, (size, size, channels), dtype=np.int8)
    weight = rng.integers(-8, 8, (filters, 3, 3, channels), dtype=np.int8)
    padded = np.pad(data, ((1, 1), (1, 1), (0, 0)))
    out = np.zeros((size, size, filters), dtype=np.int32)
    sim.vta_sim_reset_counters()
    kernel(padded, np.ascontiguousarray(weight.transpose(1, 2, 0, 3)), out)
    counted = read_counters(sim)
    reference = np.zeros((size, size, filters), dtype=np.int32)
    wide = padded.astype(np.int32)
    for dy in range(3):
        for dx in range(3):
            window = wide[dy : dy + size, dx : dx + size, :]
            reference += window @ weight[:, dy, dx, :].astype(np.int32).T
    chunks = (size // rows) * (channels // BLOCK)
    blocks = size * (size // BLOCK) * (filters // BLOCK)
    return {
        "correct": bool(np.array_equal(out, reference)),
        "counted": counted,
        "analytic": {
            "inp_load_bytes": chunks * (rows + 2) * (size + 2) * BLOCK,
            "wgt_load_bytes": chunks * 9 * filters * BLOCK,
            "acc_store_bytes": size * size * filters * 4,
            "gemm_calls": blocks * 9 * (channels // BLOCK),
            "gemm_reset_calls": blocks,
        },
    }


def run_add(m: int = 16, n: int = 64, tile_n: int = 32, seed: int = 0) -> dict[str, object]:
    """`D = X + Y` on int32 in the accumulator: both operands loaded into `acc` by its DMA,
    added by the ALU intrinsic one 1x8 vector at a time, stored back."""
    target, sim = load_target(), simulator()
    X = te.placeholder((m, n), "int32", name="X")
    Y = te.placeholder((m, n), "int32", name="Y")
    D = te.compute((m, n), lambda i, j: X[i, j] + Y[i, j], name="D")
    s = te.create_schedule(D.op)
    DL = s.cache_write(D, "acc")
    XX = s.cache_read(X, "acc", [DL])
    YY = s.cache_read(Y, "acc", [DL])
    _, jo, _, _ = s[D].tile(*s[D].op.axis, 1, tile_n)
    s[DL].compute_at(s[D], jo)
    ic, jc = s[DL].op.axis
    jco, jci = s[DL].split(jc, factor=BLOCK)
    s[DL].reorder(jco, ic, jci)
    s[XX].compute_at(s[DL], jco)
    s[YY].compute_at(s[DL], jco)
    s[DL].tensorize(ic, "vta_alu_add_1x8")
    kernel = build_accel(xtvm.lower(s, [X, Y, D], name="add").xdsl, target, sim)
    rng = np.random.default_rng(seed)
    x = rng.integers(-1000, 1000, (m, n), dtype=np.int32)
    y = rng.integers(-1000, 1000, (m, n), dtype=np.int32)
    d = np.zeros((m, n), dtype=np.int32)
    sim.vta_sim_reset_counters()
    kernel(x, y, d)
    return {
        "correct": bool(np.array_equal(d, x + y)),
        "counted": read_counters(sim),
        "analytic": {
            "acc_load_bytes": 2 * m * n * 4,
            "acc_store_bytes": m * n * 4,
            "alu_calls": m * n // BLOCK,
        },
    }


def report(title: str, result: dict[str, object]) -> None:
    counted, analytic = result["counted"], result["analytic"]
    assert isinstance(counted, dict) and isinstance(analytic, dict)
    print(f"{title}: {'correct' if result['correct'] else 'WRONG'} (checked against numpy)")
    print(f"  {'counter':18} {'simulator':>12} {'schedule':>12} {'ratio':>7}")
    for name, expected in analytic.items():
        got = counted[name]
        ratio = got / expected if expected else float("nan")
        print(f"  {name:18} {got:12d} {expected:12d} {ratio:7.3f}")
    print(f"  dma_calls {counted['dma_calls']}, MACs {counted['macs']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=256, help="M = N = K of the GEMM")
    parser.add_argument("--tile", type=int, default=64, help="TM = TN = TK")
    parser.add_argument("--show-source", action="store_true", help="print the generated C")
    args = parser.parse_args(argv)
    g = Gemm(args.size, args.size, args.size, args.tile, args.tile, args.tile)
    gemm = run_gemm(g)
    if args.show_source:
        print(gemm["source"])
    report(f"gemm {g.m}x{g.n}x{g.k}, tiles {g.tm}x{g.tn}x{g.tk}", gemm)
    conv = run_conv2d()
    report("conv2d 3x3, 16x16x16 -> 16 (im2col gemm)", conv)
    direct = run_conv2d_direct()
    report("conv2d 3x3, 16x16x16 -> 16 (direct, tensorized)", direct)
    add = run_add()
    report("add 16x64 int32 on the ALU", add)
    results = (gemm, conv, direct, add)
    return 0 if all(r["correct"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
