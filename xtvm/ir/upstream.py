"""Custom syntax for the upstream (xDSL) ops whose printers are hand-written.

The rules live in upstream.lark; each callback here builds the op its rule reads. Ops whose
custom printer drops information (arith.cmpi/cmpf ignore extra attributes) are printed in the
custom form only when nothing would be lost; see `printable_custom`. Every tool loads this
syntax, so the dialects other than builtin and func are imported by the callbacks that build
their ops, not here: a file of `func` ops imports no other dialect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Token
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    ModuleOp,
    Region,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from xtvm.ir.context import SyntaxExtension
from xtvm.ir.diagnostics import DiagnosticError, Location
from xtvm.ir.parser import IRBuilder, PendingArg, symbol_name


def builtin_module(b: IRBuilder, children: list[Any]) -> Operation:
    token, symbol, attrs, region = children
    if not region.blocks:
        region = Region(Block())  # `module {}` still holds its one (empty) block
    name = StringAttr(symbol_name(symbol)) if symbol else None
    module = ModuleOp(region, attributes=attrs or {}, sym_name=name)
    return b.record(module, token)


def func_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, visibility, symbol, params, results, attrs = children
    params = params or []
    named = [p for p in params if p[0] is not None]
    if named and len(named) != len(params):
        raise b.error(token, "'func.func' op mixes named and unnamed arguments")
    if named:
        b.set_entry_args([PendingArg(p[0], p[1], location=p[3]) for p in named])
    results = results or []
    return {
        "token": token,
        "visibility": str(visibility) if visibility else None,
        "name": symbol_name(symbol),
        "inputs": [p[1] for p in params],
        "arg_attrs": [p[2] for p in params],
        "outputs": [r[0] for r in results],
        "res_attrs": [r[1] for r in results],
        "attrs": attrs or {},
        "named": bool(named),
    }


def func_named_param(
    b: IRBuilder, children: list[Any]
) -> tuple[Token, Attribute, dict, Attribute | None]:
    token, typ, attrs, loc = children
    return (token, typ, attrs or {}, loc)


def func_type_param(b: IRBuilder, children: list[Any]) -> tuple[None, Attribute, dict, None]:
    typ, attrs, _loc = children  # a declaration's argument has no value to locate
    return (None, typ, attrs or {}, None)


def func_single_result(b: IRBuilder, children: list[Any]) -> list[tuple[Attribute, dict]]:
    return [(children[0], {})]


def func_result_list(b: IRBuilder, children: list[Any]) -> list[tuple[Attribute, dict]]:
    return [c for c in children if c is not None]


def func_result(b: IRBuilder, children: list[Any]) -> tuple[Attribute, dict]:
    typ, attrs = children
    return (typ, attrs or {})


def func_params(b: IRBuilder, children: list[Any]) -> list[Any]:
    return children


def attr_array(dicts: list[dict[str, Attribute]]) -> ArrayAttr[DictionaryAttr] | None:
    if not any(dicts):
        return None
    return ArrayAttr(DictionaryAttr(d) for d in dicts)


def func_func(b: IRBuilder, children: list[Any]) -> Operation:
    head, region = children
    token = head["token"]
    if region is None:
        if head["named"]:
            raise b.error(token, "'func.func' op declaration cannot name its arguments")
        region = Region()
    elif not region.blocks:
        raise b.error(token, "'func.func' op expected non-empty function body")
    else:
        checked = region
        b.deferred.append(lambda: check_terminators(b, checked))
    op = func.FuncOp(
        head["name"],
        FunctionType.from_lists(head["inputs"], head["outputs"]),
        region,
        head["visibility"],
        arg_attrs=attr_array(head["arg_attrs"]),
        res_attrs=attr_array(head["res_attrs"]),
    )
    for name, value in head["attrs"].items():
        if name in op.properties or name in type(op).get_irdl_definition().properties:
            op.properties[name] = value
        else:
            op.attributes[name] = value
    return b.record(op, token)


def check_terminators(b: IRBuilder, region: Region) -> None:
    """Refuse a function block that does not end in a terminator, as MLIR does: func.func,
    unlike scf.for, has no implicit terminator."""
    for block in region.blocks:
        last = block.last_op
        if last is None:
            raise b.error(None, "empty block: expect at least a terminator")
        if last.has_trait(IsTerminator) or isinstance(last, builtin.UnregisteredOp):
            continue
        where = last.location
        location = None
        if isinstance(where, builtin.FileLineColLoc):
            location = Location(b.source, where.line.data, where.column.data)
        raise DiagnosticError.at(
            location,
            f"'func.func' op body ends with '{last.name}', which is not a terminator; "
            "a function has no implicit terminator: end it with 'func.return'",
        )


def with_terminator(region: Region | None, types: list[Attribute] | None = None) -> Region:
    """The region with one block ending in scf.yield, as scf's printers elide both."""
    from xdsl.dialects import scf

    if region is None or not region.blocks:
        region = Region(Block(arg_types=types or []))
    block = region.blocks[-1]
    if not isinstance(block.last_op, scf.YieldOp):
        block.add_op(scf.YieldOp())
    return region


