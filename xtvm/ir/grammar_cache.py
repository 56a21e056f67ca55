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
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any

import lark
from lark import Lark, Tree
from lark.exceptions import UnexpectedInput
from lark.grammar import NonTerminal, Rule, RuleOptions, Terminal
from lark.lark import _LOAD_ALLOWED_OPTIONS, LarkOptions
from lark.lexer import Lexer, PatternRE, PatternStr, TerminalDef, Token
from lark.parse_tree_builder import (
    ChildFilterLALR,
    ChildFilterLALR_NoPlaceholders,
    ParseTreeBuilder,
)
from lark.parser_frontends import _deserialize_parsing_frontend, _get_lexer_callbacks
from lark.parsers.lalr_analysis import IntParseTable, Reduce, Shift
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_parser import LALR_Parser, _Parser
from lark.parsers.lalr_parser_state import ParserState

from xtvm.ir import cache

# Bumped whenever the layout of an entry changes.
FORMAT = 4


def cached_lark(
    grammar: str | Callable[[], str],
    lexer: type[Lexer],
    identity: str | None = None,
    **options: Any,
) -> Lark:
    """`Lark(grammar, parser="lalr", lexer=lexer, **options)`, loaded from the cache if it holds
    this grammar's tables, else built and stored there.

    `identity`, if given, stands for the grammar text in the cache key: a hash of whatever the
    grammar is made from, so that the caller can pass `grammar` as a function that composes
    the text, called only when the cache does not hold the tables.
    """
    runtime = {k: v for k, v in options.items() if k in _LOAD_ALLOWED_OPTIONS}
    static = {k: v for k, v in options.items() if k not in _LOAD_ALLOWED_OPTIONS}
    marker = f"{lexer.__module__}.{lexer.__qualname__}"
    identity_fields = [
        FORMAT,
        lark.__version__,
        marker,
        sorted((k, repr(v)) for k, v in static.items()),
    ]
    if identity is None:
        text = grammar if isinstance(grammar, str) else grammar()
        source = "grammar\n" + text
    else:
        text, source = None, "identity\n" + identity
    key = hashlib.sha256((json.dumps(identity_fields) + "\n" + source).encode()).hexdigest()
    name = f"grammar-{key[:32]}.json"

    raw = cache.read(name)
    if raw is not None:
        try:
            return load(raw, key, lexer, marker, runtime)
        except Exception:
            pass  # any malformed entry is only a cache miss
    if text is None:
        text = grammar if isinstance(grammar, str) else grammar()
    parser = Lark(text, parser="lalr", lexer=lexer, **options)
    encoded = dump(parser, key, lexer, marker)
    if encoded is None:
        return parser
    cache.write(name, encoded)
    # The loaded form drives the parse with `FastParser`: a cache miss (or a cache that cannot
    # be written) should not make this process parse at lark's slower pace.
    return load(encoded, key, lexer, marker, runtime)


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
    memo = {index: compact_memo_entry(entry) for index, entry in memo.items()}
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
    plugins = {**runtime.get("_plugins", {}), "LALR_Parser": CompactLALRParser}
    return LazyLark._load_from_dict(data, memo, **{**runtime, "_plugins": plugins})


def compact_table(table: dict[str, Any]) -> dict[str, Any]:
    """lark's serialized parse table in a compact form. An action is one integer, `2 * state`
    to shift or `2 * rule + 1` to reduce by the rule with that memo index; a state is one
    string of pairs (action, index of a set of tokens in `sets`), as states share few
    distinct lookahead sets (a few hundred for thousands of states), and `sets` holds each set
    as one string of token indices."""
    sets: dict[str, int] = {}
    states = []
    for state, actions in table["states"].items():
        by_action: dict[int, list[int]] = {}
        for token, (action, arg) in actions.items():
            code = 2 * arg["@"] + 1 if action == 1 else 2 * arg
            by_action.setdefault(code, []).append(token)
        pairs = []
        for code, tokens in by_action.items():
            text = " ".join(map(str, sorted(tokens)))
            pairs.append(f"{code} {sets.setdefault(text, len(sets))}")
        states.append([state, " ".join(pairs)])
    tokens = table["tokens"]
    return {
        "tokens": [tokens[i] for i in range(len(tokens))],
        "sets": list(sets),
        "states": states,
        "start_states": table["start_states"],
        "end_states": table["end_states"],
    }


