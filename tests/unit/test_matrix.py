"""The bundled compatibility matrix: it loads, it is fully valid, and its queries answer as the
sources say. Each expectation carries the reason (and where it comes from) next to it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from gpudoctor.matrix import (
    FILES,
    Matrix,
    check_matrix,
    load_matrix,
    normalize_cc,
    spec_contains,
    version_key,
)
from gpudoctor.versions import cudnn_from_int

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "compat_matrix"


@pytest.fixture(scope="module")
def m() -> Matrix:
    return load_matrix()


# --------------------------------------------------------------------------- the data itself


def test_bundled_matrix_loads_and_is_cached(m: Matrix) -> None:
    assert isinstance(m, Matrix)
    assert load_matrix() is m  # lru_cache: parsed once per process
    assert set(m.origins) == set(FILES)


def test_bundled_matrix_passes_full_validation() -> None:
    # load_matrix() builds the bundled data without the per-field checks (speed); this runs every
    # check on the same files, so a bad edit of compat_matrix/ turns CI red.
    assert check_matrix(DATA) == []


def test_every_version_and_specifier_parses_with_packaging() -> None:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from gpudoctor.matrix.schema import SCHEMAS

    checked = 0

    def walk(table_schema, rows):
        nonlocal checked
        for row in rows:
            for name, value in row.items():
                typ = table_schema.fields[name][0]
                values = value if isinstance(value, list) else [value]
                if typ in ("version", "list:version"):
                    for v in values:
                        Version(v)
                        checked += 1
                elif typ in ("spec", "list:spec"):
                    for v in values:
                        SpecifierSet(v)
                        checked += 1
                elif typ == "rows":
                    walk(table_schema.sub[name], value)

    for stem in FILES:
        doc = tomllib.loads((DATA / f"{stem}.toml").read_text(encoding="utf-8"))
        for table, schema in SCHEMAS[stem].items():
            walk(schema, doc[table])
    assert checked > 500


def test_own_specifier_matcher_agrees_with_packaging(m: Matrix) -> None:
    # matrix.spec_contains avoids importing packaging.specifiers at load time; it must give the
    # same answers as SpecifierSet for every specifier in the data.
    from packaging.specifiers import SpecifierSet

    specs = {t.python for t in m.torch_releases} | {t.python for t in m.tf_releases}
    specs |= {j.python for j in m.jax_releases}
    specs |= {s for c in m.cudnn_releases for s in c.cuda}
    for j in m.jax_releases:
        for c in j.cuda.values():
            specs |= {c.cuda} | ({c.cudnn} if c.cudnn else set())
    versions = [
        "2.7",
        "3.0",
        "3.3",
        "3.5",
        "3.7",
        "3.8",
        "3.9",
        "3.10",
        "3.11",
        "3.12",
        "3.13",
        "3.14",
        "3.15",
        "3.16",
        "8.0",
        "9.1",
        "9.2",
        "10.0",
        "10.2",
        "11.0",
        "11.2",
        "11.8",
        "11.8.89",
        "12.0",
        "12.1",
        "12.2",
        "12.9",
        "13.0",
        "13.2",
        "8.9",
        "8.9.4",
        "8.9.7.29",
        "9.0",
        "9.1.0.70",
        "9.8",
        "9.10.2.21",
        "9.12.0.46",
        "9.28.0.42",
        "10.0.1",
    ]
    for spec in specs:
        ss = SpecifierSet(spec)
        for v in versions:
            assert spec_contains(spec, v) == ss.contains(v), (spec, v)


def test_sources_are_declared_once_and_all_cited(m: Matrix) -> None:
    cited = set()
    for rec in [
        *m.cuda_releases,
        *m.minor_compat,
        *m.driver_branches,
        *m.archs,
        *m.cc_targets,
        *m.gpus,
        *m.cudnn_releases,
        *m.cudnn_majors,
        *m.cudnn_pip,
        *m.torch_releases,
        *m.tf_releases,
        *m.jax_releases,
        *m.jax_pins,
        *m.precision_rows,
        *m.pcie,
        *m.c2c,
        *m.thresholds,
        *m.memory,
        *m.cuda_repos,
        *m.companions,
        *m.library_builds,
        *m.bnb_releases,
        *m.ptx_isas,
        *m.library_archs,
    ]:
        assert rec.source, rec
        assert len(rec.sources) == len(rec.source)  # every cited key resolved
        cited.update(rec.source)
    for t in m.torch_releases:
        for v in t.variants.values():
            cited.update(v.source)
    for j in m.jax_releases:
        for c in j.cuda.values():
            cited.update(c.source)
    for f in m.memory:
        for c in f.controls:
            cited.update(c.source)
    assert cited == set(m.sources)
    for s in m.sources.values():
        assert s.url or s.document
        assert s.accessed


def test_importing_the_module_parses_nothing() -> None:
    code = (
        "import sys; import gpudoctor.matrix as gm; "
        "bad = [n for n in ('tomllib', 'tomli', 'gpudoctor.matrix.schema', 'gpudoctor.matrix.records', "
        "'packaging.specifiers') if n in sys.modules]; "
        "print(','.join(bad)); "
        "assert gm._load_bundled.cache_info().currsize == 0"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_first_load_parses_and_later_ones_are_the_cached_matrix() -> None:
    # How long the first load takes is measured by bench/matrix_load.py (bench/README.md), not here:
    # a test's outcome must not depend on the speed of the machine running it.
    code = (
        "import gpudoctor.matrix as gm; first = gm.load_matrix(); "
        "assert all(gm.load_matrix() is first for _ in range(100)); "
        "info = gm._load_bundled.cache_info(); print(info.misses, info.hits)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "100"]


def test_matrix_must_contain_the_required_rows(m: Matrix) -> None:
    # Required by the project brief: PyTorch 1.12 with CUDA 11.6 / cuDNN 8.3.2 and TensorFlow 2.10
    # with CUDA 11.2 / cuDNN 8.1 (RELEASE.md and tensorflow.org tested configurations).
    v = m.torch_variant("1.12", "11.6")
    assert v is not None and v.cuda == "11.6" and v.cudnn is not None and v.cudnn.startswith("8.3.2")
    tf = m.tensorflow_release("2.10")
    assert tf is not None and (tf.cuda, tf.cudnn) == ("11.2", "8.1")


# --------------------------------------------------------------------------- CUDA and drivers


def test_driver_535_runs_12_2_fully_and_12_4_only_by_minor_version_compat(m: Matrix) -> None:
    # 535.104.05 is the 12.2 Update 2 toolkit driver; 12.4 needs 550.54.14, but every 12.x runs on
    # >= 525.60.13 through minor-version compatibility (CUDA release notes, Tables 2 and 3).
    full = m.driver_supports_cuda("535.104.05", "12.2")
    assert (full.ok, full.via, full.needed) == (True, "full", "535.54.03")
    mvc = m.driver_supports_cuda("535.104.05", "12.4")
    assert (mvc.ok, mvc.via, mvc.needed, mvc.floor) == (True, "minor-version-compat", "550.54.14", "525.60.13")
    assert "PTX" in mvc.reason
    assert "cuda-compat-guide" in mvc.source
    assert all(s.title for s in mvc.sources)


def test_driver_470_cannot_run_cuda_12(m: Matrix) -> None:
    # R470 serves CUDA 11.4 at most; the CUDA 12 floor is 525.60.13.
    for cuda in ("12.0", "12.4", "12.9"):
        v = m.driver_supports_cuda("470.82.01", cuda)
        assert not v.ok and v.via is None and v.known
        assert "older than" in v.reason


def test_minor_version_compat_does_not_cross_majors(m: Matrix) -> None:
    # 450.80.02 is the CUDA 11 floor: it runs 11.8 by compat, but a 450.51 driver is below it.
    assert m.driver_supports_cuda("450.80.02", "11.8").via == "minor-version-compat"
    assert not m.driver_supports_cuda("450.51.06", "11.8").ok
    assert m.driver_supports_cuda("450.51.06", "11.0").via == "full"  # 11.0 GA needs 450.51.05
    # A 12.x-era driver cannot run any CUDA 13 runtime (floor R580).
    assert not m.driver_supports_cuda("575.57.08", "13.0").ok


def test_newer_driver_runs_older_cuda_fully(m: Matrix) -> None:
    # Backward compatibility: a newer driver runs every older toolkit.
    assert m.driver_supports_cuda("580.65.06", "11.8").via == "full"
    assert m.driver_supports_cuda("595.80", "12.4").via == "full"  # two-part driver version


def test_windows_cuda_13_uses_the_branch_table(m: Matrix) -> None:
    # NVIDIA prints no Windows toolkit driver from 13.0 (N/A); R580 Windows drivers (580.88+) run 13.0.
    assert m.min_driver_for_cuda("13.0", "windows") is None
    v = m.driver_supports_cuda("581.29", "13.0", os="windows")
    assert (v.ok, v.via, v.needed, v.floor) == (True, "full", None, "580.88")
    assert not m.driver_supports_cuda("576.57", "13.0", os="win32").ok


def test_unknown_cuda_is_reported_not_guessed(m: Matrix) -> None:
    # There is no CUDA 12.7 toolkit (R565 merely prints 12.7).
    v = m.driver_supports_cuda("565.57.01", "12.7")
    assert not v.known and not v.ok


def test_min_driver_for_cuda(m: Matrix) -> None:
    assert m.min_driver_for_cuda("12.2") == "535.54.03"  # GA row
    assert m.min_driver_for_cuda("12.2.2") == "535.104.05"  # Update 2 row
    assert m.min_driver_for_cuda("12.2.140") == "535.54.03"  # nvcc build number: minor's GA
    assert m.min_driver_for_cuda("10.1.243") == "418.39"  # "10.1 GA and updates"
    assert m.min_driver_for_cuda("11.0") == "450.51.05"  # GA, not the RC row (450.36.06)
    assert m.min_driver_for_cuda("12.8") == "570.26"
    assert m.min_driver_for_cuda("12.8", "windows") == "570.65"
    # NVIDIA's table prints 520.06, a misprint of the 522.06 driver the 11.8 installer ships.
    assert m.min_driver_for_cuda("11.8", "windows") == "522.06"
    assert m.min_driver_for_cuda("13.4") is None  # unknown (third-party notes disagree)
    assert m.min_driver_for_cuda("7.5") == "352.31"  # the table as the CUDA 11.0 edition printed it
    assert m.min_driver_for_cuda("6.5") is None  # not in the matrix


def test_next_driver_floor_is_the_least_driver_serving_a_release_this_one_does_not(m: Matrix) -> None:
    # before minor-version compatibility every release counts (CUDA 8.0 GA2 asked 375.26 of a 367 driver)
    assert (m.next_driver_floor("352.99").release, m.next_driver_floor("352.99").linux) == ("8.0.44", "367.48")
    assert m.next_driver_floor("367.57").linux == "375.26"
    assert m.next_driver_floor("340.93").linux == "346.46"
    # from CUDA 11 on a driver at its major's compatibility floor runs every minor: the next major's release
    assert (m.next_driver_floor("515.65.01").cuda, m.next_driver_floor("515.65.01").linux) == ("12.0", "525.60.13")
    assert m.next_driver_floor("525.125.06").cuda == "13.0"
    assert m.next_driver_floor("425.31", "windows").windows == "441.22"
    assert m.next_driver_floor("580.82.07") is None  # serves every release listed
    assert m.next_driver_floor("") is None and m.next_driver_floor("n/a") is None


def test_minor_compat_floors(m: Matrix) -> None:
    assert m.minor_compat_floor(11) == "450.80.02"
    assert m.minor_compat_floor(11, "windows") == "452.39"
    assert m.minor_compat_floor(12) == "525.60.13"
    assert m.minor_compat_floor(12, "windows") == "527.41"
    assert m.minor_compat_floor(13).startswith("580.")
    assert m.minor_compat_floor(10) is None  # no minor-version compatibility before CUDA 11


def test_versions_compare_numerically() -> None:
    assert version_key("570.124.06") > version_key("570.26")
    assert version_key("595.80") > version_key("595.45.04")
    assert version_key("12.0") == version_key("12")


def test_max_cuda_for_driver(m: Matrix) -> None:
    assert m.max_cuda_for_driver("535.104.05") == "12.2"
    assert m.max_cuda_for_driver("570.25") == "12.6"  # just below the 12.8 GA driver 570.26
    assert m.max_cuda_for_driver("570.124.06") == "12.8"
    assert m.max_cuda_for_driver("595.80") == "13.2"
    assert m.max_cuda_for_driver("470.42.01") == "11.4"
    # R565 prints "CUDA Version: 12.7", but 12.7 is no toolkit: the newest toolkit it runs is 12.6.
    assert m.max_cuda_for_driver("565.57.01") == "12.6"
    assert m.smi_cuda_for_driver("565.57.01") == "12.7"
    # 13.4 has no published minimum; the R615 branch reports CUDA UMD 13.4.
    assert m.max_cuda_for_driver("615.71.09") == "13.4"
    # Windows: no toolkit driver listed for 13.x; the branch table maps 581.xx to R580 -> 13.0.
    assert m.max_cuda_for_driver("581.29", "windows") == "13.0"
    assert m.max_cuda_for_driver("537.13", "windows") == "12.2"
    assert m.max_cuda_for_driver("300.1") is None
    assert m.max_cuda_for_driver("not a driver") is None


def test_driver_branch_handles_windows_numbering(m: Matrix) -> None:
    assert m.driver_branch("576.57").branch == 575
    assert m.driver_branch("596.36").branch == 595
    assert m.driver_branch("591.86").cuda == "13.1"


# --------------------------------------------------------------------------- GPUs and architectures


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA H100 80GB HBM3", "9.0"),  # Hopper
        ("NVIDIA H100 NVL", "9.0"),
        ("Tesla P100-PCIE-16GB", "6.0"),  # GP100; "Tesla " prefix and dashes
        ("NVIDIA GeForce RTX 4090", "8.9"),  # Ada
        ("Quadro P2000", "6.1"),
        ("NVIDIA A100-SXM4-40GB", "8.0"),
        ("NVIDIA A100 80GB PCIe", "8.0"),
        ("NVIDIA GeForce RTX 5090", "12.0"),  # consumer Blackwell is 12.0, not 10.0
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GB10", "12.1"),
        ("nvidia geforce gtx 1080 ti", "6.1"),  # case
        ("GeForce GTX 1070 Ti", "6.1"),  # old drivers print no "NVIDIA "
        ("NVIDIA GeForce RTX 2080 SUPER", "7.5"),
        ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"),
        ("NVIDIA A10", "8.6"),  # not the A100
        ("NVIDIA A10G", "8.6"),
        ("Quadro RTX 6000", "7.5"),  # Turing ...
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),  # ... not the Ada card of a similar name
        ("NVIDIA RTX A6000", "8.6"),
        ("GeForce GTX TITAN X", "5.2"),  # Maxwell TITAN X ...
        ("NVIDIA TITAN X (Pascal)", "6.1"),  # ... vs the Pascal one
        ("GeForce GTX TITAN Black", "3.5"),
        ("Tesla K20Xm", "3.5"),
        ("NVIDIA L4", "8.9"),
        ("NVIDIA L40S", "8.9"),
        ("Orin (nvgpu)", "8.7"),
        # nvidia-smi's table cuts long names with "...": accepted when every candidate agrees.
        ("NVIDIA RTX 2000 Ada Gene...", "8.9"),
        ("GeForce RTX 207...", "7.5"),
        ("NVIDIA RTX A2000 8GB Lap...", "8.6"),
        ("NVIDIA GeForce RTX 40...", "8.9"),
    ],
)
def test_compute_capability_for_gpu(m: Matrix, name: str, cc: str) -> None:
    assert m.compute_capability_for_gpu(name) == cc


@pytest.mark.parametrize("name", ["NVIDIA GeForce ...", "NVIDIA A10...", "Some Other GPU", "", "NVIDIA"])
def test_ambiguous_or_unknown_gpu_names_give_none(m: Matrix, name: str) -> None:
    # "A10..." could be an A10 (8.6) or an A100 (8.0): no guess.
    assert m.compute_capability_for_gpu(name) is None


def test_gpu_record_cites_its_source(m: Matrix) -> None:
    g = m.gpu_for_name("NVIDIA A10G")
    assert g is not None and g.inferred and g.confidence == "medium"
    assert g.sources[0].url == "https://developer.nvidia.com/cuda-gpus"


def test_arch_name(m: Matrix) -> None:
    assert m.arch_name("9.0") == "Hopper"
    assert m.arch_name("sm_120") == "Blackwell"
    assert m.arch_name("compute_89") == "Ada Lovelace"
    assert m.arch_name((8, 6)) == "Ampere"
    assert m.arch_name("10.1") == "Blackwell"  # Thor before CUDA 13's rename to 11.0
    assert m.arch_name("99.9") is None
    assert normalize_cc("sm_90a") == "9.0" and normalize_cc("junk") is None


def test_cuda_can_target(m: Matrix) -> None:
    # CUDA 13.0 removed offline compilation for Maxwell, Pascal and Volta (release notes; the
    # reference's nvcc_targets: 13.0 min 7.5); 12.9 still targets sm_70 (deprecated).
    assert m.cuda_can_target("13.0", "7.0") is False
    assert m.cuda_can_target("13.0", "sm_72") is False
    assert m.cuda_can_target("12.9", "7.0") is True
    assert m.cuda_can_target("13.0", "7.5") is True  # Turing stays
    # CUDA 12.0 dropped Kepler (cuFFT deprecated functionality: minimum SM50); 11.8 was the last.
    assert m.cuda_can_target("12.0", "3.7") is False
    assert m.cuda_can_target("11.8", "3.7") is True
    # Blackwell needs 12.8; Thor was sm_101 up to 12.9 and is sm_110 from 13.0.
    assert m.cuda_can_target("12.6", "12.0") is False
    assert m.cuda_can_target("12.8", "12.0") is True
    assert m.cuda_can_target("12.9", "10.1") is True
    assert m.cuda_can_target("13.0", "10.1") is False
    assert m.cuda_can_target("13.0", "11.0") is True
    # Unknown CUDA or CC: no answer.
    assert m.cuda_can_target("14.0", "9.0") is None
    assert m.cuda_can_target("12.2", "4.2") is None


def test_cuda_cc_range(m: Matrix) -> None:
    assert m.cuda_cc_range("13.0") == ("7.5", "12.1")
    assert m.cuda_cc_range("12.0") == ("5.0", "9.0")
    assert m.cuda_cc_range("11.8") == ("3.5", "9.0")
    assert m.cuda_cc_range("10.2") == ("3.0", "7.5")
    assert m.cuda_cc_range("99.0") is None


# --------------------------------------------------------------------------- cuDNN


def test_cudnn_cuda_majors(m: Matrix) -> None:
    assert m.cudnn_cuda_majors("8.9.7.29") == (11, 12)
    assert m.cudnn_cuda_majors("9.1.0.70") == (11, 12)
    assert m.cudnn_cuda_majors("9.26.0.51") == (12, 13)  # CUDA 13 builds from 9.12
    assert m.cudnn_cuda_majors("9.11.0") == (12,)  # CUDA 11 dropped after 9.10
    assert m.cudnn_cuda_majors("8.3.2.44") == (10, 11)
    assert m.cudnn_cuda_majors("99.0") == ()


def test_cudnn_7_6_4_had_no_cuda_10_2_build(m: Matrix) -> None:
    # CUDA 10.2 (Nov 2019) came after cuDNN 7.6.4 (Sep 2019); 7.6.5 was the first for 10.2.
    assert not m.cudnn_release("7.6.4").supports_cuda("10.2")
    assert m.cudnn_release("7.6.5").supports_cuda("10.2")


def test_cudnn_version_encoding(m: Matrix) -> None:
    assert m.cudnn_major(9).soname == "libcudnn.so.9"
    assert m.cudnn_major(8).version_multiplier == 1000


def test_each_cudnn_majors_encoding_decodes_from_its_first_release(m: Matrix) -> None:
    """compat_matrix/cudnn.toml: CUDNN_VERSION = MAJOR*multiplier + MINOR*100 + PATCHLEVEL, the multiplier of each major
    (1000 for 7 and 8, 10000 from 9.0: "Encoding changed in 9.0"): X.0.0, its first release, decodes as X.0.0, and
    the last number of the major before it as that major: the matrix's multipliers and versions.cudnn_from_int agree."""
    for major in m.cudnn_majors:
        k = major.version_multiplier
        assert cudnn_from_int(major.major * k) == f"{major.major}.0.0"
        assert cudnn_from_int(major.major * k + 1) == f"{major.major}.0.1"
        assert cudnn_from_int(major.major * k + 999) == f"{major.major}.9.99"


