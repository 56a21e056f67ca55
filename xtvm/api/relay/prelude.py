"""`relay.prelude.Prelude`: a module with xtvm's Relay prelude (std/prelude.rly) loaded, its
types, constructors and functions as attributes, as TVM's Prelude names them
(`p.mod.get_type("List")`, `p.map`, `p.length`, ...). TVM's tensor-array operations are not
provided."""

from __future__ import annotations

from xtvm.api.ir_module import IRModule
from xtvm.api.relay.adt import Constructor
from xtvm.api.relay.ty import GlobalTypeVar

GLOBAL_DEFS = (
    "id",
    "compose",
    "flip",
    "hd",
    "tl",
    "nth",
    "update",
    "map",
    "foldl",
    "foldr",
    "foldr1",
    "concat",
    "filter",
    "zip",
    "rev",
    "map_accuml",
    "map_accumr",
    "unfoldl",
    "unfoldr",
    "sum",
    "length",
    "tmap",
    "size",
    "iterate",
)


class Prelude:
    """The prelude's definitions, loaded into `mod` (a new module if none is given)."""

    def __init__(self, mod: IRModule | None = None) -> None:
        self.mod = mod if mod is not None else IRModule()
        self.load_prelude()

    def load_prelude(self) -> None:
        self.mod.import_from_std("prelude.rly")
        for name in GLOBAL_DEFS:
            setattr(self, name, self.mod.get_global_var(name))
        self.l, self.cons, self.nil = self.mod.get_type("List")
        self.optional, self.some, self.none = self.mod.get_type("Option")
        self.tree, self.rose = self.mod.get_type("Tree")

    def get_type(self, canonical: str, dtype: str | None = None) -> GlobalTypeVar:
        """The type named `canonical` (TVM's typed tensor-array names are not provided)."""
        if dtype is not None:
            raise NotImplementedError("Prelude: tensor-array types are not provided")
        return self.mod.get_global_type_var(canonical)

    def get_ctor(self, ty_name: str, canonical: str, dtype: str | None = None) -> Constructor:
        if dtype is not None:
            raise NotImplementedError("Prelude: tensor-array constructors are not provided")
        for item in self.mod.get_type(ty_name)[1:]:
            if isinstance(item, Constructor) and item.name_hint == canonical:
                return item
        raise ValueError(f"type {ty_name} has no constructor {canonical}")