def declare_loop_args(
    b: IRBuilder,
    token: Token,
    indvar: Token,
    indvar_type: Attribute,
    iter_args: tuple[list[Any], list[Attribute]] | None,
) -> tuple[list[SSAValue], list[Attribute]]:
    """Declare a loop body's arguments (the induction variable, then one per iter_arg) for the
    region that follows; the initial values and types of the iter_args."""
    inits: list[SSAValue] = []
    arg_types: list[Attribute] = []
    args = [PendingArg(indvar, indvar_type)]
    if iter_args is not None:
        pairs, arg_types = iter_args
        if len(pairs) != len(arg_types):
            raise b.error(
                token, f"'{token}' op has {len(pairs)} iter_args but {len(arg_types)} types"
            )
        for (name, init), arg_type in zip(pairs, arg_types, strict=True):
            inits.append(b.resolve(init, arg_type))
            args.append(PendingArg(name, arg_type))
    b.set_entry_args(args)
    return inits, arg_types


def scf_for_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, indvar, lb, ub, step, iter_args, typ = children
    typ = typ or IndexType()
    inits, arg_types = declare_loop_args(b, token, indvar, typ, iter_args)
    return {
        "token": token,
        "bounds": [b.resolve(v, typ) for v in (lb, ub, step)],
        "inits": inits,
        "types": [typ, *arg_types],
    }


def scf_iter_args(b: IRBuilder, children: list[Any]) -> tuple[list[Any], list[Attribute]]:
    *pairs, types = children
    return (pairs, types)


def scf_iter_arg(b: IRBuilder, children: list[Any]) -> tuple[Token, Token]:
    return (children[0], children[1])