# --------------------------------------------------------------------------- frameworks


def test_torch_1_12(m: Matrix) -> None:
    r = m.torch_release("1.12.1")
    assert r is not None
    assert set(r.variants) == {"cu102", "cu113", "cu116"}
    assert r.pypi_default == "cu102"  # plain `pip install torch==1.12.x` got CUDA 10.2
    assert r.supports_python("3.10") and not r.supports_python("3.11")
    v = m.torch_variant("1.12.1+cu116")
    assert v == m.torch_variant("1.12.1", "11.6") == m.torch_variant("1.12.1", "cu116")
    assert v.cudnn == "8.3.2.44"
    assert v.arch[-1] == "sm_86" and v.ptx == ()


def test_torch_variant_defaults_to_pypi_build(m: Matrix) -> None:
    assert m.torch_variant("2.1.0").tag == "cu121"
    assert m.torch_variant("2.11.0").tag == "cu130"
    assert m.torch_variant("2.1.0+cpu") is None
    assert m.torch_variant("0.4.1") is None


def test_torch_arch_coverage(m: Matrix) -> None:
    # sm_70 left the cu128 wheel in 2.11 (pytorch issue 182250) although 2.10 cu128 had it.
    assert m.torch_variant("2.10.0", "cu128").runs_on("7.0") is True
    assert m.torch_variant("2.11.0", "cu128").runs_on("7.0") is False
    # An sm_120 cubin runs on 12.1 (same major); a cu126 wheel has no Blackwell cubin and no PTX.
    assert m.torch_variant("2.8.0", "cu128").runs_on("12.1") is True
    assert m.torch_variant("2.8.0", "cu126").runs_on("12.0") is False
    # cu102 wheels stop at sm_70: an RTX 30 (8.6) gets "no kernel image is available".
    assert m.torch_variant("1.8.0", "cu102").runs_on("8.6") is False
    # sm_37 only as long as CUDA 11 wheels existed (cu118 up to 2.7).
    assert "sm_37" in m.torch_variant("2.7.0", "cu118").arch
    assert all("sm_37" not in v.arch for v in m.torch_release("2.8").variants.values())


