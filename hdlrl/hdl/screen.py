"""Refuse candidate RTL that could touch the host before any tool sees it.

Simulators execute what the source asks: `$system("rm -rf ~")`, `$fopen("/etc/passwd")`,
Verilator's inline C++ (`$c`), DPI imports, or an `include of a file outside the design.
This screen rejects those with a one-line reason naming the file and line. System tasks are
allowed from a list, not refused from one. It runs twice: on the raw file for what the
preprocessor itself would do (`include) and for every task written anywhere, dead code
included (others may simulate the file with other macros); and on the preprocessed text
every tool reads (`screen_view`), so a task spelled by a macro (`` `define S $sys``tem ``) is
seen as what it becomes. It also refuses names that could collide with those the gate
generates. Before any of that, each text must keep within size caps (`limit_crossed`), so
that no parser or tool ever starts on input that would take it minutes or its whole stack.
It is the first line of defence; the sandboxed runner (no network, read-only host) is the
second.
"""

from __future__ import annotations

import re
from pathlib import Path

from hdlrl.errors import HdlrlError
from hdlrl.hdl.constants import evaluate
from hdlrl.hdl.lexer import Token, iter_tokens, tokenize
from hdlrl.hdl.rename import RESERVED_PREFIX
from hdlrl.hdl.view import LineMap

# The system tasks and functions candidate RTL may call: output to the simulation log,
# simulation control, type and math functions, assertions. Everything else is refused (an
# allowlist: Verilator alone has `$c`, `$c8` ... `$c64` for inline C++, and simulators add
# file and shell tasks release by release).
ALLOWED_SYSTEM_TASKS = frozenset({
    *(f"${name}{radix}" for name in ("display", "write", "strobe", "monitor") for radix in ("", "b", "h", "o")),
    "$monitoron", "$monitoroff", "$finish", "$stop", "$time", "$stime", "$realtime",
    "$signed", "$unsigned", "$clog2", "$bits", "$size", "$left", "$right", "$high", "$low", "$increment",
    "$dimensions", "$unpacked_dimensions", "$countones", "$countbits", "$onehot", "$onehot0", "$isunknown",
    "$error", "$warning", "$info", "$fatal", "$past", "$rose", "$fell", "$stable", "$changed", "$sampled",
    "$ln", "$log10", "$exp", "$sqrt", "$pow", "$floor", "$ceil", "$sin", "$cos", "$tan", "$asin", "$acos",
    "$atan", "$atan2", "$hypot", "$sinh", "$cosh", "$tanh", "$asinh", "$acosh", "$atanh",
    "$rtoi", "$itor", "$realtobits", "$bitstoreal", "$readmemh", "$readmemb", "$dumpfile", "$dumpvars",
    "$dumpon", "$dumpoff", "$dumpall", "$dumpflush",
})
# Tasks that take a file name: allowed only for a relative path that stays in the design folder.
PATH_SYSTEM_TASKS = frozenset({"$readmemh", "$readmemb", "$dumpfile"})
FORBIDDEN_DIRECTIVES = frozenset({"`systemc_header", "`systemc_interface", "`systemc_imp_header",
                                  "`systemc_implementation", "`systemc_ctor", "`systemc_dtor"})
_SIMPLE_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
MAX_MEMORY_BITS = 1 << 24  # 16 Mbit: far beyond any benchmark design, far below the memory limit

# Caps on one source text, checked in one pass before any parser or tool reads it. Past them
# the tools take minutes or run out of stack: a 10,000-deep `{{...}}` kept `hdlrl gate` from a
# verdict for over two minutes, Yosys's `proc` takes 4.5 s on a 256-link `else if` chain and
# 59 s on a 1,024-link one, and Yosys's time grows with the square of an operator chain (25 s
# for `a+a+...` of 10,000 terms, in each of the gate's Yosys runs). Real RTL is far inside:
# the largest file in designs/ and the RTLLM benchmark has 4.6 KB, 1,265 tokens, nesting 9
# and 37 operator characters in one statement.
MAX_SOURCE_BYTES = 4 << 20  # 900x the largest; comments count here, not among the tokens
MAX_SOURCE_TOKENS = 250_000  # 200x the largest, about 1 MB of real code
MAX_NESTING = 256  # 28x the deepest; Yosys's `proc` takes 2.4 s on 256 nested `if ... begin`
MAX_STATEMENT_OPERATORS = 2048  # 55x the most; Yosys reads a 2,048-term chain in 1 s
# What nests: brackets, statement blocks, and each `else if` link of a chain (parsers and Yosys
# nest the chain as deep as it is long). Modules, functions and generate regions do not nest
# in Verilog, and `extern function` or a DPI import has no closing keyword: not counted.
_OPENERS = frozenset({"(", "[", "{"})
_CLOSERS = frozenset({")", "]", "}"})
_BLOCK_OPENERS = frozenset({"begin", "fork", "case", "casex", "casez", "randcase"})
_BLOCK_CLOSERS = frozenset({"end", "join", "join_any", "join_none", "endcase"})
_STATEMENT_ENDS = _BLOCK_CLOSERS | {";"}
_OPERATOR_CHARACTERS = frozenset("+-*/%&|^~!<>=?")  # the lexer gives `<=` as two: each counts