def scf_for(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import scf

    head, region, attrs = children
    region = with_terminator(region, head["types"])
    op = scf.ForOp(*head["bounds"], head["inits"], region)
    op.attributes.update(attrs or {})
    return b.record(op, head["token"])


def scf_if(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import scf

    token, cond, types, then_region, else_region, attrs = children
    types = types or []
    then_region = with_terminator(then_region)
    if else_region is not None:
        else_region = with_terminator(else_region)
    op = scf.IfOp(b.resolve(cond, builtin.i1), types, then_region, else_region, attrs)
    return b.record(op, token)


def arith_cmp(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import arith

    token, predicate, lhs, rhs, _fastmath_kw, fastmath, typ = children
    op_type = arith.CmpiOp if str(token) == "arith.cmpi" else arith.CmpfOp
    names = (
        arith.CMPI_COMPARISON_OPERATIONS
        if op_type is arith.CmpiOp
        else arith.CMPF_COMPARISON_OPERATIONS
    )
    if str(predicate) not in names:
        raise b.error(predicate, f"unknown predicate '{predicate}' for '{token}'")
    lhs_value, rhs_value = b.resolve(lhs, typ), b.resolve(rhs, typ)
    if op_type is arith.CmpiOp:
        op: Operation = arith.CmpiOp(lhs_value, rhs_value, str(predicate))
    else:
        flags = arith.FastMathFlagsAttr("none")
        if fastmath is not None:
            flags = arith.FastMathFlagsAttr.new(
                arith.FastMathFlagsAttr.parse_parameter(b.xdsl_parser(str(fastmath)))
            )
        op = arith.CmpfOp(lhs_value, rhs_value, str(predicate), flags)
    return b.record(op, token)


def memref_alloc(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import memref

    token, sizes, symbols, attrs, typ = children
    index = IndexType()
    attrs = dict(attrs or {})
    alignment = attrs.pop("alignment", None)
    if alignment is not None and not isinstance(alignment, builtin.IntegerAttr):
        raise b.error(token, f"'memref.alloc' op alignment must be an integer, got {alignment}")
    op = memref.AllocOp(
        [b.resolve(t, index) for t in sizes or []],
        [b.resolve(t, index) for t in symbols or []],
        typ,
        alignment,
    )
    op.attributes |= attrs
    return b.record(op, token)


def unrealized_cast(b: IRBuilder, children: list[Any]) -> Operation:
    token, uses, in_types, out_types, attrs = children
    operands = b.resolve_all(uses or [], in_types or [])
    op = builtin.UnrealizedConversionCastOp.create(
        operands=operands, result_types=out_types, attributes=attrs or {}
    )
    return b.record(op, token)


def scf_execute_region(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import scf

    token, types, region, _attrs = children  # xDSL's reader drops them too
    if not region.blocks:
        raise b.error(token, "'scf.execute_region' op region needs to have at least one block")
    op = scf.ExecuteRegionOp(types or [], region)
    return b.record(op, token)


def scf_while_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, *pairs, fn_type = children
    pairs = [p for p in pairs if p is not None]
    inputs = fn_type.inputs.data
    if len(pairs) != len(inputs):
        raise b.error(
            token,
            f"'scf.while' op has {len(pairs)} arguments but its type lists {len(inputs)}",
        )
    inits = [b.resolve(init, t) for (_, init), t in zip(pairs, inputs, strict=True)]
    b.set_entry_args([PendingArg(name, t) for (name, _), t in zip(pairs, inputs, strict=True)])
    return {"token": token, "inits": inits, "types": fn_type.outputs.data}


def scf_while(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import scf

    head, before, after, attrs = children
    op = scf.WhileOp(head["inits"], head["types"], before, after)
    op.attributes |= attrs or {}
    return b.record(op, head["token"])


def scf_case(b: IRBuilder, children: list[Any]) -> tuple[int, Region]:
    return (int(children[0]), children[1])


def scf_index_switch(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import scf

    token, arg, attrs, types, *cases, default = children
    cases = [c for c in cases if c is not None]
    # MLIR's SingleBlockImplicitTerminator: a case without results may leave out its yield
    op = scf.IndexSwitchOp(
        b.resolve(arg, IndexType()),
        builtin.DenseArrayBase.from_list(builtin.i64, [value for value, _ in cases]),
        with_terminator(default),
        [with_terminator(region) for _, region in cases],
        types or [],
        attrs or None,
    )
    return b.record(op, token)


def vector_indices(b: IRBuilder, children: list[Any]) -> list[Any]:
    return [b.resolve(t, IndexType()) for t in children[0] or []]


def transfer_fields(
    b: IRBuilder,
    token: Token,
    attrs: dict[str, Attribute] | None,
    shaped: Attribute,
    vec: Attribute,
    mask: Token | None,
) -> tuple[Any, Attribute, Attribute]:
    """Mask, permutation map and in_bounds of a transfer op, defaulted as xDSL's reader does."""
    from xdsl.dialects import vector

    if not isinstance(shaped, builtin.MemRefType | builtin.TensorType):
        raise b.error(token, f"'{token}' op requires a memref or ranked tensor type")
    if not isinstance(vec, builtin.VectorType):
        raise b.error(token, f"'{token}' op requires a vector type")
    attrs = attrs or {}
    transfer = vector.VectorTransferOperation
    perm = attrs.get("permutation_map")
    if perm is None:
        perm = builtin.AffineMapAttr(transfer.get_transfer_minor_identity_map(shaped, vec))
    elif not isinstance(perm, builtin.AffineMapAttr):
        raise b.error(token, f"'{token}' op permutation_map must be an affine map")
    in_bounds = attrs.get("in_bounds")
    if in_bounds is None:
        in_bounds = ArrayAttr((builtin.BoolAttr.from_bool(False),) * len(perm.data.results))
    mask_value = None
    if mask is not None:
        if isinstance(shaped.element_type, builtin.VectorType):
            raise b.error(mask, "does not support masks with vector element type")
        if vec.get_num_dims() != len(perm.data.results):
            raise b.error(
                token,
                "expected the same rank for the vector and the results of the permutation map",
            )
        mask_value = b.resolve(mask, transfer.infer_transfer_op_mask_type(vec, perm.data))
    return mask_value, perm, in_bounds


def vector_transfer_read(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import vector

    token, source, indices, padding, mask, attrs, shaped, vec = children
    source_value = b.resolve(source, shaped)
    mask_value, perm, in_bounds = transfer_fields(b, token, attrs, shaped, vec, mask)
    op = vector.TransferReadOp(
        source=source_value,
        indices=indices,
        padding=b.resolve(padding, shaped.element_type),
        mask=mask_value,
        permutation_map=perm,
        in_bounds=in_bounds,
        result_type=vec,
    )
    return b.record(op, token)


def vector_transfer_write(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import vector

    token, value, source, indices, mask, attrs, vec, shaped = children
    operands = (b.resolve(value, vec), b.resolve(source, shaped))
    mask_value, perm, in_bounds = transfer_fields(b, token, attrs, shaped, vec, mask)
    op = vector.TransferWriteOp(
        *operands,
        indices,
        in_bounds,
        mask=mask_value,
        permutation_map=perm,
        result_type=shaped if isinstance(shaped, builtin.TensorType) else None,
    )
    return b.record(op, token)


def cf_case_body(b: IRBuilder, children: list[Any]) -> tuple[Block, list[Any], list[Attribute]]:
    block, uses, types = children
    uses, types = uses or [], types or []
    if len(uses) != len(types):
        raise b.error(None, f"{len(uses)} successor operands but {len(types)} types")
    return (block, b.resolve_all(uses, types), types)


def cf_case(b: IRBuilder, children: list[Any]) -> tuple[Token, Any]:
    return (children[0], children[1])


def cf_switch(b: IRBuilder, children: list[Any]) -> Operation:
    from xdsl.dialects import cf

    token, flag, typ, (default_block, default_operands, _), *cases, attrs = children
    values = None
    if cases:
        if not isinstance(typ, builtin.IntegerType | IndexType):
            raise b.error(token, f"'cf.switch' flag must be an integer or index, got {typ}")
        values = builtin.DenseIntElementsAttr.from_list(
            builtin.VectorType(typ, (len(cases),)), tuple(int(t) for t, _ in cases)
        )
    op = cf.SwitchOp(
        b.resolve(flag, typ),
        default_block,
        default_operands,
        values,
        [body[0] for _, body in cases],
        [body[1] for _, body in cases],
        attrs or {},
    )
    return b.record(op, token)


CALLBACKS = {
    name: fn
    for name, fn in globals().items()
    if callable(fn)
    and getattr(fn, "__module__", None) == __name__
    and name
    not in (
        "attr_array",
        "with_terminator",
        "check_terminators",
        "declare_loop_args",
        "printable_custom",
        "transfer_fields",
    )
}


def printable_custom(op: Operation) -> bool:
    """Whether `op`'s custom printer keeps everything (`op` is one of `UPSTREAM_SYNTAX`'s
    custom ops, so its name says its class).

    cmpi/cmpf drop extra attributes, and xDSL prints a func.func declaration without its
    argument and result attributes; such ops print in the generic form.
    """
    name = op.name
    if name in ("arith.cmpi", "arith.cmpf"):
        return not op.attributes
    if isinstance(op, func.FuncOp) and not op.body.blocks:
        return op.arg_attrs is None and op.res_attrs is None
    if name == "scf.execute_region":
        # xDSL's printer drops the attributes, and the terminators when there is no result
        region = op.regions[0]
        return not op.attributes and (
            bool(op.results)
            or not any(b.last_op and b.last_op.has_trait(IsTerminator) for b in region.blocks)
        )
    if name in ("vector.transfer_read", "vector.transfer_write"):
        from xdsl.dialects import vector

        assert isinstance(op, vector.TransferReadOp | vector.TransferWriteOp)
        # the reader keeps only the permutation map and in_bounds, defaulting both
        source = op.source.type
        vec = op.vector.type if isinstance(op, vector.TransferWriteOp) else op.result.type
        if op.attributes or not isinstance(source, builtin.MemRefType | builtin.TensorType):
            return False
        perm = op.permutation_map.data
        default = vector.VectorTransferOperation.get_transfer_minor_identity_map(source, vec)
        return not perm.is_minor_identity() or perm == default
    if name == "scf.index_switch":
        return "cases" not in op.attributes
    if name == "scf.while":
        from xdsl.dialects import scf

        assert isinstance(op, scf.WhileOp)
        blocks = op.before_region.blocks
        return len(blocks) == 1 and [a.type for a in blocks[0].args] == [
            v.type for v in op.arguments
        ]
    if name == "scf.if" and any(b.args for r in op.regions for b in r.blocks):
        return False  # scf.if's printer drops block arguments
    if name in ("scf.if", "scf.for"):
        return all(len(r.blocks) <= 1 for r in op.regions) and len(op.regions[0].blocks) == 1
    return True


UPSTREAM_SYNTAX = SyntaxExtension.from_file(
    Path(__file__).with_name("upstream.lark"),
    CALLBACKS,
    custom_ops=[
        builtin.ModuleOp,
        func.FuncOp,
        "scf.for",
        "scf.if",
        "arith.cmpi",
        "arith.cmpf",
        "memref.alloc",
        builtin.UnrealizedConversionCastOp,
        "scf.execute_region",
        "scf.while",
        "scf.index_switch",
        "vector.transfer_read",
        "vector.transfer_write",
        "cf.switch",
    ],
    printable=printable_custom,
)
