"""LALR parsers built once per grammar and kept, as JSON, in the per-user cache.

lark's own `cache=` option pickles the parser and unpickles whatever file sits at the cache path
before checking it, so a planted file runs code. Here the cache holds lark's `memo_serialize`
data as JSON (its `Serialize` classes rebuild only lark's own grammar types from it), with the
parse table in a compact form: one string of integers per parser state, decoded the first time
the parser enters that state. Rule callbacks are likewise made on a rule's first reduction, so
loading costs milliseconds however large the grammar, and a small input pays only for the
states and rules it uses.
An entry is named by a hash of the grammar, the options and the lark version, carries that key
and a checksum of its payload, and lives in the checked directory of `xtvm.ir.cache`; an entry
that is missing, foreign, corrupt or stale is rebuilt and replaced, never trusted.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import lark
from lark import Lark, Tree
from lark.grammar import Rule
from lark.lark import _LOAD_ALLOWED_OPTIONS
from lark.lexer import Lexer, TerminalDef
from lark.parse_tree_builder import ParseTreeBuilder
from lark.parser_frontends import _get_lexer_callbacks
from lark.parsers.lalr_analysis import IntParseTable, Reduce, Shift
from lark.parsers.lalr_parser import LALR_Parser, _Parser

from xtvm.ir import cache

# Bumped whenever the layout of an entry changes.
FORMAT = 2


def cached_lark(grammar: str, lexer: type[Lexer], **options: Any) -> Lark:
    """`Lark(grammar, parser="lalr", lexer=lexer, **options)`, loaded from the cache if it holds
    this grammar's tables, else built and stored there."""
    runtime = {k: v for k, v in options.items() if k in _LOAD_ALLOWED_OPTIONS}
    static = {k: v for k, v in options.items() if k not in _LOAD_ALLOWED_OPTIONS}
    marker = f"{lexer.__module__}.{lexer.__qualname__}"
    identity = [FORMAT, lark.__version__, marker, sorted((k, repr(v)) for k, v in static.items())]
    key = hashlib.sha256((json.dumps(identity) + "\n" + grammar).encode()).hexdigest()
    name = f"grammar-{key[:32]}.json"

    raw = cache.read(name)
    if raw is not None:
        try:
            return load(raw, key, lexer, marker, runtime)
        except Exception:
            pass  # any malformed entry is only a cache miss
    parser = Lark(grammar, parser="lalr", lexer=lexer, **options)
    encoded = dump(parser, key, lexer, marker)
    if encoded is not None:
        cache.write(name, encoded)
    return parser


