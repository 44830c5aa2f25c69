"""Schemas of the files users hand simcli, as small declarative data, and the one check that reads them (issue 50).

A file kind's schema is a :class:`Record` (field -> what the value must be) built from a few shapes: a leaf
:class:`Is` (a type or test, and the words for what is allowed), :class:`OneOf` (a value from a fixed list),
:class:`ListOf`, :class:`MapOf` (a table keyed by data: knob names, ranks), :class:`Record` (named fields, some
optional) and :class:`AnyOf` (one of several shapes). Each kind's schema lives beside its reader
(``simcli.engine.trace_schema``, ``simcli.runs.run_schema``, ...); :func:`problem` walks a parsed value against
one and returns the first mismatch as one line, ``key 'spec.games': found "ten" (a string), allowed a positive
integer``, or ``None``. A reader puts the file's name and line in front: every bad file is one clear line, never a
traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(frozen=True)
class Is:
    """A leaf: ``test`` says whether a value fits, ``what`` says what is allowed, in words."""

    what: str
    test: Callable[[Any], bool]


@dataclass(frozen=True)
class OneOf:
    """One of a fixed list of values (names of kinds, sources, statuses)."""

    values: tuple[Any, ...]

    @property
    def what(self) -> str:
        return "one of " + ", ".join(json.dumps(v) for v in self.values)


@dataclass(frozen=True)
class ListOf:
    """A list whose every item is ``item`` (``min_len`` items at least)."""

    item: Spec
    min_len: int = 0

    @property
    def what(self) -> str:
        return f"a list of {describe(self.item)}" + (" (not empty)" if self.min_len else "")


@dataclass(frozen=True)
class MapOf:
    """A JSON object keyed by data (knob names, ranks, table names), every value ``value``."""

    value: Spec
    key: Is | OneOf | None = None

    @property
    def what(self) -> str:
        return f"an object of {describe(self.value)}"


@dataclass(frozen=True)
class Record:
    """A JSON object with named fields: ``fields`` must be there, ``optional`` may be; other keys are let be."""

    name: str
    fields: Mapping[str, Spec]
    optional: Mapping[str, Spec] = field(default_factory=dict)

    @property
    def what(self) -> str:
        return self.name

    def names(self) -> set[str]:
        """Every field the record names, required or optional."""
        return set(self.fields) | set(self.optional)


@dataclass(frozen=True)
class AnyOf:
    """Any one of several shapes (a decision value: ``"stock"`` or a pile take)."""

    options: tuple[Spec, ...]
    name: str = ""

    @property
    def what(self) -> str:
        return self.name or " or ".join(describe(o) for o in self.options)


Spec = Union[Is, OneOf, ListOf, MapOf, Record, AnyOf]  # noqa: UP007 - a runtime alias, read on Python 3.11


def describe(spec: Spec) -> str:
    """What ``spec`` allows, in words."""
    return spec.what


# ---------------------------------------------------------------------------------------------- the leaves
def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


INT = Is("an integer", _int)
NAT = Is("an integer from 0", lambda v: _int(v) and v >= 0)
POS = Is("a positive integer", lambda v: _int(v) and v >= 1)
BOOL = Is("true or false", lambda v: isinstance(v, bool))
TRUE = Is("true", lambda v: v is True)
STR = Is("a string", lambda v: isinstance(v, str))
TEXT = Is("a non-empty string", lambda v: isinstance(v, str) and bool(v))
NUMBER = Is("a number", _number)
NULL = Is("null", lambda v: v is None)
ANY = Is("any value", lambda v: True)
SCALAR = Is("a string, number, true/false or null",
            lambda v: v is None or isinstance(v, (str, bool)) or _number(v))


def opt(spec: Spec) -> AnyOf:
    """``spec`` or null."""
    return AnyOf((spec, NULL), f"{describe(spec)} or null")


def found(value: Any) -> str:
    """A value as the one-line messages show it: its JSON (shortened) and its JSON type."""
    kind = ("null" if value is None else "true/false" if isinstance(value, bool) else "an integer" if _int(value)
            else "a number" if isinstance(value, float) else "a string" if isinstance(value, str)
            else "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "a value")
    text = json.dumps(value, sort_keys=True, default=str)
    text = text if len(text) <= 60 else text[:57] + "..."
    return text if value is None or isinstance(value, bool) else f"{text} ({kind})"


def _key(path: str, name: Any) -> str:
    return f"{path}.{name}" if path else str(name)


# ---------------------------------------------------------------------------------------------- the check
def problem(value: Any, spec: Spec, path: str = "") -> str | None:
    """The first place ``value`` does not fit ``spec``, as ``key 'a.b[2]': found ..., allowed ...``; else None."""
    where = f"key '{path}'" if path else "the value"
    if isinstance(spec, Record):
        if not isinstance(value, dict):
            return f"{where}: found {found(value)}, allowed {spec.name}"
        for name, sub in spec.fields.items():
            if name not in value:
                return f"{where + ' has ' if path else ''}no key '{name}' (allowed: {describe(sub)})"
            why = problem(value[name], sub, _key(path, name))
            if why:
                return why
        for name, sub in spec.optional.items():
            if name in value:
                why = problem(value[name], sub, _key(path, name))
                if why:
                    return why
        return None
    if isinstance(spec, ListOf):
        if not isinstance(value, list) or len(value) < spec.min_len:
            return f"{where}: found {found(value)}, allowed {spec.what}"
        for i, item in enumerate(value):
            why = problem(item, spec.item, f"{path}[{i}]")
            if why:
                return why
        return None
    if isinstance(spec, MapOf):
        if not isinstance(value, dict):
            return f"{where}: found {found(value)}, allowed {spec.what}"
        for k, item in value.items():
            if spec.key is not None and problem(k, spec.key) is not None:
                return f"{where}: found the key {json.dumps(k)}, allowed {describe(spec.key)}"
            why = problem(item, spec.value, _key(path, k))
            if why:
                return why
        return None
    if isinstance(spec, AnyOf):
        if any(problem(value, o, path) is None for o in spec.options):
            return None
        # The shape the value is closest to (a record for an object, ...) names the deeper mismatch.
        for o in spec.options:
            if isinstance(o, Record) and isinstance(value, dict) and o.fields.keys() <= value.keys():
                return problem(value, o, path)
        return f"{where}: found {found(value)}, allowed {spec.what}"
    if isinstance(spec, OneOf):
        ok = any(value == v and type(value) is type(v) for v in spec.values)
    else:
        ok = spec.test(value)
    return None if ok else f"{where}: found {found(value)}, allowed {spec.what}"


def schema_fields(spec: Spec) -> set[str]:
    """Every field name a record schema (and the records nested in it) names: what its doc must list."""
    out: set[str] = set()
    if isinstance(spec, Record):
        out |= spec.names()
        for sub in [*spec.fields.values(), *spec.optional.values()]:
            out |= schema_fields(sub)
    elif isinstance(spec, (ListOf,)):
        out |= schema_fields(spec.item)
    elif isinstance(spec, MapOf):
        out |= schema_fields(spec.value)
    elif isinstance(spec, AnyOf):
        for o in spec.options:
            out |= schema_fields(o)
    return out
