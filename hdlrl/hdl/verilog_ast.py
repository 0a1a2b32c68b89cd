"""Verilog text to a pyverilog AST and back, with one quiet parser per process.

Mutation and rewriting work on the AST, so that every edit lands on a real operator or
statement rather than on text that merely looks like one. Building a pyverilog parser costs
about a second and prints table-generation chatter, so one parser is built lazily, its LALR
tables are pickled into the hdlrl cache, and nothing is printed. pyverilog runs no
preprocessor (its lexer silently swallows every directive line), so the few directives real
RTL uses are handled here: `timescale and similar header directives are set aside and put
back on unparse, simple `define macros are expanded, `ifdef blocks are resolved, `include is
resolved in the file's own folder and the include folders given, and anything else (macros
with arguments, other directives) is a clear error. Two common forms outside pyverilog's
grammar are rewritten into equivalent Verilog-2001 first (see `desugar`).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from functools import cache
from dataclasses import dataclass
from pathlib import Path

import pyverilog
from ply.yacc import NullLogger, yacc
from pyverilog.ast_code_generator.codegen import ASTCodeGenerator, del_paren
from pyverilog.vparser import ast
from pyverilog.vparser.lexer import VerilogLexer
from pyverilog.vparser.parser import ParseError, VerilogParser

from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import Token, blank_comments, joined, tokenize
from hdlrl.paths import user_cache_dir

HEADER_DIRECTIVES = ("timescale", "default_nettype", "resetall", "celldefine", "endcelldefine")
_DIRECTIVE = re.compile(r"^\s*`(\w+)\b(.*)$")
_MACRO_USE = re.compile(r"`([A-Za-z_]\w*)")
_PARSE_ERROR_LINE = re.compile(r"line:(\d+)")


@dataclass(frozen=True)
class ParsedSource:
    """An AST plus the header directives that pyverilog cannot represent, for `unparse`."""

    tree: ast.Source
    header: tuple[str, ...]
    text: str = ""  # what pyverilog parsed (directives resolved, the file's lines kept); empty after a rewrite


class IndexedPartselect(ast.Node):
    """`var[base +: width]` or `var[base -: width]`, which pyverilog folds into a wrong msb:lsb."""

    attr_names = ("direction",)

    def __init__(self, var: ast.Node, base: ast.Node, width: ast.Node, direction: str, lineno: int = 0):
        self.lineno = lineno
        self.var = var
        self.base = base
        self.width = width
        self.direction = direction

    def children(self) -> tuple[ast.Node, ...]:
        return (self.var, self.base, self.width)


class _QuietParser(VerilogParser):
    """pyverilog's parser: tables pickled in the hdlrl cache, logging silenced, `+:`/`-:` kept."""

    def __init__(self, table_dir: Path):
        self.lexer = VerilogLexer(error_func=self._lexer_error_func)
        self.lexer.build(errorlog=NullLogger())
        self.tokens = self.lexer.tokens
        self.parser = _load_or_build_tables(self, table_dir)

    def parse_text(self, text: str) -> ast.Source:
        """Parse with a fresh line count and directive list, since the lexer is reused."""
        self.lexer.reset_lineno()
        self.lexer.directives = []
        return self.parse(text)

    def _indexed_partselect(self, p, direction: str) -> None:
        p[0] = IndexedPartselect(p[1], p[3], p[5], direction, lineno=p.lineno(1))
        p.set_lineno(0, p.lineno(1))

    def p_partselect_plus(self, p):
        'partselect : identifier LBRACKET expression PLUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "+:")

    def p_partselect_minus(self, p):
        'partselect : identifier LBRACKET expression MINUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "-:")

    def p_partselect_pointer_plus(self, p):
        'partselect : pointer LBRACKET expression PLUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "+:")

    def p_partselect_pointer_minus(self, p):
        'partselect : pointer LBRACKET expression MINUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "-:")

    def p_lpartselect_plus(self, p):
        'lpartselect : identifier LBRACKET expression PLUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "+:")

    def p_lpartselect_minus(self, p):
        'lpartselect : identifier LBRACKET expression MINUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "-:")

    def p_lpartselect_lpointer_plus(self, p):
        'lpartselect : pointer LBRACKET expression PLUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "+:")

    def p_lpartselect_lpointer_minus(self, p):
        'lpartselect : pointer LBRACKET expression MINUSCOLON expression RBRACKET'
        self._indexed_partselect(p, "-:")


