"""ModelProto → relay: check the model, then convert its graph node by node into `@main`.

Checks come before any work, each with one clear error: unsupported op types (all of them at
once, with the nodes using each), inputs that nothing defines, the ONNX checker, dynamic input
shapes. Nodes whose inputs are all known at import time are evaluated with ONNX's reference
evaluator instead of converted, so shape computations (`Shape → Gather → Concat → Reshape`)
end up as attributes. Each converted output is compared with ONNX shape inference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from onnx import helper, numpy_helper, shape_inference
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects import relay
from xtvm.frontends.onnx.context import (
    FOLD_LIMIT,
    ConversionError,
    GraphState,
    NodeContext,
    Tensor,
    attribute_values,
)
from xtvm.frontends.onnx.converters import CONVERTERS, SELF_FOLDING, np_dtype
from xtvm.frontends.onnx.errors import OnnxImportError
from xtvm.frontends.onnx.lean import read_lean
from xtvm.frontends.onnx.tensors import check_dims, resolve_external_data, tensor_array
from xtvm.ir.numpy_types import element_type, numpy_dtype

# Opsets 1 to 6 are accepted for ops whose semantics never changed (Not, Abs...); 7+ is tested.
MIN_OPSET = 1

ONNX_DOMAINS = ("", "ai.onnx")
ShapeArg = Mapping[str, Sequence[int]]


def describe(node: onnx.NodeProto, index: int) -> str:
    """`node 'conv1' (Conv)`, or by position and first output when the node has no name."""
    if node.name:
        return f"node '{node.name}' ({node.op_type})"
    out = f", output '{node.output[0]}'" if node.output and node.output[0] else ""
    return f"node #{index} ({node.op_type}{out})"


def load_model(
    model: onnx.ModelProto | str | Path, base_dir: str | Path | None = None
) -> onnx.ModelProto:
    """The model, its external data read from `base_dir` (for a path: the file's directory)."""
    if isinstance(model, onnx.ModelProto):
        proto = model
    else:
        path = Path(model)
        if not path.is_file():
            raise OnnxImportError(f"cannot open ONNX model '{path}': no such file")
        try:
            proto = onnx.load(str(path), load_external_data=False)
        except Exception as exc:
            raise OnnxImportError(f"cannot read ONNX model '{path}': {exc}") from None
        base_dir = path.parent if base_dir is None else base_dir
    return resolve_external_data(proto, None if base_dir is None else Path(base_dir))


def load_lean(
    model: onnx.ModelProto | str | Path, base_dir: str | Path | None = None
) -> tuple[onnx.ModelProto, dict[int, np.ndarray]]:
    """`load_model`, with the large weights of a model file read apart (see `lean.py`): by
    position among the initializers, whose protos then hold no data."""
    if isinstance(model, onnx.ModelProto) or not Path(model).is_file():
        return load_model(model, base_dir), {}
    path = Path(model)
    try:
        proto, weights = read_lean(path)
    except OnnxImportError:
        raise
    except Exception as exc:
        raise OnnxImportError(f"cannot read ONNX model '{path}': {exc}") from None
    base_dir = path.parent if base_dir is None else base_dir
    return resolve_external_data(proto, Path(base_dir)), weights


def default_opset(model: onnx.ModelProto) -> int:
    versions = [o.version for o in model.opset_import if o.domain in ONNX_DOMAINS]
    if not versions:
        raise OnnxImportError("the model imports no version of the default ONNX opset")
    opset = versions[0]
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        raise OnnxImportError(
            f"opset {opset} is not supported (supported: {MIN_OPSET} to {newest})"
        )
    return opset


def check_supported(graph: onnx.GraphProto) -> None:
    """One error listing every unsupported op type with the nodes that use it."""
    missing: dict[str, list[str]] = {}
    for i, node in enumerate(graph.node):
        key = node.op_type if node.domain in ONNX_DOMAINS else f"{node.domain}.{node.op_type}"
        if node.domain in ONNX_DOMAINS and node.op_type in CONVERTERS:
            continue
        missing.setdefault(key, []).append(node.name or f"#{i}")
    if not missing:
        return
    lines = [
        f"  {op} (used by {len(names)} node{'s' if len(names) > 1 else ''}: "
        + ", ".join(f"'{n}'" for n in names[:8])
        + (", ..." if len(names) > 8 else "")
        + ")"
        for op, names in sorted(missing.items())
    ]
    raise OnnxImportError(
        f"the model uses {len(missing)} unsupported operator type"
        f"{'s' if len(missing) > 1 else ''}:\n" + "\n".join(lines)
    )


def check_structure(graph: onnx.GraphProto) -> None:
    """Every node input is defined before use; no tensor is defined twice."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    for index, node in enumerate(graph.node):
        for name in node.input:
            if name and name not in defined:
                raise OnnxImportError(
                    f"{describe(node, index)}: input '{name}' is not a graph input, an "
                    "initializer, or the output of an earlier node"
                )
        for name in node.output:
            if name and name in defined:
                raise OnnxImportError(f"{describe(node, index)}: output '{name}' is defined twice")
            defined.add(name)
    for out in graph.output:
        if out.name not in defined:
            raise OnnxImportError(f"graph output '{out.name}' is not produced by any node")


# Initializers over this size reach the ONNX checker and shape inference as typed graph
# inputs: both serialize the whole model, which for BERT-base's 440 MB of weights took seconds,
# and neither needs the values of a weight (shape computations read small constants).
LIGHT_INITIALIZER_BYTES = 1 << 16


def without_weights(model: onnx.ModelProto, apart: Collection[str] = ()) -> onnx.ModelProto:
    """`model`, or a copy whose initializers over LIGHT_INITIALIZER_BYTES, and those named in
    `apart` (whose data was read apart), are graph inputs of their type and shape instead
    (the weights are not copied)."""
    graph = model.graph
    large = [
        t for t in graph.initializer if t.name in apart or t.ByteSize() > LIGHT_INITIALIZER_BYTES
    ]
    if not large:
        return model
    light = onnx.ModelProto()
    for field, value in model.ListFields():
        if field.name != "graph":
            copy_field(light, field, value)
    for field, value in graph.ListFields():
        if field.name != "initializer":
            copy_field(light.graph, field, value)
    names = {t.name for t in large}
    light.graph.initializer.extend(t for t in graph.initializer if t.name not in names)
    inputs = {i.name for i in graph.input}
    light.graph.input.extend(
        helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
        for t in large
        if t.name not in inputs
    )
    return light


def copy_field(message: Message, field: FieldDescriptor, value: object) -> None:
    """Set `field` of the protobuf `message` to `value` (another message's)."""
    if isinstance(value, Message):
        getattr(message, field.name).CopyFrom(value)
    elif hasattr(value, "extend"):  # a repeated field
        getattr(message, field.name).extend(value)
    else:
        setattr(message, field.name, value)


def run_checker(model: onnx.ModelProto) -> None:
    """The ONNX checker; its first complaint, prefixed by the node or value it is about."""
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as exc:
        first = str(exc).strip().split("\n")[0]
        subject = checker_subject(model)
        raise OnnxImportError(
            f"{subject}: invalid: {first}" if subject else f"invalid ONNX model: {first}"
        ) from None
    except ValueError:
        pass  # models over 2 GB cannot be checked in memory


def checker_subject(model: onnx.ModelProto) -> str | None:
    """The first node, graph input or graph output the ONNX checker rejects on its own."""
    checker = onnx.checker
    ctx = checker.C.CheckerContext()
    ctx.ir_version = model.ir_version
    ctx.opset_imports = {o.domain: o.version for o in model.opset_import}
    graph = model.graph
    for kind, infos in (("graph input", graph.input), ("graph output", graph.output)):
        for info in infos:
            try:
                checker.check_value_info(info, ctx)
            except checker.ValidationError:
                return f"{kind} '{info.name}'"
    for index, node in enumerate(graph.node):
        try:
            checker.check_node(node, ctx, checker.C.LexicalScopeContext())
        except checker.ValidationError:
            return describe(node, index)
    return None


def inferred_types(model: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Types from ONNX shape inference, by tensor name (empty when inference fails)."""
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception:
        return {}
    g = inferred.graph
    return {v.name: v.type for v in [*g.value_info, *g.output]}


def static_dims(typ: onnx.TypeProto) -> list[int] | None:
    if not typ.tensor_type.HasField("shape"):
        return None
    dims = typ.tensor_type.shape.dim
    if any(not d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def sanitize(name: str) -> str:
    """An SSA name hint for an ONNX tensor name that xDSL keeps as is (`input.1` stays).

    Other characters become `_`, a leading digit gets a `v` (`0` → `v0`) and a trailing `_<n>`,
    which xDSL would drop, becomes `.<n>` (`x_1` → `x.1`). Hints may collide; the exact name
    of an input whose hint differs is kept in its `relay.name` argument attribute.
    """
    cleaned = re.sub(r"[^A-Za-z0-9_$.-]", "_", name) or "arg"
    if cleaned[0].isdigit():
        cleaned = "v" + cleaned
    return re.sub(r"_([0-9]+)$", r".\1", cleaned)


def argument_attrs(names: Sequence[str]) -> ArrayAttr[DictionaryAttr] | None:
    """`relay.name` attributes for the arguments whose SSA name is not their ONNX name."""
    attrs = [
        DictionaryAttr({} if sanitize(n) == n else {relay.INPUT_NAME_ATTR: StringAttr(n)})
        for n in names
    ]
    return ArrayAttr(attrs) if any(a.data for a in attrs) else None


def check_shape_arg(
    names: Sequence[str], shape: ShapeArg | None, dtype: str | Mapping[str, str]
) -> None:
    """Every name given a shape or dtype is one of the graph inputs `names` (no initializer)."""
    for kind, given in (("shape", shape), ("dtype", dtype)):
        if not isinstance(given, Mapping):
            continue
        unknown = [n for n in given if n not in names]
        if unknown:
            raise OnnxImportError(
                f"{kind} given for '{unknown[0]}', which is not a graph input (inputs: "
                + (", ".join(f"'{n}'" for n in names) or "none")
                + ")"
            )


def given_dims(info: onnx.ValueInfoProto, value: Sequence[int]) -> list[int]:
    """The shape given for graph input `info`: integers, of the rank the model declares."""
    try:
        dims = [int(d) for d in value]
    except (TypeError, ValueError):
        raise OnnxImportError(
            f"graph input '{info.name}': the shape given, {value!r}, is not a list of integers"
        ) from None
    tt = info.type.tensor_type
    if tt.HasField("shape") and len(tt.shape.dim) != len(dims):
        declared = [
            d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in tt.shape.dim
        ]
        raise OnnxImportError(
            f"graph input '{info.name}' has rank {len(declared)} ({declared}), but the shape "
            f"given, {dims}, has rank {len(dims)}"
        )
    return dims


def input_types(
    graph: onnx.GraphProto, shape: ShapeArg | None, dtype: str | Mapping[str, str]
) -> list[tuple[onnx.ValueInfoProto, TensorType]]:
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    check_shape_arg([i.name for i in inputs], shape, dtype)
    out = []
    problems: list[tuple[str, str, list[int]]] = []
    for info in inputs:
        tt = info.type.tensor_type
        if not info.type.HasField("tensor_type"):
            raise OnnxImportError(f"graph input '{info.name}' is not a tensor")
        if shape is not None and info.name in shape:
            dims = given_dims(info, shape[info.name])
        else:
            dims = [d.dim_value for d in tt.shape.dim]
            unknown = [d.dim_param or "?" for d in tt.shape.dim if not d.HasField("dim_value")]
            if unknown:
                problems.append((info.name, unknown[0], [max(d, 1) for d in dims]))
                continue
        check_dims(dims, f"graph input '{info.name}'")
        given = dtype.get(info.name) if isinstance(dtype, Mapping) else dtype
        try:
            np_type = np_dtype(tt.elem_type) if tt.elem_type else np.dtype(given or "float32")
        except (ConversionError, TypeError) as exc:
            raise OnnxImportError(f"graph input '{info.name}': {exc}") from None
        out.append((info, TensorType(element_type(np_type), dims)))
    if problems:
        listed = ", ".join(f"'{name}' (dimension '{dim}')" for name, dim, _ in problems)
        name, _, example = problems[0]
        raise OnnxImportError(
            f"graph inputs with dynamic shapes: {listed}; give their shapes, e.g. "
            f"shape={{'{name}': {tuple(example)}}} (xtvm-import-onnx: --shape "
            f"{name}:{'x'.join(map(str, example))})"
        )
    return out


def with_input_shapes(
    model: onnx.ModelProto, args: Sequence[tuple[onnx.ValueInfoProto, TensorType]]
) -> onnx.ModelProto:
    """`model`, or a copy whose graph inputs carry the shapes chosen for them."""
    changed = [
        (info.name, list(t.get_shape()))
        for info, t in args
        if static_dims(info.type) != list(t.get_shape())
    ]
    if not changed:
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    dims = dict(changed)
    for info in copy.graph.input:
        if info.name in dims:
            shape = info.type.tensor_type.shape
            shape.ClearField("dim")
            for d in dims[info.name]:
                shape.dim.add().dim_value = d
    return copy


def fold_gather_elements(node: onnx.NodeProto, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """GatherElements in numpy: the reference evaluator's falls back to a broken path when the
    indices take more than 64 values (np.choose's limit: BERT's token type ids)."""
    axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
    if not -data.ndim <= axis < data.ndim:
        raise ConversionError(f"axis {axis} is out of range for rank {data.ndim}")
    size = data.shape[axis]
    bad = indices[(indices < -size) | (indices >= size)]
    if bad.size:
        raise ConversionError(f"indices must be in [{-size}, {size}), got {int(bad[0])}")
    return np.take_along_axis(data, np.where(indices < 0, indices + size, indices), axis)


def fold(node: onnx.NodeProto, opset: int, inputs: Sequence[np.ndarray | None]) -> list[np.ndarray]:
    """Evaluate one node on constant inputs with ONNX's reference evaluator."""
    from onnx.reference import ReferenceEvaluator

    if node.op_type == "GatherElements" and node.domain in ONNX_DOMAINS:
        data, indices = inputs
        assert data is not None and indices is not None
        return [fold_gather_elements(node, data, indices)]

    feeds = {n: v for n, v in zip(node.input, inputs, strict=True) if n}
    graph = helper.make_graph(
        [node],
        "fold",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), None)
            for n, v in feeds.items()
        ],
        [helper.make_empty_tensor_value_info(o) for o in node.output if o],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    # IEEE results such as log(0) = -inf are what the model computes at run time too (T5's
    # position buckets take the log of 0 and discard it with a Where): no warnings.
    with np.errstate(all="ignore"):
        results = ReferenceEvaluator(model).run(None, feeds)
    return [np.asarray(r) for r in results]


def folded_elements(
    node: onnx.NodeProto,
    opset: int,
    inputs: Sequence[np.ndarray | None],
    inferred: Mapping[str, onnx.TypeProto],
) -> int:
    """How many elements folding `node` on constant `inputs` would produce, found before
    evaluating it: from the model's shape inference, else from inference on the node alone
    with its small integer inputs (shapes, repeats) as values. 0 when unknown."""
    outputs = [o for o in node.output if o]
    dims = [static_dims(inferred[o]) if o in inferred else None for o in outputs]
    if all(d is not None for d in dims):
        return sum(math.prod(d) for d in dims)  # type: ignore[arg-type]
    feeds = [(n, v) for n, v in zip(node.input, inputs, strict=True) if n and v is not None]
    small = [(n, v) for n, v in feeds if v.dtype.kind in "iu" and v.size <= 64]
    graph = helper.make_graph(
        [node],
        "size",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for n, v in feeds
        ],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in small],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    try:
        out = shape_inference.infer_shapes(model, data_prop=True).graph.output
    except Exception:
        return 0
    sizes = [static_dims(o.type) for o in out]
    return sum(math.prod(d) for d in sizes if d is not None)


