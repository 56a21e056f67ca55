"""TVM's `tvm.contrib.utils`: `tempdir()`, a temporary directory removed when it goes."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path


class TempDirectory:
    """A temporary directory; `relpath(name)` is a path inside it."""

    def __init__(self, custom_path: str | None = None) -> None:
        if custom_path is not None:
            Path(custom_path).mkdir(parents=True, exist_ok=True)
            self.temp_dir = str(Path(custom_path).resolve())
            self.owned = False
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="xtvm-")
            self.owned = True

    def relpath(self, name: str) -> str:
        return str(Path(self.temp_dir) / name)

    def listdir(self) -> list[str]:
        return sorted(p.name for p in Path(self.temp_dir).iterdir())

    def remove(self) -> None:
        if self.owned:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.owned = False

    def __del__(self) -> None:
        self.remove()

    def __enter__(self) -> TempDirectory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def tempdir(custom_path: str | None = None) -> TempDirectory:
    """A new temporary directory (removed with the object), or `custom_path` (kept)."""
    return TempDirectory(custom_path)
