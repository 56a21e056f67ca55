"""`relay-inline`: replace calls of functions marked `inline` by their bodies (TVM's Inline).

A function is inlined when it carries a nonzero `inline` attribute, is not recursive, calls
only functions that are inlined themselves, and is not an external codegen's (`compiler`).
An external codegen's function marked `inline` becomes, as in TVM, a function literal at the
call: xtvm's IR holds a literal as a function of its own, named by its `global_symbol` or
`<caller>_lifted` (the API's names), so the call moves to such a copy.
Functions are processed callees first; an inlined function nobody calls any more is erased,
unless nothing called it to begin with (an entry such as @main stays).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


def callees(function: func.FuncOp) -> set[str]:
    return {
        call.callee.root_reference.data for call in function.walk() if isinstance(call, func.CallOp)
    }


def is_marked(function: func.FuncOp) -> bool:
    mark = function.attributes.get("inline")
    return isinstance(mark, UnitAttr) or (isinstance(mark, IntegerAttr) and mark.value.data != 0)


def reaches(graph: Mapping[str, set[str]], start: str, goal: str) -> bool:
    """Whether `goal` is reachable from `start` by one call or more."""
    seen: set[str] = set()
    stack = list(graph.get(start, ()))
    while stack:
        name = stack.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(graph.get(name, ()))
    return False


def inline_call(call: func.CallOp, callee: func.FuncOp) -> None:
    """Put a copy of `callee`'s body in place of `call`, its parameters bound to the operands."""
    body = callee.body.clone()
    block = body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    binding: dict[SSAValue, SSAValue] = dict(zip(block.args, call.operands, strict=True))
    results = [binding.get(v, v) for v in ret.operands]  # a parameter may be returned as is
    block.erase_op(ret, safe_erase=False)
    for arg, operand in binding.items():
        arg.replace_all_uses_with(operand)
    for op in list(block.ops):
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(call))
    for old, new in zip(call.results, results, strict=True):
        old.replace_all_uses_with(new)
    call.detach()
    call.erase()


@dataclass(frozen=True)
class RelayInlinePass(ModulePass):
    """Inline the calls of functions marked `inline`, callees first, and drop them when unused.

    `func.call @g(%x)` of `func.func @g(%a) attributes {inline = 1}` becomes @g's ops on %x.
    """

    name = "relay-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        graph = {name: callees(f) & functions.keys() for name, f in functions.items()}
        called = set().union(*graph.values()) if graph else set()
        recursive = {name for name in functions if reaches(graph, name, name)}
        verdicts: dict[str, bool] = {}

        def can_inline(name: str) -> bool:
            if name not in verdicts:
                verdicts[name] = False  # a cycle is never inlined
                f = functions[name]
                verdicts[name] = (
                    name not in recursive
                    and is_marked(f)
                    and "compiler" not in f.attributes
                    and bool(f.body.blocks)
                    and all(
                        can_inline(c)
                        or is_external_literal(functions[c], recursive, graph, can_inline)
                        for c in graph[name]
                    )
                )
            return verdicts[name]

        taken = set(functions)

        def literal_copy(caller: str, callee: func.FuncOp) -> str:
            """A copy of `callee` named as the API names the literal it stands for: its
            `global_symbol`, else `<caller>_lifted` (a function already named by its symbol
            is that literal's outlined form, and is called as it is)."""
            symbol = callee.attributes.get("global_symbol")
            base = symbol.data if isinstance(symbol, StringAttr) else f"{caller}_lifted"
            if base == callee.sym_name.data:
                return base
            unique, n = base, 0
            while unique in taken:
                n += 1
                unique = f"{base}_{n}"
            taken.add(unique)
            copy = callee.clone()
            copy.sym_name = StringAttr(unique)
            op.body.block.insert_op_before(copy, functions[caller])
            copies[unique] = (caller, callee)
            return unique

        copies: dict[str, tuple[str, func.FuncOp]] = {}  # literal copy -> (caller, original)
        for name in post_order(graph):
            for call in [c for c in functions[name].walk() if isinstance(c, func.CallOp)]:
                target = call.callee.root_reference.data
                if target not in functions:
                    continue
                if can_inline(target):
                    inline_call(call, functions[target])
                elif is_external_literal(functions[target], recursive, graph, can_inline):
                    # TVM inlines an external codegen's function as a function literal, which
                    # xtvm's IR holds as a function of its own, named for its caller
                    call.callee = SymbolRefAttr(literal_copy(name, functions[target]))
            # a literal that an inlined body brought along is now this function's literal
            for call in [c for c in functions[name].walk() if isinstance(c, func.CallOp)]:
                target = call.callee.root_reference.data
                if target in copies and copies[target][0] != name:
                    call.callee = SymbolRefAttr(literal_copy(name, copies[target][1]))
        every = [f for f in op.ops if isinstance(f, func.FuncOp)]
        still_called = set().union(*(callees(f) for f in every)) if every else set()
        for name, f in functions.items():
            inlined = can_inline(name) or is_external_literal(f, recursive, graph, can_inline)
            if inlined and name in called and name not in still_called:
                op.body.block.erase_op(f)
        # a literal left behind in a function inlined elsewhere (and erased) goes too
        every = [f for f in op.ops if isinstance(f, func.FuncOp)]
        still_called = set().union(*(callees(f) for f in every)) if every else set()
        for f in every:
            if f.sym_name.data in copies and f.sym_name.data not in still_called:
                op.body.block.erase_op(f)


def is_external_literal(
    f: func.FuncOp,
    recursive: set[str],
    graph: Mapping[str, set[str]],
    can_inline: Callable[[str], bool],
) -> bool:
    """An external codegen's function (`compiler`) marked `inline`: TVM puts it in place as a
    function literal rather than splicing its body."""
    name = f.sym_name.data
    return (
        "compiler" in f.attributes
        and is_marked(f)
        and name not in recursive
        and bool(f.body.blocks)
        and all(can_inline(c) for c in graph[name])
    )


def post_order(graph: Mapping[str, set[str]]) -> list[str]:
    """Every function after the functions it calls (cycles broken where first met)."""
    order: list[str] = []
    seen: set[str] = set()
    for root in graph:
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:
            name, done = stack.pop()
            if done:
                order.append(name)
                continue
            if name in seen:
                continue
            seen.add(name)
            stack.append((name, True))
            stack.extend((c, False) for c in sorted(graph[name]) if c not in seen)
    return order