def test_tensorflow_2_10_sonames(m: Matrix) -> None:
    t = m.tensorflow_release("2.10.1")
    assert (t.cuda, t.cudnn, t.windows_gpu) == ("11.2", "8.1", True)
    # TF loads cudart by the "11.0" soname for every CUDA 11.x, and cuDNN by its major.
    assert "libcudart.so.11.0" in t.sonames and "libcudnn.so.8" in t.sonames
    assert t.supports_python("3.10") and not t.supports_python("3.11")


def test_tensorflow_facts(m: Matrix) -> None:
    assert m.tensorflow_release("2.11").windows_gpu is False  # native Windows GPU ends at 2.10
    assert "libcusolver.so.10" in m.tensorflow_release("2.4").sonames  # the TF 2.4 / CUDA 11.1 trap
    assert "libcudnn.so.9" in m.tensorflow_release("2.18").sonames
    assert "libcudart.so.12" in m.tensorflow_release("2.15").sonames
    assert m.tensorflow_release("2.16.1").tested == "2.16.1"
    assert m.tensorflow_release("2.17").ptx == ("compute_90",)


def test_jax_rows(m: Matrix) -> None:
    r = m.jax_release("0.4.35")
    assert r.version == "0.4.31" and r.packaging == "plugin"
    assert r.cuda[12].cudnn == ">=9.1,<10.0" and r.cuda[12].cuda_min == "12.1"
    assert m.jax_release("0.4.10") is None  # before the table
    assert 13 in m.jax_release("0.7.2").cuda and 13 not in m.jax_release("0.7.0").cuda
    assert m.jax_release("0.7.2").cuda[13].cudnn_min == "9.12.0.46"
    assert m.jax_release("0.4.25").cuda[11].cuda == ">=11.8"
    assert 11 not in m.jax_release("0.4.26").cuda  # CUDA 11 dropped in jaxlib 0.4.26


