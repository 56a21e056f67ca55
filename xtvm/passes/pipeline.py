"""Pass pipelines: parse `a{opt=1},b` against the registry, with located, suggesting errors."""

from __future__ import annotations

import difflib
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpecParseError, parse_pipeline

from xtvm.ir.diagnostics import DiagnosticError
from xtvm.passes import PassLoader


def did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return "; known: " + ", ".join(sorted(known))


def option_fields(pass_type: type[ModulePass]) -> list[tuple[str, str, str]]:
    """(option name in kebab-case, type, default) for each option of a pass."""
    hints = typing.get_type_hints(pass_type)
    rows = []
    for f in fields(pass_type):
        if f.name == "name":
            continue
        if f.default is not MISSING:
            default = repr(f.default)
        elif f.default_factory is not MISSING:
            default = repr(f.default_factory())
        else:
            default = "required"
        hint = hints.get(f.name, f.type)
        type_name = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
        rows.append((f.name.replace("_", "-"), type_name, default))
    return rows


def parse_passes(spec: str, registry: Mapping[str, PassLoader]) -> list[ModulePass]:
    """Instantiate the passes of a pipeline string; errors name the closest known passes."""
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as exc:
        raise DiagnosticError.at(None, f"malformed pass pipeline '{spec}': {exc}") from None
    passes: list[ModulePass] = []
    known = sorted(registry)
    for pass_spec in specs:
        loader = registry.get(pass_spec.name)
        if loader is None:
            raise DiagnosticError.at(
                None, f"unknown pass '{pass_spec.name}'" + did_you_mean(pass_spec.name, known)
            )
        pass_type = loader()
        options = [name for name, _, _ in option_fields(pass_type)]
        for given in pass_spec.parameters:
            if given.replace("_", "-") not in options:
                hint = did_you_mean(given, options) if options else "; it takes no options"
                raise DiagnosticError.at(
                    None, f"unknown option '{given}' for pass '{pass_spec.name}'{hint}"
                )
        try:
            passes.append(pass_type.from_pass_spec(pass_spec))
        except Exception as exc:
            raise DiagnosticError.at(
                None, f"invalid options for pass '{pass_spec.name}': {exc}"
            ) from None
    return passes
