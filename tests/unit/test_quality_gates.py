"""The quality gates stay wired: `make test` runs `make lint` (ruff and mypy), with the settings in pyproject.toml."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli, a dependency on Python 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _recipe(target: str) -> tuple[list[str], list[str]]:
    """A Makefile target's prerequisites and its recipe lines."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"{re.escape(target)}:(?!=)(.*)$", line)
        if m:
            recipe = []
            for body in lines[i + 1 :]:
                if not body.startswith("\t"):
                    break
                recipe.append(body.strip())
            return m.group(1).split(), recipe
    raise AssertionError(f"no {target} target in the Makefile")


def test_make_test_runs_the_gates_first():
    prerequisites, _ = _recipe("test")
    assert "lint" in prerequisites
    _, recipe = _recipe("lint")
    assert any("ruff check src tests" in r for r in recipe)
    assert any("ruff format --check" in r for r in recipe)
    assert any(r.endswith("/mypy") for r in recipe)  # files and settings from [tool.mypy]


def test_pyproject_holds_the_gates_settings_and_installs_the_tools():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]
    assert tool["ruff"]["target-version"] == "py310"
    assert {"E4", "E7", "E9", "F", "I", "B", "UP", "SIM"} <= set(tool["ruff"]["lint"]["select"])
    mypy = tool["mypy"]
    assert mypy["python_version"] == "3.10" and mypy["files"] == ["src"]
    # Honest settings: no module's errors silenced wholesale.
    assert "ignore_errors" not in mypy and "ignore_missing_imports" not in mypy
    assert all("ignore_errors" not in o for o in mypy.get("overrides", []))
    # The tools are dependency groups (PEP 735), not a public extra of the package (issue 31).
    assert "optional-dependencies" not in config["project"]
    assert {"ruff", "mypy"} <= _group(config, "lint") <= _group(config, "test")
    assert {"pytest", "hypothesis", "jsonschema"} <= _group(config, "test")


def _group(config: dict, name: str) -> set[str]:
    """The distribution names of a dependency group, its included groups' too."""
    out: set[str] = set()
    for entry in config["dependency-groups"][name]:
        if isinstance(entry, dict):
            out |= _group(config, entry["include-group"])
        else:
            out.add(re.split(r"[<>=!~ ;\[]", entry, maxsplit=1)[0])
    return out


def _stamp_recipe(variable: str) -> list[str]:
    """The recipe of the stamp file `variable` names ($(RUN_STAMP), $(STAMP))."""
    _, recipe = _recipe(f"$({variable})")
    return recipe


def test_make_run_installs_only_what_check_needs_and_make_test_adds_the_tools():
    """Issue 31, item 5: `make run` installs gpudoctor and its dependencies, no test tool; `make test`, `make lint`
    and `make test-fast` install the `test` group on top, saying so; GPUDOCTOR_TEST_DEPS=0 skips the Debian packages."""
    prerequisites, _ = _recipe("run")
    assert prerequisites == ["$(RUN_STAMP)", "$(COMPILED)"]
    run = " ".join(_stamp_recipe("RUN_STAMP"))
    assert "$(VENV_PIP) install" in run and "-e ." in run and "--group" not in run and "[test]" not in run
    # gpudoctor's own modules are byte-compiled at install: under PYTHONDONTWRITEBYTECODE=1 nothing else would.
    assert "-m compileall" in run and "src/gpudoctor" in run
    # And again whenever a module has changed since (a pull): the install's stamp follows pyproject.toml only.
    compiled, again = _recipe("$(COMPILED)")
    assert compiled == ["$(RUN_STAMP)", "$(SOURCES)"] and any(
        "-m compileall" in line and "src/gpudoctor" in line for line in again
    )
    assert "src/gpudoctor/*/*/*.py" in _makefile_variable("SOURCES")
    tools = _stamp_recipe("STAMP")
    assert any("--group test" in line for line in tools)
    assert any(line.startswith("@echo") and "test tools" in line for line in tools)
    for target in ("test", "lint", "test-fast"):
        assert "$(STAMP)" in _recipe(target)[0], target
    _, fast = _recipe("test-fast")
    assert any('-m "not slow and not packaging"' in line for line in fast)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(m.startswith("slow:") for m in config["tool"]["pytest"]["ini_options"]["markers"])
    _, deps = _recipe("test-deps")
    assert any("GPUDOCTOR_TEST_DEPS" in line for line in deps)
    assert "GPUDOCTOR_TEST_DEPS=0" in (ROOT / "README.md").read_text(encoding="utf-8")


def _makefile_variable(name: str) -> str:
    m = re.search(rf"^{name}\s*[:?]?=\s*(.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert m, f"no {name} in the Makefile"
    return m.group(1).strip()


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def test_the_docs_say_what_make_test_and_make_test_fast_run():
    """Issue 26: docs/testing.md and README.md describe `make test` and `make test-fast` as the Makefile runs them:
    the folders, the markers left out, the workers (a change to one without the other fails here)."""
    workers = _makefile_variable("TEST_WORKERS")
    fast_paths = _makefile_variable("FAST_PATHS").split()
    marker = '-m "not slow and not packaging"'
    _, test = _recipe("test")
    _, fast = _recipe("test-fast")
    assert [line for line in test if "$(PYTEST)" in line] == ["$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup"]
    assert [line for line in fast if "$(PYTEST)" in line] == [
        f"$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup {marker} $(FAST_PATHS)"
    ]
    assert _makefile_variable("PYTEST").startswith("GPUDOCTOR_TEST_BYTECODE=1 ")
    docs = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    edit_loop = _section(docs, "## The edit loop: `make test-fast`")
    for path in fast_paths:
        shown = path + "/" if (ROOT / path).is_dir() else path
        assert f"`{shown}`" in edit_loop, path
    assert f"`-n {workers} --dist loadgroup`" in edit_loop
    assert "`slow`" in edit_loop and "`packaging`" in edit_loop and "GPUDOCTOR_TEST_BYTECODE=1" in edit_loop
    assert f"`make test` runs `pytest -n {workers} --dist loadgroup`" in _section(docs, "### Two workers")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make test    # the whole test suite" in readme
    assert "`make test-fast` runs the unit tests not marked `slow`, the architecture test and the golden record" in readme
    # The tests named as the edit loop's are the ones conftest leaves unmarked: the golden record of the machines.
    from tests.conftest import SLOW_PATHS, SLOW_TESTS

    assert not any(path.startswith(SLOW_PATHS) for path in fast_paths)
    assert "tests/test_golden.py::test_case_prints_its_golden_record[machines/" not in SLOW_TESTS
