"""LLVM targets: `llvm [-mtriple=T] [-mcpu=C] [-mattr=+a,-b] [-opt-level=N]`, as TVM writes them.

The host's CPU name and features are detected with LLVM (so AVX2, AVX-512 and FMA are used where
the machine has them) and can be overridden piece by piece by the target string. A CPU, feature
or triple LLVM does not know is a `TargetError` with a suggestion: LLVM itself would print a
warning and ignore it, or end the process (`LLVM ERROR: ...`), so names are checked first.
"""

from __future__ import annotations

import difflib
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llb


class TargetError(ValueError):
    """A target string that cannot be understood."""


@cache
def initialize_llvm() -> None:
    """Initialize LLVM's targets once per process (the host's and, for cross compilation,
    every other one this LLVM was built with)."""
    llb.initialize_native_target()
    llb.initialize_native_asmprinter()
    llb.initialize_all_targets()
    llb.initialize_all_asmprinters()


# Run in a child process: LLVM prints its CPU and feature lists for `-mattr=+help` on
# stderr, then the target asked for is tried, since an impossible combination (a 32-bit CPU for a
# 64-bit triple) ends the process inside LLVM.
PROBE = """
import sys
import llvmlite.binding as llb
llb.initialize_native_target()
llb.initialize_native_asmprinter()
llb.initialize_all_targets()
llb.initialize_all_asmprinters()
triple, cpu, features = sys.argv[1:]
target = llb.Target.from_triple(triple)
module = llb.parse_assembly("define void @probe() {\\n  ret void\\n}")
module.triple = triple
target.create_target_machine(cpu="", features="+help").emit_object(module)
sys.stderr.write("\\n%s\\n" % "--- xtvm probe ---")
sys.stderr.flush()
target.create_target_machine(cpu=cpu, features=features).emit_object(module)
"""
PROBE_MARK = "--- xtvm probe ---"


def help_names(text: str, heading: str) -> list[str]:
    """The names listed under LLVM's `heading` (`  name - description` lines)."""
    names: list[str] = []
    lines = text.split("\n")
    if heading not in lines:
        return names
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("Available ") or line.startswith("Use +"):
            break
        name, dash, _ = line.strip().partition(" - ")
        if dash and name:
            names.append(name.strip())
    return names


def did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


