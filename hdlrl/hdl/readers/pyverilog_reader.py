"""Verilog-2001 modules as `hdlrl.hdl.ir` dataclasses, read with the shared pyverilog parser.

pyverilog's tree already separates declarations, processes and statements, so this is a
mapping onto the IR. What the tree lacks is computed from tokens of the text it parsed:
where each block ends (pyverilog records only start lines) and the module's own text.
Widths and parameter values come from `hdlrl.hdl.constants` on unparsed text, the same
arithmetic the pyslang reader uses, so both readers agree on them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

from pyverilog.vparser import ast

from hdlrl.errors import HdlrlError
from hdlrl.hdl.constants import evaluate, literal_value, range_width
from hdlrl.hdl.ir import (Assignment, Block, Case, CaseItem, Connection, Event, Expression, If, Loop, Module,
                          Parameter, Port, Signal, Statement)
from hdlrl.hdl.lexer import Token, matching, tokenize
from hdlrl.hdl.readers import TOO_DEEP
from hdlrl.hdl.verilog_ast import parse_verilog, unparse

_OPERATOR_NAMES: dict[type, str] = {
    ast.Plus: "add", ast.Minus: "subtract", ast.Times: "multiply", ast.Divide: "divide", ast.Mod: "modulo",
    ast.Power: "power", ast.Sll: "shift_left", ast.Srl: "shift_right", ast.Sla: "arithmetic_shift_left",
    ast.Sra: "arithmetic_shift_right", ast.Eq: "equal", ast.NotEq: "not_equal", ast.Eql: "case_equal",
    ast.NotEql: "case_not_equal", ast.LessThan: "less", ast.LessEq: "less_equal", ast.GreaterThan: "greater",
    ast.GreaterEq: "greater_equal", ast.Land: "logical_and", ast.Lor: "logical_or", ast.Ulnot: "logical_not",
    ast.And: "bitwise_and", ast.Or: "bitwise_or", ast.Xor: "bitwise_xor", ast.Xnor: "bitwise_xnor",
    ast.Unot: "bitwise_not", ast.Uminus: "negate", ast.Uplus: "plus", ast.Uand: "reduce_and",
    ast.Uor: "reduce_or", ast.Uxor: "reduce_xor", ast.Unand: "reduce_nand", ast.Unor: "reduce_nor",
    ast.Uxnor: "reduce_xnor", ast.Cond: "conditional", ast.Concat: "concatenate", ast.Repeat: "replicate",
}
_CASE_KINDS: dict[type, str] = {ast.CaseStatement: "case", ast.CasexStatement: "casex",
                                ast.CasezStatement: "casez", ast.UniqueCaseStatement: "case"}
_PROCESSES: dict[type, str] = {ast.Always: "always", ast.AlwaysFF: "always_ff", ast.AlwaysComb: "always_comb",
                               ast.AlwaysLatch: "always_latch"}
_DIRECTIONS: dict[type, str] = {ast.Input: "input", ast.Output: "output", ast.Inout: "inout"}
_REGISTER_TYPES = (ast.Reg, ast.Integer)  # what makes a port `is_register`
_NETS = (ast.Wire, ast.Tri)  # `wire x = e;` is a continuous assignment; `reg x = e;` an initialiser
_MODULE_KEYWORDS = ("module", "macromodule")

# Keywords that open a construct, with the keyword that closes it.
_CLOSERS = {"begin": "end", "fork": "join", "case": "endcase", "casez": "endcase", "casex": "endcase",
            "function": "endfunction", "task": "endtask", "generate": "endgenerate", "module": "endmodule",
            "macromodule": "endmodule"}
_PREFIXES = frozenset(_PROCESSES.values()) | {"initial", "forever", "else"}  # a statement follows directly
_HEADED = frozenset({"if", "for", "while", "repeat", "wait"})  # a parenthesised header, then a statement


def read_modules(text: str, path: str, defines: dict[str, str] | None = None,
                 include_dirs: Sequence[Path] = ()) -> list[Module]:
    """Every module of `text`, parsed by pyverilog; an HdlrlError naming path and line when pyverilog rejects it,
    or when a module's tree is deeper than Python's recursion limit (a chain of a few hundred operators is)."""
    parsed = parse_verilog(text, Path(path), defines, include_dirs)
    parsed_tokens, file_tokens = tokenize(parsed.text), tokenize(text)
    modules: list[Module] = []
    cursor = 0  # each module's search starts inside the one before: two may share a line
    for definition in parsed.tree.description.definitions:
        if isinstance(definition, ast.ModuleDef):
            reader = _ModuleReader(definition, path, parsed_tokens, cursor)
            try:
                modules.append(reader.read(text, file_tokens, parsed.text))
            except RecursionError:
                raise HdlrlError(TOO_DEEP.format(parser="pyverilog"), path, definition.lineno) from None
            cursor = reader.cursor
    return modules


# token scanning: where a construct ends, for Block.end_line

def _construct_end(tokens: list[Token], index: int) -> int:
    """Index of the last token of the statement or module item that starts at `index` (valid Verilog)."""
    word = tokens[index].text
    if word in _CLOSERS:
        closer = _CLOSERS[word]
        return matching(tokens, index, {opener for opener, closes in _CLOSERS.items() if closes == closer}, closer)
    if word in _PREFIXES:
        return _construct_end(tokens, index + 1)
    if word in ("@", "#"):  # an event control or delay, then the statement it guards
        control = matching(tokens, index + 1, {"("}, ")") if tokens[index + 1].text == "(" else index + 1
        return _construct_end(tokens, control + 1)
    if word in _HEADED:
        body_end = _construct_end(tokens, matching(tokens, index + 1, {"("}, ")") + 1)
        if word == "if" and body_end + 1 < len(tokens) and tokens[body_end + 1].text == "else":
            return _construct_end(tokens, body_end + 1)
        return body_end
    depth = 0
    for end in range(index, len(tokens)):
        depth += (tokens[end].text in "([{") - (tokens[end].text in ")]}")
        if depth == 0 and tokens[end].text == ";":
            return end
    return len(tokens) - 1


def _instance_end(tokens: list[Token], index: int) -> int:
    """The `)` closing the port list of the instance named at `index` (not the statement's `;`)."""
    while tokens[index].text != "(":
        index += 1
    return matching(tokens, index, {"("}, ")")


_EndFinder = Callable[[list[Token], int], int]  # tokens, a construct's first index -> its last index


class _ModuleReader:
    """One module: its parameter values (widths need them) and a cursor that finds blocks' tokens in order."""

    def __init__(self, definition: ast.ModuleDef, path: str, tokens: list[Token], cursor: int):
        self.definition = definition
        self.path = path
        self.tokens = tokens
        self.cursor = cursor  # blocks are met in source order, so each search starts where the last one began
        self.values: dict[str, int] = {}

    def read(self, text: str, file_tokens: list[Token], parsed_text: str) -> Module:
        """The module; parameters first, since port and signal widths are evaluated under them."""
        definition = self.definition
        start, end = self._span(_MODULE_KEYWORDS, definition.lineno)
        declarations = [item for declaration in _declarations(definition) for item in declaration.list]
        parameters = tuple(self._parameter(item) for item in declarations
                           if isinstance(item, ast.Parameter) and not isinstance(item, ast.Supply))
        ports = self._ports(declarations)
        port_names = {port.name for port in ports}
        signals = tuple(self._signal(item) for item in declarations if isinstance(item, ast.Variable)
                        and not isinstance(item, tuple(_DIRECTIONS)) and item.name not in port_names)
        blocks = tuple(block for item in definition.items for block in self._blocks(item))
        source = _module_text(text, file_tokens, parsed_text, self.tokens, start, end)
        return Module(definition.name, self.path, self.tokens[start].line, self.tokens[end].line, "pyverilog",
                      source, ports, parameters, signals, blocks)

    # declarations

    def _parameter(self, parameter: ast.Parameter) -> Parameter:
        """The parameter, whose default value (when constant) later widths may use."""
        value = evaluate(unparse(parameter.value), self.values)
        if value is not None:
            self.values[parameter.name] = value
        return Parameter(parameter.name, _expression(parameter.value), isinstance(parameter, ast.Localparam),
                         self._declared_line(parameter))

    def _ports(self, declarations: list[ast.Node]) -> tuple[Port, ...]:
        """ANSI ports from the header; non-ANSI ones from their body declarations, in header order."""
        ports = []
        body_variables = {item.name: item for item in declarations if isinstance(item, ast.Variable)
                          and not isinstance(item, tuple(_DIRECTIONS))}
        directions = {item.name: item for item in declarations if isinstance(item, tuple(_DIRECTIONS))}
        for entry in self.definition.portlist.ports:
            if isinstance(entry, ast.Ioport):
                direction, variable = entry.first, entry.second
            elif entry.name in directions:
                direction, variable = directions[entry.name], body_variables.get(entry.name)
            else:
                continue  # a header name never declared: not valid Verilog, nothing to state
            width = direction.width if direction.width is not None else getattr(variable, "width", None)
            ports.append(Port(direction.name, _DIRECTIONS[type(direction)], self._width(width),
                              direction.signed or bool(variable and variable.signed),
                              isinstance(variable, _REGISTER_TYPES), self._declared_line(direction)))
        return tuple(ports)

    def _signal(self, variable: ast.Variable) -> Signal:
        depth = None
        if variable.dimensions is not None:
            lengths = [self._width(length) for length in variable.dimensions.lengths]
            depth = None if None in lengths else math.prod(lengths)
        return Signal(variable.name, type(variable).__name__.lower(), self._width(variable.width), depth,
                      bool(variable.signed), self._declared_line(variable))

    def _width(self, width: ast.Width | None) -> int | None:
        """Bits of a range under the parameter defaults; one bit without a range."""
        if width is None:
            return 1
        return range_width(unparse(width.msb), unparse(width.lsb), self.values)

    # blocks

    def _blocks(self, item: ast.Node) -> list[Block]:
        """The blocks of one module (or generate) item, in source order; declarations give none but `wire x = e`."""
        if isinstance(item, ast.Decl):
            return [self._assign(entry, (entry.left.var.name,)) for index, entry in enumerate(item.list)
                    if isinstance(entry, ast.Assign) and index and isinstance(item.list[index - 1], _NETS)]
        if isinstance(item, ast.Assign):
            return [self._assign(item, ("assign",))]
        if isinstance(item, ast.Always):
            process = _PROCESSES[type(item)]
            line, end_line = self._span_lines((process,), item.lineno)
            # pyverilog reads a missing event control (`always begin #5 ...`) as `@*`; the tokens tell them apart
            keyword = next(index for index in range(_line_start(self.tokens, line), len(self.tokens))
                           if self.tokens[index].text == process)
            timed = keyword + 1 < len(self.tokens) and self.tokens[keyword + 1].text == "@"
            events = tuple(_event(sensitivity) for sensitivity in item.sens_list.list) if item.sens_list and timed else ()
            return [Block("always", line, end_line, _statements(item.statement), events, process)]
        if isinstance(item, ast.Initial):
            line, end_line = self._span_lines(("initial",), item.lineno)
            return [Block("initial", line, end_line, _statements(item.statement))]
        if isinstance(item, ast.InstanceList):
            return [self._instance(instance) for instance in item.instances]
        if isinstance(item, (ast.Function, ast.Task)):
            kind = "function" if isinstance(item, ast.Function) else "task"
            line, end_line = self._span_lines((kind,), item.lineno)
            body = tuple(statement for part in item.statement for statement in _statements(part))
            return [Block(kind, line, end_line, body, name=item.name)]
        if isinstance(item, ast.GenerateStatement):
            return [self._generate(("generate",), item.lineno, None, item.items)]
        if isinstance(item, ast.ForStatement):
            label = item.statement.scope if isinstance(item.statement, ast.Block) else None
            return [self._generate(("for",), item.lineno, label, _contents(item.statement))]
        if isinstance(item, ast.IfStatement):
            branches = [branch for branch in (item.true_statement, item.false_statement) if branch is not None]
            return [self._generate(("if",), item.lineno, None, branches)]
        if isinstance(item, ast.Block):
            if item.scope is None:
                return [block for inner in item.statements for block in self._blocks(inner)]
            return [self._generate(("begin",), item.lineno, item.scope, item.statements)]
        return []

    def _assign(self, assign: ast.Assign, keywords: tuple[str, ...]) -> Block:
        line, end_line = self._span_lines(keywords, assign.lineno)
        return Block("assign", line, end_line, (_assignment(assign.left, assign.right, True, assign.lineno),))

    def _instance(self, instance: ast.Instance) -> Block:
        # the name followed by its port list: an instance may share its module's name
        line, end_line = self._span_lines((instance.name or instance.module,), instance.lineno, _instance_end,
                                          followers=("(", "["))
        connections = tuple(_connection(port.portname, port.argname) for port in instance.portlist or ())
        parameters = tuple(_connection(parameter.paramname, parameter.argname)
                           for parameter in instance.parameterlist or ())
        return Block("instance", line, end_line, name=instance.name or None, module=instance.module,
                     connections=connections, parameters=parameters)

    def _generate(self, keywords: tuple[str, ...], line: int, name: str | None, items: Sequence[ast.Node]) -> Block:
        line, end_line = self._span_lines(keywords, line)
        inner = tuple(block for item in items for block in self._blocks(item))
        return Block("generate", line, end_line, name=name, blocks=inner)

    # token positions

    def _declared_line(self, declared: ast.Variable | ast.Parameter) -> int:
        """The line of the declared name: pyverilog gives every name of `reg a,\n b;` the keyword's line."""
        later = range(_line_start(self.tokens, declared.lineno), len(self.tokens))
        return next((self.tokens[index].line for index in later if self.tokens[index].text == declared.name),
                    declared.lineno)

    def _span(self, keywords: Collection[str], line: int, find_end: _EndFinder = _construct_end,
              followers: Collection[str] | None = None) -> tuple[int, int]:
        """Token indexes of the first and last token of the construct that starts with one of `keywords`.

        The construct is the first such token at or after the cursor, on `line` or later (and
        followed by one of `followers` when given); the cursor moves just past its start, so
        that blocks nested in it are found next.
        """
        for index in range(self.cursor, len(self.tokens) - 1):
            token = self.tokens[index]
            if (token.line >= line and token.text in keywords
                    and (followers is None or self.tokens[index + 1].text in followers)):
                self.cursor = index + 1
                return index, find_end(self.tokens, index)
        raise AssertionError(f"no {'/'.join(keywords)} token from line {line} in the text pyverilog parsed")

    def _span_lines(self, keywords: Collection[str], line: int, find_end: _EndFinder = _construct_end,
                    followers: Collection[str] | None = None) -> tuple[int, int]:
        """The first and last line of the construct `_span` finds."""
        start, end = self._span(keywords, line, find_end, followers)
        return self.tokens[start].line, self.tokens[end].line


def _declarations(node: ast.Node) -> Iterator[ast.Decl]:
    """The module's declarations, those in generate constructs included, in source order (not a function's)."""
    for child in node.children():
        if isinstance(child, ast.Decl):
            yield child
        elif not isinstance(child, (ast.Function, ast.Task)):
            yield from _declarations(child)


def _contents(node: ast.Node) -> Sequence[ast.Node]:
    """The items of a generate loop's body: a begin/end's statements, or the one item."""
    return node.statements if isinstance(node, ast.Block) else (node,)


# statements and expressions

def _statements(node: ast.Node | None) -> tuple[Statement, ...]:
    """The IR statements of a procedural statement: begin/end flattened, delays and system tasks dropped."""
    if isinstance(node, (ast.Block, ast.ParallelBlock)):
        return tuple(statement for inner in node.statements for statement in _statements(inner))
    if isinstance(node, ast.Substitution):
        return (_assignment(node.left, node.right, isinstance(node, ast.BlockingSubstitution), node.lineno),)
    if isinstance(node, ast.IfStatement):
        return (If(_expression(node.cond), _statements(node.true_statement), _statements(node.false_statement),
                   node.lineno),)
    if isinstance(node, ast.CaseStatement):
        items = tuple(CaseItem(tuple(_expression(label) for label in item.cond or ()), _statements(item.statement),
                               item.lineno) for item in node.caselist)
        return (Case(_CASE_KINDS[type(node)], _expression(node.comp), items, node.lineno),)
    if isinstance(node, (ast.ForStatement, ast.WhileStatement, ast.ForeverStatement)):
        return (Loop(_statements(node.statement), node.lineno),)
    if isinstance(node, ast.WaitStatement):
        return _statements(node.statement)
    return ()


def _assignment(target: ast.Lvalue, value: ast.Rvalue, blocking: bool, line: int) -> Assignment:
    parts = target.var.list if isinstance(target.var, ast.LConcat) else (target.var,)
    targets = tuple(_base_name(part) for part in parts)
    return Assignment(targets[0], _collapse(unparse(target.var)), _expression(value), blocking, line, targets)


def _base_name(node: ast.Node) -> str:
    """`q` for `q`, `q[3]`, `q[3:0]`, `q[i +: 4]` and `mem[i][j]`."""
    while not isinstance(node, ast.Identifier):
        node = node.var
    return node.name


def _event(sensitivity: ast.Sens) -> Event:
    if sensitivity.type == "all":
        return Event("star")
    return Event(sensitivity.type, _base_name(sensitivity.sig))


def _connection(name: str | None, value: ast.Node | None) -> Connection:
    return Connection(name, _expression(value) if value is not None else None)


def _expression(node: ast.Node) -> Expression:
    operators: list[str] = []
    identifiers: dict[str, None] = {}  # an ordered set
    _walk(node, operators, identifiers)
    expression = node.var if isinstance(node, ast.Rvalue) else node
    constant = literal_value(expression.value) if isinstance(expression, ast.IntConst) else None
    return Expression(_collapse(unparse(node)), tuple(operators), tuple(identifiers), constant)


def _walk(node: ast.Node, operators: list[str], identifiers: dict[str, None]) -> None:
    """Operators and identifiers in pre-order: a node before its operands, operands as written."""
    if type(node) in _OPERATOR_NAMES:
        operators.append(_OPERATOR_NAMES[type(node)])
    if isinstance(node, ast.Identifier):
        identifiers.setdefault(node.name)
    if isinstance(node, ast.Repeat):
        # `{n{a, b}}`: the count comes first, and the inner braces belong to the replication
        children = (node.times, *(node.value.list if isinstance(node.value, ast.Concat) else (node.value,)))
    else:
        children = node.children()
    for child in children:
        _walk(child, operators, identifiers)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _module_text(file_text: str, file_tokens: list[Token], parsed_text: str, parsed_tokens: list[Token],
                 start: int, end: int) -> str:
    """The text from `module` to `endmodule` as in the file; as parsed when the file lacks it (an included module)."""
    first, last = _counterpart(parsed_tokens, start, file_tokens), _counterpart(parsed_tokens, end, file_tokens)
    if first is None or last is None:
        file_text, first, last = parsed_text, parsed_tokens[start], parsed_tokens[end]
    return file_text[first.start:last.start + len(last.text)]


def _line_start(tokens: list[Token], line: int) -> int:
    """Index of the first token on `line` or after it (tokens are in line order): no scan from the file's start."""
    return bisect.bisect_left(tokens, line, key=lambda token: token.line)


def _counterpart(parsed_tokens: list[Token], index: int, file_tokens: list[Token]) -> Token | None:
    """The file's token that `parsed_tokens[index]` came from: the same line, spelling and rank on that line.

    The parsed text keeps the file's lines but not its columns (macros are expanded).
    """
    token = parsed_tokens[index]
    earlier = parsed_tokens[_line_start(parsed_tokens, token.line):index]
    rank = sum(1 for other in earlier if other.text == token.text)
    on_line = file_tokens[_line_start(file_tokens, token.line):_line_start(file_tokens, token.line + 1)]
    candidates = [candidate for candidate in on_line if candidate.text == token.text]
    return candidates[rank] if rank < len(candidates) else None