def test_jax_plugin_must_match_jaxlib(m: Matrix) -> None:
    # jaxlib/plugin_support.py ignores a plugin whose version differs from jaxlib's.
    pin = next(p for p in m.jax_release("0.7.2").pins if p.packages == ("jaxlib", "jax-cuda12-plugin"))
    assert pin.satisfied({"jaxlib": "0.7.1", "jax-cuda12-plugin": "0.7.2"}) is False
    assert pin.satisfied({"jaxlib": "0.12.0.1", "jax-cuda12-plugin": "0.12.0.1"}) is True
    assert pin.satisfied({"jaxlib": "0.7.1"}) is None


# --------------------------------------------------------------------------- precision, links, memory


def test_precisions(m: Matrix) -> None:
    assert {"BF16", "TF32"} <= set(m.precisions("8.0"))  # Ampere: first BF16/TF32 Tensor Cores
    assert "BF16" not in m.precisions("7.5")  # Turing (T4): no BF16
    assert "FP8" in m.precisions("8.9") and "FP8" not in m.precisions("8.6")
    assert "FP4" not in m.precisions("9.0") and "FP4" in m.precisions("12.0")
    assert m.precisions("6.1") == ()  # Pascal: no Tensor Cores
    assert m.precisions("sm_100") == m.precisions("10.0")
    assert m.precisions("8.8") is None  # not in the table


