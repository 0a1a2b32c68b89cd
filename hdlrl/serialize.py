"""Dataclasses to JSON and back, so results can be cached, sent to workers and printed."""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any


def to_jsonable(value: Any) -> Any:
    """Plain JSON types for nested dataclasses, paths, tuples and dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: to_jsonable(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    return value


def from_jsonable(kind: Any, data: Any) -> Any:
    """Rebuild a value of type `kind` (a dataclass or a typing annotation) from `to_jsonable` output."""
    if data is None:
        return None
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        return from_jsonable(options[0], data) if len(options) == 1 else data
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        known = {field.name for field in dataclasses.fields(kind)}
        return kind(**{name: from_jsonable(hints[name], item) for name, item in data.items() if name in known})
    if origin in (list, tuple):
        arguments = typing.get_args(kind)
        item_kind = arguments[0] if arguments else Any
        items = [from_jsonable(item_kind, item) for item in data]
        return items if origin is list else tuple(items)
    if origin is dict:
        _, value_kind = typing.get_args(kind)
        return {key: from_jsonable(value_kind, item) for key, item in data.items()}
    if kind is Path:
        return Path(data)
    return data


class JsonRecord:
    """Mixin for result dataclasses that are cached and sent to workers as JSON."""

    def to_dict(self) -> dict:
        return to_jsonable(self)

    @classmethod
    def from_dict(cls, data: dict) -> Any:
        return from_jsonable(cls, data)
