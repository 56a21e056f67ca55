"""TVM's `relay.qnn.transform`: `Legalize` and `CanonicalizeOps` rewrite the quantized ops into
ordinary relay ops (one xtvm pass, relay-qnn-canonicalize, does both)."""

from xtvm.api.relay.transform import RelayPass, _pass
from xtvm.api.transform import Pass


def CanonicalizeOps() -> Pass:
    return RelayPass("qnn.CanonicalizeOps", 0, _pass("relay-qnn-canonicalize"))


def Legalize() -> Pass:
    return RelayPass("qnn.Legalize", 0, _pass("relay-qnn-canonicalize"))


__all__ = ["CanonicalizeOps", "Legalize"]
