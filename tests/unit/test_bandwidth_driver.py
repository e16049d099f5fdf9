"""The ctypes binding and the measurement loop, without a GPU.

Two stand-ins for libcuda.so.1:
- a Python object with attributes, to check every signature the binding declares;
- tests/fixtures/bandwidth/fake_libcuda.c, compiled here with the system C compiler: it implements
  the driver API on host memory with simulated time, rejects truncated 64-bit device pointers and
  calls to the unversioned (32-bit) entry points, and counts every live resource, so these tests
  check real ctypes calls, the bytes each test counts, and that everything is released on every
  path. Skipped when no C compiler is installed.
"""

from __future__ import annotations

import ctypes
import json
import re
import shutil
import subprocess
from ctypes import POINTER, c_size_t, c_uint64, c_void_p
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpudoctor.bandwidth import cuda_driver, measure
from gpudoctor.bandwidth.cuda_driver import SIGNATURES, CudaDriver, CudaError, DriverUnavailable, resolve_symbols
from gpudoctor.bandwidth.measure import make_pattern, measure_gpu, measure_peer
from gpudoctor.bandwidth.results import BenchPlan
from gpudoctor.bandwidth.runner import probe_driver_facts, run_benchmark, steps_for
from gpudoctor.bandwidth.sizes import KIB, MIB
from tests.conftest import real_app, replay_host

FAKE_SOURCE = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth" / "fake_libcuda.c"
CUDA_H_DEFINES = FAKE_SOURCE.with_name("cuda_h_13.0_driver_api_defines.h")


# --- signatures, checked against a Python stand-in and against cuda.h ------------------------------


class _Fn:
    def __init__(self) -> None:
        self.argtypes = None
        self.restype = None


class _Lib:
    def __init__(self, missing: tuple[str, ...] = ()) -> None:
        for symbols, _ in SIGNATURES.values():
            for symbol in symbols:
                if symbol not in missing:
                    setattr(self, symbol, _Fn())


def test_every_symbol_gets_argtypes_and_restype():
    functions, chosen = resolve_symbols(_Lib())
    assert set(functions) == set(SIGNATURES)
    for name, fn in functions.items():
        assert fn.restype is ctypes.c_int, name
        assert fn.argtypes == list(SIGNATURES[name][1]), name
        assert chosen[name] == SIGNATURES[name][0][0]


def test_device_pointers_are_64_bit_and_sizes_size_t():
    sig = {name: args for name, (_, args) in SIGNATURES.items()}
    assert sig["cuMemAlloc"] == (POINTER(c_uint64), c_size_t)
    assert sig["cuMemFree"] == (c_uint64,)
    assert sig["cuMemcpyHtoDAsync"] == (c_uint64, c_void_p, c_size_t, c_void_p)
    assert sig["cuMemcpyDtoHAsync"] == (c_void_p, c_uint64, c_size_t, c_void_p)
    assert sig["cuMemcpyDtoDAsync"] == (c_uint64, c_uint64, c_size_t, c_void_p)
    assert sig["cuMemcpyPeerAsync"] == (c_uint64, c_void_p, c_uint64, c_void_p, c_size_t, c_void_p)
    assert sig["cuMemHostAlloc"] == (POINTER(c_void_p), c_size_t, ctypes.c_uint)


def test_late_versioned_entry_points_fall_back_to_the_old_name():
    _, chosen = resolve_symbols(_Lib(missing=("cuEventElapsedTime_v2", "cuDevicePrimaryCtxRelease_v2")))
    assert chosen["cuEventElapsedTime"] == "cuEventElapsedTime"
    assert chosen["cuDevicePrimaryCtxRelease"] == "cuDevicePrimaryCtxRelease"


def test_a_missing_symbol_is_a_driver_too_old():
    with pytest.raises(DriverUnavailable) as info:
        resolve_symbols(_Lib(missing=("cuMemcpyPeerAsync",)))
    assert info.value.reason == "symbol-missing"
    assert "cuMemcpyPeerAsync" in info.value.message


