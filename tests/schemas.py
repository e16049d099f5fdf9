"""Validating documents against the shipped JSON Schemas (src/gpudoctor/schemas/), for the tests.

`assert_valid(doc)` picks the schema by the document's `schema` key (a snapshot's `format`).
The compat_matrix schemas are derived from gpudoctor.matrix.schema.SCHEMAS, the validator the code
uses: `matrix_schema(file)` builds one, a test compares it with the shipped file, and

    .venv/bin/python -m tests.schemas

writes them again after a change to matrix/schema.py.
"""

from __future__ import annotations

import datetime
import functools
import json
from pathlib import Path
from typing import Any

from gpudoctor import schemas

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(schemas.__file__).resolve().parent


@functools.cache
def _validators() -> dict[str, Any]:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    every = schemas.by_id()
    registry = Registry().with_resources((sid, Resource.from_contents(s)) for sid, s in every.items())
    return {
        sid: Draft202012Validator(s, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)
        for sid, s in every.items()
    }


def schema_id(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return None
    return doc.get("schema") or doc.get("format")


def errors(doc: Any, sid: str | None = None) -> list[str]:
    """Every way `doc` breaks its schema, one line each (empty when valid)."""
    from jsonschema.exceptions import best_match

    sid = sid or schema_id(doc)
    validator = _validators().get(sid or "")
    if validator is None:
        return [f"no schema with $id {sid!r} (the document's schema/format key)"]
    found = list(validator.iter_errors(doc))
    # A oneOf names every branch's errors; best_match picks the branch that came closest.
    return [f"{e.json_path}: {e.message[:300]}" for e in ([best_match(found)] if found else [])]


def assert_valid(doc: Any, where: str = "", sid: str | None = None) -> None:
    problems = errors(doc, sid)
    assert not problems, f"{where}: not valid against {sid or schema_id(doc)}:\n  " + "\n  ".join(problems)


def toml_as_json(value: Any) -> Any:
    """A parsed TOML document as JSON data: dates become ISO strings (what matrix/schema.py accepts too)."""
    if isinstance(value, dict):
        return {k: toml_as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [toml_as_json(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    return value


# --------------------------------------------------------------------------- compat_matrix schemas

# A version as packaging reads it starts with an optional v, epoch, then digits: the full PEP 440 check
# stays in matrix/schema.py (`gpudoctor matrix check`), as do sorting, unique keys and cross-file rules.
_TYPES: dict[str, dict[str, Any]] = {
    "str": {"type": "string", "pattern": "\\S"},
    "version": {"type": "string", "pattern": "^\\s*[vV]?([0-9]+!)?[0-9]+", "description": "a PEP 440 version"},
    "spec": {"type": "string", "description": "a PEP 440 version specifier, plain numeric versions only"},
    "cc": {"type": "string", "pattern": "^[0-9]+\\.[0-9]$", "description": "a compute capability: 8.6"},
    "date": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "bool": {"type": "boolean"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "source": {
        "description": "a key of sources.toml, or a non-empty list of them",
        "oneOf": [
            {"type": "string", "minLength": 1},
            {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        ],
    },
}


def _field(typ: str, where: str) -> dict[str, Any]:
    from gpudoctor.matrix.schema import CONFIDENCE, ENUMS

    if typ == "rows":
        return {"type": "array", "minItems": 1, "items": {"$ref": f"#/$defs/{where}"}}
    if typ.startswith("list:"):
        return {"type": "array", "uniqueItems": True, "items": _field(typ[5:], where)}
    if typ == "conf":
        return {"enum": list(CONFIDENCE)}
    if typ.startswith("enum:"):
        return {"enum": list(ENUMS[typ[5:]])}
    return dict(_TYPES[typ])


def _row(table: Any, name: str, defs: dict[str, Any]) -> dict[str, Any]:
    props = {}
    for field, (typ, _required) in table.fields.items():
        sub = f"{name}.{field}"
        props[field] = _field(typ, sub)
        if typ == "rows":
            defs[sub] = _row(table.sub[field], sub, defs)
    return {
        "type": "object",
        "properties": props,
        "required": [f for f, (_t, required) in table.fields.items() if required],
        "additionalProperties": False,
    }


def matrix_schema(file: str) -> dict[str, Any]:
    """The JSON Schema of compat_matrix/<file>.toml, after TOML parsing, as matrix.schema.SCHEMAS describes it."""
    from gpudoctor.matrix.schema import SCHEMA_VERSION, SCHEMAS

    defs: dict[str, Any] = {}
    props: dict[str, Any] = {"schema_version": {"const": SCHEMA_VERSION}}
    for name, table in SCHEMAS[file].items():
        defs[name] = _row(table, name, defs)
        props[name] = {"type": "array", "items": {"$ref": f"#/$defs/{name}"}}
    return {
        "$schema": DRAFT,
        "$id": f"gpudoctor.matrix.{file}/{SCHEMA_VERSION}",
        "title": f"compat_matrix/{file}.toml",
        "description": (
            f"compat_matrix/{file}.toml after TOML parsing (dates as YYYY-MM-DD strings); compat_matrix/README.md "
            "describes the fields. Derived from src/gpudoctor/matrix/schema.py, which also checks what a schema "
            "cannot: versions and specifiers parse, rows are sorted with unique keys, cited sources exist."
        ),
        "type": "object",
        "properties": props,
        "required": ["schema_version", *SCHEMAS[file]],
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }


def matrix_schema_name(file: str) -> str:
    return f"matrix-{file.replace('_', '-')}{schemas.SUFFIX}"


def write_matrix_schemas() -> None:
    from gpudoctor.matrix import FILES

    for file in FILES:
        text = json.dumps(matrix_schema(file), indent=2, ensure_ascii=False) + "\n"
        (SCHEMA_DIR / matrix_schema_name(file)).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_matrix_schemas()
