"""YAML loading that remembers where each value came from, so errors can name file and line."""

from __future__ import annotations

import re
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

    def line_of(self, field: str) -> int:
        """Line of `field` (e.g. "clocks[0].period_ns"), else of its nearest located parent; 1 for
        an empty document."""
        while field:
            if field in self.lines:
                return self.lines[field]
            parent = re.sub(r"(\.[^.\[]*|\[\d+\])$", "", field)
            field = parent if parent != field else ""
        return self.lines.get("", 1)

    def error(self, field: str, message: str) -> HdlrlError:
        return HdlrlError(f"{field}: {message}", self.path, self.line_of(field))


def _collect_lines(node: yaml.Node, prefix: str, lines: dict[str, int], path: Path) -> None:
    """Record the line of every key and item; a key given twice in one mapping is refused (YAML
    would keep the last silently, so an edit near the top of a file could do nothing)."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in lines:
                raise HdlrlError(f"{key}: given twice (first at line {lines[key]})", path, line)
            lines[key] = line
            _collect_lines(value_node, key, lines, path)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            key = f"{prefix}[{index}]"
            lines[key] = item.start_mark.line + 1
            _collect_lines(item, key, lines, path)


MAX_YAML_BYTES = 1 << 20  # 1 MiB: the largest project file is a few KiB
MAX_YAML_DEPTH = 32  # nested mappings and lists: the deepest project file (coverage.yaml) has 6


def _screen_events(text: str, path: Path) -> None:
    """Refuse, from the event stream (before any node is built), what could make loading unbounded:
    anchors and aliases, whose nesting expands without bound (a "billion laughs") and which no
    hdlrl file needs, and nesting deeper than MAX_YAML_DEPTH."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise HdlrlError("YAML anchors and aliases are refused (they can expand without bound)", path,
                             event.start_mark.line + 1)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise HdlrlError(f"nested deeper than {MAX_YAML_DEPTH} levels", path, event.start_mark.line + 1)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_yaml(path: Path) -> LocatedYaml:
    """Parse `path`; a syntax error or non-UTF-8 byte becomes an HdlrlError with its line."""
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise HdlrlError(f"{size} bytes: larger than the {MAX_YAML_BYTES} a config file may have", path)
        text = path.read_bytes().decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        raise HdlrlError("file not found", path) from None
    except IsADirectoryError:
        raise HdlrlError("is a folder, not a YAML file", path) from None
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise HdlrlError("not valid UTF-8", path, line) from None
    try:
        _screen_events(text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise HdlrlError(f"invalid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    lines: dict[str, int] = {}
    if node is not None:
        lines[""] = node.start_mark.line + 1
        _collect_lines(node, "", lines, path)
    return LocatedYaml(path, data, lines)
