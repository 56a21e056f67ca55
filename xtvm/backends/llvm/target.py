"""LLVM targets: `llvm [-mtriple=T] [-mcpu=C] [-mattr=+a,-b] [-opt-level=N]`, as TVM writes them.

The host's CPU name and features are detected with LLVM (so AVX2, AVX-512 and FMA are used where
the machine has them) and can be overridden piece by piece by the target string.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llb


class TargetError(ValueError):
    """A target string that cannot be understood."""


@cache
def initialize_llvm() -> None:
    """Initialize LLVM's native target once per process."""
    llb.initialize_native_target()
    llb.initialize_native_asmprinter()


@dataclass(frozen=True)
class LLVMTarget:
    """What to generate code for: triple, CPU, features and optimization level."""

    triple: str
    cpu: str
    features: str
    opt_level: int = 3

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
        for word in words[1:]:
            key, _, value = word.partition("=")
            if not value:
                raise TargetError(f"target option '{word}' needs a value (e.g. -mcpu=znver4)")
            if key == "-mtriple":
                triple = value
            elif key == "-mcpu":
                cpu = value
                features = "" if value != host.cpu else features
            elif key == "-mattr":
                extra = ",".join(f for f in value.split(",") if f)
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
        return LLVMTarget(triple, cpu, features, opt_level)

    def machine(self) -> llb.TargetMachine:
        """An LLVM target machine for this target (position-independent, for shared objects)."""
        initialize_llvm()
        try:
            target = llb.Target.from_triple(self.triple)
        except RuntimeError as exc:
            raise TargetError(f"unknown target triple '{self.triple}': {exc}") from None
        return target.create_target_machine(
            cpu=self.cpu,
            features=self.features,
            opt=self.opt_level,
            reloc="pic",
            codemodel="default",
        )

    def __str__(self) -> str:
        return f"llvm -mtriple={self.triple} -mcpu={self.cpu}"
