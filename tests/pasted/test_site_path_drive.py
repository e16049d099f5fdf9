"""A site-packages path read from a traceback names the OS only by what it is: a drive letter is one letter.

VS Code's WSL remote prints each frame of a notebook's traceback with a link to the file
(`File [~/miniconda3/.../site-packages/numba/...py:258](https://vscode-remote+wsl-...net/mnt/d/.../site-packages/numba/...)`):
the "s:" of "https://" is no drive, and the link no Windows path. Whole case: tests/blind/plans14 1411 (RAPIDS in WSL 2),
which read as Windows with no line saying so (issue 28: a fact with no source line). The twin: a real drive-letter
site-packages path (tests/blind/plans5 404, torch's fbgemm.dll under C:\\...) still makes the paste Windows'.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.pasted import load_sources, read_pasted
from gpudoctor.pasted.provenance import unsourced

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _system(case: Path) -> tuple[str, list[int], list[str]]:
    read_from = read_pasted(load_sources([str(case / "input.txt")]))["pasted"]["read_from"]
    (fact,) = [x for x in read_from if x["fact"] == "platform.system"]
    return fact["value"], [line["line"] for line in fact["lines"]], unsourced(read_from)


def test_a_url_beside_each_frame_is_no_drive_letter_path():
    (case,) = (BLIND / "plans14" / "cases").glob("1411-*")
    assert "https://vscode-remote+wsl" in (case / "input.txt").read_text(encoding="utf-8")
    system, lines, gaps = _system(case)
    assert (system, gaps) == ("Linux", [])
    assert lines == [3]  # "Installed RAPIDS in a WSL2 environment."


def test_a_drive_letter_site_packages_path_is_still_windows():
    (case,) = (BLIND / "plans5" / "cases").glob("404-*")
    text = (case / "input.txt").read_text(encoding="utf-8")
    assert ":\\" in text and "site-packages" in text
    system, _lines, gaps = _system(case)
    assert (system, gaps) == ("Windows", [])
