"""PyTorch's cuDNN check refusing an older cuDNN that LD_LIBRARY_PATH put ahead of the wheel's own
(gpudoctor.checks.reported, _cudnn_off_the_path): the plan takes that directory off the path and installs nothing."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

TESTS = Path(__file__).resolve().parents[1]


def _finding(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report, {f.code: f for f in report.findings}


def test_a_cudnn_directory_on_the_printed_ld_library_path_is_taken_off_it():
    # a Slurm cluster's cudnn module directory first on LD_LIBRARY_PATH, `echo $LD_LIBRARY_PATH` shown
    # (tests/blind/plans10/cases/1013-pt80637-slurm-cluster-modules-cudnn803-on-ld-library-path-shadows-torch112-cu113-cudnn)
    case = "1013-pt80637-slurm-cluster-modules-cudnn803-on-ld-library-path-shadows-torch112-cu113-cudnn"
    report, codes = _finding((TESTS / "blind/plans10/cases" / case / "input.txt").read_text(encoding="utf-8"))
    rem = codes["cudnn-too-old"].remediation
    (env,) = [c for c in rem.commands if isinstance(c, SetEnv)]
    assert env.name == "LD_LIBRARY_PATH"
    assert env.value == (
        "/public/apps/cuda/11.0/lib64:/usr/local/cuda/lib64:/usr/local/cuda/lib64::/public/slurm/20.11.8/lib:"
        "/public/slurm/20.11.8/lib"
    )
    argvs = [tuple(map(str, c.argv)) for c in rem.commands if isinstance(c, Cmd)]
    assert ("module", "list") in argvs  # a cluster: the module that set it is unloaded
    assert argvs[-1][0] == "/private/home/rzou/local/miniconda3/envs/py38/bin/python"  # the environment's interpreter
    assert report.facts.platform.env["LD_LIBRARY_PATH"].startswith("/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64:")


def test_pytorch_saying_its_ld_library_path_holds_the_cudnn_reads_the_path_before_taking_it_off():
    # https://github.com/gladiaio/gladia/issues/928: in a container, PyTorch 1.13's own words, no path shown
    text = (TESTS / "pasted/catalogue_examples/gladia-928-container-ld-library-path-cudnn-841-torch-850.txt").read_text(
        encoding="utf-8"
    )
    _, codes = _finding(text)
    rem = codes["cudnn-too-old"].remediation
    assert not [c for c in rem.commands if isinstance(c, SetEnv)]  # the path's value is not shown: nothing to set
    cmds = [c for c in rem.commands if isinstance(c, Cmd)]
    assert (tuple(map(str, cmds[0].argv)), tuple(cmds[0].pipe)) == (("printenv", "LD_LIBRARY_PATH"), ("tr", ":", "\\n"))
    assert tuple(map(str, cmds[-1].argv))[-2:] == (
        "-c",
        "import torch; print(torch.__version__, torch.backends.cudnn.version())",
    )


def test_quiet_twins_a_mismatch_with_no_path_shown_or_said_and_a_printed_path_without_cudnn():
    # https://github.com/RaleLee/Co-GAT/issues/2: PyTorch's message without its LD_LIBRARY_PATH sentence
    bare = (
        "cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 3, 3). "
        "PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the "
        "bundled cuDNN.\n"
    )
    for text in (bare, "$ echo $LD_LIBRARY_PATH\n/usr/local/cuda-11.7/lib64:/opt/slurm/lib\n" + bare):
        _, codes = _finding(text)
        rem = codes["cudnn-too-old"].remediation
        assert not [c for c in rem.commands if isinstance(c, SetEnv)]
        assert not any(isinstance(c, Cmd) and c.argv[:1] == ("printenv",) for c in rem.commands)


# After-round h244 (plans17): PyTorch's sentence on LD_LIBRARY_PATH read where a log prefix or the terminal wrapped it
# onto the next line, and the plan's import run with that variable unset, which decides it without changing the shell.
def _unset_import(rem) -> bool:
    return any(isinstance(c, Cmd) and tuple(map(str, c.argv[:3])) == ("env", "-u", "LD_LIBRARY_PATH") for c in rem.commands)


def test_the_ld_library_path_sentence_wrapped_onto_the_next_line_is_read():
    # tests/blind/plans17/cases/1748-*: kohya_ss's log wraps PyTorch 2.0.1's message; "...conflicting cuDNN in
    # LD_LIBRARY_PATH." stands on the line after "compiled  against (8, 7, 0) but found runtime version (8, 5, 0)".
    (path,) = (TESTS / "blind/plans17/cases").glob("1748-*/input.txt")
    _, codes = _finding(path.read_text(encoding="utf-8"))
    rem = codes["cudnn-too-old"].remediation
    assert any(isinstance(c, Cmd) and c.argv[:1] == ("printenv",) for c in rem.commands)
    assert _unset_import(rem)
    assert not [c for c in rem.commands if isinstance(c, Cmd) and c.argv[:1] in (("pip",), ("apt-get",), ("sudo",))]


def test_the_sentence_on_one_line_runs_the_import_without_ld_library_path():
    # pytorch/pytorch#104757 (https://github.com/pytorch/pytorch/pull/104757), the message its CI printed in one line
    text = (
        "cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 8, 1). "
        "PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the "
        "bundled cuDNN.one possibility is that there is a conflicting cuDNN in LD_LIBRARY_PATH.\n"
    )
    _, codes = _finding(text)
    assert _unset_import(codes["cudnn-too-old"].remediation)


def test_quiet_twin_a_next_line_without_the_sentence():
    # The twin: the bare message (RaleLee/Co-GAT#2, above) followed by another log line: LD_LIBRARY_PATH is not said.
    text = (
        "cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 3, 3). "
        "PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the "
        "bundled cuDNN.\n16:25:21-100000 INFO     Exiting\n"
    )
    _, codes = _finding(text)
    assert not _unset_import(codes["cudnn-too-old"].remediation)
