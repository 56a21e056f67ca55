"""What every xtvm command-line tool does with errors: user errors are one located message and
exit 1, an interrupt exits 130, a bug is `internal error:` and exit 2 (traceback with --debug).

The work runs on a thread with a large stack and a high recursion limit: the parser, verifier,
printer and passes recurse once per level of nesting, so deeply nested input is processed, and
input nested deeper still is a located "nested too deeply" error rather than a crash.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import traceback
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar

from xtvm.ir.diagnostics import DiagnosticError, Location, SourceFile

if TYPE_CHECKING:
    import numpy as np


class InputFileError(Exception):
    """A file given to a tool cannot be read as what it should be; the message names it."""


def decode_text(data: bytes, name: str) -> str:
    """`data` as UTF-8, or InputFileError at the line and column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputFileError(
            f"{name}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x})"
        ) from None


def read_text(path: str | Path) -> str:
    """The UTF-8 text of a source file, or InputFileError naming it."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputFileError(f"cannot open input file '{path}': {exc.strerror}") from None
    return decode_text(data, str(path))


def with_source(exc: DiagnosticError, source: SourceFile) -> DiagnosticError:
    """`exc` with its diagnostics in `source`'s file showing their source line (passes know
    the file name only)."""
    for d in exc.diagnostics:
        if d.location is not None and d.location.filename == source.name:
            d.location = Location(source, d.location.line, d.location.column)
    return exc


def first_line(exc: Exception) -> str:
    """The first line of numpy's message (its advice to allow pickles is not for a tool user)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def check_npy(stream: BinaryIO, size: int) -> None:
    """Refuse an `.npy` stream whose header declares more (or less) data than it holds, before
    numpy allocates the declared shape, and arrays of Python objects."""
    import numpy as np

    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
    if dtype.hasobject:
        raise ValueError("holds Python objects, not numbers")
    needed = math.prod(shape) * dtype.itemsize
    held = size - stream.tell()
    if needed != held:
        raise ValueError(
            f"its header declares {dtype}{list(shape)} ({needed} bytes) but it holds {held}"
        )


def load_npy(path: str | Path, what: str) -> np.ndarray:
    """One array from a `.npy` file (never a pickle), or InputFileError naming `what` and it."""
    import numpy as np

    try:
        with open(path, "rb") as stream:
            if stream.read(6) == np.lib.format.MAGIC_PREFIX:
                stream.seek(0)
                check_npy(stream, Path(path).stat().st_size)
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise InputFileError(f"cannot read {what} from '{path}': no such file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise InputFileError(f"cannot read {what} from '{path}': {first_line(exc)}") from None
    if not isinstance(value, np.ndarray):
        value.close()
        raise InputFileError(f"cannot read {what} from '{path}': not a .npy file (an .npz?)")
    return value


def load_npz(path: str | Path, what: str) -> dict[str, np.ndarray]:
    """The arrays of an `.npz` file by name (never pickles), or InputFileError naming it."""
    import numpy as np

    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.filename.endswith(".npy"):
                    with archive.open(info) as stream:
                        try:
                            check_npy(stream, info.file_size)
                        except ValueError as exc:
                            raise ValueError(f"array '{info.filename[:-4]}' {exc}") from None
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise InputFileError(f"cannot read {what} from '{path}': no such file") from None
    except zipfile.BadZipFile:
        raise InputFileError(f"cannot read {what} from '{path}': not an .npz archive") from None
    except (OSError, ValueError, EOFError, zlib.error) as exc:
        raise InputFileError(f"cannot read {what} from '{path}': {first_line(exc)}") from None


T = TypeVar("T")

STACK_BYTES = 1 << 30
RECURSION_LIMIT = 100_000


def call_with_deep_stack(work: Callable[[], T]) -> T:
    """`work()` on a thread with a 1 GiB stack (reserved, not used) and a recursion limit of
    100000, restoring the caller's limit afterwards; exceptions propagate to the caller."""
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as exc:
            errors.append(exc)

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size(STACK_BYTES)
    try:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
    finally:
        threading.stack_size(old_size)
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if errors:
        raise errors[0]
    return results[0]


def run_tool(
    prog: str,
    run: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    user_errors: tuple[type[Exception], ...] = (),
) -> int:
    """`run(args)`, reporting the errors a user can cause as such and the rest as bugs."""
    try:
        return call_with_deep_stack(lambda: run(args))
    except DiagnosticError as exc:
        sys.stderr.write(exc.render() + "\n")
        return 1
    except (InputFileError, *user_errors) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 1
    except RecursionError as exc:
        from xtvm.ir.verify import failure_error

        sys.stderr.write(failure_error(exc, "cannot process the input", {}).render() + "\n")
        return 1
    except BrokenPipeError:
        # The reader went away (`xtvm-opt big.mlir | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        sys.stderr.write(f"{prog}: error: {exc.strerror}: {exc.filename}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from xtvm.ir.verify import op_location, operation_in_flight

        op = operation_in_flight(exc)
        location = op_location(op, {}) if op is not None else None
        at = (
            f" (while processing '{op.name}' at {location.filename}:{location.line})"
            if op is not None and location is not None
            else ""
        )
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}{at}\n")
        if getattr(args, "debug", False):
            traceback.print_exception(exc)
        else:
            sys.stderr.write("(run with --debug for a traceback)\n")
        return 2
