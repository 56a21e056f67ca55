"""A fast contextual lexer for the composed grammar.

lark's contextual lexer tries, for every token, the alternation of all terminals acceptable in
the parser's current state. MLIR text has few real ambiguities, so this lexer scans with one
master regular expression and consults the parser state only to classify identifiers (a
keyword in one place is a dictionary key or an op name in another), to split `xf32` after
`*`, and for the few context-only terminals (`<...>` bodies of dialect attributes, location
bodies, file metadata). It produces the same tokens as lark's contextual lexer would, 3-4x
faster, and feeds them to lark's LALR tables in the same loop (`drive`): no generator between
the two, and the parser state looked up once serves both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import Lexer, LexerState, PatternRE, PatternStr
from lark.parsers.lalr_analysis import Shift

# Terminals whose text never looks like an identifier; all other regex terminals are tried on
# identifiers, most specific first, OP_NAME and BARE_ID last.
NON_IDENTIFIER = {
    "VALUE_ID",
    "CARET_ID",
    "SYMBOL",
    "STRING",
    "DIMS",
    "HEX",
    "FLOAT",
    "INT",
    "DIALECT_TYPE_NAME",
    "DIALECT_ATTR_NAME",
    "TYPE_ALIAS",
    "ATTR_ALIAS",
    "OPAQUE_BODY",
    "LOC_OPAQUE",
    "FILE_METADATA",
    "COMMENT",
    "CUSTOM_OP_PLACEHOLDER",
    "SEEN_FUNCTION_TYPE",
    "SEEN_PROPERTIES",
}
CONTEXT_ONLY = ("OPAQUE_BODY", "LOC_OPAQUE", "FILE_METADATA")

# Spans. A generic op's properties and trailing function type are a third to a half of its
# tokens, and a large input repeats the same few texts. In a state that accepts a span's
# terminal, the lexer matches the span's text with an expression; if that exact text was
# parsed into a value (the span's rule was reduced over exactly that text) earlier in this
# input, the whole text is one token carrying that value. Identical text read from a state
# that accepts the same rule gives the same tokens, hence the same value: the expressions only
# propose where a span ends, and end it only where no token can run on past it.
_STRING = r'"(?:[^"\\\n]|\\["\\nt]|\\[0-9A-Fa-f]{2})*+"'
_ANGLE = r"<(?:->|[^<>\"]|" + _STRING + r")*+>"
for _ in range(2):  # <...> bodies nested three deep
    _ANGLE = r"<(?:->|[^<>\"]|" + _STRING + "|" + _ANGLE + r")*+>"
_TYPE_LIST = r"\((?:[^()<>\"]|" + _ANGLE + r")*+\)"
SPANS = {
    "SEEN_FUNCTION_TYPE": (
        "function_type",
        _TYPE_LIST
        + r"[ \t]*->[ \t]*(?:"
        + _TYPE_LIST
        + r"|(?>[A-Za-z_!][\w$.]*)(?:"
        + _ANGLE
        + r")?(?![\w$.<]))",
    ),
    "SEEN_PROPERTIES": ("properties", r"<\{(?:->|[^{}<>\"]|" + _STRING + "|" + _ANGLE + r")*+\}>"),
}
MAX_SPANS = 1 << 14  # distinct span texts remembered per input

# Whitespace and comments before a token are part of its match: one match per token. The most
# frequent tokens come first; `?`, `+` and `-` (SIGN, a PUNCT) last, after DIMS and numbers.
SKIP = r"(?>(?:[ \t\r\n]+|//[^\n]*)*)"  # atomic: never gives back part of a comment
WHITESPACE = re.compile(SKIP)
MASTER = re.compile(
    SKIP
    + r"""(?:(?P<PUNCT>->|::|\.\.\.|[(){}\[\]<>,:=*])
|(?P<VALUE_ID>%[A-Za-z0-9_$.\-]+(?:\#[0-9]+)?)
|(?P<IDENT>[A-Za-z_][\w$.]*)
|(?P<CARET_ID>\^[A-Za-z0-9_$.\-]+)
|(?P<SYMBOL>@(?:[A-Za-z_$.\-][\w$.\-]*|"(?:[^"\\\n]|\\["\\nt]|\\[0-9A-Fa-f]{2})*"))
|(?P<STRING>"(?:[^"\\\n]|\\["\\nt]|\\[0-9A-Fa-f]{2})*")
|(?P<DIMS>(?:(?:[0-9]+|\?)x)+)
|(?P<HEX>0x[0-9A-Fa-f]+)
|(?P<FLOAT>[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?)
|(?P<INT>[-+]?[0-9]+)
|(?P<BANG>![A-Za-z_][\w$.]*)
|(?P<HASH>\#[A-Za-z_][\w$.]*)
|(?P<SIGN>[?+\-]))""",
    re.VERBOSE,
)


def skip_space(text: str, pos: int, line: int, line_start: int) -> tuple[int, int, int]:
    """The position, line and line start after the whitespace and comments at `pos`."""
    skipped = WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]
    newlines = text.count("\n", pos, skipped)
    if newlines:
        line += newlines
        line_start = text.rindex("\n", pos, skipped) + 1
    return skipped, line, line_start


NUMBER_FALLBACK = re.compile(r"0x[0-9A-Fa-f]+|[-+]?[0-9]+")


class FastContextualLexer(Lexer):
    """lark lexer interface (`__future_interface__ = 2`) over the master expression."""

    __future_interface__ = 2

    def __init__(self, conf: Any):
        self.terminals = {t.name: t for t in conf.terminals}
        self.callbacks = conf.callbacks
        self.keywords: dict[str, list[str]] = {}
        regex_idents: list[tuple[int, str, re.Pattern[str]]] = []
        for t in conf.terminals:
            if isinstance(t.pattern, PatternStr):
                self.keywords.setdefault(t.pattern.value, []).append(t.name)
            elif isinstance(t.pattern, PatternRE) and t.name not in NON_IDENTIFIER:
                order = {"OP_NAME": 1, "BARE_ID": 2}.get(t.name, 0)
                regex_idents.append((order, t.name, re.compile(t.pattern.to_regexp())))
        self.ident_terminals = [(name, rx) for _, name, rx in sorted(regex_idents)]
        # Compiled when a state that accepts them is first entered (most inputs never do).
        self.special = {
            name: self.terminals[name].pattern.to_regexp()
            for name in CONTEXT_ONLY
            if name in self.terminals
        }
        self.ident_cache: dict[str, list[str]] = {}
        self.last_token: Token | None = None
        self.specials_by_state: dict[Any, tuple[tuple[str, re.Pattern[str], str | None], ...]] = {}
        self.spans = {
            name: (rule, re.compile(rx))
            for name, (rule, rx) in SPANS.items()
            if name in self.terminals
        }
        # Span texts read in this input -> their values.
        self.seen: dict[str, Any] = {}
        # The dialects of the ops whose regions enclose the current position, innermost last:
        # an op name without a dialect (`return` in func.func) is looked up in them, as MLIR
        # and xDSL do. `pending` is the dialect of the last op name, which a `{` opens.
        self.dialect_stack: list[str] = ["builtin"]
        self.pending_dialect = "builtin"

    def candidates(self, text: str) -> list[str]:
        """Terminal names an identifier-like text can be, in order of preference."""
        found = self.ident_cache.get(text)
        if found is None:
            found = list(self.keywords.get(text, ()))
            found += [name for name, rx in self.ident_terminals if rx.fullmatch(text)]
            self.ident_cache[text] = found
        return found

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        raise NotImplementedError("this lexer drives its LALR parser: see `drive`")

    def drive(self, parser_state: Any, reductions: dict[int, Any]) -> Any:
        """Lex the input and run lark's LALR parser over the tokens in one loop: each token is
        matched in the parser's current state and shifted (after the reductions it triggers)
        at once. `reductions` caches, per rule, its length, callback and origin. Raises and
        returns as lark's driver does."""
        lexer_state = parser_state.lexer.state
        text_slice = lexer_state.text
        text: str = text_slice.text
        pos = text_slice.start
        end = text_slice.end
        line_ctr = lexer_state.line_ctr
        line = line_ctr.line
        line_start = line_ctr.line_start_pos
        conf = parser_state.parse_conf
        states = conf.states
        rule_callbacks = conf.callbacks
        # transformer callbacks of terminals (none unless the transformer visits tokens)
        token_callbacks = {k: v for k, v in dict.items(rule_callbacks) if isinstance(k, str)}
        match_master = MASTER.match
        callbacks = self.callbacks
        keywords = self.keywords
        specials_by_state = self.specials_by_state
        state_stack = parser_state.state_stack
        value_stack = parser_state.value_stack
        new_str = str.__new__  # a Token made as lark's Token._future_new makes it, inline
        self.dialect_stack = ["builtin"]
        self.pending_dialect = "builtin"
        seen: dict[str, Any] = {}
        self.seen = seen
        marks: list[tuple[int, int, str]] = []  # spans being read: (depth, start, rule)
        span_rules = {rule for rule, _ in self.spans.values()}
        token: Token | None = None
        self.last_token = None
        while pos < end:
            position = state_stack[-1]
            accepts = states[position]
            token_type: str | None = None
            value = ""
            length = -1  # the length of the text read, when it is not that of `value`
            multiline = False  # only context-only terminals and spans span lines
            specials = specials_by_state.get(position)
            if specials is None:
                specials = self.specials_for(accepts)
                specials_by_state[position] = specials
            span_value: Any = None
            prev_end = pos  # where the last token shifted ends
            if specials:
                pos, line, line_start = skip_space(text, pos, line, line_start)
                for name, rx, span_rule in specials:
                    m = rx.match(text, pos)
                    if m is None:
                        continue
                    if span_rule is not None:
                        span_value = seen.get(m.group())
                        if span_value is None:
                            marks.append((len(state_stack), pos, span_rule))
                            continue
                    token_type, value = name, m.group()
                    multiline = True
                    break
            if token_type is None:
                m = match_master(text, pos)
                if m is None:
                    pos, line, line_start = skip_space(text, pos, line, line_start)
                    if pos >= end:
                        break
                    raise UnexpectedCharacters(
                        text, pos, line, pos - line_start + 1, allowed=set(accepts)
                    )
                kind = m.lastgroup
                value = m.group(kind)
                skipped = m.end() - len(value)
                if skipped != pos:
                    newlines = text.count("\n", pos, skipped)
                    if newlines:
                        line += newlines
                        line_start = text.rindex("\n", pos, skipped) + 1
                    pos = skipped
                if kind == "SIGN":
                    kind = "PUNCT"
                elif kind != "PUNCT" and kind != "VALUE_ID":
                    if kind in ("INT", "FLOAT") and value[0] in "+-" and kind not in accepts:
                        value, kind = value[0], "PUNCT"  # `%i -1` in an affine expression
                    if kind == "DIMS" and "DIMS" not in accepts:
                        number = NUMBER_FALLBACK.match(text, pos)
                        value = number.group() if number else text[pos]
                        kind = "PUNCT" if number is None else "HEX" if value[:2] == "0x" else "INT"
                    if (
                        kind in ("BANG", "HASH")
                        and "." not in value
                        and text[m.end() : m.end() + 1] == "<"
                    ):
                        # `#arith<fastmath<fast>>`: a dialect's attribute in the verbose form.
                        name = "DIALECT_TYPE_NAME" if kind == "BANG" else "DIALECT_ATTR_NAME"
                        token_type = name if name in accepts else None
                if token_type is not None:
                    pass
                elif kind == "PUNCT":
                    names = keywords.get(value)
                    token_type = names[0] if names else value
                    if names and len(names) > 1:
                        token_type = next((n for n in names if n in accepts), names[0])
                    if value == "{":
                        self.dialect_stack.append(self.pending_dialect)
                    elif value == "}" and len(self.dialect_stack) > 1:
                        self.pending_dialect = self.dialect_stack.pop()
                elif kind == "VALUE_ID":
                    token_type = kind
                elif kind in ("IDENT", "BANG", "HASH"):
                    token_type, value = self.classify(kind, value, accepts)
                    if kind == "IDENT" and "OP_NAME" in accepts:
                        length = len(value)
                        token_type, value = self.op_name(token_type, value, accepts)
                else:
                    token_type = kind
                    if kind == "STRING" and "OP_NAME" in accepts:
                        self.pending_dialect = value[1:].split(".", 1)[0]
            start, start_line, column = pos, line, pos - line_start + 1
            if multiline:
                newlines = value.count("\n")
                if newlines:
                    line += newlines
                    line_start = pos + value.rindex("\n") + 1
            pos += len(value) if length < 0 else length
            token = new_str(Token, value)
            token.type = token_type
            token.value = value if span_value is None else span_value
            token.start_pos = start
            token.line = start_line
            token.column = column
            token.end_line = line
            token.end_column = pos - line_start + 1
            token.end_pos = pos
            callback = callbacks.get(token_type)
            if callback is not None:
                token = callback(token)
                token_type = token.type
            self.last_token = token
            # The parser: the reductions this token triggers, then its shift.
            while True:
                try:
                    action, arg = accepts[token_type]
                except KeyError:
                    expected = {s for s in accepts if s.isupper()}
                    raise UnexpectedToken(token, expected, state=parser_state) from None
                if action is Shift:
                    state_stack.append(arg)
                    if token_callbacks:
                        callback = token_callbacks.get(token_type)
                        value_stack.append(token if callback is None else callback(token))
                    else:
                        value_stack.append(token)
                    break
                reduction = reductions.get(id(arg))
                if reduction is None:
                    origin = arg.origin.name
                    size = len(arg.expansion)
                    reduction = (size, rule_callbacks[arg], origin, origin in span_rules, arg)
                    reductions[id(arg)] = reduction
                size, callback, origin, span, _ = reduction
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                reduced = callback(children)
                if span:
                    depth = len(state_stack)
                    while marks and marks[-1][0] > depth:
                        marks.pop()  # spans whose rule was not reduced where they started
                    if marks and marks[-1][0] == depth and marks[-1][2] == origin:
                        span_start = marks.pop()[1]
                        if reduced is not None and len(seen) < MAX_SPANS:
                            seen[text[span_start:prev_end]] = reduced
                state_stack.append(states[state_stack[-1]][origin][1])
                value_stack.append(reduced)
                accepts = states[state_stack[-1]]
        line_ctr.char_pos = pos
        line_ctr.line = line
        line_ctr.line_start_pos = line_start
        if token is not None:
            end_token = Token.new_borrow_pos("$END", "", token)
        else:
            end_token = Token("$END", "", 0, 1, 1)
        return parser_state.feed_token(end_token, True)

    def specials_for(self, accepts: Any) -> tuple[tuple[str, re.Pattern[str], str | None], ...]:
        """The context-only terminals and spans a parser state accepts, with their
        expressions (and, for a span, its rule)."""
        found = [(n, re.compile(rx), None) for n, rx in self.special.items() if n in accepts]
        found += [(n, rx, rule) for n, (rule, rx) in self.spans.items() if n in accepts]
        return tuple(found)

    def op_name(self, token_type: str, value: str, accepts: Any) -> tuple[str, str]:
        """An op name in op position: a name without a dialect is looked up in the dialects
        of the enclosing ops; the token then carries the full name."""
        if token_type not in accepts and "." not in value:
            for dialect in reversed(self.dialect_stack):
                full = f"{dialect}.{value}"
                name = next((n for n in self.keywords.get(full, ()) if n in accepts), None)
                if name is not None:
                    token_type, value = name, full
                    break
        if "." in value and token_type in accepts:
            self.pending_dialect = value.split(".", 1)[0]
        return token_type, value

    def classify(self, kind: str, value: str, accepts: Any) -> tuple[str, str]:
        """The terminal of an identifier-like text in the current parser state."""
        if kind == "IDENT":
            found = self.candidates(value)
        else:
            dialect, alias = (
                ("DIALECT_TYPE_NAME", "TYPE_ALIAS")
                if kind == "BANG"
                else ("DIALECT_ATTR_NAME", "ATTR_ALIAS")
            )
            found = [*self.keywords.get(value, ()), *([dialect] if "." in value else []), alias]
        for name in found:
            if name in accepts:
                return name, value
        if kind == "IDENT":
            # A keyword glued to what follows, as `x` in `tensor<*xf32>`.
            for keyword, names in self.keywords.items():
                if len(keyword) < len(value) and value.startswith(keyword):
                    for name in names:
                        if name in accepts:
                            return name, keyword
        if found:
            return found[0], value
        return "BARE_ID", value
