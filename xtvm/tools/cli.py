"""What every xtvm command-line tool does with errors: user errors are one located message and
exit 1, an interrupt exits 130, a bug is `internal error:` and exit 2 (traceback with --debug)."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable

from xtvm.ir.diagnostics import DiagnosticError


def run_tool(
    prog: str,
    run: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    user_errors: tuple[type[Exception], ...] = (),
) -> int:
    """`run(args)`, reporting the errors a user can cause as such and the rest as bugs."""
    try:
        return run(args)
    except DiagnosticError as exc:
        sys.stderr.write(exc.render() + "\n")
        return 1
    except user_errors as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"{prog}: error: {exc.strerror}: {exc.filename}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
        if getattr(args, "debug", False):
            traceback.print_exc()
        else:
            sys.stderr.write("(run with --debug for a traceback)\n")
        return 2
