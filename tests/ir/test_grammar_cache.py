"""The parser cache holds JSON in a per-user directory: nothing planted there, or in the shared
temporary directory the cache used to live in, is ever unpickled or trusted."""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from pathlib import Path

import pytest
from lark.lexer import BasicLexer

from xtvm.dialects.registry import default_context
from xtvm.ir import cache
from xtvm.ir.grammar_cache import CompactLALRParser, LazyStates, cached_lark
from xtvm.ir.printer import print_ir

GRAMMAR = """start: pair+
pair: WORD "=" NUMBER
%import common.WORD
%import common.NUMBER
%ignore " "
"""


class SmallLexer(BasicLexer):
    """lark's basic lexer, given as a lexer class as `IRContext` gives its own."""

    __future_interface__ = 1


class Planted:
    """A pickle that creates `path` when it is unpickled."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.path), "w"))


def planted_pickle(marker: Path) -> bytes:
    """What lark's `cache=` reads: a hash line, then pickles (unpickled before any check)."""
    return b"0" * 64 + b"\n" + pickle.dumps(Planted(marker)) + pickle.dumps(Planted(marker))


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("XTVM_CACHE_DIR", str(root))
    return root


def small_parser() -> object:
    return cached_lark(GRAMMAR, lexer=SmallLexer, maybe_placeholders=True)


def entry(root: Path) -> Path:
    (path,) = root.glob("grammar-*.json")
    return path


def test_entry_is_private_json_and_loads_back(cache_root: Path) -> None:
    built = small_parser()
    # a cache miss parses with the same fast driver as a hit
    assert isinstance(built.parser.parser, CompactLALRParser)
    path = entry(cache_root)
    assert stat.S_IMODE(cache_root.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b'{"format"')
    loaded = small_parser()
    assert isinstance(loaded.parser.parser, CompactLALRParser)
    assert loaded.parse("a = 1 b = 2") == built.parse("a = 1 b = 2")


def test_loaded_parser_decodes_only_the_states_it_enters(cache_root: Path) -> None:
    # Loading stays cheap for a large grammar: a state's actions are decoded on first entry.
    small_parser()
    loaded = small_parser()
    states = loaded.parser.parser._parse_table.states
    assert isinstance(states, LazyStates)
    assert dict.__len__(states) == 0
    loaded.parse("a = 1")
    assert 0 < dict.__len__(states) < len(states)
    assert len(states.items()) == len(states)  # walking the table decodes it all


@pytest.mark.parametrize("content", ["pickle", "truncated", "tampered"])
def test_bad_entry_is_rebuilt_never_executed(
    cache_root: Path, tmp_path: Path, content: str
) -> None:
    small_parser()
    path = entry(cache_root)
    good = path.read_bytes()
    marker = tmp_path / "MARK"
    path.write_bytes(
        {
            "pickle": planted_pickle(marker),
            "truncated": good[: len(good) // 2],
            "tampered": good.replace(b'"NUMBER"', b'"NUMBEX"', 1),
        }[content]
    )
    assert small_parser().parse("a = 1")
    assert not marker.exists()
    assert path.read_bytes().startswith(b'{"format"')
    assert isinstance(small_parser().parser.parser, CompactLALRParser)


@pytest.mark.parametrize("fault", ["group-writable", "other-writable", "foreign-owner"])
def test_untrusted_directory_is_not_used(
    cache_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fault: str
) -> None:
    small_parser()
    path = entry(cache_root)
    marker = tmp_path / "MARK"
    path.write_bytes(planted_pickle(marker))
    if fault == "foreign-owner":
        uid = os.getuid()
        monkeypatch.setattr(cache, "current_uid", lambda: uid + 1)
    else:
        cache_root.chmod(0o770 if fault == "group-writable" else 0o707)
    assert cache.read(path.name) is None
    assert cache.write("probe", b"x") is None
    parser = small_parser()
    assert parser.parse("a = 1")
    assert isinstance(parser.parser.parser, CompactLALRParser)  # built, not read, and fast
    assert not marker.exists()
    assert sorted(p.name for p in cache_root.iterdir()) == [path.name]
    assert path.read_bytes() == planted_pickle(marker)


def test_untrusted_or_linked_entry_is_not_read(cache_root: Path, tmp_path: Path) -> None:
    assert cache.write("entry", b"data") == cache_root / "entry"
    assert cache.read("entry") == b"data"
    (cache_root / "entry").chmod(0o620)
    assert cache.read("entry") is None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"data")
    (cache_root / "link").symlink_to(elsewhere)
    assert cache.read("link") is None


def test_cache_directory_follows_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XTVM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "xtvm"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "xtvm"


def test_pickle_planted_in_the_old_shared_location_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parser cache used to be `$TMPDIR/xtvm-grammar-cache/grammar-<md5>.cache`, a name any
    local user could create first."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.delenv("XTVM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    ctx = default_context()
    text, _ = ctx.grammar()
    old = shared / "xtvm-grammar-cache" / f"grammar-{hashlib.md5(text.encode()).hexdigest()}.cache"
    old.parent.mkdir()
    marker = tmp_path / "MARK"
    old.write_bytes(planted_pickle(marker))

    module = ctx.parse("func.func @f() {\n  func.return\n}\n")

    assert module.ops.first is not None
    assert not marker.exists()
    assert list((tmp_path / "xdg" / "xtvm").glob("grammar-*.json"))


def test_cached_syntax_composes_no_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    # Once the grammar of a dialect set is cached, a tool finds it by the hash of its sources:
    # it composes nothing, and translates the assembly format of an op only when it meets it.
    default_context().parser()
    ctx = default_context()

    def composed(self: object) -> None:
        raise AssertionError("the grammar was composed")

    monkeypatch.setattr(type(ctx), "grammar", composed)
    text = (
        "func.func @f(%a: i32) -> i32 {\n"
        "  %b = arith.addi %a, %a : i32\n"
        "  func.return %b : i32\n"
        "}\n"
    )
    module = ctx.parse(text)
    assert list(ctx._formats) == ["arith.addi", "func.return"]
    printed = print_ir(module, ctx)
    assert "%b = arith.addi %a, %a : i32" in printed
    assert "func.return %b : i32" in printed
