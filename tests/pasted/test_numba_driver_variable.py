"""numba's "driver missing function: cuInit" beside the text setting numba's driver variable to a file that is no
driver library (catalogue.toml's numba-driver-missing-cuinit and numba-cuda-driver-variable,
gpudoctor.checks.catalogued.framework_builds.check_numba_driver_variable, branch h230): the variable is unset."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetEnv
from tests.pasted.test_windows_loader_codes import _case, _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def test_a_driver_variable_naming_the_runtime_is_unset():
    # tests/blind/plans16/cases/1614-* (~/.bashrc: NUMBAPRO_CUDA_DRIVER=/usr/local/cuda-9.0/lib64/libcudart.so) and
    # numba/numba#4136 (https://github.com/numba/numba/issues/4136): $Env:NUMBAPRO_CUDA_DRIVER = "...\cudart64_91.dll"
    for text, system in (
        (_case("plans16", "1614-"), "Linux"),
        ((EXAMPLES / "numba-4136-windows-numbapro-cuda-driver-names-cudart-cuinit-missing.txt").read_text(), "Windows"),
    ):
        snapshot, codes, asks = _run(text)
        assert snapshot["platform"]["system"] == system
        finding = codes["framework-cuda-libs-missing"]
        steps = finding.remediation.commands
        assert [(s.name, s.value) for s in steps if isinstance(s, SetEnv)] == [("NUMBAPRO_CUDA_DRIVER", None)]
        assert ("numba", "-s") in [tuple(s.words) for s in steps if hasattr(s, "words")]
        assert ("printenv", "NUMBAPRO_CUDA_DRIVER") not in asks  # (the text shows its value)


def test_cuinit_missing_without_the_variable_asks_for_it_and_a_libcuda_value_is_not_judged():
    # the quiet twins: the message alone asks for both variables; a variable naming the driver's own libcuda (as the
    # READMEs of projects using numba tell people to set it) is no such cause
    bare = "numba.cuda.cudadrv.error.CudaDriverError: driver missing function: cuInit.\nRequires CUDA 8.0 or above.\n"
    _, codes, asks = _run(bare)
    assert "framework-cuda-libs-missing" not in codes
    assert ("printenv", "NUMBA_CUDA_DRIVER") in asks and ("printenv", "NUMBAPRO_CUDA_DRIVER") in asks
    driver = bare + "export NUMBAPRO_CUDA_DRIVER=/usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    _, codes, _ = _run(driver)
    assert "framework-cuda-libs-missing" not in codes
