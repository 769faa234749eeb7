"""GitHub's GraphQL schema as a test contract: a parser for the queries the product sends, a
validator that holds each to the vendored schema (tests/github/description/graphql.json, from
@octokit/graphql-schema), GitHub's own limits (`first`/`last` on every connection, 1 to 100;
at most 500,000 nodes) and its point cost formula, and an executor the fake GitHub answers
with: only the fields asked, each value checked against its type.

An independent reader of the queries: it shares nothing with the product's code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).resolve().parent / "github" / "description" / "graphql.json"
TOKEN = re.compile(r'\s*(?:(?P<punct>\.\.\.|[!$():=@\[\]{}|,])|(?P<name>[_A-Za-z][_0-9A-Za-z]*)'
                   r'|(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)'
                   r'|(?P<string>"(?:[^"\\\n]|\\.)*"))', re.S)
MAX_NODES = 500_000


class GraphQLError(Exception):
    pass


@dataclass
class Field:
    alias: str
    name: str
    arguments: dict[str, Any]  # literal values, or Variable
    selections: list[Selection] = field(default_factory=list)


@dataclass
class InlineFragment:
    type_condition: str | None
    selections: list[Selection]


@dataclass(frozen=True)
class Variable:
    name: str


Selection = Field | InlineFragment


@dataclass
class Operation:
    kind: str
    name: str | None
    variables: dict[str, tuple[str, Any]]  # name -> (type text, default)
    selections: list[Selection]


def parse(text: str) -> Operation:
    """The one operation of a query document (no fragments: the product writes none)."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            if text[position:].strip() == "":
                break
            raise GraphQLError(f"unexpected text at {position}: {text[position:position + 20]!r}")
        position = match.end()
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
    tokens = [token for token in tokens if token != ("punct", ",")]
    reader = _Reader(tokens)
    operation = reader.operation()
    if reader.index != len(tokens):
        raise GraphQLError("text after the operation")
    return operation


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.index] if self.index < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        token = self.peek()
        if (value is not None and token[1] != value) or (kind is not None and token[0] != kind):
            raise GraphQLError(f"expected {value or kind}, found {token[1]!r}")
        self.index += 1
        return token[1]

    def operation(self) -> Operation:
        kind = self.take(kind="name")
        if kind not in ("query", "mutation"):
            raise GraphQLError(f"an operation is a query or a mutation, not {kind}")
        name = self.take(kind="name") if self.peek()[0] == "name" else None
        variables: dict[str, tuple[str, Any]] = {}
        if self.peek()[1] == "(":
            self.take("(")
            while self.peek()[1] != ")":
                self.take("$")
                variable = self.take(kind="name")
                self.take(":")
                type_text = self.type_text()
                default = None
                if self.peek()[1] == "=":
                    self.take("=")
                    default = self.value()
                if variable in variables:
                    raise GraphQLError(f"variable ${variable} declared twice")
                variables[variable] = (type_text, default)
            self.take(")")
        return Operation(kind, name, variables, self.selection_set())

    def type_text(self) -> str:
        if self.peek()[1] == "[":
            self.take("[")
            inner = self.type_text()
            self.take("]")
            text = f"[{inner}]"
        else:
            text = self.take(kind="name")
        if self.peek()[1] == "!":
            self.take("!")
            text += "!"
        return text

    def selection_set(self) -> list[Selection]:
        self.take("{")
        selections: list[Selection] = []
        while self.peek()[1] != "}":
            if self.peek()[1] == "...":
                self.take("...")
                condition = None
                if self.peek()[1] == "on":
                    self.take("on")
                    condition = self.take(kind="name")
                else:
                    raise GraphQLError("fragment spreads are not used by the product")
                selections.append(InlineFragment(condition, self.selection_set()))
                continue
            alias = name = self.take(kind="name")
            if self.peek()[1] == ":":
                self.take(":")
                name = self.take(kind="name")
            arguments: dict[str, Any] = {}
            if self.peek()[1] == "(":
                self.take("(")
                while self.peek()[1] != ")":
                    argument = self.take(kind="name")
                    self.take(":")
                    if argument in arguments:
                        raise GraphQLError(f"argument {argument} given twice")
                    arguments[argument] = self.value()
                self.take(")")
            selections.append(Field(alias, name, arguments,
                                    self.selection_set() if self.peek()[1] == "{" else []))
        self.take("}")
        if not selections:
            raise GraphQLError("an empty selection")
        return selections

    def value(self) -> Any:
        kind, token = self.peek()
        if token == "$":
            self.take("$")
            return Variable(self.take(kind="name"))
        if token == "[":
            self.take("[")
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
            self.take("]")
            return items
        if token == "{":
            self.take("{")
            members = {}
            while self.peek()[1] != "}":
                key = self.take(kind="name")
                self.take(":")
                members[key] = self.value()
            self.take("}")
            return members
        self.index += 1
        if kind == "number":
            return float(token) if any(c in token for c in ".eE") else int(token)
        if kind == "string":
            return json.loads(token)
        if kind == "name":
            return {"true": True, "false": False, "null": None}.get(token, _Enum(token))
        raise GraphQLError(f"not a value: {token!r}")


