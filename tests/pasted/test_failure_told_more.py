"""Issue 28 and 31: failing pastes of the blind sets that still got "No problems found" (tools/clean_bills.py), each read
now as a failure the paste shows but does not explain, and the control beside it that must stay quiet.

The shapes, each general: a library the reporter says cannot be found, by its file; a problem said in locating or
loading the stack's files; the GPU said not available; torch.cuda.is_available() quoted as code with its False below;
a traceback whose frames are followed by something other than the exception's line (the paste cut it); a reporter's
"does not detect my GPU" beside another reading of the same sentence; an error quoted from memory; a hang told around
a quoted log line; a failure told before "though it works" on simple code. Each case is cited by its path; the expected
values were written from the paste by hand.
"""

from __future__ import annotations

import pytest

from gpudoctor.parsers.failure_lines import read_failure_lines
from gpudoctor.pasted.read import Source, read_sources
from tests.pasted import cli_json

UNEXPLAINED = "pasted-error-unexplained"


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]


def _failures(doc: dict, kind: str) -> list[dict]:
    return [e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == kind]


def _form(line: str) -> str | None:
    found = read_failure_lines([line])
    return dict(found[0].values)["form"] if found else None


@pytest.mark.parametrize(
    ("case", "line_no", "form", "values"),
    [
        # NVIDIA/TensorRT#390: "But it does not work, and reports that can not find nvinfer.dll" ("can not" apart)
        ("plans16/cases/1601", 3, "fails-said", {"subject": "library", "library": "nvinfer.dll"}),
        # a faster-whisper standalone build: "there are problem in locating the CUDnn files"
        ("plans12/cases/1234", 6, "fails-said", {}),
        # MIC-DKFZ/nnUNet#2487: "when I train, the GPU is not available"
        ("plans15/cases/1547", 1, "cpu-said", {"component": "torch"}),
        # tensorflow/tensorflow#36367: "it gives ' Failed to get convolution error'. Though ... it works fine"
        ("plans10/cases/1017", 13, "error-said", {"component": "tensorflow"}),
        # tensorflow/tensorflow#22043: 'It freezes at the point "...gpu_device.cc:1484] Adding visible gpu devices"'
        ("plans14/cases/1422", 27, "hang-said", {"component": "tensorflow", "subject": "device"}),
    ],
)
def test_a_failure_told_in_words_is_not_decided(case, line_no, form, values):
    doc = cli_json.check(cli_json.blind_case(case))
    assert _blocking(doc) == [UNEXPLAINED]
    (said,) = _failures(doc, "gpu-stack-failure")
    got = dict(said["values"])
    assert got["form"] == form and got["component_kind"] == "said"
    assert {k: got.get(k) for k in values} == values
    assert said["at"].endswith(f"/input.txt:{line_no}")


def test_a_library_said_missing_asks_which_folders_hold_it():
    doc = cli_json.check(cli_json.blind_case("plans16/cases/1601"))
    assert ["where.exe", "nvinfer.dll"] in cli_json.asked(doc)


def test_the_gpu_said_unavailable_asks_what_the_process_sees():
    doc = cli_json.check(cli_json.blind_case("plans15/cases/1547"))
    asked = cli_json.asked(doc)
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] in asked
    assert ["python3", "-m", "torch.utils.collect_env"] in asked


def test_a_gpu_not_detected_beside_the_driver_version_in_the_same_sentence_is_a_failure():
    # ggml-org/whisper.cpp#3449: "does not detect my GPU. ... My system has proprietary NVIDIA driver 580.82.09": the
    # driver's version read from the sentence is the reporter's words too, no program's message that explains it
    doc = cli_json.check(cli_json.blind_case("plans11/cases/1144"))
    assert _blocking(doc) == [UNEXPLAINED]
    assert [e["at"].rsplit(":", 1)[-1] for e in _failures(doc, "gpu-unused-said")] == ["1"]
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] in cli_json.asked(doc)


def test_is_available_quoted_as_code_with_false_below_is_read():
    # pytorch/pytorch#68611: "`torch.cuda.is_available() `" then "false" on the next line
    doc = cli_json.check(
        cli_json.ROOT / "tests/blind/pasted/cases/016-pytorch-68611-windows-gtx1050-conda-nightly-cu113/input.txt"
    )
    assert _blocking(doc) == [UNEXPLAINED]
    assert len(_failures(doc, "cuda-unavailable")) == 1


