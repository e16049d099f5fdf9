"""The bandwidth benchmark on a real GPU, beside the CUDA C reference in bench/reference/.

Skipped cleanly without a GPU: the `gpu` marker (tests/conftest.py skips it when NVML finds no
GPU), and again here when libcuda.so.1 cannot be loaded or cuInit fails. The comparison with the
reference also needs nvcc to build it.

Target (issue 5): pinned host-to-device and device-to-host at 32 MiB and above within 3% of the
reference, measured in the same run. Set GPUDOCTOR_BANDWIDTH_RECORD=DIR to keep both runs
(ours as `gpudoctor bench bandwidth --format json`, the reference as JSON lines) for fixtures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudoctor.bandwidth.cuda_driver import CudaDriver, DriverUnavailable
from gpudoctor.bandwidth.measure import measure_gpu
from gpudoctor.bandwidth.results import BenchPlan
from gpudoctor.bandwidth.sizes import MIB

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "bench" / "reference"
LINK_BOUND_SIZES = (32 * MIB, 64 * MIB, 128 * MIB, 256 * MIB)
ORDINAL = int(os.environ.get("GPUDOCTOR_TEST_GPU", "0"))
TOLERANCE = 0.03


@pytest.fixture(scope="module")
def driver() -> CudaDriver:
    try:
        drv = CudaDriver.open()
    except DriverUnavailable as exc:
        pytest.skip(f"no usable CUDA driver: {exc.message}")
    if drv.device_count() <= ORDINAL:
        pytest.skip(f"no CUDA device {ORDINAL}")
    return drv


def _free_memory(drv: CudaDriver) -> int:
    with drv.primary_context(drv.device(ORDINAL)) as ctx, drv.current(ctx):
        return drv.memory_info()[0]


def test_measures_every_test_verified_and_releases_its_memory(driver):
    before = _free_memory(driver)
    plan = BenchPlan(sizes_bytes=(64 * 1024, 4 * MIB, 64 * MIB), warmup=1, repeats=3, verify=True)
    measurements, under_load = measure_gpu(driver, ORDINAL, plan)
    assert {m.test for m in measurements} == {"h2d", "d2h", "h2d-pageable", "d2h-pageable", "d2d", "bidir"}
    assert all(m.verified is True for m in measurements)
    assert all(m.summary.median > 0.1 for m in measurements)
    after = _free_memory(driver)
    assert abs(after - before) < 64 * MIB, "device memory was not given back"


def test_cli_on_this_gpu(driver, tmp_path):
    from typer.testing import CliRunner

    from tests.conftest import real_app

    app = real_app()
    plot = tmp_path / "bandwidth.png"
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "bandwidth",
            "--gpu",
            str(ORDINAL),
            "--sizes",
            "1M,64M",
            "--repeats",
            "3",
            "--format",
            "json",
            "--plot",
            str(plot),
        ],
    )
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["errors"] == []
    assert doc["gpus"][0]["results"]
    assert plot.read_bytes()[:4] == b"\x89PNG"


def _build_reference() -> Path:
    if shutil.which(os.environ.get("NVCC", "nvcc")) is None:
        pytest.skip("nvcc not found: cannot build the CUDA C reference")
    done = subprocess.run(["bash", str(REFERENCE / "build.sh")], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(f"bench/reference/build.sh failed:\n{done.stdout}\n{done.stderr}")
    return Path(done.stdout.strip().splitlines()[-1])


def test_pinned_copies_match_the_cuda_c_reference(driver):
    binary = _build_reference()
    plan = BenchPlan(sizes_bytes=LINK_BOUND_SIZES, tests=("h2d", "d2h"), warmup=2, repeats=20)
    ours, _ = measure_gpu(driver, ORDINAL, plan)
    done = subprocess.run(
        [
            str(binary),
            "--device",
            str(ORDINAL),
            "--repeats",
            "20",
            "--warmup",
            "2",
            "--sizes",
            ",".join(map(str, LINK_BOUND_SIZES)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reference = {(r["test"], r["size_bytes"]): r["median_gb_per_s"] for r in map(json.loads, done.stdout.splitlines())}
    record = os.environ.get("GPUDOCTOR_BANDWIDTH_RECORD")
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        (Path(record) / "reference.jsonl").write_text(done.stdout)
        (Path(record) / "ours.json").write_text(json.dumps([m.to_json() for m in ours], indent=1))
    off = []
    for m in ours:
        ref = reference[(m.test, m.size_bytes)]
        ratio = m.summary.median / ref
        if abs(ratio - 1.0) > TOLERANCE:
            off.append(
                f"{m.test} {m.size_bytes // MIB} MiB: ours {m.summary.median:.2f} GB/s, reference {ref:.2f} GB/s ({ratio - 1:+.1%})"
            )
    assert not off, "more than 3% from the CUDA C reference:\n" + "\n".join(off)