class LazyStates(dict[Any, dict[str, tuple[Any, Any]]]):
    """The parse table's states, each decoded from `compact_table`'s string on first use.

    The parser and the lexer only index it (`states[state]`); anything that walks the whole
    table decodes every state first.
    """

    def __init__(
        self, encoded: dict[Any, str], sets: list[str], tokens: list[str], memo: dict[int, Any]
    ):
        super().__init__()
        self.encoded = encoded
        self.sets = sets
        self.decoded_sets: dict[int, list[str]] = {}
        self.tokens = tokens
        self.memo = memo

    def token_set(self, index: int) -> list[str]:
        names = self.decoded_sets.get(index)
        if names is None:
            tokens = self.tokens
            names = [tokens[int(t)] for t in self.sets[index].split()]
            self.decoded_sets[index] = names
        return names

    def __missing__(self, state: Any) -> dict[str, tuple[Any, Any]]:
        codes = [int(c) for c in self.encoded[state].split()]
        actions: dict[str, tuple[Any, Any]] = {}
        for code, index in zip(codes[::2], codes[1::2], strict=True):
            action = (Reduce, self.memo[code >> 1]) if code & 1 else (Shift, code >> 1)
            for name in self.token_set(index):
                actions[name] = action
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
        states = LazyStates(encoded, data["sets"], data["tokens"], memo)
        inst = cls.__new__(cls)
        inst._parse_table = IntParseTable(states, data["start_states"], data["end_states"])
        inst.parser = FastParser(inst._parse_table, callbacks, debug)
        return inst


class FastParser(_Parser):
    """lark's LALR driver, handing the whole loop to a lexer that runs it merged with its own
    (`drive`, see xtvm/ir/lexer.py): one loop per token instead of a generator feeding a loop.
    With any other lexer it is lark's own loop."""

    def __init__(self, parse_table: Any, callbacks: Any, debug: bool = False):
        super().__init__(parse_table, callbacks, debug)
        # id(rule) -> what the lexer's loop keeps per rule (its length, callback, origin...)
        self.reductions: dict[int, tuple[Any, ...]] = {}

    def parse_from_state(self, state: ParserState, last_token: Token | None = None) -> Any:
        drive = getattr(getattr(state.lexer, "lexer", None), "drive", None)
        if drive is None or last_token is not None:
            return super().parse_from_state(state, last_token)
        try:
            return drive(state, self.reductions)
        except UnexpectedInput as e:
            with suppress(NameError):
                e.interactive_parser = InteractiveParser(self, state, state.lexer)
            raise


class LazyCallbacks(dict[Any, Any]):
    """lark's callbacks (rule -> function), each rule's made on its first reduction.

    lark drops a rule's anonymous tokens, inlines `_rule` children and inserts `None` for
    absent optional parts with a generic filter that loops over a list of indices at every
    reduction; here each rule's filter is a function compiled for that rule's indices.
    """

    def __init__(self, builder: ParseTreeBuilder, transformer: Any):
        super().__init__()
        self.builder = builder
        self.transformer = transformer

    def __missing__(self, rule: Any) -> Any:
        if not isinstance(rule, Rule):
            raise KeyError(rule)
        ((_, chain),) = self.builder._init_builders([rule])
        filters = [w for w in chain if child_filter_indices(w) is not None]
        if filters == chain[-1:] and filters:
            # the filter is applied last: compile it around the rest of the chain
            self.builder.rule_builders = [(rule, chain[:-1])]
            inner = self.builder.create_callback(self.transformer)[rule]
            callback = compile_child_filter(*child_filter_indices(chain[-1]), inner)  # type: ignore[misc]
        else:
            self.builder.rule_builders = [(rule, chain)]
            callback = self.builder.create_callback(self.transformer)[rule]
        self[rule] = callback
        return callback

    def __bool__(self) -> bool:
        return True


def child_filter_indices(wrapper: Any) -> tuple[list[tuple[int, bool, int]], int] | None:
    """The (index, inline, Nones before) list and the trailing Nones of a lark child filter of
    the LALR parser, or None if `wrapper` is something else."""
    if not isinstance(wrapper, partial) or wrapper.keywords:
        return None
    if wrapper.func is ChildFilterLALR and len(wrapper.args) == 2:
        to_include, append_none = wrapper.args
        return [(i, bool(x), n) for i, x, n in to_include], append_none
    if wrapper.func is ChildFilterLALR_NoPlaceholders and len(wrapper.args) == 1:
        return [(i, bool(x), 0) for i, x in wrapper.args[0]], 0
    return None


def compile_child_filter(
    to_include: list[tuple[int, bool, int]], append_none: int, node_builder: Any
) -> Any:
    """`ChildFilterLALR(to_include, append_none, node_builder)` as one list display.

    As lark's, a rule whose first child is inlined (`x*` is left-recursive) extends that
    child's list in place: copying it would make a list of n items cost n**2.
    """
    items: list[str] = []
    for index, inline, nones in to_include:
        items += ["None"] * nones
        items.append(f"*c[{int(index)}].children" if inline else f"c[{int(index)}]")
    items += ["None"] * append_none
    if items and items[0].startswith("*"):
        body = f"    f = {items[0][1:]}\n"
        if items[1:]:
            body += f"    f += ({', '.join(items[1:])},)\n"
        body += "    return build(f)\n"
    else:
        body = f"    return build([{', '.join(items)}])\n"
    namespace: dict[str, Any] = {"build": node_builder}
    exec(f"def child_filter(c):\n{body}", namespace)
    return namespace["child_filter"]