def dump(parser: Lark, key: str, lexer: type[Lexer], marker: str) -> bytes | None:
    """The cache entry of `parser`: a header line (format, key, checksum) and the JSON payload;
    None if its options hold something JSON cannot carry (then it is just not cached)."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    options = {k: v for k, v in data["options"].items() if k not in _LOAD_ALLOWED_OPTIONS}
    lexer_conf = data["parser"]["lexer_conf"]
    if options.get("lexer") is not lexer or lexer_conf.get("lexer_type") is not lexer:
        return None
    options["lexer"] = lexer_conf["lexer_type"] = marker
    data["options"] = options
    data["parser"]["parser"] = compact_table(data["parser"]["parser"])
    try:
        payload = json.dumps({"data": data, "memo": memo}, separators=(",", ":")).encode()
    except (TypeError, ValueError):
        return None
    header = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header).encode() + b"\n" + payload


def load(raw: bytes, key: str, lexer: type[Lexer], marker: str, runtime: dict[str, Any]) -> Lark:
    """The parser of a cache entry; raises if the entry is not exactly what `dump` wrote for
    `key`."""
    head, _, payload = raw.partition(b"\n")
    header = json.loads(head)
    if header != {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload).hexdigest()}:
        raise ValueError("stale or corrupt grammar cache entry")
    document = json.loads(payload)
    data = document["data"]
    memo = {int(k): v for k, v in document["memo"].items()}
    lexer_conf = data["parser"]["lexer_conf"]
    if data["options"]["lexer"] != marker or lexer_conf["lexer_type"] != marker:
        raise ValueError("grammar cache entry of another lexer")
    data["options"]["lexer"] = lexer_conf["lexer_type"] = lexer
    # JSON has no tuples or sets: give back the types lark built.
    for entry in memo.values():
        if entry.get("__type__") == "Rule":
            entry["options"]["empty_indices"] = tuple(entry["options"]["empty_indices"])
        elif entry.get("__type__") == "TerminalDef":
            entry["pattern"]["flags"] = frozenset(entry["pattern"]["flags"])
    plugins = {**runtime.get("_plugins", {}), "LALR_Parser": CompactLALRParser}
    return LazyLark._load_from_dict(data, memo, **{**runtime, "_plugins": plugins})


def compact_table(table: dict[str, Any]) -> dict[str, Any]:
    """lark's serialized parse table with each state as one string of integer pairs: the token
    (its index in `tokens`), then the action, `2 * state` to shift or `2 * rule + 1` to reduce by
    the rule with that memo index."""
    tokens: dict[int, str] = table["tokens"]
    states = []
    for state, actions in table["states"].items():
        pairs = []
        for token, (action, arg) in actions.items():
            pairs.append(token)
            pairs.append(2 * arg["@"] + 1 if action == 1 else 2 * arg)
        states.append([state, " ".join(map(str, pairs))])
    return {
        "tokens": [tokens[i] for i in range(len(tokens))],
        "states": states,
        "start_states": table["start_states"],
        "end_states": table["end_states"],
    }


class LazyStates(dict[Any, dict[str, tuple[Any, Any]]]):
    """The parse table's states, each decoded from `compact_table`'s string on first use.

    The parser and the lexer only index it (`states[state]`); anything that walks the whole
    table decodes every state first.
    """

    def __init__(self, encoded: dict[Any, str], tokens: list[str], memo: dict[int, Any]):
        super().__init__()
        self.encoded = encoded
        self.tokens = tokens
        self.memo = memo

    def __missing__(self, state: Any) -> dict[str, tuple[Any, Any]]:
        codes = [int(c) for c in self.encoded[state].split()]
        tokens, memo = self.tokens, self.memo
        actions = {
            tokens[t]: (Reduce, memo[c >> 1]) if c & 1 else (Shift, c >> 1)
            for t, c in zip(codes[::2], codes[1::2], strict=True)
        }
        self[state] = actions
        return actions

    def decode_all(self) -> None:
        for state in self.encoded:
            if not super().__contains__(state):
                self.__missing__(state)

    def __contains__(self, state: object) -> bool:
        return state in self.encoded

    def __len__(self) -> int:
        return len(self.encoded)

    def __iter__(self) -> Any:
        self.decode_all()
        return super().__iter__()

    def keys(self) -> Any:
        self.decode_all()
        return super().keys()

    def values(self) -> Any:
        self.decode_all()
        return super().values()

    def items(self) -> Any:
        self.decode_all()
        return super().items()


class CompactLALRParser(LALR_Parser):
    """lark's LALR parser, deserialized from `compact_table`'s form."""

    @classmethod
    def deserialize(
        cls, data: dict[str, Any], memo: dict[int, Any], callbacks: Any, debug: bool = False
    ) -> CompactLALRParser:
        encoded = {state: codes for state, codes in data["states"]}
        states = LazyStates(encoded, data["tokens"], memo)
        inst = cls.__new__(cls)
        inst._parse_table = IntParseTable(states, data["start_states"], data["end_states"])
        inst.parser = _Parser(inst._parse_table, callbacks, debug)
        return inst


class LazyCallbacks(dict[Any, Any]):
    """lark's callbacks (rule -> function), each rule's made on its first reduction."""

    def __init__(self, builder: ParseTreeBuilder, transformer: Any):
        super().__init__()
        self.builder = builder
        self.transformer = transformer

    def __missing__(self, rule: Any) -> Any:
        if not isinstance(rule, Rule):
            raise KeyError(rule)
        self.builder.rule_builders = list(self.builder._init_builders([rule]))
        callback = self.builder.create_callback(self.transformer)[rule]
        self[rule] = callback
        return callback

    def __bool__(self) -> bool:
        return True


class LazyLark(Lark):
    """A loaded `Lark` whose rule callbacks are made on first use (see `LazyCallbacks`)."""

    def _prepare_callbacks(self) -> None:
        options = self.options
        builder = ParseTreeBuilder(
            [],
            options.tree_class or Tree,
            options.propagate_positions,
            False,
            options.maybe_placeholders,
        )
        self._callbacks = LazyCallbacks(builder, options.transformer)
        self._callbacks.update(_get_lexer_callbacks(options.transformer, self.terminals))