def check_output(
    name: str, value: Tensor, inferred: Mapping[str, onnx.TypeProto], where: str
) -> None:
    """An output's size is bounded; its shape and element type must match ONNX shape inference
    where it is known."""
    typ = inferred.get(name)
    if isinstance(value, np.ndarray):
        shape, dtype = list(value.shape), value.dtype
    else:
        t = value.type
        assert isinstance(t, TensorType)
        shape, dtype = list(t.get_shape()), numpy_dtype(t.get_element_type())
    try:
        check_dims(shape, f"output '{name}'")
    except OnnxImportError as exc:
        raise OnnxImportError(f"{where}: {exc}") from None
    if typ is None or not typ.HasField("tensor_type"):
        return
    dims = static_dims(typ)
    if dims is not None and dims != shape:
        raise OnnxImportError(
            f"{where}: inconsistent shapes: output '{name}' is {shape} here but ONNX shape "
            f"inference gives {dims}"
        )
    elem = typ.tensor_type.elem_type
    if elem and elem != helper.np_dtype_to_tensor_dtype(dtype):
        expected = helper.tensor_dtype_to_string(elem)
        raise OnnxImportError(
            f"{where}: inconsistent types: output '{name}' is {dtype} here but ONNX shape "
            f"inference gives {expected}"
        )


