"""The guard of the `typer_rich` subset (tests/packaging/reach.py): what it counts as typer's and rich's surface in
src/, and that it names what a run did not reach (tests/packaging/test_dependency_range.py applies it)."""

from __future__ import annotations

from pathlib import Path

from tests.packaging.reach import surface_code, unreached

PACKAGE = {
    "top.py": "import rich.console\n\n\ndef f():\n    return 1\n",
    "lazy.py": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import typer\n\n\n"
        "def plain():\n    return 1\n\n\n@decorated\ndef shows():\n    from rich.text import Text\n\n    return Text\n\n\n"
        "class C:\n    def asks(self):\n        from typer._click import exceptions\n\n        def inner():\n            return 2\n"
    ),
    "annotations_only.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import rich\n",
    "other.py": "import richer\nimport packaging\n",
}


def make(tmp_path: Path) -> Path:
    for name, text in PACKAGE.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_surface_is_each_function_importing_typer_rich_or_click_or_a_whole_module(tmp_path):
    # lazy.py: `shows` (first line: its decorator's, as code objects count) and `C.asks`; top.py as a whole;
    # annotations under TYPE_CHECKING and a package whose name only starts with "rich" are not the surface.
    assert surface_code(make(tmp_path)) == {"lazy.py": [11, 19], "top.py": []}


def test_what_a_run_missed_is_named(tmp_path):
    surface = surface_code(make(tmp_path))
    commands = [["lazy.py", 19, "gpudoctor ask"]]
    everything = {"reached": [["top.py", 4], ["lazy.py", 11], ["lazy.py", 19]], "commands": commands}
    assert unreached(everything, surface) == []
    partial = {"reached": [["lazy.py", 7], ["lazy.py", 11]], "commands": commands}
    assert unreached(partial, surface) == [
        "lazy.py:19: this function imports typer or rich and never ran",
        "top.py: no function of it ran",
        "command `gpudoctor ask` (lazy.py:19) never ran",
    ]


def test_the_real_surface_holds_every_command_module():
    src = Path(__file__).resolve().parents[2] / "src" / "gpudoctor"
    modules = set(surface_code(src))
    commands = {f"cli/{p.name}" for p in (src / "cli").glob("*.py") if "def register(" in p.read_text(encoding="utf-8")}
    assert commands and commands <= modules
    assert {"sanitize.py", "render/textconsole.py", "memory/render.py", "bandwidth/render.py"} <= modules
