"""Refuse candidate RTL that could touch the host before any tool sees it.

Simulators execute what the source asks: `$system("rm -rf ~")`, `$fopen("/etc/passwd")`,
Verilator's inline C++ (`$c`), DPI imports, or an `include of a file outside the design.
This screen rejects those with a one-line reason naming the file and line. System tasks are
allowed from a list, not refused from one. It runs twice: on the raw file for what the
preprocessor itself would do (`include) and for every task written anywhere, dead code
included (others may simulate the file with other macros); and on the preprocessed text
every tool reads (`screen_view`), so a task spelled by a macro (`` `define S $sys``tem ``) is
seen as what it becomes. It also refuses names that could collide with those the gate
generates. It is the first line of defence; the sandboxed runner (no network, read-only host)
is the second.
"""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import Token, tokenize
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


def decode_source(path: Path) -> str:
    """Source text as UTF-8, or an error naming the line of the first undecodable byte."""
    raw = path.read_bytes()
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


_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.floordiv, ast.FloorDiv: operator.floordiv, ast.LShift: operator.lshift,
    ast.Pow: operator.pow,
}


def _evaluate(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= right <= 256:
            raise ValueError("exponent out of range")
        return _OPERATORS[type(node.op)](left, right)
    raise ValueError("not a literal integer expression")


def _constant(expression: str) -> int | None:
    """Value of a literal integer expression like `1<<20` or `2**16-1`; None if not literal."""
    try:
        return _evaluate(ast.parse(expression.replace("_", ""), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


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
        size = _constant(inner)
        return size, index + 1
    high, _, low = inner.partition(":")
    high_value, low_value = _constant(high), _constant(low)
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
    `screen_view`, where a macro cannot hide a task."""
    text = decode_source(path)
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
    system task names must stay inside it."""
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
