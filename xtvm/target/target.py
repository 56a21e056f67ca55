"""TVM's `Target`: the hardware a program is compiled for, as a kind plus typed attributes.

`Target("llvm -mcpu=skylake -mattr=+avx2")`, `Target({"kind": "cuda", "arch": "sm_80"})` and
tags (`Target("nvidia/jetson-nano")`) parse as in TVM 0.13: `-key=value` options are checked
against the kind's attribute table and typed (strings, integers, booleans, comma lists);
`keys` (what strategies and generic functions dispatch on) default from the kind and the
`-device` option. `with Target(...)` makes a target current (`Target.current()`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

# Attribute types: str, int, bool (stored as 0/1 as TVM does), list (of strings or targets).
COMMON_ATTRS: dict[str, type] = {
    "tag": str,
    "keys": list,
    "device": str,
    "model": str,
    "libs": list,
    "host": str,
    "from_device": int,
    "target_device_type": int,
}
LLVM_ATTRS: dict[str, type] = {
    "mattr": list,
    "mcpu": str,
    "mtriple": str,
    "mfloat-abi": str,
    "mabi": str,
    "num-cores": int,
    "fast-math": bool,
    "fast-math-nnan": bool,
    "fast-math-ninf": bool,
    "fast-math-nsz": bool,
    "fast-math-arcp": bool,
    "fast-math-contract": bool,
    "fast-math-reassoc": bool,
    "opt-level": int,
    "cl-opt": list,
    "jit": str,
    "vector-width": int,
    "link-params": bool,
    "interface-api": str,
    "unpacked-api": bool,
    "system-lib": bool,
    "runtime": str,
    "executor": str,
}
GPU_ATTRS: dict[str, type] = {
    "max_num_threads": int,
    "thread_warp_size": int,
    "max_threads_per_block": int,
    "max_shared_memory_per_block": int,
    "registers_per_block": int,
    "max_block_size_x": int,
    "max_block_size_y": int,
    "l2_cache_size_bytes": int,
    "mcpu": str,
    "mtriple": str,
    "mattr": list,
    "arch": str,
}
VULKAN_ATTRS: dict[str, type] = {
    **GPU_ATTRS,
    "supports_float16": bool,
    "supports_float32": bool,
    "supports_float64": bool,
    "supports_int8": bool,
    "supports_int16": bool,
    "supports_int32": bool,
    "supports_int64": bool,
    "supports_8bit_buffer": bool,
    "supports_16bit_buffer": bool,
    "supports_storage_buffer_storage_class": bool,
    "supports_push_descriptor": bool,
    "supports_dedicated_allocation": bool,
    "supports_integer_dot_product": bool,
    "supports_cooperative_matrix": bool,
    "device_name": str,
    "device_type": str,
    "driver_name": str,
    "vulkan_api_version": int,
    "max_spirv_version": int,
    "max_push_constants_size": int,
    "max_uniform_buffer_range": int,
    "max_storage_buffer_range": int,
    "max_per_stage_descriptor_storage_buffer": int,
}


@dataclass(frozen=True)
class TargetKind:
    """A kind of target (`llvm`, `cuda`, ...): its attribute table, default keys and
    default attribute values, and TVM's device type code."""

    name: str
    device_type: int
    default_keys: tuple[str, ...]
    attrs: Mapping[str, type]
    defaults: Mapping[str, Any]

    def __str__(self) -> str:
        return self.name


def _kind(
    name: str,
    device_type: int,
    keys: Sequence[str],
    attrs: Mapping[str, type],
    defaults: Mapping[str, Any] | None = None,
) -> TargetKind:
    return TargetKind(name, device_type, tuple(keys), {**COMMON_ATTRS, **attrs}, defaults or {})