def test_a_traceback_cut_before_the_threads_reply_is_a_cut():
    # tensorflow/tensorflow#10073: "ImportError: Traceback (most recent call last):" holds a second traceback whose
    # last frame is cut mid-path; the thread's reply ("Hi, Thanks for the response.") follows, no exception line
    doc = cli_json.check(cli_json.blind_case("plans16/cases/1615"))
    assert _blocking(doc) == [UNEXPLAINED]
    (cut,) = _failures(doc, "traceback-cut")
    assert cut["line"] == 'File "/usr/local/lib/python2.7/dist-packages/tensorflow/python/py'
    assert cut["at"].endswith("/input.txt:21")


def _cut(text: str) -> list[str]:
    return [e.line for e in read_sources([Source("issue.txt", text)]).errors if e.kind == "traceback-cut"]


_FRAMES = 'Traceback (most recent call last):\n  File "/w/run.py", line 3, in <module>\n    import tensorflow as tf\n'


def test_frames_then_prose_are_a_cut_and_frames_then_the_exception_are_not():
    assert _cut(_FRAMES + "\nHi, thanks for the reply.\n") == ["import tensorflow as tf"]
    assert _cut(_FRAMES + "```\nHi, thanks for the reply.\n") == ["import tensorflow as tf"]  # a fence is markup
    # quiet twins: the exception's line follows (alone, dotted, or after the paste's fence)
    assert _cut(_FRAMES + "ModuleNotFoundError: No module named 'tensorflow'\nThanks.\n") == []
    assert _cut(_FRAMES + "KeyboardInterrupt\nThanks.\n") == []
    assert _cut(_FRAMES + "```\nkeras.src.errors.SomeError: x\n") == []
    # IPython's frames are not indented: nothing read as cut
    ipython = "ValueError    Traceback (most recent call last)\nCell In[2], line 1\n----> 1 f()\n\nValueError: x\n"
    assert _cut(ipython) == []


@pytest.mark.parametrize(
    "case",
    [
        # TensorFlow 0.7's "could not open file to read NUMA node": a benign notice (tensorflow/tensorflow#1563)
        "plans5/cases/424",
        # a pod given one MIG resource by design: "can't find `nvidia.com/mig-1g.20gb`" names no library
        "plans6/cases/502",
    ],
)
def test_controls_stay_quiet(case):
    assert _blocking(cli_json.check(cli_json.blind_case(case))) == []


def test_collect_env_quoted_with_yes_answers_for_its_interpreter():
    # pytorch/pytorch#40682: "I don't know why torch.cuda.is_available() always return false?" beside collect_env quoted
    # under "> " with torch 1.5's "Is CUDA available: Yes": the False is another interpreter's (a control)
    doc = cli_json.check(
        cli_json.ROOT / "tests/blind/pasted/cases/001-pytorch-40682-windows-server-titan-rtx-quoted-collect-env/input.txt"
    )
    assert _blocking(doc) == []
    assert [e["line"] for e in _failures(doc, "cuda-available-said")] == ["Is CUDA available: Yes"]


@pytest.mark.parametrize(
    "line",
    [
        # programs' own words, or no library named
        "cuda_gpu_executor.cc could not open file to read NUMA node: /sys/bus/pci/devices/0000:00:00.0/numa_node",
        "use `nvidia-smi` only find a `nvidia.com/mig-1g.10gb` mig instances, can't find `nvidia.com/mig-1g.20gb`.",
        "I can't find the CUDA installer page for my distro",
        # a program's notice without the verb, and a question
        "CUDA not available - defaulting to CPU. Note: This module is much faster with a GPU.",
        "Is it normal that the GPU is not available inside the build stage?",
        # a quotation with no error in it, and a failure said over
        "it gives 'Loaded cuDNN version 8600' on the GPU",
        "the GPU is not detected no longer, it works now",
    ],
)
def test_quiet_twins_are_not_read(line):
    assert _form(line) is None


