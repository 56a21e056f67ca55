"""Custom syntax for the llvm dialect's ops whose xDSL printers are hand-written.

The rules live in upstream_llvm.lark; each callback builds its op with the op's own xDSL
constructor, as the op's xDSL `parse` does, so both readers give the same IR. Ops whose printer
drops a field print in the generic form where that field is set; see `printable_llvm`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Token
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TypedAttribute,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from xtvm.ir.context import SyntaxExtension
from xtvm.ir.parser import IRBuilder, decode_string, symbol_name
from xtvm.ir.upstream import attr_array, func_head

BINOPS: tuple[type[Operation], ...] = (
    llvm.AddOp,
    llvm.SubOp,
    llvm.MulOp,
    llvm.ShlOp,
    llvm.UDivOp,
    llvm.SDivOp,
    llvm.URemOp,
    llvm.SRemOp,
    llvm.AndOp,
    llvm.XOrOp,
    llvm.LShrOp,
    llvm.AShrOp,
)
OPS: dict[str, type[Operation]] = {
    op.name: op
    for op in (
        *BINOPS,
        llvm.ICmpOp,
        llvm.FCmpOp,
        llvm.SExtOp,
        llvm.TruncOp,
        llvm.LoadOp,
        llvm.StoreOp,
        llvm.ConstantOp,
        llvm.ExtractValueOp,
        llvm.InsertValueOp,
        llvm.AllocaOp,
        llvm.GEPOp,
        llvm.InlineAsmOp,
        llvm.GlobalOp,
        llvm.FuncOp,
        llvm.CallOp,
    )
}


def overflow(b: IRBuilder, token: Token, body: str | None) -> llvm.OverflowAttr:
    if body is None:
        return llvm.OverflowAttr("none")
    try:
        return llvm.OverflowAttr(llvm.OverflowAttr.parse_parameter(b.xdsl_parser(body)))
    except Exception as exc:
        raise b.error(token, f"invalid overflow flags '{body}': {exc}") from None


def built(b: IRBuilder, token: Token, make: Any, *args: Any, **kwargs: Any) -> Operation:
    """`make(*args, **kwargs)` located at `token`; constructor errors become diagnostics."""
    try:
        op = make(*args, **kwargs)
    except (VerifyException, ValueError, TypeError, KeyError) as exc:
        raise b.error(token, f"'{token}' op {exc}") from None
    return b.record(op, token)


def llvm_binop(b: IRBuilder, children: list[Any]) -> Operation:
    token, exact, lhs, rhs, overflow_kw, flags, attrs, typ = children
    op_type = OPS[str(token)]
    operands = (b.resolve(lhs, typ), b.resolve(rhs, typ), attrs or {})
    if issubclass(op_type, llvm.ArithmeticBinOpExact):
        if overflow_kw is not None:
            raise b.error(overflow_kw, f"'{token}' has no overflow flags")
        return built(b, token, op_type, *operands, UnitAttr() if exact else None)
    if exact is not None:
        raise b.error(exact, f"'{token}' has no exact flag")
    if issubclass(op_type, llvm.ArithmeticBinOpOverflow):
        return built(b, token, op_type, *operands, overflow(b, token, flags))
    if overflow_kw is not None:
        raise b.error(overflow_kw, f"'{token}' has no overflow flags")
    return built(b, token, op_type, *operands)


def llvm_cmp(b: IRBuilder, children: list[Any]) -> Operation:
    token, predicate, lhs, rhs, attrs, typ = children
    flags = llvm.ICmpPredicateFlag if str(token) == "llvm.icmp" else llvm.FCmpPredicateFlag
    name = decode_string(predicate)
    if name not in {f.value for f in flags}:
        raise b.error(predicate, f"unknown predicate '{name}' for '{token}'")
    value = IntegerAttr(flags(name).to_int(), i64)
    operands = (b.resolve(lhs, typ), b.resolve(rhs, typ))
    return built(b, token, OPS[str(token)], *operands, value, attrs or {})


def llvm_int_cast(b: IRBuilder, children: list[Any]) -> Operation:
    token, arg, overflow_kw, flags, attrs, arg_type, res_type = children
    value = b.resolve(arg, arg_type)
    if str(token) == "llvm.trunc":
        flags_attr = overflow(b, token, flags)
        return built(b, token, llvm.TruncOp, value, res_type, attrs or {}, flags_attr)
    if overflow_kw is not None:
        raise b.error(overflow_kw, f"'{token}' has no overflow flags")
    return built(b, token, llvm.SExtOp, value, res_type, attrs or {})


def alignment(b: IRBuilder, token: Token, attrs: dict[str, Attribute]) -> int | None:
    align = attrs.pop("alignment", None)
    if align is None:
        return None
    if not isinstance(align, IntegerAttr):
        raise b.error(token, f"'{token}' op alignment must be an integer, got {align}")
    return align.value.data


def llvm_load(b: IRBuilder, children: list[Any]) -> Operation:
    token, ptr, _atomic, ordering_kw, attrs, ptr_type, res_type = children
    attrs = dict(attrs or {})
    ordering = 0
    if ordering_kw is not None:
        names = {k: v for v, k in llvm.ATOMIC_ORDERING_KEYWORDS.items()}
        if str(ordering_kw) not in names:
            raise b.error(ordering_kw, f"unknown atomic ordering '{ordering_kw}'")
        ordering = names[str(ordering_kw)]
    align = alignment(b, token, attrs)
    value = b.resolve(ptr, ptr_type)
    op = built(b, token, llvm.LoadOp, value, res_type, alignment=align, ordering=ordering)
    op.attributes |= attrs
    return op


def llvm_store(b: IRBuilder, children: list[Any]) -> Operation:
    token, volatile, value, ptr, attrs, value_type, ptr_type = children
    attrs = dict(attrs or {})
    align = alignment(b, token, attrs)
    nontemporal = attrs.pop("nontemporal", None) is not None
    operands = (b.resolve(value, value_type), b.resolve(ptr, ptr_type))
    op = built(
        b,
        token,
        llvm.StoreOp,
        *operands,
        alignment=align,
        volatile=volatile is not None,
        nontemporal=nontemporal,
    )
    op.attributes |= attrs
    return op


def llvm_constant(b: IRBuilder, children: list[Any]) -> Operation:
    token, value, typ = children
    return built(b, token, llvm.ConstantOp, value, typ)


def element_type(b: IRBuilder, token: Token, container: Attribute, indices: list[int]) -> Attribute:
    typ = container
    for index in indices:
        if isinstance(typ, llvm.LLVMArrayType):
            typ = typ.type
        elif isinstance(typ, llvm.LLVMStructType) and 0 <= index < len(typ.types.data):
            typ = typ.types.data[index]
        else:
            raise b.error(token, f"'{token}' op cannot index {index} into {typ}")
    return typ


def llvm_position(b: IRBuilder, children: list[Token]) -> tuple[Token, list[int]]:
    return (children[0], [int(t) for t in children])


def llvm_extractvalue(b: IRBuilder, children: list[Any]) -> Operation:
    token, container, (_, indices), attrs, typ = children
    res_type = element_type(b, token, typ, indices)
    position = DenseArrayBase.from_list(i64, indices)
    op = built(b, token, llvm.ExtractValueOp, position, b.resolve(container, typ), res_type)
    op.attributes |= attrs or {}
    return op


def llvm_insertvalue(b: IRBuilder, children: list[Any]) -> Operation:
    token, value, container, (_, indices), attrs, typ = children
    value_type = element_type(b, token, typ, indices)
    position = DenseArrayBase.from_list(i64, indices)
    operands = (b.resolve(container, typ), b.resolve(value, value_type))
    op = built(b, token, llvm.InsertValueOp, position, *operands)
    op.attributes |= attrs or {}
    return op


def llvm_alloca(b: IRBuilder, children: list[Any]) -> Operation:
    token, size, elem_type, attrs, fn_type = children
    attrs = dict(attrs or {})
    if len(fn_type.inputs.data) != 1:
        raise b.error(token, "'llvm.alloca' op takes one operand (the element count)")
    props: dict[str, Attribute] = {"elem_type": elem_type}
    align = attrs.pop("alignment", None)
    if align is not None:
        props["alignment"] = align
    return built(
        b,
        token,
        llvm.AllocaOp.create,
        operands=[b.resolve(size, fn_type.inputs.data[0])],
        properties=props,
        result_types=list(fn_type.outputs.data),
        attributes=attrs,
    )


def llvm_gep(b: IRBuilder, children: list[Any]) -> Operation:
    token, inbounds, ptr, *indices, attrs, fn_type, elem_type = children
    indices = [i for i in indices if i is not None]
    uses = [i for i in indices if i.type == "VALUE_ID"]
    inputs = fn_type.inputs.data
    if len(inputs) != 1 + len(uses) or len(fn_type.outputs.data) != 1:
        raise b.error(token, f"'llvm.getelementptr' op type {fn_type} does not match its operands")
    values = b.resolve_all([ptr, *uses], inputs)
    constants = [llvm.GEP_USE_SSA_VAL if i.type == "VALUE_ID" else int(i) for i in indices]
    op = built(
        b,
        token,
        llvm.GEPOp,
        values[0],
        constants,
        elem_type,
        values[1:],
        result_type=fn_type.outputs.data[0],
        inbounds=inbounds is not None,
    )
    op.attributes |= attrs or {}
    return op


def llvm_asm_dialect(b: IRBuilder, children: list[Token]) -> int:
    name = str(children[0])
    if name not in llvm.ASM_DIALECT_KEY_BY_NAME:
        raise b.error(children[0], "expected one of 'att', 'intel' after 'asm_dialect ='")
    return llvm.ASM_DIALECT_KEY_BY_NAME[name]


def llvm_tail_call(b: IRBuilder, children: list[Token]) -> llvm.TailCallKindAttr:
    name = str(children[0])
    if name not in {k.value for k in llvm.TailCallKind}:
        raise b.error(children[0], f"unknown tail call kind '{name}'")
    return llvm.TailCallKindAttr(llvm.TailCallKind(name))


def llvm_inline_asm(b: IRBuilder, children: list[Any]) -> Operation:
    token, side_effects, align_stack, dialect, tail, asm, constraints, uses, attrs, fn_type = (
        children
    )
    uses = uses or []
    if len(uses) != len(fn_type.inputs.data):
        raise b.error(token, f"'llvm.inline_asm' op has {len(uses)} operands but type {fn_type}")
    op = built(
        b,
        token,
        llvm.InlineAsmOp,
        decode_string(asm),
        decode_string(constraints),
        b.resolve_all(uses, fn_type.inputs.data),
        fn_type.outputs.data,
        asm_dialect=dialect,
        has_side_effects=side_effects is not None,
        is_align_stack=align_stack is not None,
        tail_call_kind=tail or llvm.TailCallKindAttr(llvm.TailCallKind.NONE),
    )
    op.attributes |= attrs or {}
    return op


def llvm_words(b: IRBuilder, children: list[Token]) -> list[Token]:
    return children


def take(words: list[Token], options: Any) -> str | None:
    """The first word if it is one of `options` (consumed), else None."""
    if words and str(words[0]) in options:
        return str(words.pop(0))
    return None


def llvm_global(b: IRBuilder, children: list[Any]) -> Operation:
    token, words, symbol, value, attrs, typ, region = children
    words = list(words)
    linkage = take(words, llvm._LINKAGE_OPTIONS) or "external"
    thread_local = take(words, ("thread_local",)) is not None
    unnamed = take(words, llvm.UNNAMED_ADDR_KEY_BY_KEYWORD)
    unnamed_addr = None if unnamed is None else llvm.UNNAMED_ADDR_KEY_BY_KEYWORD[unnamed]
    constant = take(words, ("constant",)) is not None
    if words:
        raise b.error(words[0], f"unexpected '{words[0]}' in 'llvm.mlir.global'")
    if typ is None:
        if isinstance(value, StringAttr):
            typ = llvm.LLVMArrayType(len(value.data), IntegerType(8))
        elif isinstance(value, TypedAttribute):
            typ = value.get_type()
        else:
            raise b.error(token, "expected `:` followed by global type")
    attrs = dict(attrs or {})
    addr_space = attrs.pop("addr_space", IntegerAttr(0, i32))
    align = alignment(b, token, attrs)
    section = attrs.pop("section", None)
    if not isinstance(addr_space, IntegerAttr) or not isinstance(section, StringAttr | None):
        raise b.error(token, "'llvm.mlir.global' op addr_space or section of the wrong kind")
    name = symbol_name(symbol)
    op = built(
        b,
        token,
        llvm.GlobalOp,
        global_type=typ,
        sym_name=name,
        linkage=linkage,
        addr_space=addr_space.value.data,
        constant=constant,
        dso_local=attrs.pop("dso_local", None) is not None,
        thread_local_=thread_local,
        value=value,
        alignment=align,
        unnamed_addr=unnamed_addr,
        section=section,
        body=region,
    )
    op.attributes |= attrs
    return op


def llvm_func_params(b: IRBuilder, children: list[Any]) -> tuple[list[Any], bool]:
    """The parameters, and whether `...` (variadic) ends them."""
    variadic = [i for i, c in enumerate(children) if isinstance(c, Token)]
    if variadic and variadic != [len(children) - 1]:
        raise b.error(children[variadic[0]], "'...' must be the last parameter")
    return (children[: len(children) - len(variadic)], bool(variadic))


def llvm_func_head(b: IRBuilder, children: list[Any]) -> dict[str, Any]:
    token, words, params, results, attrs = children[0], children[1], *children[3:]
    params, variadic = params or ([], False)
    head = func_head(b, [token, None, children[2], params, results, attrs])
    head["variadic"] = variadic
    words = list(words)
    head["linkage"] = take(words, llvm._LINKAGE_OPTIONS) or "external"
    head["cconv"] = take(words, llvm.LLVM_CALLING_CONVS) or "ccc"
    head["visibility"] = {None: 0, "hidden": 1, "protected": 2}[
        take(words, ("hidden", "protected"))
    ]
    head["unnamed_addr"] = {None: 0, "local_unnamed_addr": 1, "unnamed_addr": 2}[
        take(words, ("local_unnamed_addr", "unnamed_addr"))
    ]
    if words:
        raise b.error(words[0], f"unexpected '{words[0]}' in 'llvm.func'")
    reserved = set(head["attrs"]) & set(llvm._FUNC_OP_RESERVED_ATTR_NAMES)
    if reserved:
        raise b.error(token, f"'llvm.func' attributes may not set {sorted(reserved)}")
    return head


def llvm_func(b: IRBuilder, children: list[Any]) -> Operation:
    head, region = children
    token = head["token"]
    if region is None:
        if head["named"]:
            raise b.error(token, "'llvm.func' declaration cannot name its arguments")
        region = Region()
        arg_attrs = None  # a declaration's argument attributes are dropped, as xDSL does
    else:
        if not region.blocks:
            region = Region(Block(arg_types=head["inputs"]))
        arg_attrs = attr_array(head["arg_attrs"])
    outputs = head["outputs"]
    if len(outputs) > 1:
        raise b.error(token, "llvm.func only supports a single return type (or void)")
    output = outputs[0] if outputs else llvm.LLVMVoidType()
    other: dict[str, Attribute | None] = {}
    if arg_attrs:
        other["arg_attrs"] = arg_attrs
    if (res_attrs := attr_array(head["res_attrs"])) is not None:
        other["res_attrs"] = res_attrs
    other["unnamed_addr"] = IntegerAttr(head["unnamed_addr"], 64)
    return built(
        b,
        token,
        llvm.FuncOp,
        sym_name=head["name"],
        function_type=llvm.LLVMFunctionType(head["inputs"], output, head["variadic"]),
        linkage=llvm.LinkageAttr(head["linkage"]),
        cconv=llvm.CallingConventionAttr(head["cconv"]),
        visibility=head["visibility"],
        body=region,
        other_props=other,
        extra_attrs=head["attrs"] or None,
    )


def llvm_call(b: IRBuilder, children: list[Any]) -> Operation:
    token, words, callee, uses, var_type, attrs, ptr_type, fn_type = children
    words = list(words)
    cconv = take(words, llvm.LLVM_CALLING_CONVS - {"ccc"}) or "ccc"
    tail = take(words, {k.value for k in llvm.TailCallKind if k != llvm.TailCallKind.NONE})
    if words:
        raise b.error(words[0], f"unexpected '{words[0]}' in 'llvm.call'")
    operands = []
    props: dict[str, Attribute] = {}
    if callee.type == "SYMBOL":
        if ptr_type is not None:
            raise b.error(token, "'llvm.call' to a symbol takes no callee type")
        name = symbol_name(callee)
        props["callee"] = llvm.SymbolRefAttr(name)
    else:
        if ptr_type is None:
            raise b.error(callee, "'llvm.call' through a pointer needs the pointer's type")
        operands.append(b.resolve(callee, ptr_type))
    uses = uses or []
    if len(uses) != len(fn_type.inputs.data):
        raise b.error(token, f"'llvm.call' has {len(uses)} arguments but type {fn_type}")
    operands += b.resolve_all(uses, fn_type.inputs.data)
    attrs = dict(attrs or {})
    fastmath = attrs.pop("fastmathFlags", llvm.FastMathAttr("none"))
    if not isinstance(fastmath, llvm.FastMathAttr):
        raise b.error(token, f"'llvm.call' fastmathFlags must be #llvm.fastmath, got {fastmath}")
    props |= {
        "fastmathFlags": fastmath,
        "CConv": llvm.CallingConventionAttr(cconv),
        "TailCallKind": llvm.TailCallKindAttr(llvm.TailCallKind(tail or "none")),
        "op_bundle_sizes": DenseArrayBase.from_list(i32, ()),
        "operandSegmentSizes": DenseArrayBase.from_list(i32, [len(operands), 0]),
    }
    # xDSL's reader orders the callee after the other properties
    if "callee" in props:
        props["callee"] = props.pop("callee")
    if var_type is not None:
        props["var_callee_type"] = var_type
    op = built(
        b,
        token,
        llvm.CallOp.create,
        operands=operands,
        properties=props,
        result_types=list(fn_type.outputs.data),
    )
    op.attributes |= attrs
    return op


CALLBACKS = {
    name: fn
    for name, fn in globals().items()
    if name.startswith("llvm_") and callable(fn) and getattr(fn, "__module__", None) == __name__
}


def printable_llvm(op: Operation) -> bool:
    """Whether the custom printer of an llvm op keeps everything it holds."""
    if isinstance(op, llvm.FCmpOp):
        return op.fastmathFlags == llvm.FastMathAttr(None)
    if isinstance(op, llvm.StoreOp):
        return op.ordering is not None and op.ordering.value.data == 0
    if isinstance(op, llvm.ExtractValueOp | llvm.InsertValueOp):
        return "position" not in op.attributes
    if isinstance(op, llvm.ConstantOp):
        value = op.value
        untyped = isinstance(value, IntegerAttr) and op.result.type == i64
        return not op.attributes and (not untyped or value.type == i64)
    if isinstance(op, llvm.GlobalOp):
        # the reader rebuilds these properties from the keywords and the attribute dictionary
        kept = {
            "addr_space": i32,
            "alignment": i64,
            "unnamed_addr": i64,
        }
        for name, typ in kept.items():
            attr = op.properties.get(name)
            if attr is not None and (not isinstance(attr, IntegerAttr) or attr.type != typ):
                return False
        if op.unnamed_addr is not None and op.unnamed_addr.value.data not in (1, 2):
            return False
        return op.visibility_ is None and not (set(op.attributes) & set(op.properties))
    if isinstance(op, llvm.FuncOp):
        # the reader rebuilds only these properties; the printer writes the others among the
        # attributes, which the reader keeps as attributes
        kept = {"sym_name", "function_type", "CConv", "linkage", "visibility_"}
        kept |= {"arg_attrs", "res_attrs", "unnamed_addr"}
        unnamed = op.unnamed_addr
        return (
            set(op.properties) <= kept
            and isinstance(unnamed, IntegerAttr)
            and unnamed.type == i64
            and op.visibility_.type == i64
            and (bool(op.body.blocks) or op.arg_attrs is None)
            and not (set(op.attributes) & set(kept))
        )
    if isinstance(op, llvm.CallOp):
        # the reader sets these properties (and the callee and vararg type) and no others
        needed = {"fastmathFlags", "CConv", "TailCallKind", "op_bundle_sizes"}
        needed.add("operandSegmentSizes")
        extra = set(op.properties) - needed - {"callee", "var_callee_type"}
        return (
            needed <= set(op.properties)
            and not extra
            and not op.op_bundle_operands
            and "fastmathFlags" not in op.attributes
            and (op.callee is None or not op.callee.nested_references.data)
        )
    if isinstance(op, llvm.GEPOp):
        return op.noWrapFlags is None or op.noWrapFlags.value.data == 0
    return True


LLVM_SYNTAX = SyntaxExtension.from_file(
    Path(__file__).with_name("upstream_llvm.lark"),
    CALLBACKS,
    custom_ops=list(OPS.values()),
    printable=printable_llvm,
)
