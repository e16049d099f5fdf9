"""A companion whose pinned torch makes pip replace the torch that was there (issue 28, class "a companion install
that moved torch"): pip's "Collecting torch==X (from PKG==V)" over a torch a listing (or pip's own "Successfully
uninstalled torch-Y") shows is companion-torch-mismatch, fixed by PKG's release built for that torch (the matrix's
pairing table), which keeps torch and its companions. The pastes are written for the test in pip's shapes."""

from __future__ import annotations

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return [f for f in report.findings if f.code == "companion-torch-mismatch"]


_LIST = (
    "$ pip list | grep torch\ntorch                         {torch}\ntorchaudio                    {audio}\n"
    "torchvision                   {vision}\n\n"
)


def test_a_notebooks_torch_replaced_by_xformers_pin_keeps_torch_with_the_matching_xformers():
    text = _LIST.format(torch="2.0.1+cu118", audio="2.0.2+cu118", vision="0.15.2+cu118") + (
        "$ pip install xformers==0.0.19\nCollecting xformers==0.0.19\n"
        "  Downloading xformers-0.0.19-cp310-cp310-manylinux2014_x86_64.whl (108.2 MB)\n"
        "Collecting torch==2.0.0 (from xformers==0.0.19)\n"
        "  Downloading torch-2.0.0-cp310-cp310-manylinux1_x86_64.whl (619.9 MB)\n"
    )
    (f,) = _run(text)
    argv = f.remediation.commands[0].argv
    assert argv[-2:] == ("install", "xformers==0.0.22")  # the newest xformers whose wheel requires torch==2.0.1
    assert "--no-deps" not in argv


def test_pips_own_uninstall_line_names_the_torch_that_was_there():
    text = (
        "Collecting torch==2.1.1 (from xformers==0.0.23)\n"
        "  Downloading torch-2.1.1-cp311-cp311-manylinux1_x86_64.whl (670.2 MB)\n"
        "Installing collected packages: torch, xformers\n  Attempting uninstall: torch\n"
        "    Found existing installation: torch 2.1.2+cu121\n    Uninstalling torch-2.1.2+cu121:\n"
        "      Successfully uninstalled torch-2.1.2+cu121\nSuccessfully installed torch-2.1.1 xformers-0.0.23\n"
    )
    (f,) = _run(text)
    assert f.remediation.commands[0].argv[-2:] == ("install", "xformers==0.0.23.post1")  # built for torch 2.1.2


def test_a_pin_the_installed_torch_satisfies_is_quiet():
    text = _LIST.format(torch="2.0.1+cu118", audio="2.0.2+cu118", vision="0.15.2+cu118") + (
        "Collecting xformers==0.0.20\nCollecting torch==2.0.1 (from xformers==0.0.20)\n"
    )
    assert _run(text) == []


def test_a_package_the_matrix_does_not_pair_is_named_without_a_guessed_pin():
    text = _LIST.format(torch="2.3.1+cu121", audio="2.3.1+cu121", vision="0.18.1+cu121") + (
        "Collecting some-extension==1.4.0\nCollecting torch==2.2.0 (from some-extension==1.4.0)\n"
    )
    (f,) = _run(text)
    assert f.remediation.commands == ()
    assert f.evidence[0].value.startswith("Collecting torch==2.2.0 (from some-extension==1.4.0)")


def test_pips_uninstall_lines_alone_are_facts_not_a_failure():
    snapshot = validate_snapshot(
        read_pasted([Source("t", "I uninstalled it and got\n  Successfully uninstalled torch-2.8.0\n")]), "t"
    )
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors and not report.findings
