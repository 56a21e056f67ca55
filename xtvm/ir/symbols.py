"""Names that generated code defines or calls, checked once for every backend.

IR symbol names may hold any character (`@"..."`), but a backend writes them verbatim into C,
CUDA C, assembly and LLVM IR, names files after them, and the runtime resolves them with
`dlsym`; a name holding C (`f(){} __attribute__((constructor)) void g(){...} void h`) would run
that code when the build loads its library. So every name that reaches generated code must be a
C identifier that is not a keyword: `check_symbol` refuses any other with a located error
naming the op at fault, before anything is written or compiled. Strings that are data, not
names, go through `c_string_literal`, which escapes every byte outside printable ASCII.
"""

from __future__ import annotations

import json
import re

from xdsl.ir import Operation

from xtvm.ir.diagnostics import DiagnosticError
from xtvm.ir.verify import located_error

C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# C99/C11 and GNU keywords, and the C++ ones CUDA C (compiled as C++) adds.
KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof
    _Atomic _Generic _Noreturn _Static_assert _Thread_local asm typeof bool true false
    alignas alignof and and_eq bitand bitor catch char16_t char32_t class compl concept
    const_cast constexpr decltype delete dynamic_cast explicit export friend mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    reinterpret_cast requires static_assert static_cast template this thread_local throw try
    typeid typename using virtual wchar_t xor xor_eq""".split()
)

# What generated code itself defines (`xtvm_module_metadata`, `xtvm_release_buffers`, the AOT
# entry points...) and the C library and OpenMP functions it calls: a module function of one of
# these names would collide with them or be called in their stead.
RESERVED_PREFIX = "xtvm_"
_MATH = """acos asin atan atan2 acosh asinh atanh cbrt ceil copysign cos cosh erf erfc exp exp2
    expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ldexp lgamma log log10 log1p log2 logb
    lrint lround modf nearbyint nextafter pow remainder rint round scalbn sin sinh sqrt tan tanh
    tgamma trunc""".split()
LIBRARY_FUNCTIONS = frozenset(
    [
        *_MATH,
        *(f + "f" for f in _MATH),
        "abort",
        "aligned_alloc",
        "calloc",
        "free",
        "malloc",
        "memcpy",
        "memmove",
        "memset",
        "posix_memalign",
        "realloc",
        "GOMP_parallel",
        "omp_get_num_threads",
        "omp_get_thread_num",
    ]
)

SHOWN_CHARACTERS = 60


def quoted(name: str) -> str:
    """`name` for a message: escaped (no control characters reach a terminal) and shortened."""
    shown = name if len(name) <= SHOWN_CHARACTERS else name[:SHOWN_CHARACTERS] + "..."
    return json.dumps(shown)


def symbol_error(name: str, what: str, defined: bool = False) -> str | None:
    """Why `name` cannot be `what` (e.g. "function name") in generated code; None if it can.

    A `defined` name (a module's own function) must also keep clear of what generated code
    defines and calls itself."""
    if not C_IDENTIFIER.fullmatch(name):
        return (
            f"{what} {quoted(name)} is not a C identifier (ASCII letters, digits and '_', not "
            "starting with a digit), so it cannot be a symbol of generated code"
        )
    if name in KEYWORDS:
        return f"{what} {quoted(name)} is a C keyword, so it cannot be a symbol of generated code"
    if defined and name.startswith(RESERVED_PREFIX):
        return f"{what} {quoted(name)}: names starting with '{RESERVED_PREFIX}' are xtvm's own"
    if defined and name in LIBRARY_FUNCTIONS:
        return f"{what} {quoted(name)} is a C library function that generated code calls"
    return None


def check_symbol(
    name: str,
    what: str,
    where: Operation | None,
    error: type[DiagnosticError] = DiagnosticError,
    defined: bool = False,
) -> str:
    """`name` if it can be a symbol of generated code; else an `error` located at `where`
    (or naming `what` alone when there is no op)."""
    message = symbol_error(name, what, defined)
    if message is None:
        return name
    if where is None:
        raise error.at(None, message)
    raise error(located_error(where, message).diagnostics)


def c_string_literal(text: str) -> str:
    """`text` as a C string literal: printable ASCII as is, every other byte (of its UTF-8) as
    an octal escape, so nothing in it can end the literal or the line."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F and char != "?":  # `?` too: no trigraphs in any C mode
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
