"""Asks that can run where the import is what failed (issues 27/28): a segfault at `import X` is asked for its
backtrace, never for a probe that imports X; the loader refusing a package's compiled module is that package's import
failing; a JAX the text dates before jax.print_environment_info() is not asked to call it.

Each rule on real reports: a case of tests/blind (cited by path) and another public thread (its URL; the text as it
was posted, cut where the stored copy is), with a near miss that must keep its asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.test_asks_the_report_can_run import _asked, _check, _programs

PLANS11 = Path(__file__).resolve().parent.parent / "blind/plans11/cases"


def _case(prefix: str) -> str:
    (case,) = PLANS11.glob(f"{prefix}-*")
    return (case / "input.txt").read_text(encoding="utf-8")


def _cues(doc: dict, cue: str) -> list[str]:
    return [c["means"] for c in doc["facts"]["pasted"]["cues"] if c["cue"] == cue]


# -- a segfault at `import X`: its backtrace, and no probe that imports X

# tensorflow/tensorflow#10870 (the description, cut after the build command)
_TF_IMPORT_SEGFAULT = """hi,
I installed tensorflow-1.2.0  in my machine, and met a segment fault as below.

linux-swfm:~/workarea/test> python
Python 2.7.13 (default, Jun 20 2017, 20:03:45)
[GCC 4.9.2] on linux2
Type "help", "copyright", "credits" or "license" for more information.
>>> import tensorflow as tf
Segmentation fault

my system is : USE Linux Enterprise Server 11 SP3.
cuda sdk version is 8.0 and cudnn is 6.0.
"""
# pytorch/pytorch#4111 (a comment): the crash follows a CUDA call in the same program, not the import alone.
_CRASH_AFTER_IMPORT = """The following happens  when I run the above comand
~$ python -c "import torch; x = torch.randn(10).cuda()"
Segmentation fault (core dumped)
"""


@pytest.mark.parametrize(
    ("text", "package"),
    [
        # tests/blind/plans11/cases/1120-…: `>>> import torch`, then "Segmentation fault (core dumped)"
        (_case("1120"), "torch"),
        (_TF_IMPORT_SEGFAULT, "tensorflow"),
    ],
)
def test_a_segfault_at_import_is_asked_for_its_backtrace(tmp_path, text, package):
    doc = _check(tmp_path, text)
    assert _cues(doc, "a package whose import crashed the interpreter") == [package]
    asked = _asked(doc)
    gdb = [argv for argv in asked if argv[:1] == ["gdb"]]
    assert gdb and gdb[0][:7] == ["gdb", "-batch", "-ex", "run", "-ex", "bt", "--args"]
    assert gdb[0][-1] == package  # the package is an argument of the program, never its code
    assert any(argv[1:3] == ["-X", "faulthandler"] and argv[-1] == package for argv in asked)
    # no probe that imports the package by its own code (collect_env, `import tensorflow as tf; ...`)
    assert not [p for p in _programs(doc) if p.split(".")[0] == package or f"import {package}" in p]


def test_a_crash_after_the_import_is_not_read_as_one_at_import(tmp_path):
    doc = _check(tmp_path, _CRASH_AFTER_IMPORT)
    assert _cues(doc, "a package whose import crashed the interpreter") == []
    assert not [argv for argv in _asked(doc) if argv[:1] == ["gdb"]]


# -- the loader refusing a compiled module in a package's folder: that package's import failed

# pytorch/pytorch#14274 (the description, as posted: its frame broken across backticks and lines)
_TORCH_GLIBC = """Hi :sweat_smile: , I installed pytorch 1.0 but when I imported it in python, I saw this error
`File "<stdin>", line 1, in <module> `
`File "/home/qwe123/data/conda_packages/lib/python3.6/site-packages/torch/__init__.py",` `line 84, in
 <module>`
    `from torch._C import *`
`ImportError: /lib64/libc.so.6: version 'GLIBC_2.14' not found (required by /home/qwe123/data/conda_packages/lib/python3.6/site-packages/torch/lib/libshm.so)`

