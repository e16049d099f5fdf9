"""A library the loader could not open, listed on disk by the same text (`find / -name`, `ls -l`): its directory goes
first on LD_LIBRARY_PATH, exported (gpudoctor.planner.remedy.shown_library_dir, pasted.read's library-file-said).

Whole real reports and minimal pastes of the class with hand-written expectations; data asserted (codes, argv, the
prepended directory), with quiet twins: an error line naming a path, a listing of another major, two copies."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]


def _findings(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    return {f.code: f for f in report.findings}


def _prepended(f) -> list[tuple]:
    return [c.parts for c in f.remediation.commands if isinstance(c, PrependPath)]


def test_ctranslate2_cudnn_found_in_the_user_site_is_put_on_the_path():
    """tests/blind/plans14 case 1434 (whisper-ctranslate2 #27; its thread is named there): faster-whisper cannot load
    libcudnn_ops_infer.so.8, `find /` lists it in the user site's nvidia/cudnn/lib, and the reporter's LD_LIBRARY_PATH
    line has no export. The ctranslate2 release no longer matters: the file is there."""
    case = next((ROOT / "tests/blind/plans14/cases").glob("1434-*"))
    f = _findings((case / "input.txt").read_text(encoding="utf-8"))["cudnn-missing"]
    where = "/home/silvacarl/.local/lib/python3.8/site-packages/nvidia/cudnn/lib"
    assert _prepended(f) == [(where,)]
    argvs = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    assert argvs[0] == ("ls", "-l", f"{where}/libcudnn_ops_infer.so.8")


_CUDART = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"


def test_a_framework_runtime_listed_by_find_is_put_on_the_path():
    text = "import torch\n" + _CUDART + "$ find / -name 'libcudart.so*' 2>/dev/null\n/opt/cuda-libs/lib/libcudart.so.11.0\n"
    f = _findings(text)["framework-cuda-libs-missing"]
    assert _prepended(f) == [("/opt/cuda-libs/lib",)]


def test_an_ls_l_row_with_a_link_counts_as_a_listing():
    row = "lrwxrwxrwx 1 root root 20 Jan  1 12:00 /opt/cuda-libs/lib/libcudart.so.11.0 -> libcudart.so.11.8.89\n"
    f = _findings("import torch\n" + _CUDART + row)["framework-cuda-libs-missing"]
    assert _prepended(f) == [("/opt/cuda-libs/lib",)]


def test_an_error_naming_a_path_is_no_listing():
    # a library that did load, and failed on a symbol: its path is in the error line, not a listing of a file on disk
    text = "import torch\n" + _CUDART + "OSError: /opt/cuda-libs/lib/libcudart.so.11.0: undefined symbol: foo\n"
    f = _findings(text)["framework-cuda-libs-missing"]
    assert ("/opt/cuda-libs/lib",) not in _prepended(f)


def test_another_major_on_disk_is_not_the_missing_library():
    text = "import torch\n" + _CUDART + "/usr/local/cuda-12.4/lib64/libcudart.so.12\n"
    f = _findings(text)["framework-cuda-libs-missing"]
    assert ("/usr/local/cuda-12.4/lib64",) not in _prepended(f)


def test_two_copies_in_two_places_leave_the_choice_to_the_check():
    text = "import torch\n" + _CUDART + "/opt/a/lib/libcudart.so.11.0\n/opt/b/lib/libcudart.so.11.0\n"
    f = _findings(text)["framework-cuda-libs-missing"]
    assert not {("/opt/a/lib",), ("/opt/b/lib",)} & set(_prepended(f))


def test_the_listing_alone_is_no_failure():
    # a collect_env's "Probably one of the following" paths, nothing failing: no finding, no NOT DECIDED
    text = "cuDNN version: Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.0\n"
    assert "pasted-error-unexplained" not in _findings(text)
