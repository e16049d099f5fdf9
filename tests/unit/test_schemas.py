"""The JSON Schemas themselves: valid draft 2020-12, one per document the code names, in agreement with
the code's enums and dataclasses, the compat_matrix ones derived from matrix/schema.py, named in the docs.

The documents the suite produces are validated against them in tests/test_documents_schemas.py.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("jsonschema", reason="jsonschema is a test dependency: pip install -e '.[test]'")

from jsonschema import Draft202012Validator  # noqa: E402

from gpudoctor import schemas  # noqa: E402
from tests.schemas import DRAFT, assert_valid, errors, matrix_schema, matrix_schema_name, toml_as_json  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
NAMES = schemas.names()


def _document_ids() -> dict[str, str]:
    """The id every JSON document writer puts in its `schema` (or `format`) key -> the schema file."""
    from gpudoctor.bandwidth.results import SCHEMA as BANDWIDTH
    from gpudoctor.host.snapshot import FORMAT as SNAPSHOT
    from gpudoctor.memory.render import PLAN_SCHEMA, VIEW_SCHEMA
    from gpudoctor.planner.render import SCHEMA as INSTALL
    from gpudoctor.render.json_report import SCHEMA as REPORT
    from gpudoctor.report_merge import REPORT_SCHEMA
    from gpudoctor.report_merge import SCHEMA as MERGE

    assert REPORT_SCHEMA == REPORT
    return {
        REPORT: "report.schema.json",
        MERGE: "merge.schema.json",
        VIEW_SCHEMA: "memory.schema.json",
        PLAN_SCHEMA: "memory-plan.schema.json",
        BANDWIDTH: "bandwidth.schema.json",
        INSTALL: "install.schema.json",
        SNAPSHOT: "snapshot.schema.json",
    }


def _matrix_names() -> dict[str, str]:
    from gpudoctor.matrix import FILES

    return {file: matrix_schema_name(file) for file in FILES}


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_draft_2020_12(name):
    schema = schemas.load(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert schema["title"] and schema["description"]


def test_one_schema_per_document_and_matrix_file_and_no_other():
    documents, matrix = _document_ids(), _matrix_names()
    assert sorted([*documents.values(), *matrix.values()]) == NAMES
    for sid, name in documents.items():
        assert schemas.load(name)["$id"] == sid, name
    ids = [schemas.load(n)["$id"] for n in NAMES]
    assert len(set(ids)) == len(ids)


def test_the_schema_key_of_each_document_is_its_schema_id():
    """Every branch of a document schema (the document and its error forms) pins `schema` (`format`) to the $id."""
    for sid, name in _document_ids().items():
        schema = schemas.load(name)
        branches = [schema["$defs"][ref["$ref"].rsplit("/", 1)[1]] for ref in schema.get("oneOf", [])] or [schema]
        key = "format" if name == "snapshot.schema.json" else "schema"
        for branch in branches:
            assert branch["properties"][key] == {"const": sid}, name
            assert key in branch["required"], name


def test_schemas_ship_as_package_data():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = pyproject["tool"]["setuptools"]
    assert "gpudoctor.schemas" in setuptools["packages"]
    assert setuptools["package-data"]["gpudoctor.schemas"] == ["*" + schemas.SUFFIX]
    assert "jsonschema>=4.18" in pyproject["dependency-groups"]["test"]  # the tests validate against them


# --------------------------------------------------------------------------- agreement with the code


def _defs(name: str) -> dict:
    return schemas.load(name)["$defs"]


def test_report_enums_are_the_codes():
    from gpudoctor.model import AREAS, COMPONENTS, ExitCode, Severity

    defs = _defs("report.schema.json")
    assert defs["finding"]["properties"]["area"]["enum"] == list(AREAS)
    assert defs["finding"]["properties"]["severity"]["enum"] == [s.label for s in Severity]
    assert defs["step"]["properties"]["component"]["enum"] == list(COMPONENTS)
    assert defs["report"]["properties"]["exit_code"]["enum"] == [int(c) for c in ExitCode]
    assert defs["report"]["properties"]["status"]["enum"] == ["healthy", *(s.label for s in Severity)]


def test_plan_fix_kinds_are_what_fix_offers():
    import inspect

    from gpudoctor.planner import offers

    kinds = [k for k in schemas.load("report.schema.json")["$defs"]["step"]["properties"]["fix"]["enum"] if k]
    source = inspect.getsource(offers)  # applies(): the one rule for the kinds a plan step is labelled with
    assert all(f'return "{k}"' in source for k in kinds)


# facts.py dataclass -> the report schema's $defs entry that mirrors it, field for field.
FACT_DEFS = {
    "Facts": "facts",
    "PlatformFacts": "platform_facts",
    "KernelFacts": "kernel_facts",
    "DriverFacts": "driver_facts",
    "Gpu": "gpu",
    "ToolkitFacts": "toolkit_facts",
    "CudnnInstall": "cudnn_install",
    "LibDir": "lib_dir",
    "TorchFacts": "torch_facts",
    "TensorflowFacts": "tensorflow_facts",
    "JaxFacts": "jax_facts",
    "FrameworkFacts": "framework_facts",
    "ElfObject": "elf_object",
    "LibraryCopy": "library_copy",
    "LibraryResolution": "library_resolution",
    "FrameworkLoading": "framework_loading",
    "LoadingFacts": "loading_facts",
    "Partial": "partial_facts",
}


@pytest.mark.parametrize("cls,name", sorted(FACT_DEFS.items()))
def test_facts_schema_mirrors_facts_py(cls, name):
    import gpudoctor.facts as facts

    fields = [f.name for f in dataclasses.fields(getattr(facts, cls))]
    entry = _defs("report.schema.json")[name]
    assert sorted(entry["properties"]) == sorted(fields), f"facts.{cls} and report.schema.json $defs/{name} differ"
    assert sorted(entry["required"]) == sorted(fields) and entry["additionalProperties"] is False


def test_merge_fact_keys_are_the_merged_facts():
    from gpudoctor.report_merge import FACT_LABELS

    merge = _defs("merge.schema.json")["merge"]["properties"]
    assert merge["same"]["propertyNames"]["enum"] == list(FACT_LABELS)
    assert merge["differences"]["propertyNames"]["enum"] == list(FACT_LABELS)


def test_bandwidth_tests_are_the_tests():
    from gpudoctor.bandwidth.results import TESTS

    assert _defs("bandwidth.schema.json")["measurement"]["properties"]["test"]["enum"] == list(TESTS)


def test_memory_plan_frameworks_are_the_frameworks():
    from gpudoctor.memory.plan import OVERHEADS

    assert sorted(_defs("memory-plan.schema.json")["job"]["properties"]["framework"]["enum"]) == sorted(OVERHEADS)


def test_snapshot_top_level_keys_are_what_the_loader_accepts():
    from gpudoctor.host.snapshot import _TOP_LEVEL

    schema = schemas.load("snapshot.schema.json")
    assert sorted(schema["properties"]) == sorted(_TOP_LEVEL) and schema["additionalProperties"] is False


# --------------------------------------------------------------------------- the schemas catch drift


def _report() -> dict:
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.model import ExitCode
    from gpudoctor.render.json_report import report_document

    snap = load_snapshot(str(ROOT / "tests" / "machines" / "rtx4090-nvcc118-torch-cu121" / "snapshot.json"))
    report = diagnose(ReplayHost(snap))
    return json.loads(json.dumps(report_document(report, ExitCode.FINDINGS), default=str))


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(extra=1),
        lambda d: d.pop("plan"),
        lambda d: d.update(status="fine"),
        lambda d: d["findings"][0].update(severity="fatal"),
        lambda d: d["findings"][0].update(code="Not_Kebab"),
        lambda d: d["findings"][0].pop("remediation"),
        lambda d: d["plan"]["steps"][0].update(fix="reboot"),
        lambda d: d["plan"]["steps"][0]["commands"].append({"argv": ["x"]}),
        lambda d: d["facts"]["driver"].update(nvml_gpu_count=1),
        lambda d: d["facts"]["frameworks"]["torch"].update(status="maybe"),
        lambda d: d.update(exit_code="1"),
    ],
    ids=[
        "extra-key",
        "no-plan",
        "status",
        "severity",
        "code",
        "no-remediation",
        "fix-kind",
        "command-without-root",
        "facts-field",
        "outcome-status",
        "exit-code-type",
    ],
)
def test_report_schema_refuses_drift(change):
    doc = _report()
    assert doc["findings"] and doc["plan"]["steps"], "the machine needs findings and a plan for this test"
    assert_valid(doc, "unchanged")
    change(doc)
    assert errors(doc), "the schema accepted a changed document"


# --------------------------------------------------------------------------- compat_matrix


@pytest.mark.parametrize("file", sorted(_matrix_names()))
def test_matrix_schema_is_derived_from_matrix_schema_py(file):
    shipped = schemas.load(matrix_schema_name(file))
    assert shipped == matrix_schema(file), "matrix_schema.py changed: run .venv/bin/python -m tests.schemas"


@pytest.mark.parametrize("file", sorted(_matrix_names()))
def test_bundled_matrix_file_is_valid(file):
    doc = toml_as_json(tomllib.loads((ROOT / "compat_matrix" / f"{file}.toml").read_text(encoding="utf-8")))
    assert_valid(doc, f"compat_matrix/{file}.toml", sid=schemas.load(matrix_schema_name(file))["$id"])


def _torch_broken(change) -> tuple[list[str], list[str]]:
    """(what the JSON Schema says, what matrix/schema.py says) about torch.toml with `change` applied."""
    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix import FILES
    from gpudoctor.matrix.schema import build

    docs = {f: tomllib.loads((ROOT / "compat_matrix" / f"{f}.toml").read_text(encoding="utf-8")) for f in FILES}
    docs["torch"] = copy.deepcopy(docs["torch"])
    change(docs["torch"])
    try:
        build(docs, {f: f"{f}.toml" for f in FILES})
        code = []
    except MatrixError as exc:
        code = [str(exc)]
    return errors(toml_as_json(docs["torch"]), "gpudoctor.matrix.torch/1"), code


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["release"][0]["variant"][0].update(colour="red"),
        lambda d: d["release"][0].pop("python"),
        lambda d: d["release"][0]["variant"][0].update(arch=["8"]),
        lambda d: d["release"][0].update(cudnn_bundled="yes"),
        lambda d: d["release"][0].update(variant=[]),
        lambda d: d.update(schema_version=2),
        lambda d: d.update(extra=[]),
        lambda d: d["release"][0]["variant"][0].update(status="beta"),
    ],
    ids=["unknown-key", "missing-key", "cc", "bool", "no-rows", "schema-version", "top-level", "enum"],
)
def test_matrix_schema_and_matrix_check_refuse_the_same(change):
    by_schema, by_code = _torch_broken(change)
    assert by_schema and by_code


# --------------------------------------------------------------------------- docs


def test_docs_name_every_schema_file():
    docs = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    docs += (ROOT / "compat_matrix" / "README.md").read_text(encoding="utf-8")
    missing = [n for n in NAMES if n not in docs and not n.startswith("matrix-")]
    assert not missing, f"no doc names {missing}"
    assert "matrix-FILE.schema.json" in docs and "`gpudoctor.matrix.FILE/1`" in docs
    for sid in _document_ids():
        assert f'"{sid}"' in docs or f"`{sid}`" in docs, f"no doc names the id {sid}"