# TVM's kinds, with its device type codes (kDLCPU = 1, kDLCUDA = 2, ...).
KINDS: dict[str, TargetKind] = {
    k.name: k
    for k in [
        _kind("llvm", 1, ["cpu"], LLVM_ATTRS),
        _kind(
            "c",
            1,
            ["cpu"],
            {**LLVM_ATTRS, "constants-byte-alignment": int, "workspace-byte-alignment": int},
        ),
        _kind(
            "cuda", 2, ["cuda", "gpu"], GPU_ATTRS, {"max_num_threads": 1024, "thread_warp_size": 32}
        ),
        _kind(
            "nvptx",
            2,
            ["cuda", "gpu"],
            GPU_ATTRS,
            {"max_num_threads": 1024, "thread_warp_size": 32},
        ),
        _kind(
            "rocm", 10, ["rocm", "gpu"], GPU_ATTRS, {"max_num_threads": 256, "thread_warp_size": 64}
        ),
        _kind(
            "opencl",
            4,
            ["opencl", "gpu"],
            GPU_ATTRS,
            {"max_num_threads": 256, "thread_warp_size": 1},
        ),
        _kind(
            "metal",
            8,
            ["metal", "gpu"],
            GPU_ATTRS,
            {"max_num_threads": 256, "thread_warp_size": 16},
        ),
        _kind(
            "vulkan",
            7,
            ["vulkan", "gpu"],
            VULKAN_ATTRS,
            {"max_num_threads": 256, "thread_warp_size": 1},
        ),
        _kind("webgpu", 15, ["webgpu", "gpu"], GPU_ATTRS, {"max_num_threads": 256}),
        _kind("sdaccel", 4, ["sdaccel", "hls"], {}),
        _kind("aocl", 5, ["aocl", "hls"], {}),
        _kind(
            "hexagon",
            16,
            ["hexagon", "cpu"],
            {**LLVM_ATTRS, "llvm-options": list, "num-cores": int, "vtcm-capacity": int},
        ),
        _kind("stackvm", 1, ["cpu"], {}),
        _kind("ext_dev", 12, ["ext_dev"], {}),
        _kind("hybrid", 1, ["cpu"], {}),
        _kind("composite", 1, [], {"devices": list}),
    ]
}

# TVM's target tags (a subset): a name for a kind with fixed attributes.
TAGS: dict[str, dict[str, Any]] = {
    "nvidia/jetson-nano": {
        "kind": "cuda",
        "arch": "sm_53",
        "max_shared_memory_per_block": 49152,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 32768,
    },
    "nvidia/geforce-rtx-2080-ti": {
        "kind": "cuda",
        "arch": "sm_75",
        "max_shared_memory_per_block": 49152,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 65536,
    },
    "nvidia/nvidia-a100": {
        "kind": "cuda",
        "arch": "sm_80",
        "max_shared_memory_per_block": 49152,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 65536,
    },
    "nvidia/nvidia-h100": {
        "kind": "cuda",
        "arch": "sm_90",
        "max_shared_memory_per_block": 49152,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 65536,
    },
    "raspberry-pi/4b-aarch64": {
        "kind": "llvm",
        "mtriple": "aarch64-linux-gnu",
        "mcpu": "cortex-a72",
        "mattr": ["+neon"],
        "num-cores": 4,
    },
}


def _typed(kind: TargetKind, key: str, value: Any) -> Any:
    """`value` as the type the kind declares for attribute `key`; ValueError if it cannot be."""
    typ = kind.attrs.get(key)
    if typ is None:
        known = ", ".join(sorted(kind.attrs))
        raise ValueError(f"target kind '{kind.name}' has no attribute '{key}' (known: {known})")
    if typ is list:
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if not isinstance(value, list | tuple):
            raise ValueError(f"target attribute '{key}' must be a list, got {value!r}")
        if key == "devices":
            return [v if isinstance(v, Target) else Target(v) for v in value]
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"target attribute '{key}' must be a list of strings, got {value!r}")
        return list(value)
    if typ is bool:
        if isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"target attribute '{key}' must be a boolean, got {value!r}")
            return int(value.lower() in ("true", "1"))
        return int(bool(value))
    if typ is int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"target attribute '{key}' must be an integer, got {value!r}"
            ) from None
    if not isinstance(value, str):
        raise ValueError(f"target attribute '{key}' must be a string, got {value!r}")
    return value


