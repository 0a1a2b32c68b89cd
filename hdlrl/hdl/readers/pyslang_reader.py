"""SystemVerilog text to `hdlrl.hdl.ir` modules, through pyslang's syntax tree.

pyverilog reads Verilog-2001 only; SystemVerilog (`logic`, `always_ff`, `'0`, `int i` loops)
and some Verilog it rejects (`@(posedge clk or rst)`) go to slang, whose parser and
preprocessor are complete. Only the syntax tree is walked: elaboration would need every
child module, and the facts need declarations and statements as written, not a netlist.
Widths are evaluated from the range text under the parameters' defaults by
`hdlrl.hdl.constants`, as the pyverilog reader does, so that both readers agree. Expressions,
and the helpers that find their way through the syntax tree, are in
`hdlrl.hdl.readers.pyslang_syntax`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from math import prod
from pathlib import Path

import pyslang
from pyslang import parsing, syntax
from pyslang.syntax import SyntaxKind, SyntaxNode

from hdlrl.errors import HdlrlError
from hdlrl.hdl.constants import evaluate, range_width
from hdlrl.hdl.ir import (Assignment, Block, Case, CaseItem, Connection, Event, Expression, If, Loop, Module,
                          Parameter, Port, Signal, Statement)
from hdlrl.hdl.lexer import Token, tokenize
from hdlrl.hdl.readers import TOO_DEEP
from hdlrl.hdl.readers.pyslang_syntax import (COMPOUND_ASSIGNMENTS, GENERATES, INCREMENTS, assigned_names,
                                              child_nodes, first_identifier, generate_contents, generate_label,
                                              module_items, node_text, to_expression, unwrap)

_PROCESSES = {SyntaxKind.AlwaysBlock: "always", SyntaxKind.AlwaysCombBlock: "always_comb",
              SyntaxKind.AlwaysFFBlock: "always_ff", SyntaxKind.AlwaysLatchBlock: "always_latch"}
_LOOPS = {SyntaxKind.ForLoopStatement, SyntaxKind.LoopStatement, SyntaxKind.DoWhileStatement,
          SyntaxKind.ForeverStatement, SyntaxKind.ForeachLoopStatement}
_INSTANCES = {SyntaxKind.HierarchyInstantiation, SyntaxKind.PrimitiveInstantiation}
# Bits of the integer types that take no range; the other variable types are one bit per range element.
_FIXED_WIDTHS = {"integer": 32, "int": 32, "shortint": 16, "longint": 64, "byte": 8, "time": 64}
_SIGNED_TYPES = {"integer", "int", "shortint", "longint", "byte"}
_VARIABLE_TYPES = {"reg", "logic", "bit", *_FIXED_WIDTHS}
_GENVAR_WIDTH = 32  # a genvar is an integer
_OUTSIDE = "`include \"{name}\" lies outside the file's folder and the include folders"


def read_modules(text: str, path: str, defines: dict[str, str] | None = None,
                 include_dirs: Sequence[Path] = ()) -> list[Module]:
    """Every module of `text`, parsed by pyslang; an HdlrlError(message, path, line) when pyslang reports a syntax
    error, or when a module's tree is deeper than Python's recursion limit."""
    folders = (Path(path).absolute().parent, *include_dirs)
    for token, name in _includes(text):
        if _escapes(name, folders):  # refused before slang opens it: it may be a device or a secret
            raise HdlrlError(_OUTSIDE.format(name=name), path, token.line)
    options = parsing.PreprocessorOptions()
    options.predefines = [f"{name}={value}" if value else name for name, value in (defines or {}).items()]
    options.additionalIncludePaths = list(include_dirs)
    sources = pyslang.SourceManager()
    buffer = sources.assignText(str(Path(path).absolute()), text)
    tree = syntax.SyntaxTree.fromBuffer(buffer, sources, pyslang.Bag([options]))
    reader = _Reader(sources, buffer.id, path)
    reader.check(tree, folders)
    members = tree.root.members if tree.root.kind == SyntaxKind.CompilationUnit else [tree.root]
    modules = []
    for member in members:
        if member.kind == SyntaxKind.ModuleDeclaration:
            try:
                modules.append(reader.module(member))
            except RecursionError:
                raise HdlrlError(TOO_DEEP.format(parser="pyslang"), path,
                                 reader.line(member.header.moduleKeyword)) from None
    return modules


def _includes(text: str) -> Iterator[tuple[Token, str]]:
    """Each `include "name"` written in `text` (not those of included files, nor a macro's)."""
    tokens = tokenize(text)
    for directive, argument in zip(tokens, tokens[1:]):
        if directive.text == "`include" and argument.kind == "string":
            yield directive, argument.text[1:-1]


def _escapes(name: str | Path, folders: Sequence[Path]) -> bool:
    """True when `name`, taken in each folder in turn, lies inside none of them."""
    return not any((folder / name).resolve().is_relative_to(folder.resolve()) for folder in folders)


class _Reader:
    """The walk of one file's modules: its lines, and the parameter values of the module being read."""

    def __init__(self, sources: pyslang.SourceManager, buffer: pyslang.BufferID, path: str):
        self.sources, self.buffer, self.path = sources, buffer, path
        self.values: dict[str, int] = {}

    def line(self, where: parsing.Token | pyslang.SourceLocation) -> int:
        """The line in this file: a macro's tokens count where it is used, an include's where it is included."""
        location = self.sources.getFullyExpandedLoc(where.location if isinstance(where, parsing.Token) else where)
        while location.buffer != self.buffer and self.sources.isIncludedFileLoc(location):
            location = self.sources.getIncludedFrom(location.buffer)
        return self.sources.getLineNumber(location)

    def span(self, node: SyntaxNode) -> tuple[int, int]:
        return self.line(node.getFirstToken()), self.line(node.getLastToken())

    def check(self, tree: syntax.SyntaxTree, folders: Sequence[Path]) -> None:
        """Refuse a file included from outside `folders` (by an included file too), then the first syntax error."""
        for include in tree.getIncludeDirectives():
            if include.buffer and _escapes(self.sources.getFullPath(include.buffer.id), folders):
                raise HdlrlError(_OUTSIDE.format(name=include.path), self.path, self.line(include.syntax.getFirstToken()))
        for diagnostic in tree.diagnostics:
            if diagnostic.isError():
                message = pyslang.DiagnosticEngine(self.sources).formatMessage(diagnostic)
                raise HdlrlError(f"pyslang: {message}", self.path, self.line(diagnostic.location))

    def module(self, node: syntax.ModuleDeclarationSyntax) -> Module:
        header = node.header
        parameters = self.parameters(node)
        # slang's offsets count UTF-8 bytes; a module of an included file is cut from that file
        start, end = header.moduleKeyword.location, node.endmodule.range.end
        source = self.sources.getSourceText(start.buffer).encode()[start.offset:end.offset].decode()
        ports = self.ports(node)
        port_names = {port.name for port in ports}
        signals = tuple(signal for signal in self.signals(node.members) if signal.name not in port_names)
        return Module(header.name.valueText, self.path, self.line(start), self.line(node.endmodule), "pyslang",
                      source, ports, parameters, signals, self.blocks(node.members))

    # declarations

    def parameters(self, node: syntax.ModuleDeclarationSyntax) -> tuple[Parameter, ...]:
        """Header and body parameters in declaration order; their defaults become `values`, for the widths."""
        declarations = list(child_nodes(node.header.parameters.declarations)) if node.header.parameters else []
        declarations += [member.parameter for member in module_items(node.members)
                         if member.kind == SyntaxKind.ParameterDeclarationStatement]
        found: list[Parameter] = []
        self.values = {}
        for declaration in declarations:
            if declaration.kind != SyntaxKind.ParameterDeclaration:
                continue  # a type parameter has no value
            local = declaration.keyword.kind == parsing.TokenKind.LocalParamKeyword
            for declarator in child_nodes(declaration.declarators):
                if declarator.initializer:
                    name, value = declarator.name.valueText, to_expression(declarator.initializer.expr)
                    found.append(Parameter(name, value, local, self.line(declarator.name)))
                    default = evaluate(value.text, self.values)
                    if default is not None:
                        self.values[name] = default
        return tuple(found)

    def width(self, dimensions: Iterable[SyntaxNode], element: int | None = 1) -> int | None:
        """Bits (or words) of `element` repeated over `[msb:lsb]` or `[size]` dimensions, under the parameter defaults."""
        sizes = [element]
        for dimension in child_nodes(dimensions):
            selector = dimension.specifier.selector if dimension.specifier else None
            if selector is not None and selector.kind == SyntaxKind.SimpleRangeSelect:
                sizes.append(range_width(node_text(selector.left), node_text(selector.right), self.values))
            elif selector is not None and selector.kind == SyntaxKind.BitSelect:
                sizes.append(evaluate(node_text(selector.expr), self.values))
            else:
                sizes.append(None)  # `[]`, `[$]`, `[*]`: sizes a declaration does not fix
        return None if None in sizes else prod(sizes)

    def data_type(self, node: SyntaxNode) -> tuple[str | None, int | None, bool]:
        """(keyword as written, None when implicit; bits; signed) of a data type."""
        if node.kind == SyntaxKind.NamedType:
            return node_text(node), None, False
        keyword = node.keyword.rawText if isinstance(node, (syntax.IntegerTypeSyntax, syntax.KeywordTypeSyntax)) else None
        signing = node.signing.rawText if isinstance(node, (syntax.IntegerTypeSyntax, syntax.ImplicitTypeSyntax)) else ""
        element = _FIXED_WIDTHS.get(keyword, 1) if keyword is None or keyword in _VARIABLE_TYPES else None
        signed = signing == "signed" or (keyword in _SIGNED_TYPES and signing != "unsigned")
        return keyword, self.width(getattr(node, "dimensions", ()), element), signed

    def port_header(self, header: SyntaxNode, previous: Port | None) -> tuple[str, int | None, bool, bool]:
        """(direction, width, signed, is_register) of a port header; a bare ANSI header repeats the previous port."""
        data_type = header.dataType
        bare = (header.kind == SyntaxKind.VariablePortHeader and not header.direction and not header.varKeyword
                and data_type.kind == SyntaxKind.ImplicitType and not data_type.signing and not data_type.dimensions)
        if bare and previous is not None:
            return previous.direction, previous.width, previous.signed, previous.is_register
        keyword, width, signed = self.data_type(data_type)
        direction = header.direction.rawText if header.direction else previous.direction if previous else "inout"
        variable = header.kind == SyntaxKind.VariablePortHeader and (keyword in _VARIABLE_TYPES or bool(header.varKeyword))
        return direction, width, signed, variable

    def ports(self, node: syntax.ModuleDeclarationSyntax) -> tuple[Port, ...]:
        port_list = node.header.ports
        if port_list is None:
            return ()
        if port_list.kind != SyntaxKind.AnsiPortList:
            return self.non_ansi_ports(port_list, node.members)
        ports: list[Port] = []
        for port in child_nodes(port_list.ports):
            if port.kind == SyntaxKind.ImplicitAnsiPort and port.header.kind != SyntaxKind.InterfacePortHeader:
                facts = self.port_header(port.header, ports[-1] if ports else None)
                ports.append(Port(port.declarator.name.valueText, *facts, self.line(port.declarator.name)))
        return tuple(ports)

    def non_ansi_ports(self, port_list: SyntaxNode, members: Sequence[SyntaxNode]) -> tuple[Port, ...]:
        """Ports named in the header and declared in the body, in header order; `output q; reg q;` makes q a register."""
        declared: dict[str, Port] = {}
        for member in members:
            if member.kind == SyntaxKind.PortDeclaration:
                facts = self.port_header(member.header, None)
                for declarator in child_nodes(member.declarators):
                    declared[declarator.name.valueText] = Port(declarator.name.valueText, *facts,
                                                               self.line(declarator.name))
        for signal in self.signals(members):
            if (port := declared.get(signal.name)) is not None:
                declared[signal.name] = replace(port, width=port.width if port.width != 1 else signal.width,
                                                signed=port.signed or signal.signed,
                                                is_register=port.is_register or signal.kind in _VARIABLE_TYPES)
        names = [port.expr.name.valueText for port in child_nodes(port_list.ports)
                 if port.kind == SyntaxKind.ImplicitNonAnsiPort and port.expr.kind == SyntaxKind.PortReference]
        return tuple(declared[name] for name in names if name in declared)

    def signals(self, members: Sequence[SyntaxNode]) -> Iterator[Signal]:
        for member in module_items(members):
            if member.kind == SyntaxKind.GenvarDeclaration:
                for name in child_nodes(member.identifiers):
                    yield Signal(name.identifier.valueText, "genvar", _GENVAR_WIDTH, None, False,
                                 self.line(name.identifier))
            elif member.kind in (SyntaxKind.DataDeclaration, SyntaxKind.NetDeclaration):
                keyword, width, signed = self.data_type(member.type)
                kind = member.netType.rawText if member.kind == SyntaxKind.NetDeclaration else keyword or "logic"
                for declarator in child_nodes(member.declarators):
                    depth = self.width(declarator.dimensions) if declarator.dimensions else None
                    yield Signal(declarator.name.valueText, kind, width, depth, signed, self.line(declarator.name))

    # blocks

    def blocks(self, members: Iterable[SyntaxNode]) -> tuple[Block, ...]:
        return tuple(block for member in members for block in self.member_blocks(member))

    def member_blocks(self, member: SyntaxNode) -> Iterator[Block]:
        kind = member.kind
        if kind == SyntaxKind.ContinuousAssign:
            # `assign a = x, b = y;`: the first block starts at `assign`, the last one ends at `;`
            assignments = list(child_nodes(member.assignments))
            for index, assignment in enumerate(assignments):
                start = member.assign if index == 0 else assignment.getFirstToken()
                end = member.semi if index == len(assignments) - 1 else assignment.getLastToken()
                yield Block("assign", self.line(start), self.line(end), statements=self.assignment(assignment))
        elif kind == SyntaxKind.NetDeclaration:
            for declarator in child_nodes(member.declarators):
                if declarator.initializer:  # `wire x = e;` is a continuous assignment
                    name = declarator.name.valueText
                    assignment = Assignment(name, name, to_expression(declarator.initializer.expr), True,
                                            self.line(declarator.name), (name,))
                    yield Block("assign", self.line(declarator.name), self.line(member.semi), statements=(assignment,))
        elif kind in _PROCESSES or kind == SyntaxKind.InitialBlock:
            yield self.process(member)
        elif kind in _INSTANCES:
            yield from self.instances(member)
        elif kind == SyntaxKind.GenerateBlock and generate_label(member) is None:
            yield from self.blocks(member.members)  # an unnamed begin-end is no block of its own
        elif kind in GENERATES:
            yield self.generate(member)
        elif kind in (SyntaxKind.FunctionDeclaration, SyntaxKind.TaskDeclaration):
            statements = tuple(statement for item in member.items for statement in self.statements(item))
            yield Block("function" if kind == SyntaxKind.FunctionDeclaration else "task", *self.span(member),
                        statements=statements, name=node_text(member.prototype.name))

    def process(self, node: syntax.ProceduralBlockSyntax) -> Block:
        process, body, events = _PROCESSES.get(node.kind), node.statement, ()
        if body.kind == SyntaxKind.TimingControlStatement:
            events = tuple(self.events(body.timingControl)) if process else ()
            body = body.statement
        if process in ("always_comb", "always_latch"):
            events = (Event("star"),)
        return Block("always" if process else "initial", *self.span(node), statements=self.statements(body),
                     events=events, process=process)

    def events(self, node: SyntaxNode) -> Iterator[Event]:
        """The sensitivity list of `@(...)`, `@*` or `@name`; a delay has none."""
        kind = node.kind
        if kind == SyntaxKind.ImplicitEventControl:
            yield Event("star")
        elif kind == SyntaxKind.EventControl:
            yield Event("level", first_identifier(node.eventName))
        elif kind in (SyntaxKind.EventControlWithExpression, SyntaxKind.ParenthesizedEventExpression):
            yield from self.events(node.expr)
        elif kind == SyntaxKind.BinaryEventExpression:
            yield from self.events(node.left)
            yield from self.events(node.right)
        elif kind == SyntaxKind.SignalEventExpression:
            edge = node.edge.rawText if node.edge and node.edge.rawText in ("posedge", "negedge") else "level"
            yield Event(edge, first_identifier(node.expr))

    def instances(self, node: SyntaxNode) -> Iterator[Block]:
        """One block per instance of `child #(...) first (...), second (...);` or of a gate (`and g (y, a, b);`)."""
        overrides = getattr(node, "parameters", None)  # a gate has delays instead
        overrides = (tuple(self.connection(binding) for binding in child_nodes(overrides.parameters))
                     if overrides else ())
        for instance in child_nodes(node.instances):
            connections = tuple(self.connection(port) for port in child_nodes(instance.connections)
                                if port.kind != SyntaxKind.WildcardPortConnection)
            yield Block("instance", *self.span(instance), name=instance.decl.name.valueText if instance.decl else None,
                        module=node.type.rawText, connections=connections, parameters=overrides)

    def connection(self, node: SyntaxNode) -> Connection:
        """A named (`.p(x)`, `.p()`, `.p`) or positional binding of a port or parameter."""
        if node.kind in (SyntaxKind.NamedPortConnection, SyntaxKind.NamedParamAssignment):
            name = node.name.valueText
            if node.expr:
                return Connection(name, to_expression(unwrap(node.expr)))
            # `.p` alone connects the signal of the same name; `.p()` leaves the port open
            return Connection(name, None if node.openParen else Expression(name, (), (name,)))
        open_port = node.kind == SyntaxKind.EmptyPortConnection
        return Connection(None, None if open_port else to_expression(unwrap(node.expr)))

    def generate(self, node: SyntaxNode) -> Block:
        """A generate region, loop, conditional or named block; a loop takes its body's label and items."""
        body = node.block if node.kind == SyntaxKind.LoopGenerate else node
        if body.kind == SyntaxKind.GenerateBlock:
            name, members = generate_label(body), list(body.members)
        else:
            name, members = None, generate_contents(body) if body is node else [body]
        return Block("generate", *self.span(node), name=name, blocks=self.blocks(members))

    # statements

    def statements(self, node: SyntaxNode) -> tuple[Statement, ...]:
        """IR statements of one procedural statement: blocks flattened; delays, calls and assertions dropped."""
        kind = node.kind
        if kind in (SyntaxKind.SequentialBlockStatement, SyntaxKind.ParallelBlockStatement):
            return tuple(statement for item in node.items for statement in self.statements(item))
        if kind == SyntaxKind.ExpressionStatement:
            return self.assignment(node.expr)
        if kind == SyntaxKind.ConditionalStatement:
            otherwise = self.statements(node.elseClause.clause) if node.elseClause else ()
            condition = to_expression(next(child_nodes(node.predicate.conditions)).expr)
            return (If(condition, self.statements(node.statement), otherwise, self.line(node.getFirstToken())),)
        if kind == SyntaxKind.CaseStatement:
            items = tuple(self.case_item(item) for item in node.items
                          if item.kind in (SyntaxKind.StandardCaseItem, SyntaxKind.DefaultCaseItem))
            return (Case(node.caseKeyword.rawText, to_expression(node.expr), items, self.line(node.getFirstToken())),)
        if kind in _LOOPS:
            return (Loop(self.statements(node.statement), self.line(node.getFirstToken())),)
        if kind in (SyntaxKind.TimingControlStatement, SyntaxKind.WaitStatement):
            return self.statements(node.statement)
        return ()

    def case_item(self, item: SyntaxNode) -> CaseItem:
        labels = child_nodes(item.expressions) if item.kind == SyntaxKind.StandardCaseItem else ()
        return CaseItem(tuple(map(to_expression, labels)), self.statements(item.clause),
                        self.line(item.getFirstToken()))

    def assignment(self, node: SyntaxNode) -> tuple[Assignment, ...]:
        """An `=`, `<=`, `op=` or `++` assignment; any other expression statement (a call) gives nothing."""
        kind = node.kind
        if kind in INCREMENTS:
            target, value = node.operand, to_expression(node)
        elif kind in (SyntaxKind.AssignmentExpression, SyntaxKind.NonblockingAssignmentExpression):
            target, value = node.left, to_expression(node.right)
        elif kind in COMPOUND_ASSIGNMENTS:
            target, value = node.left, to_expression(node)
        else:
            return ()
        targets = assigned_names(target)
        if not targets:
            return ()
        blocking = kind != SyntaxKind.NonblockingAssignmentExpression
        return (Assignment(targets[0], node_text(target), value, blocking, self.line(node.getFirstToken()), targets),)
