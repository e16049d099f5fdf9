"""Docs stay true to the code: one page per finding code, and `explain` finds each."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cli.common import all_codes
from gpudoctor.cli.explain import finding_page

ROOT = Path(__file__).resolve().parents[2]


def test_one_page_per_code_and_no_orphans():
    pages = {p.stem for p in (ROOT / "docs" / "findings").glob("*.md")}
    assert pages == set(all_codes())


def test_explain_reads_every_page_and_rejects_odd_names():
    for code in all_codes():
        page = finding_page(code)
        assert page is not None and page.startswith(f"# `{code}`"), code
    assert finding_page("../README") is None
    assert finding_page("no-such-code") is None


def test_readme_keeps_exactly_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make run", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert "\nrun:" in makefile and "\ntest:" in makefile


def _commands() -> list:
    import typer

    from gpudoctor.cli import _register, app

    _register()
    return list(typer.main.get_command(app).commands.values())


def test_readme_names_every_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = [command.name for command in _commands()]
    assert "completion" in names
    for name in names:
        assert f"`gpudoctor {name}" in readme, f"README.md does not describe `gpudoctor {name}`"


def test_ci_docs_and_readme_name_every_environment_variable_check_reads():
    check = next(command for command in _commands() if command.name == "check")
    variables = sorted(p.envvar for p in check.params if getattr(p, "envvar", None))
    assert variables == ["GPUDOCTOR_FAIL_ON", "GPUDOCTOR_FORMAT", "GPUDOCTOR_IGNORE", "GPUDOCTOR_REQUIRE"]
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for variable in variables:
        assert f"`{variable}`" in ci and variable in readme, variable