@pytest.mark.parametrize(
    ("line", "form"),
    [
        ("and reports that can not find nvinfer.dll.", "fails-said"),
        ("torch cannot load libcudnn_ops.so.9 at import", "fails-said"),
        ("when I train, the GPU is not available.", "cpu-said"),
        ("tensorflow gives ' Failed to get convolution error'. Though simple code works fine on gpu", "error-said"),
    ],
)
def test_the_told_shapes_are_read(line, form):
    assert _form(line) == form


# -- a framework's own device list without a GPU ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "line_no"),
    [
        # tensorflow/tensorflow#38090: "When I run `tf.config.list_physical_devices(None)` I get
        # `[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]`" (TF 2.1 on Windows with CUDA 10.2)
        ("plans3/cases/211", 23),
        # keras-team/keras#19255: ">>> *tf.config.list_physical_devices('GPU')*" answered "*[ ]*" under TF 2.16
        ("plans14/cases/1417", 34),
    ],
)
def test_a_device_list_without_a_gpu_is_not_decided_and_asks_the_frameworks_build(case, line_no):
    doc = cli_json.check(cli_json.blind_case(case))
    assert _blocking(doc) == [UNEXPLAINED]
    (listed,) = _failures(doc, "gpu-stack-failure")
    assert dict(listed["values"]) == {"form": "device-list-no-gpu", "component": "tensorflow", "component_kind": "module"}
    assert listed["at"].endswith(f"/input.txt:{line_no}")
    asked = cli_json.asked(doc)
    assert any(a[:2] in (["python", "-c"], ["python3", "-c"]) and "is_built_with_cuda" in a[2] for a in asked)


def _listed(lines: list[str]) -> list[str | None]:
    return [dict(e.values).get("form") for e in read_failure_lines(lines)]


def test_the_device_list_forms_and_their_quiet_twins():
    cpu = "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    gpu = "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]"
    assert _listed([">>> tf.config.list_physical_devices()", cpu]) == ["device-list-no-gpu"]
    assert _listed([">>> tf.config.list_physical_devices(device_type='GPU')", "[]"]) == ["device-list-no-gpu"]
    # quiet twins: the CPUs asked for, a GPU listed, an empty list below no device query, a query too far above
    assert _listed([">>> tf.config.list_physical_devices('CPU')", cpu]) == []
    assert _listed([">>> tf.config.list_physical_devices('GPU')", gpu]) == []
    assert _listed([">>> print(sys.argv[1:])", "[]"]) == []
    assert _listed(["tf.config.list_physical_devices('GPU')", "a", "b", "c", "d", "e", "[]"]) == []


# -- a program's own log that it chose the CPU ------------------------------------------------------------------------


def test_a_program_logging_the_cpu_as_its_device_beside_a_named_geforce_is_not_decided():
    # invoke-ai/InvokeAI#1322: "**>> Using device_type cpu**" in the start-up log, the specs naming an RTX 2070
    doc = cli_json.check(cli_json.blind_case("plans13/cases/1343"))
    assert _blocking(doc) == [UNEXPLAINED]
    (chosen,) = _failures(doc, "gpu-stack-failure")
    assert dict(chosen["values"])["form"] == "cpu-device-chosen"
    assert chosen["at"].endswith("/input.txt:27")
    assert ["python", "-m", "pip", "list"] in cli_json.asked(doc)


def test_the_cpu_chosen_without_an_nvidia_gpu_named_is_how_the_program_runs(tmp_path):
    # the same log line on a paste that names no NVIDIA GPU: no failure of the environment (a quiet twin)
    doc = cli_json.paste(tmp_path, "Starting the web UI\n>> Using device_type cpu\n>> Model loaded in 11.05s\n")
    assert _blocking(doc) == []


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("[2024-10-02 09:04:20,991]::[InvokeAI]::INFO --> Using torch device: CPU", True),
        ("Using device: cpu", True),
        # quiet twins: the reporter's wish, a setting in code, the GPU chosen, a print in code
        ("how do I make it stop using device cpu", False),
        ('device = "cpu"', False),
        ("Using device: cuda", False),
        ('if args.cpu: print("Using device: cpu")', False),
    ],
)
def test_the_cpu_chosen_form_and_its_quiet_twins(line, read):
    assert _listed([line]) == (["cpu-device-chosen"] if read else [])
