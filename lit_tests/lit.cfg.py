"""lit configuration of xtvm's golden-text tests (run as `lit lit_tests -v`).

Every tool runs from the Python environment lit itself runs in, so a test uses the xtvm, xDSL and
filecheck installed next to `sys.executable`, wherever that environment lives.
"""

# ruff: noqa: F821  (`config` and `lit_config` are provided by lit)

from __future__ import annotations

import os
import shlex
import sys

import lit.formats

config.name = "xtvm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "Inputs", "Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

repo_root = os.path.dirname(config.test_source_root)
bin_dir = os.path.dirname(sys.executable)

# The tools must find the xtvm of this checkout even when it is not installed in the environment.
python_path = [repo_root]
if os.environ.get("PYTHONPATH"):
    python_path.append(os.environ["PYTHONPATH"])
# Each command names the path itself: lit's built-in `diff` leaves PYTHONPATH pointing at lit's
# own package for the commands after it, which would then import an installed xtvm instead.
with_path = f"env PYTHONPATH={shlex.quote(os.pathsep.join(python_path))}"
python = f"{with_path} {shlex.quote(sys.executable)}"


def tool(name: str, module: str) -> str:
    """The console script `name` next to the running Python, else `python -m module`."""
    script = os.path.join(bin_dir, name)
    if os.path.isfile(script) and os.access(script, os.X_OK):
        return f"{with_path} {shlex.quote(script)}"
    return f"{python} -m {module}"


xtvm_opt = tool("xtvm-opt", "xtvm.tools.opt")
filecheck = tool("filecheck", "filecheck")
xtvm_translate = tool("xtvm-translate", "xtvm.tools.translate")

# lit applies substitutions in order: `%roundtrip` first, so that the tool names it holds are
# expanded by the rules after it. `xtvm-opt` and `filecheck` are matched as whole words only (not
# inside paths or longer names).
config.substitutions.append(
    ("%roundtrip", "xtvm-opt %s --split-input-file | xtvm-opt --split-input-file | filecheck %s")
)
config.substitutions.append(("%python", python))
config.substitutions.append((r"(?<![\w./-])xtvm-opt(?![\w.-])", xtvm_opt))
config.substitutions.append((r"(?<![\w./-])xtvm-translate(?![\w.-])", xtvm_translate))
config.substitutions.append((r"(?<![\w./-])(filecheck|FileCheck)(?![\w.-])", filecheck))

config.environment["PYTHONPATH"] = os.pathsep.join(python_path)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for name in ("HOME", "TMPDIR", "XTVM_CACHE_DIR", "XDG_CACHE_HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

# `REQUIRES: dnnl`: oneDNN's header and library are installed (libdnnl-dev), as the dnnl
# codegen itself checks.
sys.path.insert(0, repo_root)
from xtvm.backends.external.dnnl import unavailable_reason  # noqa: E402

if unavailable_reason() is None:
    config.available_features.add("dnnl")