@dataclass(frozen=True)
class _Enum:
    name: str


class Schema:
    """The introspected schema: types by name."""

    def __init__(self, document: Mapping[str, Any] | None = None) -> None:
        document = document or json.loads(DESCRIPTION.read_text(encoding="utf-8"))
        schema = document.get("__schema", document)
        self.types: dict[str, dict[str, Any]] = {entry["name"]: entry
                                                   for entry in schema["types"]}

    def type(self, name: str) -> dict[str, Any]:
        found = self.types.get(name)
        if found is None:
            raise GraphQLError(f"type {name} is not in the vendored schema (re-run "
                               f"scripts/vendor_github_description.py)")
        return found

    def field(self, type_name: str, name: str) -> dict[str, Any]:
        if name == "__typename":
            return {"name": name, "args": [], "type": _non_null({"kind": "SCALAR",
                                                                  "name": "String"})}
        for candidate in self.type(type_name).get("fields") or []:
            if candidate["name"] == name:
                return candidate
        raise GraphQLError(f"{type_name} has no field `{name}`")


def _non_null(inner: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "NON_NULL", "name": None, "ofType": inner}


def _named(type_ref: Mapping[str, Any]) -> str:
    while type_ref.get("ofType"):
        type_ref = type_ref["ofType"]
    return str(type_ref["name"])


def _text(type_ref: Mapping[str, Any]) -> str:
    if type_ref["kind"] == "NON_NULL":
        return _text(type_ref["ofType"]) + "!"
    if type_ref["kind"] == "LIST":
        return f"[{_text(type_ref['ofType'])}]"
    return str(type_ref["name"])


@dataclass
class Checked:
    """What validating a query found: the types it reaches, its nodes and its points."""

    types: set[str] = field(default_factory=set)
    nodes: int = 0
    requests: int = 0  # the connection requests of GitHub's cost formula

    @property
    def points(self) -> int:
        return max(1, round(self.requests / 100))


def validate(schema: Schema, text: str, variables: Mapping[str, Any]) -> Checked:
    """Hold one query and its variables to the schema and to GitHub's limits; what it costs."""
    operation = parse(text)
    if operation.kind != "query":
        raise GraphQLError("the product only queries")
    checked = Checked({"Query"})
    used: set[str] = set()
    for name, (type_text, _) in operation.variables.items():
        base = type_text.strip("[]!")
        schema.type(base)
        checked.types.add(base)
        if type_text.endswith("!") and variables.get(name) is None:
            raise GraphQLError(f"variable ${name} ({type_text}) has no value")
    unknown = set(variables) - set(operation.variables)
    if unknown:
        raise GraphQLError(f"variables given but not declared: {sorted(unknown)}")
    _selections(schema, "Query", operation.selections, operation, variables, checked, used,
                multiplier=1)
    unused = set(operation.variables) - used
    if unused:
        raise GraphQLError(f"variables declared but not used: {sorted(unused)}")
    if checked.nodes > MAX_NODES:
        raise GraphQLError(f"the query asks for {checked.nodes} nodes, over GitHub's {MAX_NODES}")
    return checked