RULE_FIELDS = {"origin", "expansion", "order", "alias", "options", "__type__"}
OPTION_FIELDS = ["keep_all_tokens", "expand1", "priority", "template_source", "empty_indices"]
TERMINAL_FIELDS = {"name", "pattern", "priority", "__type__"}
PATTERN_FIELDS = {"value", "flags", "raw", "_width", "__type__"}
PATTERNS = {"PatternStr": PatternStr, "PatternRE": PatternRE}


def compact_memo_entry(entry: dict[str, Any]) -> Any:
    """A rule or terminal of lark's memo as a flat list (a fifth of the JSON, and rebuilt by
    the constructors instead of lark's generic deserializer); anything of another shape is
    kept as lark wrote it."""
    kind = entry.get("__type__")
    if kind == "Rule" and set(entry) == RULE_FIELDS:
        options = entry["options"]
        symbols = []
        for symbol in entry["expansion"]:
            if symbol["__type__"] == "Terminal":
                symbols.append([symbol["name"], bool(symbol["filter_out"])])
            else:
                symbols.append(symbol["name"])
        return [
            "R",
            entry["origin"]["name"],
            symbols,
            entry["order"],
            entry["alias"],
            [options[name] for name in OPTION_FIELDS],
        ]
    if kind == "TerminalDef" and set(entry) == TERMINAL_FIELDS:
        pattern = entry["pattern"]
        if set(pattern) <= PATTERN_FIELDS and pattern["__type__"] in PATTERNS:
            fields = [pattern["value"], pattern["flags"], pattern["raw"], pattern.get("_width")]
            return ["T", entry["name"], pattern["__type__"], *fields, entry["priority"]]
    return entry


def rule_from_list(entry: list[Any]) -> Rule:
    _, origin, symbols, order, alias, options = entry
    expansion = [Terminal(s[0], s[1]) if isinstance(s, list) else NonTerminal(s) for s in symbols]
    keep_all_tokens, expand1, priority, template_source, empty_indices = options
    rule_options = RuleOptions(
        keep_all_tokens, expand1, priority, template_source, tuple(empty_indices)
    )
    return Rule(NonTerminal(origin), expansion, order, alias, rule_options)


def terminal_from_list(entry: list[Any]) -> TerminalDef:
    _, name, kind, value, flags, raw, width, priority = entry
    pattern = PATTERNS[kind](value, flags, raw)
    if width is not None:
        pattern._width = tuple(width)  # type: ignore[attr-defined]
    return TerminalDef(name, pattern, priority)


class LazyMemo(dict[int, Any]):
    """lark's memo of rules and terminals (index -> object), each rebuilt on first use."""

    def __init__(self, encoded: dict[int, Any]):
        super().__init__()
        self.encoded = encoded

    def __missing__(self, index: int) -> Any:
        entry = self.encoded[index]
        if isinstance(entry, list) and entry[0] == "R":
            value: Any = rule_from_list(entry)
        elif isinstance(entry, list) and entry[0] == "T":
            value = terminal_from_list(entry)
        elif entry.get("__type__") == "Rule":
            # JSON has no tuples or sets: give back the types lark built.
            entry["options"]["empty_indices"] = tuple(entry["options"]["empty_indices"])
            value = Rule.deserialize(entry, {})
        elif entry.get("__type__") == "TerminalDef":
            entry["pattern"]["flags"] = frozenset(entry["pattern"]["flags"])
            value = TerminalDef.deserialize(entry, {})
        else:
            raise ValueError(f"unexpected memo entry {index}")
        self[index] = value
        return value


class LazyLark(Lark):
    """A loaded `Lark` whose rules and rule callbacks are made on first use (see `LazyMemo`,
    `LazyStates` and `LazyCallbacks`): what lark's `_load` does, minus the eager parts."""

    _rule_refs: list[Any]

    def _load(self, f: Any, **kwargs: Any) -> LazyLark:
        data = f["data"]
        memo = LazyMemo(f["memo"])
        options = dict(data["options"])
        options.update(kwargs)
        self.options = LarkOptions.deserialize(options, memo)
        self._rule_refs = data["rules"]
        self._memo = memo
        self.source_path = "<deserialized>"
        self.lexer_conf = self._deserialize_lexer_conf(data["parser"], memo, self.options)
        self.terminals = self.lexer_conf.terminals
        self._prepare_callbacks()
        self._terminals_dict = {t.name: t for t in self.terminals}
        # The LALR parser never reads its configuration's rules once its table is built, and
        # listing them would deserialize every rule.
        frontend = {**data["parser"], "parser_conf": {**data["parser"]["parser_conf"], "rules": []}}
        self.parser = _deserialize_parsing_frontend(
            frontend, memo, self.lexer_conf, self._callbacks, self.options
        )
        return self

    @property
    def rules(self) -> list[Rule]:  # type: ignore[override]
        """Every rule of the grammar (deserialized now if need be)."""
        return [Rule.deserialize(r, self._memo) for r in self._rule_refs]

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
