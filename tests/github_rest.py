"""GitHub's REST description as a test contract (tests/github/description/rest.json, from
@octokit/openapi): which operation a request is, whether the request is one GitHub documents
(method, path, query, media type, API version, body), and whether an answer has the documented
shape. The fake GitHub routes by it and builds its answers from its examples; the contract
tests hold the product's requests to it.

The schema checker knows the keywords of OpenAPI 3.0's schema objects that GitHub's
description uses, and refuses any other: nothing in a schema goes unchecked unnoticed.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).resolve().parent / "github" / "description"
VERSION = "2022-11-28"
# Words of a schema object that say nothing a value must satisfy.
ANNOTATIONS = {"title", "description", "example", "examples", "readOnly", "writeOnly",
               "deprecated", "externalDocs", "default", "discriminator", "xml"}
# GitHub's description writes `oneOf` where several branches can match the same value (an
# integer id or a string, say); like Octokit's generated types, one matching branch is enough.
ONE_OF_IS_ANY_OF = True


@dataclass(frozen=True)
class Route:
    operation_id: str
    template: str
    method: str
    operation: dict[str, Any]
    path_parameters: dict[str, str]


@cache
def description() -> dict[str, Any]:
    return json.loads((DESCRIPTION / "rest.json").read_text(encoding="utf-8"))


@cache
def recorded() -> dict[str, Any]:
    return json.loads((DESCRIPTION / "recorded.json").read_text(encoding="utf-8"))


@cache
def _templates() -> list[tuple[re.Pattern[str], str, list[str]]]:
    """Each documented path as a pattern, the most specific first: a parameter is one path
    segment, except a ref or a file path, which may hold slashes (GitHub routes them so)."""
    found = []
    for template in description()["paths"]:
        names = re.findall(r"{([^}]+)}", template)
        pattern = re.escape(template)
        for name in names:
            pattern = pattern.replace(re.escape("{" + name + "}"),
                                      "(.+?)" if name in ("ref", "path") else "([^/]+)")
        found.append((re.compile(f"^{pattern}$"), template, names))
    found.sort(key=lambda entry: -len(re.sub(r"{[^}]+}", "", entry[1])))
    return found


def route(method: str, path: str) -> Route | None:
    """The documented operation `method path` is (path without the API prefix or query)."""
    for pattern, template, names in _templates():
        match = pattern.match(path)
        if match is None:
            continue
        operation = description()["paths"][template].get(method.lower())
        if operation is None:
            return None
        return Route(operation["operationId"], template, method.lower(), operation,
                     dict(zip(names, match.groups(), strict=True)))
    return None


def resolve(value: Any) -> Any:
    """A `$ref` of the description, followed (to its end)."""
    while isinstance(value, dict) and "$ref" in value:
        _, _, kind, name = value["$ref"].split("/", 3)
        value = description()["components"][kind][name]
    return value


def parameters(operation: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(parameter["in"], parameter["name"]): parameter
            for parameter in (resolve(item) for item in operation.get("parameters", []))}


def media_types(operation: Mapping[str, Any]) -> set[str]:
    """What the operation answers: GitHub's JSON media type, those its 2xx answers list, and the
    custom media types its description names in bold (`**`application/vnd.github.x`**`)."""
    found = {"application/vnd.github+json", "application/json"}
    for status, answer in operation.get("responses", {}).items():
        if status.startswith("2"):
            found |= set(resolve(answer).get("content", {}))
    found |= set(re.findall(r"\*\*`(application/vnd\.github\.[a-z.+-]+)`\*\*",
                            operation.get("description", "")))
    return found


def check_request(route: Route, query: Mapping[str, list[str]], headers: Mapping[str, str],
                  body: Any) -> list[str]:
    """What is wrong with a request by the description (empty: nothing)."""
    problems = []
    where = f"{route.method.upper()} {route.template} ({route.operation_id})"
    documented = parameters(route.operation)
    for name, values in query.items():
        parameter = documented.get(("query", name))
        if parameter is None:
            problems.append(f"{where}: undocumented query parameter `{name}`")
            continue
        for value in values:
            problems += check(parameter.get("schema", {}), _query_value(
                parameter.get("schema", {}), value), f"{where} ?{name}=")
    for (place, name), parameter in documented.items():
        if place == "query" and parameter.get("required") and name not in query:
            problems.append(f"{where}: missing required query parameter `{name}`")
    accept = headers.get("Accept", "")
    if accept not in media_types(route.operation):
        problems.append(f"{where}: Accept {accept!r} is not a media type it documents "
                        f"({sorted(media_types(route.operation))})")
    if headers.get("X-GitHub-Api-Version") != VERSION:
        problems.append(f"{where}: X-GitHub-Api-Version is "
                        f"{headers.get('X-GitHub-Api-Version')!r}, not {VERSION}")
    request_body = resolve(route.operation.get("requestBody", {}))
    if body is not None:
        schema = request_body.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            problems.append(f"{where}: sends a body the operation does not document")
        else:
            problems += check(schema, body, f"{where} body")
    elif request_body.get("required"):
        problems.append(f"{where}: the operation needs a body")
    return problems


def _query_value(schema: Mapping[str, Any], text: str) -> Any:
    kind = resolve(schema).get("type")
    if kind == "integer":
        return int(text) if re.fullmatch(r"-?[0-9]+", text) else text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, text)
    return text


def answer_schema(route: Route, status: int, media_type: str = "application/json"
                  ) -> dict[str, Any] | None:
    """The documented schema of an answer (None when the operation documents no body for
    that status, or a status it does not list: then the caller says so)."""
    responses = route.operation.get("responses", {})
    answer = responses.get(str(status)) or responses.get("default")
    if answer is None:
        return None
    content = resolve(answer).get("content", {})
    return (content.get(media_type) or content.get("application/json") or {}).get("schema")


def documents_status(route: Route, status: int) -> bool:
    return str(status) in route.operation.get("responses", {})


def example(name: str) -> Any:
    """A copy of one of the description's own examples (`components/examples`)."""
    return copy.deepcopy(description()["components"]["examples"][name]["value"])