def _load_or_build_tables(parser: VerilogParser, table_dir: Path):
    """Reuse the pickled tables; build and publish them atomically when missing or unreadable.

    Several worker processes may start at once, so a fresh table is written under a private
    name and renamed into place: a reader never sees a half-written file.
    """
    # ply takes the rule defined first in the source as the start symbol; the overrides in
    # _QuietParser come before pyverilog's file, so the start is named explicitly.
    options = {"module": parser, "method": "LALR", "start": "source_text", "outputdir": str(table_dir),
               "debug": False, "write_tables": False, "errorlog": NullLogger()}
    published = table_dir / f"parsetab-pyverilog-{pyverilog.__version__}.pickle"
    if published.is_file():
        try:
            return yacc(picklefile=str(published), **options)
        except Exception:  # a truncated or foreign pickle: rebuild below
            pass
    private = table_dir / f"parsetab.{os.getpid()}.tmp"
    tables = yacc(picklefile=str(private), **options)
    os.replace(private, published)
    return tables


_parser: _QuietParser | None = None
_parser_lock = threading.Lock()  # the parser and its lexer keep state while parsing


def shared_parser() -> _QuietParser:
    """The process-wide parser, built on first use (callers hold `_parser_lock`)."""
    global _parser
    if _parser is None:
        _parser = _QuietParser(user_cache_dir("pyverilog"))
    return _parser


def preprocess(text: str, path: Path | None = None, defines: dict[str, str] | None = None,
               include_dirs: Sequence[Path] = ()) -> tuple[str, tuple[str, ...]]:
    """`text` with directives resolved, line numbers kept, and the header directives set aside.

    Every directive line becomes an empty line so that AST line numbers match the file; an
    `include line holds the included file's tokens instead. `defines` are the macros known
    before the first line (as -D gives them).
    """
    preprocessor = _Preprocessor(dict(defines or {}), tuple(include_dirs))
    lines = preprocessor.lines(text, path, depth=0)
    return "\n".join(lines), tuple(preprocessor.header)


_MAX_INCLUDE_DEPTH = 16  # deeper nesting is a cycle in practice


