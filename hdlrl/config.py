"""One schema layer for every YAML file hdlrl reads: design.yaml, coverage.yaml and flows/*.yaml.

Each file's shape is a plain dataclass whose fields carry their constraints as `Annotated`
pydantic metadata (`Positive`, `Fraction`, `Identifier`, `Count(...)`). `validate` checks a
parsed document against it with pydantic in strict mode: unknown fields, wrong types,
non-finite or out-of-range numbers and oversized lists are refused, and the first problem is
reported as `file:line: field: what is wrong`, where the line is the field's own.
`hdlrl.yamlfile` has already refused what must not reach a parser: oversized files, deep
nesting, anchors and aliases.
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, with_config

from hdlrl.errors import HdlrlError
from hdlrl.yamlfile import LocatedYaml, load_yaml

SchemaType = TypeVar("SchemaType")

# Strict: a string is never read as a number or a boolean; no NaN or infinity anywhere.
SCHEMA_CONFIG = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
MAX_LIST = 10_000  # items of any list in a config file
MAX_TEXT = 100_000  # characters of any text field (descriptions, interface notes)

# How pydantic names JSON shapes, and what a YAML reader calls them.
_YAML_WORDS = {"an object": "a mapping", "a valid dictionary": "a mapping", "a valid array": "a list",
               "a valid list": "a list", "a valid tuple": "a list", "a valid string": "text",
               "a valid number": "a number", "a valid integer": "a whole number", "a valid boolean": "true or false"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def schema(cls: type[SchemaType]) -> type[SchemaType]:
    """Mark a dataclass as the shape of a config file (or of a section nested in one)."""
    return with_config(SCHEMA_CONFIG)(cls)


def Count(maximum: int, minimum: int = 1) -> Any:
    """A whole number from `minimum` to `maximum`: every count has a cap, so no file asks for a year of work."""
    return Annotated[int, Field(ge=minimum, le=maximum)]


def Bounded(maximum: float, minimum: float = 0.0) -> Any:
    """A finite number from `minimum` to `maximum`, both included."""
    return Annotated[float, Field(ge=minimum, le=maximum)]


def _verilog_identifier(value: str) -> str:
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError(f"{value!r} is not a Verilog identifier")
    return value


def _one_or_many(value: Any) -> Any:
    """A lone path as a list of one (a tuple: what strict validation takes once past the JSON)."""
    if isinstance(value, str):
        return (value,)
    return tuple(value) if isinstance(value, list) else value


Positive = Annotated[float, Field(gt=0, le=1e9)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Factor = Annotated[float, Field(gt=1, le=100)]  # a multiplier that must grow what it multiplies
Weight = Annotated[float, Field(ge=0, le=1000)]
Simulator = Literal["icarus", "verilator"]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Identifier = Annotated[str, Field(max_length=1024), AfterValidator(_verilog_identifier)]
# A file path, or a list of them: `rtl: top.v` and `rtl: [a.v, b.v]` are both written.
PathList = Annotated[tuple[Annotated[str, Field(max_length=4096)], ...], BeforeValidator(_one_or_many),
                     Field(max_length=MAX_LIST)]


def _inner(hint: Any) -> Any:
    """The type a location steps into: through Annotated, `X | None`, list and tuple items, dict values."""
    origin = typing.get_origin(hint)
    arguments = [argument for argument in typing.get_args(hint) if argument not in (type(None), Ellipsis)]
    if origin in (Annotated, list, tuple, dict, typing.Union, types.UnionType) and arguments:
        return _inner(arguments[-1] if origin is dict else arguments[0])
    return hint


def _known_fields(shape: Any, location: tuple) -> list[str]:
    """The fields allowed where an unknown one was found, for the error message."""
    for step in location:
        shape = _inner(shape)
        if isinstance(step, str) and dataclasses.is_dataclass(shape):
            shape = typing.get_type_hints(shape).get(step, shape)
    shape = _inner(shape)
    return sorted(field.name for field in dataclasses.fields(shape)) if dataclasses.is_dataclass(shape) else []


def _dotted(prefix: str, location: tuple) -> str:
    """A pydantic location as the field path the YAML line table uses: `clocks[0].period_ns`."""
    path = prefix
    for step in location:
        if isinstance(step, int):
            path += f"[{step}]"
        elif step != "[key]":
            path = f"{path}.{step}" if path else step
    return path


def _message(error: dict, shape: Any) -> str:
    """Pydantic's message, worded for a config file's reader."""
    kind = error["type"]
    if kind == "unexpected_keyword_argument":
        known = _known_fields(shape, error["loc"][:-1])
        return f"unknown field (known: {', '.join(known)})" if known else "unknown field"
    if kind == "missing" or kind == "missing_argument":
        return "required field is missing"
    if kind in ("too_short", "too_long"):
        bound = "at least" if kind == "too_short" else "at most"
        limit = error["ctx"]["min_length" if kind == "too_short" else "max_length"]
        return f"must have {bound} {limit} item{'s' * (limit != 1)}, has {error['ctx']['actual_length']}"
    message = error["msg"].removeprefix("Value error, ").replace("Input should be", "must be")
    message = message.replace("String should have", "must have")
    for pydantic_word, yaml_word in _YAML_WORDS.items():
        message = message.replace(pydantic_word, yaml_word)
    given = error.get("input")
    if kind != "value_error" and isinstance(given, (int, float, str)) and len(str(given)) <= 40:
        message += f", got {given!r}"
    return message


def validate(document: LocatedYaml, shape: type[SchemaType], data: Any = ..., prefix: str = "") -> SchemaType:
    """`data` (by default the whole document) as an instance of the schema dataclass `shape`;
    the first problem is an HdlrlError at the offending field's line."""
    data = document.data if data is ... else data
    try:
        return TypeAdapter(shape).validate_json(json.dumps({} if data is None else data, default=str))
    except ValidationError as problems:
        first = problems.errors()[0]
        field = _dotted(prefix, first["loc"])
        if not field:
            raise HdlrlError(_message(first, shape), document.path, document.line_of("")) from None
        raise document.error(field, _message(first, shape)) from None


def load_config(path: Path, shape: type[SchemaType]) -> tuple[SchemaType, LocatedYaml]:
    """Parse and validate one config file; the document comes back for checks beyond the shape."""
    document = load_yaml(path)
    return validate(document, shape), document
