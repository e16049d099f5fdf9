"""A driver older than a CUDA driver-API function the program calls (catalogue.toml's driver-missing-function entries,
branch h191): numba's and cuda-python's words for it, read as the driver's age and asked with nvidia-smi; cuInit missing
is no such thing (a library that is no driver). And a cmd.exe script named in the text is Windows (pasted.cues)."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_windows_loader_codes import _case, _run  # one paste run for the three Windows-loader files

TESTS = Path(__file__).resolve().parents[1]


def _said(snapshot) -> list[dict]:
    return [e for e in snapshot["pasted"]["errors"] if e["kind"] == "driver-missing-function"]


def test_numba_and_cuda_python_name_a_driver_function_the_driver_lacks():
    # tests/blind/plans13/cases/1355-* (numba's cuDeviceGetUuid on a Windows machine started by a .cmd script) and
    # NVIDIA/cuda-python#23 (https://github.com/NVIDIA/cuda-python/issues/23): cuMemAllocAsync under a 455 driver
    for text, function in (
        (_case("plans13", "1355-"), "cuDeviceGetUuid"),
        (
            (TESTS / "pasted" / "catalogue_examples" / "cuda-python-23-cumemallocasync-not-found.txt").read_text(),
            "cuMemAllocAsync",
        ),
    ):
        snapshot, codes, asks = _run(text)
        said = _said(snapshot)
        assert [e["values"]["function"] for e in said] == [function]
        # (the GTX 280 of 1355 decides it without nvidia-smi: its last driver branch is known)
        assert any(a[0] == "nvidia-smi" for a in asks) or "framework-arch-unsupported" in codes
    snapshot, codes, asks = _run(_case("plans13", "1355-"))
    # (the GTX 280 named in the text is of compute capability 1.3, whose last driver is the 340.xx legacy branch: no
    # driver for it has the function, tests/pasted/test_legacy_gpus.py)
    assert set(codes) == {"framework-arch-unsupported"}
    assert snapshot["platform"]["system"] == "Windows"  # (the .cmd script)
    assert not any(a[0] == "python3" for a in asks)


def test_cuinit_missing_is_a_library_that_is_no_driver_not_an_old_driver():
    # the quiet twin: numba/numba#4136 (https://github.com/numba/numba/issues/4136), NUMBAPRO_CUDA_DRIVER naming
    # cudart64_91.dll: "driver missing function: cuInit" is the runtime loaded in the driver's place
    text = (
        "CudaDriverError: driver missing function: cuInit.\nRequires CUDA 8.0 or above.\n\nOS: Windows 10\n"
        '$Env:NUMBAPRO_CUDA_DRIVER = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.1\\bin\\cudart64_91.dll"\n'
    )
    snapshot, _, _ = _run(text)
    assert not _said(snapshot)


def test_a_cmd_script_is_windows_unless_linux_is_named():
    # tests/blind/plans10/cases/1042-* (Easy Diffusion started by its .cmd script); the quiet twin names Ubuntu beside
    # a .cmd file, which stays Linux (WSL and Linux texts name both)
    assert _run(_case("plans10", "1042-"))[0]["platform"]["system"] == "Windows"
    twin = "Ubuntu 22.04, I ran ./scripts/start.cmd through wine and python3 train.py fails\n"
    assert _run(twin)[0]["platform"]["system"] == "Linux"
    # (nor an attribute named cmd in the code a reporter pastes)
    code = "    subprocess.run(args.cmd, shell=True)\n    parts = cfg.cmd.split()\nRuntimeError: CUDA error: out of memory\n"
    assert _run(code)[0]["platform"]["system"] != "Windows"