class _Preprocessor:
    """Macros and header directives shared by a file and the files it includes."""

    def __init__(self, macros: dict[str, str], include_dirs: tuple[Path, ...]):
        self.macros = macros
        self.include_dirs = include_dirs
        self.header: list[str] = []

    def lines(self, text: str, path: Path | None, depth: int) -> list[str]:
        """The lines of `text` with directives resolved: one output line per input line."""
        macros = self.macros  # shared with the includer: a define in an included file holds after it
        active: list[bool] = []  # one entry per open `ifdef: is its current branch kept?
        taken: list[bool] = []  # has any branch of that `ifdef been kept?
        lines = []
        for number, line in enumerate(blank_comments(text).split("\n"), start=1):  # a `word in a comment is no macro
            directive = _DIRECTIVE.match(line)
            keeping = all(active)
            if directive is None:
                lines.append(_expand_macros(line, macros, path, number) if keeping else "")
                continue
            name, rest = directive.group(1), directive.group(2).split("//")[0].strip()
            resolved = ""
            if name in ("ifdef", "ifndef"):
                keep = (rest in macros) == (name == "ifdef")
                active.append(keep)
                taken.append(keep)
            elif name in ("elsif", "else"):
                if not active:
                    raise HdlrlError(f"`{name} without `ifdef", path, number)
                keep = not taken[-1] and (name == "else" or rest in macros)
                active[-1] = keep
                taken[-1] = taken[-1] or keep
            elif name == "endif":
                if not active:
                    raise HdlrlError("`endif without `ifdef", path, number)
                active.pop()
                taken.pop()
            elif not keeping:
                pass
            elif name == "define":
                macro, _, body = rest.partition(" ")
                if "(" in macro:
                    raise HdlrlError(f"macro with arguments `{macro} is not supported", path, number)
                macros[macro] = body.strip()
            elif name == "undef":
                macros.pop(rest, None)
            elif name in HEADER_DIRECTIVES:
                self.header.append(line.strip())
            elif name == "include":
                resolved = self._include(rest, path, number, depth)
            else:
                raise HdlrlError(f"compiler directive `{name} is not supported by the AST tools", path, number)
            lines.append(resolved)
        if active:
            raise HdlrlError("`ifdef without `endif", path)
        return lines

    def _include(self, argument: str, path: Path | None, number: int, depth: int) -> str:
        """The included file's tokens on one line (comments dropped), so the includer's lines stay put."""
        quoted = re.fullmatch(r'"([^"]+)"', argument)
        if quoted is None:
            raise HdlrlError("`include needs a quoted file name", path, number)
        if depth >= _MAX_INCLUDE_DEPTH:
            raise HdlrlError(f"`include \"{quoted.group(1)}\" nests too deep (an include cycle?)", path, number)
        included = self._find(quoted.group(1), path, number)
        lines = self.lines(included.read_text(), included, depth + 1)
        return joined(tokenize("\n".join(lines)))

    def _find(self, name: str, path: Path | None, number: int) -> Path:
        """`name` in the including file's folder, else in the include folders, in order; never outside them."""
        folders = ([path.parent] if path is not None else []) + list(self.include_dirs)
        if Path(name).is_absolute():
            raise HdlrlError(f"`include \"{name}\" must be relative to the include folders", path, number)
        for folder in folders:
            base = folder.resolve()
            candidate = (base / name).resolve()
            if not candidate.is_relative_to(base):
                raise HdlrlError(f"`include \"{name}\" resolves outside its folder {folder}", path, number)
            if candidate.is_file():
                return candidate
        searched = ", ".join(str(folder) for folder in folders) or "no folder (no file path or include folders given)"
        raise HdlrlError(f"`include \"{name}\" not found in {searched}", path, number)


def _expand_macros(line: str, macros: dict[str, str], path: Path | None, number: int) -> str:
    def expand(match: re.Match) -> str:
        if match.group(1) not in macros:
            raise HdlrlError(f"undefined macro `{match.group(1)}", path, number)
        return macros[match.group(1)]

    for _ in range(10):  # macros may use macros; ten levels is plenty for hand-written RTL
        if "`" not in line:
            return line
        line = _MACRO_USE.sub(expand, line)
    raise HdlrlError("macro expansion does not terminate", path, number)


_LOOP_VARIABLE_TYPES = {"int": "integer", "integer": "integer", "genvar": "genvar"}


def _loop_declaration(tokens: list[Token], index: int) -> str | None:
    """The Verilog-2001 type of a loop variable declared in `for (TYPE name =` at `index`."""
    if (tokens[index].text == "for" and index + 4 < len(tokens) and tokens[index + 1].text == "("
            and tokens[index + 2].text in _LOOP_VARIABLE_TYPES and tokens[index + 3].kind == "identifier"
            and tokens[index + 4].text == "="):
        return _LOOP_VARIABLE_TYPES[tokens[index + 2].text]
    return None


def _header_end(tokens: list[Token], module: int) -> int:
    """Index of the `;` that closes the header of the module whose keyword is at `module`."""
    depth = 0
    for index in range(module, len(tokens)):
        depth += (tokens[index].text == "(") - (tokens[index].text == ")")
        if depth == 0 and tokens[index].text == ";":
            return index
    return len(tokens) - 1


