"""YAML loading that remembers where each value came from, so errors can name file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hdlrl.errors import HdlrlError


@dataclass
class LocatedYaml:
    """A parsed YAML document plus the source line of every mapping key (dotted path -> line)."""

    path: Path
    data: Any
    lines: dict[str, int]

    def line_of(self, field: str) -> int | None:
        """Line of `field` (e.g. "testbench.top"), falling back to its nearest located parent."""
        while field:
            if field in self.lines:
                return self.lines[field]
            field = field.rpartition(".")[0]
        return self.lines.get("")

    def error(self, field: str, message: str) -> HdlrlError:
        return HdlrlError(f"{field}: {message}", self.path, self.line_of(field))


def _collect_lines(node: yaml.Node, prefix: str, lines: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            lines[key] = key_node.start_mark.line + 1
            _collect_lines(value_node, key, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            key = f"{prefix}[{index}]"
            lines[key] = item.start_mark.line + 1
            _collect_lines(item, key, lines)


def _refuse_aliases(text: str, path: Path) -> None:
    """Anchors and aliases are refused: nested ones expand without bound (a "billion laughs"),
    and no hdlrl file needs them."""
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise HdlrlError("YAML anchors and aliases are refused (they can expand without bound)", path,
                             event.start_mark.line + 1)


def load_yaml(path: Path) -> LocatedYaml:
    """Parse `path`; a syntax error or non-UTF-8 byte becomes an HdlrlError with its line."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise HdlrlError("file not found", path) from None
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise HdlrlError("not valid UTF-8", path, line) from None
    try:
        _refuse_aliases(text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise HdlrlError(f"invalid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    lines: dict[str, int] = {}
    if node is not None:
        lines[""] = node.start_mark.line + 1
        _collect_lines(node, "", lines)
    return LocatedYaml(path, data, lines)