def limit_crossed(text: str) -> tuple[str, int] | None:
    """(what, line) of the first token cap `text` crosses, or None; one pass that stops there.

    An `else if` link stays open until a statement ends without an `else` after it; links
    are kept per block, so the statements inside a branch's `begin ... end` do not close the
    chain around them."""
    count = operators = blocks = chained = 0
    links = [0]  # open `else if` links, per block level
    previous = ""
    for token in iter_tokens(text):
        count += 1
        if count > MAX_SOURCE_TOKENS:
            return f"more than {MAX_SOURCE_TOKENS} tokens", token.line
        word = token.text
        if previous in _STATEMENT_ENDS and word != "else":  # a chain ends with the statement
            chained -= links[-1]
            links[-1] = 0
        if word in _OPENERS or word in _BLOCK_OPENERS:
            blocks += 1
            if word in _BLOCK_OPENERS:
                links.append(0)
        elif word in _CLOSERS or word in _BLOCK_CLOSERS:
            blocks = max(blocks - 1, 0)
            if word in _BLOCK_CLOSERS and len(links) > 1:
                chained -= links.pop()
        elif word == "if" and previous == "else":
            links[-1] += 1
            chained += 1
        if blocks + chained > MAX_NESTING:
            return f"nesting deeper than {MAX_NESTING} levels", token.line
        if word == ";":
            operators = 0
        elif token.kind == "other" and word in _OPERATOR_CHARACTERS:
            operators += 1
            if operators > MAX_STATEMENT_OPERATORS:
                return f"more than {MAX_STATEMENT_OPERATORS} operators in one statement", token.line
        previous = word
    return None


def check_limits(text: str, path: Path) -> None:
    """Raise an HdlrlError naming `path` and the line where `text` crosses a cap (`limit_crossed`)."""
    crossed = limit_crossed(text)
    if crossed:
        raise HdlrlError(crossed[0], path, crossed[1])