I used pytorch 4.0 without any problems with python 3.6
`ldd --version` gives me `ldd (GNU libc) 2.12`
`lsb_release -a` prints `CentOS release 6.8 (Final)`
I use CUDA 8 and Cudnn 7
"""
# Dao-AILab/flash-attention#1027: the refused module lies beside site-packages' packages, in none of them.
_BESIDE_PACKAGES = (
    "ImportError: /home/mikolaj/miniconda3/envs/gemma/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-"
    "x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10Scal"
    "arTypeEEENS6_INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEE\n"
)


@pytest.mark.parametrize(
    ("text", "failed", "imported"),
    [
        # tests/blind/plans11/cases/1113-…: "(required by lib/python3.7/site-packages/jaxlib/xla_extension.so)"
        (_case("1113"), "jaxlib", "jax"),  # jax imports jaxlib as it is imported
        (_TORCH_GLIBC, "torch", "torch"),
    ],
)
def test_a_refused_module_fails_its_packages_import(tmp_path, text, failed, imported):
    doc = _check(tmp_path, text)
    assert failed in _cues(doc, "a package whose import failed")
    programs = _programs(doc)
    assert not [p for p in programs if p.split(".")[0] == imported or f"import {imported}" in p]
    # pip reads what is installed without importing it (a whole listing, or one filtered by the package's name)
    assert any(a["argv"][-3:] == ["-m", "pip", "list"] for a in doc["pasted"]["ask_for"])


def test_a_module_beside_the_packages_names_no_failed_package(tmp_path):
    doc = _check(tmp_path, _BESIDE_PACKAGES)
    assert _cues(doc, "a package whose import failed") == []


# -- a JAX the text dates before jax.print_environment_info() (jax 0.3.18)

# jax-ml/jax#4059 (the description, cut before its nvidia-smi table)
_OLD_BRIDGE = """JAX library does not use the GPU and shows warning
```
path/venv/lib/python3.6/site-packages/jax/lib/xla_bridge.py:130: UserWarning: No GPU/TPU found, falling back to CPU.
  warnings.warn('No GPU/TPU found, falling back to CPU.')
```
My code looks somewhat like this. I am not able to post the exact code I was using, as it is a part of an exercise.
"""
# gladiaio/gladia#927: the same fallback logged from jax._src.lib.xla_bridge, with no release stated.
_UNDATED = """2022-11-30 12:50:08,211 - jax._src.lib.xla_bridge - WARNING - No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)
"""


@pytest.mark.parametrize(
    ("text", "dated_by"),
    [
        # tests/blind/plans11/cases/1117-…: "jaxlib==0.1.70+cuda101"
        (_case("1117"), "jaxlib 0.1.70"),
        # tests/blind/plans11/cases/1112-…: ".../site-packages/jax/lib/xla_bridge.py:123: UserWarning: ..."
        (_case("1112"), "the CPU fallback warned from jax/lib/xla_bridge.py"),
        (_OLD_BRIDGE, "the CPU fallback warned from jax/lib/xla_bridge.py"),
    ],
)
def test_a_jax_before_0_3_18_is_not_asked_for_print_environment_info(tmp_path, text, dated_by):
    doc = _check(tmp_path, text)
    assert _cues(doc, "a JAX older than jax.print_environment_info()") == [dated_by]
    assert not [p for p in _programs(doc) if "print_environment_info" in p]
    # pip reads jax's and jaxlib's releases without importing them: filtered to jax, or the whole listing where one is
    # asked anyway (once: the filter folded into it, saying what it looked for)
    lists = [a for a in doc["pasted"]["ask_for"] if a["argv"][-3:] == ["-m", "pip", "list"]]
    assert len(lists) == 1 and "the jax and jaxlib installed" in lists[0]["why"]
    assert lists[0]["command"].endswith("pip list | grep -i jax") or "; among them, the jax" in lists[0]["why"]


def test_an_undated_jax_keeps_print_environment_info(tmp_path):
    doc = _check(tmp_path, _UNDATED)
    assert _cues(doc, "a JAX older than jax.print_environment_info()") == []
    assert any("print_environment_info" in p for p in _programs(doc))


# -- a module named like the package imported in its place: where that name resolves from the launch directory

_EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
# pytorch/pytorch#788 (the description): torch._C missing from a source tree, not a module shadowing a package.
_NO_SUBMODULE = """I used pip to install the dependencies, and build from source. When I import torch I got this error:
``` python
>>> import torch
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File ".../pytorch/torch/__init__.py", line 46, in <module>
    from torch._C import *
ModuleNotFoundError: No module named 'torch._C'
```