def _selections(schema: Schema, parent: str, selections: list[Selection], operation: Operation,
                variables: Mapping[str, Any], checked: Checked, used: set[str],
                multiplier: int) -> None:
    seen: dict[str, Field] = {}
    for selection in selections:
        if isinstance(selection, InlineFragment):
            condition = selection.type_condition or parent
            possible = {entry["name"] for entry in schema.type(parent).get("possibleTypes") or []}
            if condition != parent and condition not in possible:
                raise GraphQLError(f"`... on {condition}` cannot apply to {parent}")
            checked.types.add(condition)
            _selections(schema, condition, selection.selections, operation, variables, checked,
                        used, multiplier)
            continue
        if selection.alias in seen and seen[selection.alias].name != selection.name:
            raise GraphQLError(f"alias `{selection.alias}` names two fields")
        seen[selection.alias] = selection
        definition = schema.field(parent, selection.name)
        arguments = {argument["name"]: argument for argument in definition.get("args") or []}
        for name, value in selection.arguments.items():
            if name not in arguments:
                raise GraphQLError(f"{parent}.{selection.name} has no argument `{name}`")
            _check_value(schema, arguments[name]["type"], value, operation, variables, used,
                         f"{parent}.{selection.name}({name}:)", checked)
        for name, argument in arguments.items():
            if argument["type"]["kind"] == "NON_NULL" and argument.get("defaultValue") is None \
                    and name not in selection.arguments:
                raise GraphQLError(f"{parent}.{selection.name} needs argument `{name}`")
        target = _named(definition["type"])
        kind = schema.type(target)["kind"]
        checked.types.add(target)
        if kind in ("SCALAR", "ENUM"):
            if selection.selections:
                raise GraphQLError(f"{parent}.{selection.name} is a {kind.lower()}: no selection")
            continue
        if not selection.selections:
            raise GraphQLError(f"{parent}.{selection.name} is an object: select its fields")
        inner = multiplier
        if target.endswith("Connection"):
            size = _size(selection, variables)
            if size is None:
                raise GraphQLError(f"{parent}.{selection.name} is a connection: GitHub needs "
                                   f"`first` or `last`")
            if not 1 <= size <= 100:
                raise GraphQLError(f"{parent}.{selection.name}: `first`/`last` is {size}, "
                                   f"GitHub takes 1 to 100")
            checked.requests += multiplier
            inner = multiplier * size
            checked.nodes += inner
        _selections(schema, target, selection.selections, operation, variables, checked, used,
                    inner)


def _size(selection: Field, variables: Mapping[str, Any]) -> int | None:
    for name in ("first", "last"):
        value = selection.arguments.get(name)
        if isinstance(value, Variable):
            value = variables.get(value.name)
        if isinstance(value, int):
            return value
    return None


def _check_value(schema: Schema, type_ref: Mapping[str, Any], value: Any, operation: Operation,
                 variables: Mapping[str, Any], used: set[str], where: str,
                 checked: Checked) -> None:
    if isinstance(value, Variable):
        if value.name not in operation.variables:
            raise GraphQLError(f"{where}: ${value.name} is not declared")
        used.add(value.name)
        declared = operation.variables[value.name][0]
        expected = _text(type_ref)
        if declared != expected and declared != expected + "!":
            raise GraphQLError(f"{where}: ${value.name} is {declared}, the argument {expected}")
        _check_input(schema, type_ref, variables.get(value.name), where)
        return
    _check_literal(schema, type_ref, value, where, checked)


def _check_literal(schema: Schema, type_ref: Mapping[str, Any], value: Any, where: str,
                   checked: Checked) -> None:
    kind = type_ref["kind"]
    if kind == "NON_NULL":
        if value is None:
            raise GraphQLError(f"{where}: null for a non-null argument")
        _check_literal(schema, type_ref["ofType"], value, where, checked)
        return
    if value is None:
        return
    if kind == "LIST":
        for item in value if isinstance(value, list) else [value]:
            _check_literal(schema, type_ref["ofType"], item, where, checked)
        return
    definition = schema.type(type_ref["name"])
    checked.types.add(definition["name"])
    if definition["kind"] == "ENUM":
        names = {entry["name"] for entry in definition["enumValues"]}
        if not isinstance(value, _Enum) or value.name not in names:
            raise GraphQLError(f"{where}: {value!r} is not one of {sorted(names)}")
        return
    if definition["kind"] == "INPUT_OBJECT":
        if not isinstance(value, dict):
            raise GraphQLError(f"{where}: an object is needed")
        members = {entry["name"]: entry for entry in definition["inputFields"]}
        for key, item in value.items():
            if key not in members:
                raise GraphQLError(f"{where}: {definition['name']} has no member `{key}`")
            _check_literal(schema, members[key]["type"], item, f"{where}.{key}", checked)
        for key, member in members.items():
            if member["type"]["kind"] == "NON_NULL" and key not in value:
                raise GraphQLError(f"{where}: {definition['name']} needs `{key}`")
        return
    _check_scalar(definition["name"], value, where)


