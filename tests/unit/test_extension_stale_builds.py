"""An extension's `undefined symbol` of torch where the object's path says how it was built: a just-in-time build
cached under torch_extensions (torch.utils.cpp_extension keys that cache by name, Python and CUDA, not by torch's
version), or a module built in place in a source tree outside site-packages. Real pasted reports (read only)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks.extensions import in_tree_build
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source

TESTS = Path(__file__).resolve().parents[1]


def _symbol_fix(path: Path):
    text = path.read_text()
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))
    (finding,) = [f for f in report.findings if f.code == "extension-symbol-missing"]
    return finding.remediation


def _argvs(fix) -> list[list[str]]:
    return [[str(a) for a in c.argv] for c in fix.commands]


def test_stale_jit_build_in_the_home_cache_is_removed_alone():
    # turboderp/exllamav2#427 (plans19 case 1940): ~/.cache/torch_extensions/py310_cu121/exllamav2_ext/exllamav2_ext.so
    fix = _symbol_fix(next(TESTS.glob("blind/plans19/cases/1940-*/input.txt")))
    assert ["rm", "-rf", "/home/ec2-user/.cache/torch_extensions/py310_cu121/exllamav2_ext"] in _argvs(fix)
    assert not any("pip" in a for a in _argvs(fix))


def test_stale_jit_build_in_the_old_tmp_cache_is_removed():
    # rosinality/stylegan2-pytorch#5: /tmp/torch_extensions/fused/fused.so (torch before 1.10 cached there)
    fix = _symbol_fix(next(TESTS.glob("pasted/cases/stylegan2-pytorch-5-*/report.txt")))
    assert ["rm", "-rf", "/tmp/torch_extensions/fused"] in _argvs(fix)


def test_in_tree_package_module_rebuilds_its_checkout_in_place():
    # facebookresearch/maskrcnn-benchmark#421: /maskrcnn-benchmark/maskrcnn_benchmark/_C...so, torch 1.0.1.post2 shown
    fix = _symbol_fix(next(TESTS.glob("pasted/cases/maskrcnn-benchmark-421-*/report.txt")))
    argvs = _argvs(fix)
    assert [
        "rm",
        "-rf",
        "/maskrcnn-benchmark/maskrcnn_benchmark/_C.cpython-36m-x86_64-linux-gnu.so",
        "/maskrcnn-benchmark/build",
    ] in argvs
    assert argvs[-2][-5:] == ["install", "--no-build-isolation", "--no-deps", "-e", "/maskrcnn-benchmark"]
    assert argvs[-1][-1] == "import torch, maskrcnn_benchmark._C"


def test_in_tree_top_level_module_rebuilds_its_own_folder():
    # GAP-LAB-CUHK-SZ/gaussian-mesh-splatting (plans19 case 1964): extensions/sgutils/sgutilslib...so, torch not shown
    fix = _symbol_fix(next(TESTS.glob("blind/plans19/cases/1964-*/input.txt")))
    argvs = _argvs(fix)
    assert "torch.utils.cpp_extension" in argvs[0][-1]  # what the build compiles against, read first
    assert argvs[-2][-2:] == ["-e", "/home/guoyang/GMS/gaussian-mesh-splatting/extensions/sgutils"]


def test_in_tree_build_reads_only_extension_modules_outside_site_packages():
    assert in_tree_build("/workspace/vllm-abo/vllm/_C.abi3.so") == "/workspace/vllm-abo"
    assert in_tree_build("/data/u/code/kvcached/kvcached/vmm_ops.cpython-311-x86_64-linux-gnu.so") == "/data/u/code/kvcached"
    assert in_tree_build("/env/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") is None
    assert in_tree_build("/usr/lib/x86_64-linux-gnu/libcuda.so") is None
    assert in_tree_build("/home/u/.cache/torch_extensions/py310_cu121/x/x.so") is None
    assert in_tree_build("/opt/pytorch/torch/lib/libtorch_cpu.so") is None
    assert in_tree_build("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") is None


def test_a_title_quoting_the_symbol_without_its_object_yields_to_the_traceback_line_with_it():
    # torch-points3d/torch-points-kernels#54 and pytorch/TensorRT#1002 (plans19 case 1907): the title line repeats the
    # traceback's `undefined symbol` without the object; the finding names the object the traceback printed.
    for path in (
        next(TESTS.glob("pasted/cases/torch-points-kernels-54-*/report.txt")),
        next(TESTS.glob("blind/plans19/cases/1907-*/input.txt")),
    ):
        text = path.read_text()
        report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))
        (finding,) = [f for f in report.findings if f.code == "extension-symbol-missing"]
        assert finding.title.split(" needs ")[0] in ("points_cpu.so", "libtorchtrt.so")


def test_the_asks_name_the_package_folder_the_object_sits_in_under_site_packages():
    # torch-points3d/torch-points-kernels#54 and pytorch/TensorRT#1002 (plans19 case 1907): site-packages/<package>/
    from gpudoctor.pasted.ask import _site_package

    assert _site_package("/e/lib/python3.9/site-packages/torch_tensorrt/lib/libtorchtrt.so") == "torch-tensorrt"
    assert _site_package("/h/.local/lib/python3.8/site-packages/torch_points_kernels/points_cpu.so") == "torch-points-kernels"
    assert _site_package("/e/lib/python3.10/site-packages/torch/lib/libc10.so") is None
    assert _site_package("/venv/lib/python3.10/site-packages/exllamav2_ext.cpython-310-x86_64-linux-gnu.so") is None


def test_a_top_level_extension_module_is_imported_by_its_stem():
    """The rebuilt module the error named is read back by its import name only where the file is a top-level module
    (alone, or directly in site-packages); a module inside a package folder is imported under a name the file does not
    give (plans20/2065, plans15/1504)."""
    from gpudoctor.checks.extensions import _top_level_module

    assert _top_level_module("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") == "flash_attn_2_cuda"
    assert _top_level_module("/env/lib/python3.10/site-packages/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so") == (
        "selective_scan_cuda"
    )
    assert _top_level_module("/env/lib/python3.10/site-packages/xformers/_C.so") is None
    assert _top_level_module("/usr/lib/libc10.so") is None