def check(schema: Mapping[str, Any], value: Any, where: str) -> list[str]:
    """What in `value` the schema refuses (empty: nothing)."""
    problems: list[str] = []
    _check(schema, value, where, problems)
    return problems


def _check(schema: Mapping[str, Any], value: Any, where: str, problems: list[str]) -> None:
    schema = resolve(schema)
    unknown = {key for key in schema if not key.startswith("x-")} - ANNOTATIONS - {
        "type", "nullable", "enum", "properties", "required", "additionalProperties", "items",
        "allOf", "anyOf", "oneOf", "format", "minimum", "maximum", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "uniqueItems", "const"}
    if unknown:
        raise AssertionError(f"{where}: the schema checker does not know {sorted(unknown)}")
    if value is None:
        if not schema.get("nullable") and schema.get("type") is not None:
            problems.append(f"{where}: null, which the schema does not allow")
        return
    for branch in schema.get("allOf", []):
        _check(branch, value, where, problems)
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            results = [check(branch, value, where) for branch in schema[keyword]]
            if all(results):
                problems.append(f"{where}: matches none of {keyword} "
                                f"({min(results, key=len)[0]})")
    kind = schema.get("type")
    types = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
             "array": list, "object": dict}
    if kind is not None and (not isinstance(value, types[kind]) or (
            kind in ("integer", "number") and isinstance(value, bool))):
        problems.append(f"{where}: {type(value).__name__} where the schema says {kind}")
        return
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        if len(value) > schema.get("maxLength", len(value)) or len(value) < schema.get(
                "minLength", 0):
            problems.append(f"{where}: a string of {len(value)} characters is out of bounds")
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            problems.append(f"{where}: {value[:40]!r} does not match {schema['pattern']}")
        if schema.get("format") == "date-time":
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                problems.append(f"{where}: {value[:40]!r} is not a date-time")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            value < schema.get("minimum", value) or value > schema.get("maximum", value)):
        problems.append(f"{where}: {value} is out of bounds")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems",
                                                                              len(value)):
            problems.append(f"{where}: {len(value)} items are out of bounds")
        if "items" in schema:
            for index, item in enumerate(value):
                _check(schema["items"], item, f"{where}[{index}]", problems)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{where}: `{name}` is required")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                _check(properties[name], item, f"{where}.{name}", problems)
            elif extra is False and (properties or "allOf" not in schema):
                problems.append(f"{where}: `{name}` is not a documented member")
            elif isinstance(extra, dict):
                _check(extra, item, f"{where}.{name}", problems)