def convert_node(
    node: onnx.NodeProto, index: int, state: GraphState, inferred: Mapping[str, onnx.TypeProto]
) -> None:
    where = describe(node, index)
    try:
        c = NodeContext(node, state, attribute_values(node))
        present = [state.env[n] for n in node.input if n]
        consts = [state.env[n] if n else None for n in node.input]
        if (
            present
            and node.op_type not in SELF_FOLDING
            and all(isinstance(v, np.ndarray) for v in present)
            and folded_elements(node, state.opset, consts, inferred) <= state.fold_limit  # type: ignore[arg-type]
        ):
            outputs: Sequence[Tensor | Operation | None] = fold(node, state.opset, consts)  # type: ignore[arg-type]
        else:
            outputs = CONVERTERS[node.op_type](c)
    except (ConversionError, OnnxImportError) as exc:
        raise OnnxImportError(f"{where}: {exc}", exc.needs_static) from None
    except VerifyException as exc:
        raise OnnxImportError(f"{where}: {exc}") from None
    except Exception as exc:
        raise OnnxImportError(f"{where}: cannot convert: {type(exc).__name__}: {exc}") from None
    for i, name in enumerate(node.output):
        if not name:
            continue
        out = outputs[i] if i < len(outputs) else None
        if out is None:
            raise OnnxImportError(f"{where}: output {i} ('{name}') is not supported")
        value: Tensor = out.results[0] if isinstance(out, Operation) else out
        check_output(name, value, inferred, where)
        state.env[name] = value


