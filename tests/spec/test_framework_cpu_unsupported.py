"""docs/findings/framework-cpu-unsupported: the shell's SIGILL report beside a TensorFlow of 1.6 or later (whose
prebuilt binaries use AVX) is a CPU without AVX; the plan reads the flags where the text does not show them, and
installs 1.5.0 (the last release built without AVX) where the interpreter has its wheels; for a later Python it names
the source build or another CPU and installs nothing. Quiet where the CPU's flags shown name avx.

Real data: blind set 15's Hyper-V case
(tests/blind/plans15/cases/1502-tf19809-ubuntu1804-hyperv-vm-xeon-x5675-no-avx-tf18-illegal-instruction-on-import/input.txt),
tests/pasted/catalogue_examples/tensorflow-29788-illegal-instruction-on-import.txt (TensorFlow 1.11.0, Python 3.6.8),
and https://github.com/tensorflow/tensorflow/issues/28032 (its title and the description's fields, verbatim: zsh's
report, TensorFlow 1.13.1 on Python 3.7.3). Quiet twins: https://github.com/tensorflow/tensorflow/issues/45744 (its title
and description, verbatim: the same SIGILL with TensorFlow 2.4.0 on a CPU whose flags name avx), and the catalogue's
relion-436 example (the GPU's Xid 13 "Illegal Instruction Parameter" is no shell's SIGILL)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

TF_28032 = (
    "5526 illegal hardware instruction (core dumped) python3\n"
    "\n"
    "**System information**\n"
    "- OS Platform and Distribution (e.g., Linux Ubuntu 16.04):Linux Ubuntu 18.04\n"
    "- Mobile device (e.g. iPhone 8, Pixel 2, Samsung Galaxy) if the issue happens on mobile device:\n"
    "- TensorFlow installed from (source or binary):\n"
    "- TensorFlow version:1.13.1\n"
    "- Python version:3.7.3\n"
    "- Installed using virtualenv? pip? conda?:pip3\n"
    "- Bazel version (if compiling from source):\n"
    "- GCC/Compiler version (if compiling from source):\n"
    "- CUDA/cuDNN version:\n"
    "- GPU model and memory:GTX950M/4G\n"
)

TF_45744 = (
    "Illegal instruction (core dumped) in a CPU with AVX support\n"
    "\n"
    "**System information**\n"
    "- Have I written custom code (as opposed to using a stock example script provided in TensorFlow): No\n"
    "- OS Platform and Distribution: Linux Ubuntu 20.10\n"
    "- TensorFlow installed from (source or binary): pip, tensorflow-2.4.0-cp38-cp38-manylinux2010_x86_64.whl\n"
    "- TensorFlow version (use command below): tensorflow-2.4.0-cp38-cp38-manylinux2010_x86_64.whl\n"
    "- Python version: 3.8.6\n"
    "- CUDA/cuDNN version: N/A\n"
    "- GPU model and memory: N/A\n"
    "\n"
    "**Describe the current behavior**\n"
    "\n"
    "I was using tensorflow 2 without any issue until a few days ago. I installed it using pip in a new virtualenv "
    "environment and now it throws illegal instruction error. My CPU is an i5-3230M, which, according to /proc/cpuinfo "
    "supports AVX, so it seems not related to #19584 .\n"
    "\n"
    "My CPU (according to `/proc/cpuinfo`):\n"
    "model name      : Intel(R) Core(TM) i5-3230M CPU @ 2.60GHz\n"
    "flags           : fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx "
    "fxsr sse sse2 ss ht tm pbe syscall nx rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology "
    "nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx est tm2 ssse3 cx16 xtpr pdcm pcid sse4_1 "
    "sse4_2 x2apic popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm\n"
)

GREP_AVX = ("grep", "-c", "-w", "avx", "/proc/cpuinfo")


def _text(path: str) -> str:
    (p,) = Path(".").glob(path)
    return p.read_text(encoding="utf-8")


@states("framework-cpu-unsupported", FIRES)
def test_sigill_with_an_avx_tensorflow_installs_the_last_release_without_avx():
    for path in (
        "tests/blind/plans15/cases/1502-*/input.txt",
        "tests/pasted/catalogue_examples/tensorflow-29788-illegal-instruction-on-import.txt",
    ):
        words = argv_of(pasted_findings(_text(path))["framework-cpu-unsupported"])
        assert words[0] == GREP_AVX, path
        assert words[1][-4:] == ("pip", "uninstall", "-y", "tensorflow"), path
        assert words[2][-3:] == ("pip", "install", "tensorflow==1.5.0"), path
        assert words[3][-2] == "-c" and "import tensorflow" in words[3][-1], path


@states("framework-cpu-unsupported", FIRES)
def test_for_a_python_without_a_release_built_without_avx_nothing_is_installed():
    f = pasted_findings(TF_28032)["framework-cpu-unsupported"]
    assert argv_of(f) == [GREP_AVX]
    assert "Python 3.7" in f.remediation.summary


@states("framework-cpu-unsupported", QUIET)
def test_quiet_where_the_flags_name_avx_or_the_sigill_is_the_gpus():
    r = pasted_report(TF_45744)
    assert [e.kind for e in r.facts.pasted.errors if e.kind == "cpu-flags-said"] == ["cpu-flags-said"]
    assert "framework-cpu-unsupported" not in {f.code for f in r.findings}
    xid = _text("tests/pasted/catalogue_examples/relion-436-xid13-graphics-exception.txt")
    r = pasted_report(xid)
    assert not [e for e in r.facts.pasted.errors if e.kind == "cpu-illegal-instruction"]
