"""A paste from a notebook gets every printed command as a cell's line (issue 27; the set 15 reviewers struck plain shell
lines for a Colab paste): `!program`, `%pip`, Python statements, where gpudoctor.planner.where.tool reads a notebook
(Colab named, Colab's /content, cells that install with `!pip`/`%pip`), off Windows. Recorded pastes, expectations by
hand; each with the near miss that keeps the shell's lines."""

from __future__ import annotations

from gpudoctor.facts import PROJECT_TOOL
from tests.pasted.cli_json import ROOT, asked, blind_case, check, paste

# A notebook cell runs as it is: its shell escape, a magic, a comment, or a Python statement of the plan's.
CELL_STARTS = ("!", "%", "# ", "import ")


def lines(doc: dict) -> list[str]:
    """Every printed line of the plan (each step and its alternatives) and of the asks."""
    out = [a["command"] for a in doc["pasted"]["ask_for"]]
    for step in doc["plan"]["steps"]:
        for alt in (step, *step["alternatives"]):
            out += alt["lines"]
    return out


def test_a_colab_traceback_gets_cells_for_the_plan_and_the_asks():
    # 1419: Megatron-LM under /content (Colab) fails importing apex: the build is %pip, its checks !python3, the ask !
    doc = check(blind_case("plans14/cases/1419"))
    assert doc["plan"]["shell"] == "cell"
    printed = lines(doc)
    assert printed and all(ln.startswith(CELL_STARTS) for ln in printed)
    (build,) = doc["plan"]["steps"]
    argvs = [c["argv"] for c in build["commands"]]
    assert [a[0] for a in argvs] == ["python3", "%pip", "python3"]
    assert [ln for ln in build["lines"] if not ln.startswith("# ")] == [
        "!python3 -c 'import torch, torch.utils.cpp_extension as e; print(torch.__version__, torch.version.cuda, e.CUDA_HOME)'",
        *[ln for ln in build["lines"] if ln.startswith("%pip install ")],
        "!python3 -c 'import apex, apex_C, amp_C, fused_layer_norm_cuda; print(apex.__file__)'",
    ]
    assert [a["command"] for a in doc["pasted"]["ask_for"]] == ["!nvidia-smi", build["lines"][1]]


def test_cells_that_installed_with_bang_pip_get_cells_for_the_asks():
    # 1504: `!pip install mamba-ssm` on Colab, its extension built for another torch: the asks are a cell's
    doc = check(blind_case("plans15/cases/1504"))
    # (the extension's installed release is read by the rebuild's own step since h258: `%pip show mamba-ssm` in a cell of
    # the plan, so the asks keep the GPU's only)
    assert [a["command"] for a in doc["pasted"]["ask_for"]] == ["!nvidia-smi"]
    assert asked(doc) == [["nvidia-smi"]]
    assert ["%pip", "show", "mamba-ssm"] in [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"] if "argv" in c]


def test_without_the_notebook_the_same_paste_keeps_the_shells_lines(tmp_path):
    # the near miss: 1504 with its cells' `!` taken off and Colab not named is a shell's paste
    text = blind_case("plans15/cases/1504").read_text(encoding="utf-8")
    text = text.replace("!pip install", "pip install").replace("working on google colab", "working on my server")
    doc = paste(tmp_path, text)
    assert doc["plan"]["shell"] != "cell"
    assert [a["command"] for a in doc["pasted"]["ask_for"]][0] == "nvidia-smi"


def test_a_windows_notebook_keeps_the_windows_lines():
    # 404: `!pip` in Jupyter beside anaconda3\envs\DL: a cell's `!` line there is cmd.exe's, not written by the cell form
    doc = check(blind_case("plans5/cases/404"))
    assert doc["plan"]["shell"] != "cell"
    assert not any(ln.startswith("!") for ln in lines(doc))


def test_a_link_to_a_notebook_on_colab_is_not_where_it_ran():
    # trax-302 follows a tutorial linked on colab.research.google.com, on its own Ubuntu 18.04: the shell's lines; its
    # twin, 1511, links the same way and says it ran "in colab": a cell's
    doc = check(ROOT / "tests/pasted/cases/trax-302-ubuntu-pypi-jaxlib-0139-cpu-only-no-gpu/report.txt")
    assert doc["plan"]["shell"] != "cell"
    assert not any(c["cue"] == PROJECT_TOOL for c in doc["facts"]["pasted"]["cues"])
    doc = check(blind_case("plans15/cases/1511"))
    assert [c["means"] for c in doc["facts"]["pasted"]["cues"] if c["cue"] == PROJECT_TOOL] == ["notebook"]
    assert all(a["command"].startswith(CELL_STARTS) for a in doc["pasted"]["ask_for"])