def import_onnx(
    model: onnx.ModelProto | str | Path,
    shape: ShapeArg | None = None,
    dtype: str | Mapping[str, str] = "float32",
    *,
    base_dir: str | Path | None = None,
    fold_limit: int = FOLD_LIMIT,
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """Import an ONNX model as a module holding `func.func @main`, and its params.

    Graph inputs that are not initializers become the arguments of @main, in order; an
    input whose name is no valid SSA name keeps it in a `relay.name` argument attribute, so
    `relay.input_names(main)` are exactly the ONNX names. Initializers become
    `relay.param["name"]` ops whose values are in the returned params. `shape` fixes dynamic
    input shapes; `dtype` is the element type of inputs whose type the model leaves
    undefined. External data is read from `base_dir` (for a path, by default, the model
    file's directory), never elsewhere. Nodes on constants are evaluated at import unless
    their outputs have more than `fold_limit` elements. Raises OnnxImportError naming the
    node, input or tensor at fault.
    """
    model, apart = load_lean(model, base_dir)
    opset = default_opset(model)
    graph = model.graph
    check_supported(graph)
    check_structure(graph)
    light = without_weights(model, {graph.initializer[i].name for i in apart})
    run_checker(light)
    args = input_types(graph, shape, dtype)
    block = Block(arg_types=[t for _, t in args])
    state = GraphState(block, opset, fold_limit=fold_limit)
    for arg, (info, _) in zip(block.args, args, strict=True):
        arg.name_hint = sanitize(info.name)
        state.env[info.name] = arg
        state.input_names.add(info.name)
    for index, init in enumerate(graph.initializer):
        value = apart.get(index)
        state.env[init.name] = (
            value if value is not None else tensor_array(init, f"initializer '{init.name}'")
        )
        state.initializers.add(init.name)
    inferred = inferred_types(with_input_shapes(light, args))
    for index, node in enumerate(graph.node):
        convert_node(node, index, state, inferred)
    results: list[SSAValue] = []
    for out in graph.output:
        value = state.env[out.name]
        results.append(value if isinstance(value, SSAValue) else state.materialize(out.name, value))
    block.add_op(func.ReturnOp(*results))
    function = func.FuncOp(
        "main",
        ([t for _, t in args], [r.type for r in results]),
        Region(block),
        arg_attrs=argument_attrs([info.name for info, _ in args]),
    )
    module = ModuleOp([function])
    try:
        module.verify()
    except VerifyException as exc:
        raise OnnxImportError(f"the imported module does not verify: {exc}") from None
    return module, dict(state.params)
