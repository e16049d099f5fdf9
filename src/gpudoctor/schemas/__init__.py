"""JSON Schemas (draft 2020-12) of every JSON document gpudoctor writes, and of the compat_matrix files.

Data, shipped in the wheel: `<name>.schema.json` per document. Each schema's `$id` is the value of
the document's `schema` key (`gpudoctor.report/1`), or of its `format` key for a snapshot, so a reader
finds the schema from the document alone. The ids are relative references, not addresses: gpudoctor
owns no domain to publish them under. gpudoctor validates nothing with these at run time (no
jsonschema dependency); the tests validate every document the suite produces against them.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SUFFIX = ".schema.json"


def names() -> list[str]:
    """The schema files' names, sorted."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(SUFFIX))


def load(name: str) -> dict[str, Any]:
    """One schema by file name (`report.schema.json`)."""
    return json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))


def by_id() -> dict[str, dict[str, Any]]:
    """Every schema, by its `$id`."""
    return {schema["$id"]: schema for schema in map(load, names())}