My OS is macOS 10.12.3, python is python3.6
"""
_ORIGIN = "import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).origin)"


@pytest.mark.parametrize(
    ("text", "package"),
    [
        # tests/blind/plans11/cases/1109-…: "No module named 'deepspeed.launcher'; 'deepspeed' is not a package"
        (_case("1109"), "deepspeed"),
        # ml-explore/mlx#1069: a script named mlx.py
        ((_EXAMPLES / "mlx-1069-local-file-shadows-package.txt").read_text(encoding="utf-8"), "mlx"),
    ],
)
def test_a_shadowed_package_is_asked_where_its_name_resolves(tmp_path, text, package):
    doc = _check(tmp_path, text)
    asks = doc["pasted"]["ask_for"]
    origin = [a["argv"] for a in asks if _ORIGIN in a["argv"]]
    assert origin and origin[0][-1] == package  # the name is an argument, never code
    assert any(a["argv"] == ["ls", "-ld", f"{package}.py", package] for a in asks)
    assert any(a["argv"] == ["printenv", "PYTHONPATH"] for a in asks)
    # the driver and the frameworks decide nothing of it
    assert not [a for a in asks if a["argv"][:1] == ["nvidia-smi"]]


def test_a_missing_submodule_alone_is_not_a_shadowed_package(tmp_path):
    doc = _check(tmp_path, _NO_SUBMODULE)
    assert not [a for a in doc["pasted"]["ask_for"] if _ORIGIN in a["argv"]]


# -- a kernel fault mid-run, as the "CUDA by Example" HandleError idiom prints it: the driver's Xid decides whose fault

# 3dem/relion#189 (the description, cut after the error lines)
_KERNEL_ERROR = """2. I get an error related to unspecified launch failure:
 Expectation iteration 2 of 25
23.92/36.37 min .......................................~~(,_,">KERNEL_ERROR: unspecified launch failure in /data/bin/EM/RELION/relion-devel-lmb_copy_newPC/src/gpu_utils/cuda_helper_functions.cu at line 386 (error-code 4)
KERNEL_ERROR: unspecified launch failure in /data/bin/EM/RELION/relion-devel-lmb_copy_newPC/src/gpu_utils/cuda_helper_functions.cu at line 386 (error-code 4)
"""
# 3dem/relion#189 (the description's first line): the reporter's words, no error line of a program.
_WORDS_ONLY = "2. I get an error related to unspecified launch failure:\n"


@pytest.mark.parametrize(
    "text",
    [
        # tests/blind/plans11/cases/1152-…: "ERROR: unspecified launch failure in …custom_allocator.cuh at line 176 (error-code 719)"
        _case("1152"),
        _KERNEL_ERROR,
    ],
)
def test_an_unspecified_launch_failure_asks_the_kernel_log(tmp_path, text):
    asks = _check(tmp_path, text)["pasted"]["ask_for"]
    assert any(a["command"] == "sudo dmesg | grep -i xid" for a in asks)


def test_the_words_without_the_idiom_are_not_the_message(tmp_path):
    asks = _check(tmp_path, _WORDS_ONLY)["pasted"]["ask_for"]
    assert not any("xid" in a["command"].lower() for a in asks)


# -- PyTorch's own suffix to a CUDA error names torch, though the text never does

# kohjingyu/gill#39 (the description)
_TORCH_SUFFIX = """RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""


@pytest.mark.parametrize(
    "text",
    [
        # tests/blind/plans11/cases/1135-…: the error and the suffix on one line, no word of torch
        _case("1135"),
        _TORCH_SUFFIX,
    ],
)
def test_pytorchs_cuda_error_suffix_asks_for_torchs_build(tmp_path, text):
    doc = _check(tmp_path, text)
    assert "torch.utils.collect_env" in _programs(doc)


def test_a_cuda_error_without_the_suffix_names_no_torch(tmp_path):
    # tests/blind/plans11/cases/1152-…: a C++ program's HandleError line
    assert not [p for p in _programs(_check(tmp_path, _case("1152"))) if "torch" in p]