def _check_input(schema: Schema, type_ref: Mapping[str, Any], value: Any, where: str) -> None:
    """A variable's JSON value against the argument's type."""
    kind = type_ref["kind"]
    if kind == "NON_NULL":
        if value is None:
            raise GraphQLError(f"{where}: null for a non-null variable")
        _check_input(schema, type_ref["ofType"], value, where)
        return
    if value is None:
        return
    if kind == "LIST":
        for item in value if isinstance(value, list) else [value]:
            _check_input(schema, type_ref["ofType"], item, where)
        return
    definition = schema.type(type_ref["name"])
    if definition["kind"] == "ENUM":
        if value not in {entry["name"] for entry in definition["enumValues"]}:
            raise GraphQLError(f"{where}: {value!r} is not a {definition['name']}")
        return
    _check_scalar(definition["name"], value, where)


def _check_scalar(name: str, value: Any, where: str) -> None:
    ok = {"Int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -2**31 <= v < 2**31,
          "Float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          "Boolean": lambda v: isinstance(v, bool)}.get(name, lambda v: isinstance(v, str))
    if not ok(value):
        raise GraphQLError(f"{where}: {value!r} is not a {name}")
    if name == "GitObjectID" and not re.fullmatch(r"[0-9a-f]{40}", value):
        raise GraphQLError(f"{where}: {value!r} is not a git object ID")


def reached_types(schema: Schema, text: str) -> set[str]:
    """Every type a query touches (for vendoring the schema's relevant part): with the example
    variables the product's contract queries come with."""
    return validate(schema, text, _loose_variables(text)).types


def _loose_variables(text: str) -> dict[str, Any]:
    operation = parse(text)
    samples = {"Int": 1, "String": "x", "Boolean": True}
    return {name: samples.get(type_text.strip("[]!"), "x")
            for name, (type_text, _) in operation.variables.items()}


Resolver = Callable[[str, dict[str, Any]], Any]


def execute(schema: Schema, text: str, variables: Mapping[str, Any],
            root: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a (validated) query from `root`: each object is a mapping whose members are
    values, or callables of the field's arguments (connections, lookups). Only the fields
    asked are answered, under their aliases; every value is checked against its type."""
    operation = parse(text)
    return _resolve_object(schema, "Query", operation.selections, root, variables, "")


def _arguments(selection: Field, variables: Mapping[str, Any]) -> dict[str, Any]:
    def value(item: Any) -> Any:
        if isinstance(item, Variable):
            return variables.get(item.name)
        if isinstance(item, _Enum):
            return item.name
        if isinstance(item, list):
            return [value(inner) for inner in item]
        if isinstance(item, dict):
            return {key: value(inner) for key, inner in item.items()}
        return item

    return {name: value(item) for name, item in selection.arguments.items()}


def _resolve_object(schema: Schema, type_name: str, selections: list[Selection],
                    source: Mapping[str, Any], variables: Mapping[str, Any],
                    path: str) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for selection in selections:
        if isinstance(selection, InlineFragment):
            actual = source.get("__typename", type_name)
            if selection.type_condition in (None, actual, type_name):
                answer.update(_resolve_object(schema, actual, selection.selections, source,
                                              variables, path))
            continue
        definition = schema.field(type_name, selection.name)
        if selection.name == "__typename":
            answer[selection.alias] = source.get("__typename", type_name)
            continue
        if selection.name not in source:
            raise GraphQLError(f"the fake has no {type_name}.{selection.name} at {path}")
        value = source[selection.name]
        if callable(value):
            value = value(_arguments(selection, variables))
        answer[selection.alias] = _resolve_value(schema, definition["type"], selection, value,
                                                 variables, f"{path}.{selection.alias}")
    return answer


def _resolve_value(schema: Schema, type_ref: Mapping[str, Any], selection: Field, value: Any,
                   variables: Mapping[str, Any], path: str) -> Any:
    kind = type_ref["kind"]
    if kind == "NON_NULL":
        if value is None:
            raise GraphQLError(f"the fake answers null for non-null {path}")
        return _resolve_value(schema, type_ref["ofType"], selection, value, variables, path)
    if value is None:
        return None
    if kind == "LIST":
        return [_resolve_value(schema, type_ref["ofType"], selection, item, variables,
                               f"{path}[{index}]") for index, item in enumerate(value)]
    definition = schema.type(type_ref["name"])
    if definition["kind"] == "ENUM":
        if value not in {entry["name"] for entry in definition["enumValues"]}:
            raise GraphQLError(f"the fake answers {value!r} for {path}, not a "
                               f"{definition['name']}")
        return value
    if definition["kind"] == "SCALAR":
        _check_scalar(definition["name"], value, f"the fake's {path}")
        return value
    return _resolve_object(schema, definition["name"], selection.selections, value, variables,
                           path)