@cache
def check_target(triple: str, cpu: str, features: str) -> None:
    """Raise a `TargetError` unless LLVM knows `cpu` and every feature and can use them."""
    try:
        probe = subprocess.run(
            [sys.executable, "-c", PROBE, triple, cpu, features],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TargetError(f"cannot check the LLVM target '{triple}' (-mcpu={cpu}): {exc}") from None
    lists, _, tried = probe.stderr.partition(PROBE_MARK)
    cpus = help_names(lists, "Available CPUs for this target:")
    known_features = help_names(lists, "Available features for this target:")
    if cpus and cpu not in cpus:
        raise TargetError(
            f"unknown CPU '{cpu}' for target '{triple}'{did_you_mean(cpu, cpus)} "
            "(`llc -mcpu=help` lists them)"
        )
    for feature in filter(None, features.split(",")):
        if feature[0] not in "+-":
            raise TargetError(f"CPU feature '{feature}' must start with '+' or '-' (-mattr=+avx2)")
        if known_features and feature[1:] not in known_features:
            signed = [feature[0] + name for name in known_features]
            suggestion = did_you_mean(feature, signed)
            raise TargetError(
                f"unknown CPU feature '{feature}' for target '{triple}'{suggestion} "
                "(`llc -mattr=help` lists them)"
            )
    if probe.returncode != 0 or not cpus:
        errors = [line for line in tried.split("\n") if "ERROR" in line or "rror:" in line]
        reason = errors[-1].split("ERROR:")[-1].strip() if errors else f"exit {probe.returncode}"
        raise TargetError(
            f"LLVM cannot generate code for '{triple}' with -mcpu={cpu} "
            f"-mattr={features or '(none)'}: {reason}"
        )


# What a Linux ABI of another architecture assumes when the target string does not say:
# (features, ABI name). Without them riscv64 code is soft-float and armv7 passes floats in core
# registers, and neither links with the distributions' hard-float libraries.
CROSS_DEFAULTS = {
    "riscv64": ("+m,+a,+f,+d,+c", "lp64d"),
    "armv7l": ("+armv7-a,+vfp3,+d32,+neon", ""),
    "armv7": ("+armv7-a,+vfp3,+d32,+neon", ""),
}


@dataclass(frozen=True)
class LLVMTarget:
    """What to generate code for: triple, CPU, features, optimization level and, where the
    architecture has several, the ABI (`lp64d` for riscv64)."""

    triple: str
    cpu: str
    features: str
    opt_level: int = 3
    abi: str = ""

    @staticmethod
    def host() -> LLVMTarget:
        initialize_llvm()
        return LLVMTarget(
            llb.get_process_triple(), llb.get_host_cpu_name(), llb.get_host_cpu_features().flatten()
        )

    @staticmethod
    def parse(text: str | LLVMTarget | None) -> LLVMTarget:
        """The target a TVM-style string names; `None` or `"llvm"` is the host."""
        if isinstance(text, LLVMTarget):
            return text
        host = LLVMTarget.host()
        if text is None:
            return host
        words = shlex.split(str(text))
        if not words or words[0] not in ("llvm", "cpu", "c"):
            raise TargetError(f"unknown target '{text}': expected 'llvm [-mcpu=...] [-mattr=...]'")
        triple, cpu, features, opt_level = host.triple, host.cpu, host.features, 3
        options: set[str] = set()
        extra_features: set[str] = set()
        for word in words[1:]:
            key, _, value = word.partition("=")
            options.add(key)
            if not value:
                raise TargetError(f"target option '{word}' needs a value (e.g. -mcpu=znver4)")
            if key == "-mtriple":
                triple = value
            elif key == "-mcpu":
                cpu = value
                features = "" if value != host.cpu else features
            elif key == "-mattr":
                extra = ",".join(f for f in value.split(",") if f)
                extra_features.update(extra.split(","))
                features = f"{features},{extra}" if features else extra
            elif key == "-opt-level":
                if value not in ("0", "1", "2", "3"):
                    raise TargetError(f"-opt-level must be 0 to 3, got '{value}'")
                opt_level = int(value)
            elif key in ("-keys", "-device", "-model", "-num-cores"):
                continue  # accepted for TVM compatibility; they do not change the code
            else:
                raise TargetError(
                    f"unknown target option '{key}' (known: -mtriple, -mcpu, -mattr, -opt-level)"
                )
        arch = triple.split("-")[0]
        abi = ""
        if arch != host.triple.split("-")[0] and "-mcpu" not in options:
            # Another architecture: the host's CPU and features mean nothing there.
            cpu = "generic"
            features = ",".join(f for f in features.split(",") if f in extra_features)
        if arch != host.triple.split("-")[0] and arch in CROSS_DEFAULTS:
            defaults, abi = CROSS_DEFAULTS[arch]
            features = ",".join(f for f in [defaults, features] if f)
            parts = triple.split("-")
            if len(parts) == 3 and parts[1] == "linux":
                # LLVM reads the environment (gnueabihf: hard float) from the fourth part only.
                triple = "-".join([parts[0], "unknown", *parts[1:]])
        target = LLVMTarget(triple, cpu, features, opt_level, abi)
        target.validate()
        return target

    def validate(self) -> None:
        """Raise a `TargetError` unless LLVM can create a machine for this target.

        The host needs no check; any other triple, CPU or feature set is tried once per process
        in a child process (see `check_target`), with a did-you-mean for unknown names.
        """
        host = LLVMTarget.host()
        if (self.triple, self.cpu, self.features) == (host.triple, host.cpu, host.features):
            return
        try:
            llb.Target.from_triple(self.triple)
        except RuntimeError:
            raise TargetError(
                f"unknown target triple '{self.triple}': this LLVM generates code for "
                f"'{host.triple}' (the host){did_you_mean(self.triple, [host.triple])}"
            ) from None
        check_target(self.triple, self.cpu, self.features)

    def machine(self) -> llb.TargetMachine:
        """An LLVM target machine for this target (position-independent, for shared objects)."""
        self.validate()
        return llb.Target.from_triple(self.triple).create_target_machine(
            cpu=self.cpu,
            features=self.features,
            opt=self.opt_level,
            reloc="pic",
            codemodel="default",
            abiname=self.abi,
        )

    def __str__(self) -> str:
        return f"llvm -mtriple={self.triple} -mcpu={self.cpu}"