def test_link_bandwidth(m: Matrix) -> None:
    gen4 = m.link(4, 16)
    assert gen4.theoretical_gb_per_s == pytest.approx(31.51, abs=0.01)
    assert 24 < gen4.practical_gb_per_s < 27  # measured A100/A10 pinned copies: 25.2-26.1 GB/s
    assert m.link("gen3", "x8").theoretical_gb_per_s == pytest.approx(7.88, abs=0.01)
    assert m.link(5, 16).theoretical_gb_per_s == pytest.approx(63.0, abs=0.05)
    assert m.link(1, 16).practical_gb_per_s is None  # no measurement
    assert m.link(9, 16) is None
    c2c = m.c2c_link("GH200")
    assert c2c.theoretical_gb_per_s == 450  # 900 GB/s bidirectional
    assert m.link_threshold("suspicious_below_share").value == 0.5
    assert gen4.sources and gen4.sources[0].key == "pcie-spec-rates"


def test_memory_settings(m: Matrix) -> None:
    jax = m.memory_setting("jax")
    assert jax.preallocates and jax.default_fraction == 0.75
    assert jax.control("XLA_PYTHON_CLIENT_MEM_FRACTION").default == "0.75"
    assert m.memory_setting("tensorflow").preallocates
    torch = m.memory_setting("torch")  # alias of pytorch
    assert torch is not None and not torch.preallocates
    assert torch.control("PYTORCH_CUDA_ALLOC_CONF").since == "1.10"
    assert m.memory_setting("mxnet") is None