def decode_source(path: Path) -> str:
    """Source text as UTF-8, or an error naming the line of the first undecodable byte, or of
    the byte past `MAX_SOURCE_BYTES` (never more is read)."""
    with path.open("rb") as handle:
        raw = handle.read(MAX_SOURCE_BYTES + 1)
    if len(raw) > MAX_SOURCE_BYTES:
        raise HdlrlError(f"file larger than {MAX_SOURCE_BYTES >> 20} MiB", path,
                         raw.count(b"\n", 0, MAX_SOURCE_BYTES) + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise HdlrlError(f"source is not valid UTF-8 (byte 0x{raw[error.start]:02x})", path, line) from None


def _string_argument(tokens: list[Token], index: int) -> Token | None:
    """The string literal that is the first argument of the call at tokens[index], if any."""
    if index + 2 < len(tokens) and tokens[index + 1].text == "(" and tokens[index + 2].kind == "string":
        return tokens[index + 2]
    return None


def _inside(path_text: str, base: Path, root: Path) -> bool:
    candidate = Path(path_text)
    if candidate.is_absolute() or ".." in candidate.parts:
        return False
    return (base / candidate).resolve().is_relative_to(root.resolve())


def _range_size(tokens: list[Token], start: int) -> tuple[int | None, int]:
    """Size of the `[a:b]` range opening at tokens[start], and the index after it."""
    depth, index = 0, start
    while index < len(tokens):
        depth += tokens[index].text == "["
        depth -= tokens[index].text == "]"
        if depth == 0:
            break
        index += 1
    inner = "".join(token.text for token in tokens[start + 1:index])
    if ":" not in inner:
        size = evaluate(inner, {})
        return size, index + 1
    high, _, low = inner.partition(":")
    high_value, low_value = evaluate(high, {}), evaluate(low, {})
    if high_value is None or low_value is None:
        return None, index + 1
    return abs(high_value - low_value) + 1, index + 1


def _memory_bits(tokens: list[Token], index: int) -> int | None:
    """For a declaration keyword at tokens[index], the literal bit count of its array, if any."""
    index += 1
    width = 1
    while index < len(tokens) and tokens[index].text in ("signed", "unsigned"):
        index += 1
    while index < len(tokens) and tokens[index].text == "[":
        size, index = _range_size(tokens, index)
        width *= size or 1
    if index >= len(tokens) or tokens[index].kind != "identifier":
        return None
    index += 1
    depth = 1
    found = False
    while index < len(tokens) and tokens[index].text == "[":
        size, index = _range_size(tokens, index)
        depth *= size or 1
        found = True
    return width * depth if found else None


def screen_source(path: Path, design_root: Path, include_dirs: tuple[Path, ...] = ()) -> str:
    """Check one untrusted source file before the preprocessor reads it; return its text.

    What must be decided before preprocessing is checked here: the text decodes, every
    `include names, as a literal, a file inside the design folder (the preprocessor would
    otherwise read any file it is pointed at), and no system task outside the allowed ones
    is written anywhere, dead code included. The expanded text is checked again by
    `screen_view`, where a macro cannot hide a task. The size caps come first (`limit_crossed`)."""
    text = decode_source(path)
    check_limits(text, path)
    tokens = tokenize(text)
    for index, token in enumerate(tokens):
        if token.kind == "system" and token.text not in ALLOWED_SYSTEM_TASKS:
            raise HdlrlError(_refused_task(token.text) + " (anywhere in the file: code the view leaves out is "
                             "still in the file others may simulate)", path, token.line)
        if token.kind == "directive" and token.text in FORBIDDEN_DIRECTIVES:
            raise HdlrlError(f"{token.text} (inline C++) is refused in candidate RTL", path, token.line)
        if token.kind == "directive" and token.text == "`include":
            argument = tokens[index + 1] if index + 1 < len(tokens) else None
            if argument is None or argument.kind != "string":
                raise HdlrlError("`include needs a quoted file name", path, token.line)
            name = argument.text[1:-1]
            bases = (path.parent, *include_dirs)
            if not any(_inside(name, base, design_root) for base in bases):
                raise HdlrlError(f"`include \"{name}\" lies outside the design folder", path, token.line)
    return text


def _refused_task(name: str) -> str:
    return (f"system task {name} is refused in candidate RTL (allowed: display, simulation control, type, math "
            "and assertion tasks; nothing that reaches files, the shell or foreign code)")


def _reserved_name_refusal(token: Token) -> str:
    """Why an identifier could collide with a name the gate generates, or ""."""
    name = token.text[1:] if token.text.startswith("\\") else token.text
    if token.text.startswith("\\") and not _SIMPLE_IDENTIFIER.fullmatch(name):
        return (f"escaped identifier {token.text} is refused: only escaped spellings of plain names are allowed, "
                "others can collide with the names the tools generate")
    if name.lower().startswith(RESERVED_PREFIX):
        return f"identifier {name} is refused: the prefix {RESERVED_PREFIX} is reserved for names the gate generates"
    return ""


def screen_view(text: str, line_map: LineMap, working_dir: Path) -> None:
    """Check the preprocessed text every tool will read; raise HdlrlError at the first refusal,
    located in the original file and line. `working_dir` is where the tools run: a file a
    system task names must stay inside it. The expanded text keeps within the caps of a file:
    a macro can nest or multiply what the raw file wrote."""
    crossed = limit_crossed(text)
    if crossed:
        raise HdlrlError(crossed[0], *line_map.locate(crossed[1]))
    tokens = tokenize(text)

    def refuse(message: str, token: Token) -> HdlrlError:
        file, line = line_map.locate(token.line)
        return HdlrlError(message, file, line)

    for index, token in enumerate(tokens):
        if token.kind == "system":
            name = token.text
            if name not in ALLOWED_SYSTEM_TASKS:
                raise refuse(_refused_task(name), token)
            if name in PATH_SYSTEM_TASKS:
                argument = _string_argument(tokens, index)
                if argument is None:
                    raise refuse(f"{name} needs a literal file name inside the design folder", token)
                if not _inside(argument.text[1:-1], working_dir, working_dir):
                    raise refuse(f"{name}({argument.text}) points outside the design folder", token)
        elif token.kind == "directive" and token.text in FORBIDDEN_DIRECTIVES:
            raise refuse(f"{token.text} (inline C++) is refused in candidate RTL", token)
        elif token.kind == "identifier":
            refusal = _reserved_name_refusal(token)
            if refusal:
                raise refuse(refusal, token)
            if token.text == "import" and index + 1 < len(tokens) and tokens[index + 1].text.startswith('"DPI'):
                raise refuse("DPI imports are refused in candidate RTL", token)
            if token.text in ("reg", "logic", "wire", "bit", "integer"):
                bits = _memory_bits(tokens, index)
                if bits is not None and bits > MAX_MEMORY_BITS:
                    raise refuse(f"memory declaration of {bits} bits exceeds the limit of {MAX_MEMORY_BITS} bits",
                                 token)