def desugar(text: str) -> str:
    """`text` with two forms pyverilog cannot parse rewritten, line numbers kept.

    `assign a = x, b = y;` becomes `assign a = x; assign b = y;`, and a loop variable
    declared in the loop (`for (int i = 0; ...)`, SystemVerilog) becomes a module-level
    `integer i;` (or `genvar i;`) with `for (i = 0; ...)`, on the lines where they were.
    """
    tokens = tokenize(text)
    edits: dict[int, str] = {}  # token index -> replacement text
    declared: dict[int, set[str]] = {}  # header-closing `;` index -> loop variables declared there
    module, in_assign, depth = 0, False, 0
    for index, token in enumerate(tokens):
        if token.text == "module":
            module = index
        elif token.text == "assign":
            in_assign, depth = True, 0
        elif in_assign:
            depth += (token.text in "({[") - (token.text in ")}]")
            if token.text == ";":
                in_assign = False
            elif token.text == "," and depth == 0:
                # the new `assign` goes on the next target's line, where a reader expects that assignment
                edits[index] = ";"
                edits[index + 1] = f"assign {tokens[index + 1].text}"
        if (kind := _loop_declaration(tokens, index)) is not None:
            header = _header_end(tokens, module)
            name = tokens[index + 3].text
            if name not in declared.setdefault(header, set()):
                declared[header].add(name)
                edits[header] = edits.get(header, ";") + f" {kind} {name};"
            edits[index + 2] = ""
    for index in sorted(edits, reverse=True):
        token = tokens[index]
        text = text[:token.start] + edits[index] + text[token.start + len(token.text):]
    return text


def parse_verilog(text: str, path: Path | None = None, defines: dict[str, str] | None = None,
                  include_dirs: Sequence[Path] = ()) -> ParsedSource:
    """The AST of `text`; a syntax error is an HdlrlError with the file and line.

    `defines` and `include_dirs` are as for `preprocess`.
    """
    source, header = preprocess(text, path, defines, include_dirs)
    source = desugar(source)
    try:
        with _parser_lock:
            tree = shared_parser().parse_text(source)
    except ParseError as error:
        line = _PARSE_ERROR_LINE.search(str(error))
        detail = str(error).rpartition(": ")[2]
        raise HdlrlError(f"pyverilog cannot parse this Verilog (error before {detail})", path, int(line.group(1)) if line else None)
    return ParsedSource(tree, header, source)


def unparse(parsed: ParsedSource | ast.Node) -> str:
    """Verilog text for an AST, with the original header directives in front."""
    if isinstance(parsed, ParsedSource):
        return "".join(line + "\n" for line in parsed.header) + shared_writer().visit(parsed.tree)
    return shared_writer().visit(parsed)


class VerilogWriter(ASTCodeGenerator):
    """pyverilog's code generator with its known misprints corrected."""

    def visit_CasezStatement(self, node: ast.CasezStatement) -> str:
        # pyverilog has no casez template and would print the items without the header
        items = "".join(self.indent(self.visit(case)) + "\n" for case in node.caselist)
        return f"casez({del_paren(self.visit(node.comp))})\n{items}endcase"

    def visit_IndexedPartselect(self, node: IndexedPartselect) -> str:
        return f"{self.visit(node.var)}[{self.visit(node.base)} {node.direction} {self.visit(node.width)}]"

    def visit_EventStatement(self, node: ast.EventStatement) -> str:
        """pyverilog reads a null statement (`default: ;`) as an event control on an empty list
        and would print `@(*);`, which stops the process for good on Icarus and crashes Verilator
        5.006 under --timing: printed as the null statement it was. (A written `@(*);`, a wait
        for nothing, reads the same; RTL has no use for it.)"""
        if [(sens.sig, sens.type) for sens in node.senslist.list] == [(None, "all")]:
            return ";"
        return super().visit_EventStatement(node)

    def visit_Decl(self, node: ast.Decl) -> str:
        """One declaration a line, and `reg x = v;` kept as an initialiser, not an illegal `assign`."""
        items: list[str] = []
        for index, item in enumerate(node.list):
            if isinstance(item, ast.Assign) and index and isinstance(node.list[index - 1], ast.Variable):
                items[-1] = f"{items[-1].rstrip(';')} = {del_paren(self.visit(item.right.var))};"
            else:
                items.append(self.visit(item))
        return "\n".join(items)


@cache
def shared_writer() -> VerilogWriter:
    """One writer per process: each new one recompiles pyverilog's templates (tens of ms)."""
    return VerilogWriter()
