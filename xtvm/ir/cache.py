"""The per-user cache directory: files that only their owner could have written.

Cached files are read back by whoever runs the tools, so a file another user could plant (a
fixed name under a shared temporary directory) must never be trusted. The directory is
`$XTVM_CACHE_DIR` if set, else `$XDG_CACHE_HOME/xtvm`, else `~/.cache/xtvm`; it is created with
mode 0700 and used only while it is owned by the current user and not writable by group or
others. Files are opened relative to the checked directory's descriptor, without following
links, checked the same way, and written atomically (a private temporary file renamed into
place), so a reader never sees a half-written entry. Nothing here deserializes: callers store
plain bytes (JSON, raw data) and validate what they read back.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

# Bits that would let someone other than the owner create, replace or edit an entry.
UNSAFE_MODE = stat.S_IWGRP | stat.S_IWOTH


def cache_dir() -> Path:
    """Where the cache lives (whether or not it exists or is trusted)."""
    explicit = os.environ.get("XTVM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "xtvm"
    return Path.home() / ".cache" / "xtvm"


def current_uid() -> int | None:
    """The user the cache must belong to (None where the platform has no owners)."""
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


def trusted(info: os.stat_result) -> bool:
    """Whether a cache directory or file with this status can only have been written by us."""
    uid = current_uid()
    return (uid is None or info.st_uid == uid) and not info.st_mode & UNSAFE_MODE


@contextmanager
def open_dir(create: bool) -> Iterator[int | None]:
    """A descriptor of the cache directory if it is trusted (None otherwise); closed on exit."""
    try:
        path = cache_dir()
    except RuntimeError:  # no home directory to be found
        yield None
        return
    if create:
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            yield None
            return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield None
        return
    try:
        info = os.fstat(fd)
        yield fd if stat.S_ISDIR(info.st_mode) and trusted(info) else None
    finally:
        os.close(fd)


def read(name: str) -> bytes | None:
    """The bytes of cache entry `name`, or None when it is absent or not trusted."""
    with open_dir(create=False) as dir_fd:
        if dir_fd is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode) or not trusted(info):
                return None
            return file.read()


def write(name: str, data: bytes) -> Path | None:
    """Store `data` as entry `name` atomically; its path, or None where no trusted cache exists.

    Failures (a read-only home, a full disk) only lose the cache, so they are not errors.
    """
    with open_dir(create=True) as dir_fd:
        if dir_fd is None:
            return None
        partial = f".{name}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            fd = os.open(partial, flags, 0o600, dir_fd=dir_fd)
        except OSError:
            return None
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(partial, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError:
            with suppress(OSError):
                os.unlink(partial, dir_fd=dir_fd)
            return None
        return cache_dir() / name


def source_stamp(path: str | Path) -> bytes:
    """What stands for a source file's content in a cache key: its path, size and time of last
    change, as Python's own `.pyc` files do (no need to read it). Raises OSError if absent."""
    info = os.stat(path)
    return f"{os.path.abspath(path)}:{info.st_size}:{info.st_mtime_ns}\n".encode()
