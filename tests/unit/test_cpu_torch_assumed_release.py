"""A CPU-only PyTorch whose version the paste does not show, with no driver shown either (issue 27, kind 9): the
install of the newest release whose companions the matrix pins, in its CUDA build that asks least of the driver,
behind the reads that would show otherwise (nvidia-smi, pip show torch); no install where the paste shows the reporter
installing torch themselves (checks.frameworks._assumed_release_build).

Pasted text read as `gpudoctor check --from` reads it; the assertions are on commands and findings (data).
"""

from __future__ import annotations

from gpudoctor.matrix import load_matrix
from gpudoctor.versions import vkey
from tests.unit.test_rule_edges_checks_v2 import findings, from_text

_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "{site}/torch/cuda/__init__.py", line 305, in _lazy_init\n'
    '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
    "AssertionError: Torch not compiled with CUDA enabled\n"
)


def _argv(remediation) -> list[tuple[str, ...]]:
    return [tuple(str(a) for a in c.argv) for c in remediation.commands if hasattr(c, "argv")]


def _torch_pin(argv: tuple[str, ...]) -> str:
    (pin,) = [a for a in argv if a.startswith("torch==")]
    return pin


def test_an_unknown_cpu_torch_gets_the_newest_pinned_release_in_its_least_demanding_cuda_build():
    facts = from_text(_ERROR.format(site="/home/me/venv/lib/python3.11/site-packages"))
    (f,) = findings(facts, "framework-cpu-build")
    argv = _argv(f.remediation)
    assert argv[0] == ("nvidia-smi",)
    assert argv[1][1:] == ("-m", "pip", "show", "torch")
    pin = _torch_pin(argv[2])
    release, _, tag = pin.removeprefix("torch==").partition("+")
    # the release's oldest stable CUDA build (the one that asks least of the driver), from its own index
    rel = load_matrix().torch_release(".".join(release.split(".")[:2]))
    oldest = min((v for v in rel.variants.values() if v.cuda and v.status == "stable"), key=lambda v: vkey(v.cuda))
    assert tag == oldest.tag
    assert argv[2][-2:] == ("--index-url", f"https://download.pytorch.org/whl/{tag}")
    # its companions move with it, each pinned to the release built for it
    assert any(a.startswith("torchvision==") and a.endswith(f"+{tag}") for a in argv[2])


def test_the_python_the_paste_shows_bounds_the_release():
    """Python 3.8 (its site-packages path): torch 2.4 is the last release with wheels for it (compat_matrix/torch.toml)."""
    facts = from_text(_ERROR.format(site="/home/me/envs/x/lib/python3.8/site-packages"))
    (f,) = findings(facts, "framework-cpu-build")
    argv = _argv(f.remediation)
    assert _torch_pin(argv[2]) == "torch==2.4.1+cu118"


def test_a_torch_install_the_reporter_shows_is_not_overwritten():
    """The reporter installed a CUDA torch after the error: the release now there is theirs; the step keeps its reads."""
    text = _ERROR.format(site="/home/me/venv/lib/python3.10/site-packages")
    text += "$ pip install torch==1.9.0+cu111 -f https://download.pytorch.org/whl/torch_stable.html\n"
    (f,) = findings(from_text(text), "framework-cpu-build")
    assert not any(a.startswith("torch==") for argv in _argv(f.remediation) for a in argv)


def test_a_plain_torch_install_from_the_package_index_is_what_the_step_replaces():
    """`pip install --upgrade torch` with no CUDA index is what brought the CPU build (comfyui-4297): still decided."""
    text = "$ pip install --upgrade torch torchvision\n" + _ERROR.format(site="/home/me/venv/lib/python3.11/site-packages")
    (f,) = findings(from_text(text), "framework-cpu-build")
    assert any(a.startswith("torch==") and "+cu" in a for argv in _argv(f.remediation) for a in argv)


def test_an_unexplained_gpu_failure_of_torch_gets_the_cpu_build_step_with_its_install():
    """'cuda.is_available() returns False' with nothing else shown: the step that runs only where the check shows a CPU
    torch carries the assumed install after its reads (checks.reported._if_cpu_torch), no longer nvidia-smi alone."""
    facts = from_text("Torch is not detecting cuda\n\ntorch.cuda.is_available() returning False.\n")
    (f,) = findings(facts, "pasted-error-unexplained")
    argv = _argv(f.remediation)
    assert argv[0][1] == "-c" and argv[1] == ("nvidia-smi",)
    assert any(a.startswith("torch==") and "+cu" in a for a in argv[-1])