def _header_macros() -> dict[str, str]:
    # cuda.h's own lines, copied into the fixtures (its header comment says from where): not the
    # toolkit of the machine running the tests, which may be absent or another version.
    text = CUDA_H_DEFINES.read_text(encoding="utf-8")
    macros = {}
    for public, target in re.findall(r"^\s*#define\s+(cu\w+)\s+(\S+)\s*$", text, re.MULTILINE):
        inner = re.fullmatch(r"__CUDA_API_PT(?:DS|SZ)\((\w+)\)", target)
        macros.setdefault(public, inner.group(1) if inner else target)
    return macros


def test_first_choice_is_what_cuda_h_maps_each_public_name_to():
    macros = _header_macros()
    for public, (symbols, _) in SIGNATURES.items():
        assert symbols[0] == macros.get(public, public), f"{public}: cuda.h maps it to {macros.get(public)}"


# --- the compiled fake ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_paths(tmp_path_factory) -> dict[str, str]:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler to build the fake libcuda")
    out = tmp_path_factory.mktemp("fakecuda")
    paths = {}
    for variant, flags in (("new", []), ("old", ["-DNO_V2"])):
        path = out / f"libfakecuda_{variant}.so"
        subprocess.run([compiler, "-shared", "-fPIC", "-O1", *flags, "-o", str(path), str(FAKE_SOURCE)], check=True)
        paths[variant] = str(path)
    return paths