def _parse_string(text: str) -> dict[str, Any]:
    """`"llvm -mcpu=skylake --host=llvm"` (or a tag, or JSON) as a config dictionary."""
    text = text.strip()
    if text.startswith("{"):
        return json.loads(text)
    words = shlex.split(text)
    if not words:
        raise ValueError("an empty target string")
    head, rest = words[0], words[1:]
    config: dict[str, Any] = dict(TAGS[head]) if head in TAGS else {"kind": head}
    if head in TAGS:
        config["tag"] = head
    position = 0
    while position < len(rest):
        word = rest[position]
        if not word.startswith("-"):
            raise ValueError(f"target option '{word}' must start with '-'")
        key, has_value, value = word.lstrip("-").partition("=")
        if not has_value:  # `--host llvm`, or a flag
            following = rest[position + 1] if position + 1 < len(rest) else None
            if following is not None and not following.startswith("-"):
                value = following
                position += 1
            else:
                value = "true"
        config[key] = value
        position += 1
    return config


class Target:
    """A compilation target: `Target("llvm -mcpu=skylake")`, `Target("cuda", host="llvm")`."""

    _stack: ClassVar[list[Target]] = []

    def __init__(self, target: str | Mapping[str, Any] | Target, host: object = None) -> None:
        if isinstance(target, Target):
            config = target.export()
        elif isinstance(target, str):
            config = _parse_string(target)
        elif isinstance(target, Mapping):
            config = dict(target)
            if "tag" in config and config["tag"] in TAGS:
                config = {**TAGS[config["tag"]], **config}
        else:
            raise ValueError(f"a target is a string, a dictionary or a Target, got {target!r}")
        kind_name = config.pop("kind", None)
        if kind_name not in KINDS:
            known = ", ".join(KINDS)
            raise ValueError(f"unknown target kind '{kind_name}' (kinds: {known})")
        self.kind = KINDS[kind_name]
        host_config = config.pop("host", None)
        if host is None:
            host = host_config
        self.host: Target | None = None if host is None else Target(host)  # type: ignore[arg-type]
        keys = config.pop("keys", None)
        attrs: dict[str, Any] = dict(self.kind.defaults)
        attrs.update({k: _typed(self.kind, k, v) for k, v in config.items()})
        if keys is None:
            device = attrs.get("device")
            keys = ([device] if device else []) + list(self.kind.default_keys)
        keys = [k for k in _typed(self.kind, "keys", keys)]
        self.keys: tuple[str, ...] = tuple(dict.fromkeys(keys))
        self.attrs: dict[str, Any] = attrs
        self.tag: str = attrs.get("tag", "")

    # -- TVM's attribute shortcuts -----------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        attrs = self.__dict__.get("attrs", {})
        if name in (
            "mcpu",
            "model",
            "arch",
            "mtriple",
            "device_name",
            "max_num_threads",
            "thread_warp_size",
            "libs",
            "mattr",
        ):
            if name == "device_name":
                return attrs.get("device", "")
            default: Any = [] if name in ("libs", "mattr") else ""
            return attrs.get(name, default)
        raise AttributeError(f"'Target' object has no attribute '{name}'")

    @property
    def max_shared_memory_per_block(self) -> int:
        return int(self.attrs.get("max_shared_memory_per_block", 0))

    @property
    def features(self) -> TargetFeatures:
        return TargetFeatures(self)

    def get_kind_attr(self, name: str) -> Any:
        return None

    def get_target_device_type(self) -> int:
        return self.kind.device_type

    # -- printing and comparison -------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """The target as a configuration dictionary (`Target(t.export())` is `t`)."""
        config: dict[str, Any] = {"kind": self.kind.name, "keys": list(self.keys)}
        for key, value in self.attrs.items():
            if key in self.kind.defaults and self.kind.defaults[key] == value:
                continue
            config[key] = [str(v) for v in value] if key == "devices" else value
        if self.host is not None:
            config["host"] = self.host.export()
        return config

    def __str__(self) -> str:
        parts = [self.kind.name]
        if self.keys:
            parts.append("-keys=" + ",".join(self.keys))
        for key in sorted(self.attrs):
            value = self.attrs[key]
            if key == "tag" or (key in self.kind.defaults and self.kind.defaults[key] == value):
                continue
            if isinstance(value, list):
                text = ",".join(str(v) for v in value)
            else:
                text = str(value)
            parts.append(f"-{key}={shlex.quote(text) if ' ' in text else text}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and self.export() == other.export()

    def __hash__(self) -> int:
        return hash(str(self))

    # -- host and scope ----------------------------------------------------------------------

    def with_host(self, host: object = None) -> Target:
        return Target(self, host)

    def __enter__(self) -> Target:
        Target._stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        Target._stack.pop()

    @staticmethod
    def current(allow_none: bool = True) -> Target | None:
        """The innermost target of the enclosing `with Target(...)` blocks."""
        if Target._stack:
            return Target._stack[-1]
        if not allow_none:
            raise ValueError("no target is in scope: use `with tvm.target.Target(...)`")
        return None

    @staticmethod
    def list_kinds() -> list[str]:
        return list(KINDS)

    @staticmethod
    def target_or_current(target: object) -> Target | None:
        return Target.current() if target is None else Target(target)  # type: ignore[arg-type]

    @staticmethod
    def canon_target(target: object) -> Target | None:
        return None if target is None else Target(target)  # type: ignore[arg-type]

    @staticmethod
    def canon_target_and_host(target: object, target_host: object = None) -> tuple[Any, Any]:
        """(target with its host, host), as TVM normalises the pair given to `build`."""
        if target is None:
            assert target_host is None, "Target host is not empty when target is empty."
            return target, target_host
        target = Target(target, target_host)  # type: ignore[arg-type]
        return target, target.host

    @staticmethod
    def canon_multi_target(multi_targets: object) -> list[Target]:
        assert multi_targets is not None, "a target is needed"
        if isinstance(multi_targets, Mapping) and "kind" not in multi_targets:
            return [Target(t) for t in multi_targets.values()]
        if isinstance(multi_targets, list | tuple):
            return [Target(t) for t in multi_targets]
        return [Target(multi_targets)]  # type: ignore[arg-type]

    @staticmethod
    def canon_multi_target_and_host(target: object, target_host: object = None) -> list[Target]:
        return [Target(t, target_host) for t in Target.canon_multi_target(target)]

    @staticmethod
    def canon_target_map_and_host(
        target_map: Mapping[object, Any], target_host: object = None
    ) -> tuple[dict[Target, Any], Target | None]:
        host = None if target_host is None else Target(target_host)  # type: ignore[arg-type]
        result = {Target(t, host): v for t, v in target_map.items()}  # type: ignore[arg-type]
        return result, host


class TargetFeatures:
    """`target.features`: boolean facts about a target (`has_avx2`, ...), False when unknown."""

    def __init__(self, target: Target) -> None:
        self._target = target

    def __getattr__(self, name: str) -> bool:
        if name.startswith("_"):
            raise AttributeError(name)
        feature = name.removeprefix("has_")
        return f"+{feature}" in self._target.attrs.get("mattr", [])

    def __bool__(self) -> bool:
        return True


# -- TVM's helper constructors ---------------------------------------------------------------


def _options(options: str | Sequence[str] | None) -> str:
    if options is None:
        return ""
    return " " + (options if isinstance(options, str) else " ".join(options))


def cuda(model: str = "unknown", arch: str | None = None, options: object = None) -> Target:
    text = f"cuda -model={model}" + (f" -arch={arch}" if arch else "")
    return Target(text + _options(options))  # type: ignore[arg-type]


def rocm(model: str = "unknown", options: object = None) -> Target:
    return Target(f"rocm -model={model}" + _options(options))  # type: ignore[arg-type]


def mali(model: str = "unknown", options: object = None) -> Target:
    return Target(f"opencl -device=mali -model={model}" + _options(options))  # type: ignore[arg-type]


def intel_graphics(model: str = "unknown", options: object = None) -> Target:
    text = f"opencl -device=intel_graphics -model={model} -thread_warp_size=16"
    return Target(text + _options(options))  # type: ignore[arg-type]


def bifrost(model: str = "unknown", options: object = None) -> Target:
    return Target(f"opencl -device=bifrost -model={model}" + _options(options))  # type: ignore[arg-type]


ARM_CPUS: dict[str, str] = {
    "pixel2": "-model=snapdragon835 -mtriple=arm64-linux-android -mattr=+neon",
    "mate10": "-model=kirin970 -mtriple=arm64-linux-android -mattr=+neon",
    "p20": "-model=kirin970 -mtriple=arm64-linux-android -mattr=+neon",
    "rasp3b": "-model=bcm2837 -mtriple=armv7l-linux-gnueabihf -mattr=+neon",
    "rasp4b": "-model=bcm2711 -mtriple=armv8l-linux-gnueabihf -mattr=+neon -mcpu=cortex-a72",
    "rasp4b64": "-model=bcm2711 -mtriple=aarch64-linux-gnu -mattr=+neon -mcpu=cortex-a72",
    "rk3399": "-model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon",
    "pynq": "-model=pynq -mtriple=armv7a-linux-eabi -mattr=+neon",
    "ultra96": "-model=ultra96 -mtriple=aarch64-linux-gnu -mattr=+neon",
}


def arm_cpu(model: str = "unknown", options: object = None) -> Target:
    """An ARM CPU by board name (`arm_cpu("rasp4b")`), keys `arm_cpu, cpu`."""
    board = ARM_CPUS.get(model, f"-model={model}")
    return Target(f"llvm -device=arm_cpu {board}" + _options(options))  # type: ignore[arg-type]


def rasp(options: object = None) -> Target:
    return arm_cpu("rasp3b", options)


def vta(model: str = "unknown", options: object = None) -> Target:
    return Target(f"ext_dev -device=vta -model={model}" + _options(options))  # type: ignore[arg-type]


def hexagon(cpu_ver: str = "v68", **kwargs: object) -> Target:
    return Target(f"hexagon -mtriple=hexagon -mcpu=hexagon{cpu_ver}")


def create(target: object) -> Target:
    return Target(target)  # type: ignore[arg-type]


# -- generic functions: dispatch on the current target's keys --------------------------------


class GenericFunc:
    """A function with per-target-key overrides (`@tvm.target.generic_func`), dispatched on
    the keys of `Target.current()` in order, else the default."""

    def __init__(self, default: Callable[..., Any]) -> None:
        self.default = default
        self.overrides: dict[str, Callable[..., Any]] = {}
        self.__name__ = getattr(default, "__name__", "generic_func")
        self.__doc__ = default.__doc__

    def register(
        self, key_or_func: Any = None, key: Any = None, allow_override: bool = False
    ) -> Any:
        """`@f.register(["cuda", "gpu"])` or `f.register(func, "cuda", allow_override=True)`."""

        def add(func: Callable[..., Any], keys: object) -> Callable[..., Any]:
            for k in [keys] if isinstance(keys, str) else list(keys):  # type: ignore[call-overload]
                if k in self.overrides and not allow_override:
                    raise ValueError(f"key '{k}' is already registered for {self.__name__}")
                self.overrides[k] = func
            return func

        if callable(key_or_func):
            return add(key_or_func, key)
        return lambda func: add(func, key_or_func)

    def dispatch(self) -> Callable[..., Any]:
        target = Target.current()
        for key in target.keys if target is not None else ():
            if key in self.overrides:
                return self.overrides[key]
        return self.default

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.dispatch()(*args, **kwargs)

    def get_packed_func(self) -> Callable[..., Any]:
        return self


def generic_func(default: Callable[..., Any]) -> GenericFunc:
    return GenericFunc(default)