def test_records_cite_sources_and_serialize(m: Matrix) -> None:
    import dataclasses

    v = m.driver_supports_cuda("535.104.05", "12.4")
    d = v.to_dict()
    assert d["via"] == "minor-version-compat"
    assert d["sources"][0]["url"].startswith("https://")
    assert dataclasses.asdict(v) == d
    assert dataclasses.replace(v, ok=False).ok is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.ok = False  # type: ignore[misc]
    assert m.sources_for("jax-changelog")[0].title == "JAX change log"
    assert m.sources_for(m.tensorflow_release("2.10"))[0].key == "tf-tested-configs"


def test_summary(m: Matrix) -> None:
    s = m.summary()
    assert s["torch"]["newest"] == "2.15" and s["tensorflow"]["newest"] == "2.21"
    assert s["sources"]["declared"] == len(m.sources)


def test_a_second_load_is_the_cached_matrix(m: Matrix) -> None:
    # A second load_matrix() is a cache hit: the same object, nothing parsed again.
    assert load_matrix() is load_matrix()


def test_library_builds_name_the_cuda_and_cudnn_majors_of_each_release_and_their_pins():
    m = load_matrix()
    # CTranslate2 CHANGELOG: 4.0.0 "updating to cuda 12", 4.5.0 "supports CUDNN 9 and is no longer compatible with CUDNN 8"
    assert [
        (v, m.library_build("ctranslate2", v).cuda, m.library_build("ctranslate2", v).cudnn)
        for v in ("3.24.0", "4.0.0", "4.4.0", "4.5.0")
    ] == [
        ("3.24.0", 11, 8),
        ("4.0.0", 12, 8),
        ("4.4.0", 12, 8),
        ("4.5.0", 12, 9),
    ]
    assert m.library_build("onnxruntime-gpu", "1.18.0").cuda == 11  # the package index's default before 1.19
    assert m.library_build("onnxruntime-gpu", "1.19.0+cu118").cuda == 12
    assert m.library_build("onnxruntime-gpu", "1.12.0") is None and m.library_build("torch", "2.4.0") is None
    ort = m.library_build("onnxruntime-gpu", "1.23.2")
    assert (ort.pin_for("3.12"), ort.pin_for("3.9"), ort.pin_for(None)) == ("1.23.2", None, "1.23.2")