class Fake:
    """The test's handle on the fake library: its controls, and the path the binding should load."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lib = ctypes.CDLL(path)
        self.lib.fake_fail.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        self.lib.fake_set_rates.argtypes = [ctypes.c_double] * 5
        self.lib.fake_live.restype = ctypes.c_long
        self.lib.fake_legacy_calls.restype = ctypes.c_long
        self.lib.fake_host_now.restype = ctypes.c_double
        self.lib.fake_reset()

    def fail(self, name: str, code: int, after: int = 0) -> None:
        self.lib.fake_fail(name.encode(), code, after)

    def live(self) -> int:
        return self.lib.fake_live()


@pytest.fixture
def fake(fake_paths, monkeypatch) -> Fake:
    handle = Fake(fake_paths["new"])
    monkeypatch.setattr(cuda_driver, "LIBRARY_CANDIDATES", (handle.path,))
    # Pageable copies are timed on the host clock: the fake's simulated host time stands in for it,
    # so every figure (and the judgement of it) is what the test configured, on any machine, under any load.
    monkeypatch.setattr(measure, "host_clock", handle.lib.fake_host_now)
    yield handle
    assert handle.lib.fake_legacy_calls() == 0, "an unversioned (32-bit ABI) entry point was called"


SMALL = BenchPlan(sizes_bytes=(256 * KIB, 4 * MIB), warmup=1, repeats=3, sample_bytes=2 * MIB)


def test_open_reports_the_library_and_entry_points(fake):
    drv = CudaDriver.open()
    assert drv.path == fake.path
    assert drv.entry_points["cuMemAlloc"] == "cuMemAlloc_v2"
    assert drv.entry_points["cuEventElapsedTime"] == "cuEventElapsedTime_v2"
    assert drv.driver_version() == 12080
    assert drv.device_count() == 2
    assert drv.device_name(drv.device(1)) == "Fake GPU 1"
    assert drv.device_pci_bus_id(drv.device(1)) == "0000:37:00.0"


def test_no_library_is_one_clear_sentence(monkeypatch):
    monkeypatch.setattr(cuda_driver, "LIBRARY_CANDIDATES", ("/nonexistent/libcuda.so.1",))
    with pytest.raises(DriverUnavailable) as info:
        CudaDriver.open()
    assert info.value.reason == "library-missing"
    assert info.value.message.startswith("No NVIDIA driver: libcuda.so.1 could not be loaded; install the NVIDIA driver")
    assert info.value.message.count(". ") == 0  # one sentence
    assert info.value.attempts and "/nonexistent/libcuda.so.1" in info.value.attempts[0]


@pytest.mark.parametrize(
    "code, reason, words",
    [
        (100, "no-device", "sees no GPU"),
        (34, "stub-library", "stub"),
        (803, "driver-mismatch", "kernel module"),
        (999, "init-failed", "CUDA_ERROR_UNKNOWN"),
    ],
)
def test_cuinit_failures_are_explained(fake, code, reason, words):
    fake.fail("cuInit", code)
    with pytest.raises(DriverUnavailable) as info:
        CudaDriver.open()
    assert info.value.reason == reason
    assert words in info.value.message


def test_measurements_count_the_bytes_each_test_moves(fake):
    fake.lib.fake_set_rates(25e9, 26e9, 800e9, 40e9, 0.0)  # no per-copy latency: every size gives the rate
    drv = CudaDriver.open()
    plan = BenchPlan(sizes_bytes=(256 * KIB, 4 * MIB), warmup=1, repeats=3, sample_bytes=2 * MIB)
    steps = []
    measurements, under_load = measure_gpu(drv, 0, plan, step=lambda t, s: steps.append((t, s)), on_load=lambda: ("gen", "width"))
    assert under_load == ("gen", "width")
    assert len(steps) == 6 * 2
    by = {(m.test, m.size_bytes): m for m in measurements}
    for size in plan.sizes_bytes:
        assert by[("h2d", size)].summary.median == pytest.approx(25.0, rel=1e-5)
        assert by[("d2h", size)].summary.median == pytest.approx(26.0, rel=1e-5)
        assert by[("d2d", size)].summary.median == pytest.approx(800.0, rel=1e-5)
        # Both directions at once: the bytes of both over the slower stream's time.
        assert by[("bidir", size)].summary.median == pytest.approx(50.0, rel=1e-5)
        # Pageable copies: the host clock (here the fake's simulated host time) around synchronous copies.
        assert by[("h2d-pageable", size)].timer == "host"
        assert by[("h2d-pageable", size)].summary.median == pytest.approx(25.0, rel=1e-5)
        assert by[("d2h-pageable", size)].summary.median == pytest.approx(26.0, rel=1e-5)
    assert by[("h2d", 256 * KIB)].copies_per_sample == 8
    assert by[("h2d", 4 * MIB)].copies_per_sample == 1
    assert all(m.verified is None for m in measurements)
    assert len(by[("h2d", 4 * MIB)].samples_gb_per_s) == 3
    assert fake.live() == 0


def test_small_copies_pay_their_latency(fake):
    fake.lib.fake_set_rates(25e9, 25e9, 800e9, 40e9, 10e-6)
    drv = CudaDriver.open()
    plan = BenchPlan(sizes_bytes=(64 * KIB, 64 * MIB), tests=("h2d",), warmup=0, repeats=2, sample_bytes=2 * MIB)
    small, large = measure_gpu(drv, 0, plan)[0]
    assert small.summary.median == pytest.approx(64 * KIB / (10e-6 + 64 * KIB / 25e9) / 1e9, rel=1e-4)
    assert small.summary.median < 0.3 * large.summary.median


def test_verify_passes_on_intact_copies(fake):
    drv = CudaDriver.open()
    measurements, _ = measure_gpu(drv, 1, BenchPlan(sizes_bytes=(4093 * 3 + 5, 1 * MIB), warmup=0, repeats=1, verify=True))
    assert measurements and all(m.verified is True for m in measurements)
    assert fake.live() == 0


def test_verify_catches_corrupted_copies(fake):
    fake.lib.fake_set_corrupt(1)  # flips the last byte of every host-to-device copy
    drv = CudaDriver.open()
    measurements, _ = measure_gpu(drv, 0, BenchPlan(sizes_bytes=(1 * MIB,), warmup=0, repeats=1, verify=True))
    assert {m.test: m.verified for m in measurements} == {
        t: False for t in ("h2d", "d2h", "h2d-pageable", "d2h-pageable", "d2d", "bidir")
    }


def test_pattern_is_not_periodic_at_powers_of_two():
    pattern = make_pattern(1 << 20)
    assert len(pattern) == 1 << 20
    for stride in (256, 4096, 65536):
        assert pattern[:64] != pattern[stride : stride + 64]
    assert make_pattern(100, seed=1) != make_pattern(100, seed=2)


@pytest.mark.parametrize(
    "call, after",
    [
        ("cuDevicePrimaryCtxRetain", 0),
        ("cuMemAlloc_v2", 0),
        ("cuMemAlloc_v2", 1),
        ("cuMemHostAlloc", 0),
        ("cuMemHostAlloc", 1),
        ("cuStreamCreate", 1),
        ("cuEventCreate", 2),
        ("htod", 7),
        ("dtoh", 3),
        ("cuEventElapsedTime", 2),
        ("cuCtxSynchronize", 1),
    ],
)
def test_every_resource_is_released_when_a_call_fails(fake, call, after):
    fake.fail(call, 2, after)  # CUDA_ERROR_OUT_OF_MEMORY at the (after+1)-th call
    drv = CudaDriver.open()
    with pytest.raises(CudaError) as info:
        measure_gpu(drv, 0, SMALL)
    assert info.value.code == 2
    assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY"
    assert "failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" in str(info.value)
    assert fake.live() == 0


def test_every_resource_is_released_on_ctrl_c(fake):
    drv = CudaDriver.open()

    def interrupt(test: str, size: int) -> None:
        if test == "d2d":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        measure_gpu(drv, 0, SMALL, step=interrupt)
    assert fake.live() == 0


def test_peer_copies_enable_and_release_peer_access(fake):
    fake.lib.fake_set_rates(25e9, 26e9, 800e9, 40e9, 0.0)
    drv = CudaDriver.open()
    run = measure_peer(drv, 0, 1, BenchPlan(sizes_bytes=(1 * MIB, 4 * MIB), warmup=1, repeats=2, verify=True))
    assert run.error is None and run.note is None
    assert [m.summary.median for m in run.measurements] == pytest.approx([40.0, 40.0], rel=1e-5)
    assert all(m.verified for m in run.measurements)
    assert fake.live() == 0


def test_peer_copy_failure_releases_peer_access(fake):
    drv = CudaDriver.open()
    fake.fail("cuEventElapsedTime", 2, 1)
    with pytest.raises(CudaError):
        measure_peer(drv, 1, 0, SMALL)
    assert fake.live() == 0


def test_no_peer_access_is_a_note(fake):
    drv = CudaDriver.open()
    run = measure_peer(drv, 0, 0, SMALL)  # the fake says a device cannot be its own peer
    assert run.measurements == () and "no peer access" in run.note


def test_old_driver_without_late_v2_entry_points(fake_paths, monkeypatch):
    old = Fake(fake_paths["old"])
    monkeypatch.setattr(cuda_driver, "LIBRARY_CANDIDATES", (old.path,))
    drv = CudaDriver.open()
    assert drv.entry_points["cuEventElapsedTime"] == "cuEventElapsedTime"
    assert drv.entry_points["cuDevicePrimaryCtxRelease"] == "cuDevicePrimaryCtxRelease"
    measurements, _ = measure_gpu(drv, 0, BenchPlan(sizes_bytes=(1 * MIB,), tests=("h2d",), warmup=0, repeats=1))
    assert measurements[0].summary.median > 0
    assert old.live() == 0


def test_a_whole_run_on_two_gpus(fake):
    host = replay_host({"format": "gpudoctor-snapshot/1", "platform": {"machine": "x86_64"}})
    drv = CudaDriver.open()
    plan = BenchPlan(sizes_bytes=(1 * MIB, 4 * MIB), warmup=0, repeats=2)
    ticks = []
    run = run_benchmark(drv, host, plan, (0, 1), probe_driver_facts(host, 1.0), ticks.append)
    assert len(ticks) == steps_for(plan, 2) == 2 * 6 * 2 + 2 * 2
    assert [g.ordinal for g in run.gpus] == [0, 1] and all(g.error is None for g in run.gpus)
    assert [g.pci_bus_id for g in run.gpus] == ["0000:17:00.0", "0000:37:00.0"]
    assert [(p.src, p.dst) for p in run.peers] == [(0, 1), (1, 0)]
    assert run.driver_version == 12080 and run.machine == "x86_64" and run.host_mode == "replay"
    assert fake.live() == 0


def test_one_failing_gpu_does_not_stop_the_others(fake):
    host = replay_host({"format": "gpudoctor-snapshot/1"})
    drv = CudaDriver.open()
    fake.fail("cuMemHostAlloc", 2, 0)  # the first GPU's first pinned buffer
    run = run_benchmark(
        drv,
        host,
        BenchPlan(sizes_bytes=(1 * MIB,), tests=("h2d", "d2h"), warmup=0, repeats=1),
        (0, 1),
        probe_driver_facts(host, 1.0),
    )
    assert "CUDA_ERROR_OUT_OF_MEMORY" in run.gpus[0].error
    assert run.gpus[1].error is None and len(run.gpus[1].measurements) == 2
    assert fake.live() == 0


# --- the command line on the fake ---------------------------------------------------------------


def cli():
    return real_app()


def test_cli_measures_and_writes_json(fake, tmp_path):
    fake.lib.fake_set_rates(25e9, 26e9, 800e9, 40e9, 0.0)
    out = tmp_path / "chart.png"
    result = CliRunner().invoke(
        cli(),
        [
            "bench",
            "bandwidth",
            "--sizes",
            "1M,32M",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--format",
            "json",
            "--plot",
            str(out),
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "gpudoctor.bandwidth/1" and doc["status"] == "healthy" and doc["errors"] == []
    assert [g["name"] for g in doc["gpus"]] == ["Fake GPU 0", "Fake GPU 1"]
    h2d = [r for r in doc["gpus"][0]["results"] if r["test"] == "h2d"]
    assert [r["median_gb_per_s"] for r in h2d] == [25.0, 25.0]
    assert len(doc["peers"]) == 2
    assert doc["driver"]["entry_points"]["cuMemcpyHtoDAsync"] == "cuMemcpyHtoDAsync_v2"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert fake.live() == 0


def test_cli_text_with_progress(fake):
    result = CliRunner().invoke(
        cli(), ["bench", "bandwidth", "--sizes", "1M", "--tests", "h2d,d2h", "--repeats", "1", "--gpu", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "GPU 1 Fake GPU 1 [0000:37:00.0]" in result.stdout
    assert "H2D pinned" in result.stdout and "GB/s" in result.stdout
    assert "GPU 0" not in result.stdout


def test_cli_unknown_gpu_is_a_usage_error(fake):
    result = CliRunner().invoke(cli(), ["bench", "bandwidth", "--gpu", "0,5"])
    assert result.exit_code == 2
    assert "this process sees 2 GPU(s), numbered 0 to 1" in result.stderr


def test_cli_cuda_error_exits_3_with_the_error(fake):
    fake.fail("cuMemAlloc_v2", 2, 0)
    result = CliRunner().invoke(
        cli(), ["bench", "bandwidth", "--sizes", "1M", "--tests", "h2d", "--repeats", "1", "--format", "json", "--gpu", "0"]
    )
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["status"] == "doctor-error" and doc["exit_code"] == 3
    assert doc["errors"] == ["GPU 0: cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"]
    assert fake.live() == 0


def test_cli_zero_devices(fake):
    fake.lib.fake_set_devices(0)
    result = CliRunner().invoke(cli(), ["bench", "bandwidth", "--format", "json"])
    assert result.exit_code == 3
    assert json.loads(result.stdout)["error"]["reason"] == "no-device"


def test_cli_no_device_from_the_driver(fake):
    fake.fail("cuInit", 100)
    result = CliRunner().invoke(cli(), ["bench", "bandwidth"])
    assert result.exit_code == 3
    assert "The NVIDIA driver sees no GPU" in result.stderr
    assert "Traceback" not in result.output
