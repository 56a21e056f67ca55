"""relay-print-dot: draw each public relay function as a Graphviz DOT graph.

A `func.call` to a fused (`primitive`) or partitioned (`compiler`) function is drawn as a
cluster holding the callee's ops, so fusion and partitioning can be seen at a glance. The IR is
left unchanged; the graph goes to stderr (as MLIR's -view-op-graph does) or to `output`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass

from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.verify import refuse_multiple_blocks


def type_label(typ: Attribute) -> str:
    if isinstance(typ, TensorType):
        dims = "x".join(str(d) for d in typ.get_shape())
        return f"{dims}x{typ.get_element_type()}" if dims else str(typ.get_element_type())
    return str(typ)


def quote(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


@dataclass
class DotWriter:
    """Numbers nodes and emits the DOT lines of one function, inlining outlined callees."""

    functions: dict[str, func.FuncOp]
    lines: list[str] = field(default_factory=list)
    nodes: dict[SSAValue, str] = field(default_factory=dict)
    count: int = 0
    clusters: int = 0

    def node(self, label: str, shape: str = "box") -> str:
        self.count += 1
        name = f"n{self.count}"
        self.lines.append(f"  {name} [label={quote(label)}, shape={shape}];")
        return name

    def edge(self, value: SSAValue, target: str) -> None:
        source = self.nodes.get(value)
        if source is not None:
            self.lines.append(f"  {source} -> {target};")

    def body(self, function: func.FuncOp, bound: dict[SSAValue, str]) -> list[str]:
        """Draw the ops of `function`; `bound` maps its arguments to nodes. Returns outputs."""
        self.nodes.update(zip(function.body.block.args, bound.values(), strict=True))
        outputs: list[str] = []
        for op in function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                outputs = [self.nodes.get(v, "") for v in op.arguments]
                continue
            if isinstance(op, func.CallOp):
                callee = self.functions.get(op.callee.root_reference.data)
                if callee is not None and (
                    "primitive" in callee.attributes or "compiler" in callee.attributes
                ):
                    self.cluster(op, callee)
                    continue
            label = op.name.removeprefix("relay.")
            if op.results:
                label += "\\n" + ", ".join(type_label(r.type) for r in op.results)
            target = self.node(label)
            for operand in op.operands:
                self.edge(operand, target)
            for result in op.results:
                self.nodes[result] = target
        return outputs

    def cluster(self, call: func.CallOp, callee: func.FuncOp) -> None:
        self.clusters += 1
        compiler = callee.attributes.get("compiler")
        title = callee.sym_name.data
        if isinstance(compiler, StringAttr):
            title += f" [{compiler.data}]"
        self.lines.append(f"  subgraph cluster_{self.clusters} {{")
        self.lines.append(f"  label={quote(title)}; style=rounded; color=blue;")
        entries = {}
        for arg, operand in zip(callee.body.block.args, call.arguments, strict=True):
            entry = self.node(f"in\\n{type_label(arg.type)}", shape="point")
            self.edge(operand, entry)
            entries[arg] = entry
        outputs = self.body(callee, entries)
        self.lines.append("  }")
        for result, source in zip(call.results, outputs, strict=False):
            self.nodes[result] = source


def function_dot(function: func.FuncOp, functions: dict[str, func.FuncOp]) -> str:
    writer = DotWriter(functions)
    arguments = {
        arg: writer.node(f"%{arg.name_hint or i}\\n{type_label(arg.type)}", shape="ellipse")
        for i, arg in enumerate(function.body.block.args)
    }
    outputs = writer.body(function, arguments)
    sink = writer.node("return", shape="ellipse")
    for source in outputs:
        if source:
            writer.lines.append(f"  {source} -> {sink};")
    head = f"digraph {quote(function.sym_name.data)} {{\n  rankdir=TB;"
    return "\n".join([head, *writer.lines, "}"]) + "\n"


@dataclass(frozen=True)
class RelayPrintDotPass(ModulePass):
    """Draw each public relay function as a Graphviz DOT graph (fused functions as clusters).

    `relay-print-dot{output=graph.dot}` writes the file; without `output` the graph goes to
    stderr and the IR is printed unchanged.
    """

    name = "relay-print-dot"

    output: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_multiple_blocks(op, f"'{self.name}'")
        functions = {f.sym_name.data: f for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        graphs = [
            function_dot(f, functions)
            for f in functions.values()
            if f.body.blocks and (f.sym_visibility is None or f.sym_visibility.data == "public")
        ]
        text = "".join(graphs)
        if self.output is None:
            sys.stderr.write(text)
            return
        try:
            with open(self.output, "w") as stream:
                stream.write(text)
        except OSError as exc:
            raise DiagnosticError.at(
                None, f"relay-print-dot cannot write '{self.output}': {exc.strerror}"
            ) from None
