"""The matrix queries' documented rules, one sentence each, every expectation written by hand from the docstring
and the rows of compat_matrix/*.toml (cuda_driver.toml, gpu_arch.toml, cudnn.toml) it rests on.

Both sides of each boundary: the equal case, one below, one above; each version component (major, minor, patch)."""

from __future__ import annotations

import pytest

from gpudoctor.matrix import kernel_route, load_matrix, normalize_cc


@pytest.fixture(scope="module")
def m():
    return load_matrix()


# --- kernel_route: "a cubin of the same major and an equal or lower minor; arch-specific cubins (sm_90a) run only on
# exactly their capability. PTX at or below `cc`, which the driver JIT-compiles."


@pytest.mark.parametrize(
    "arch,ptx,cc,route",
    [
        (("8.6",), (), "8.6", ("cubin", "8.6")),  # equal minor
        (("8.0", "8.6"), (), "8.9", ("cubin", "8.6")),  # the highest cubin at or below
        (("8.0",), ("8.6",), "8.6", ("cubin", "8.0")),  # a cubin runs before PTX is JIT-compiled
        ((), ("8.6",), "8.6", ("ptx", "8.6")),  # PTX equal to the GPU's capability
        ((), ("8.9",), "8.6", ("none", None)),  # PTX above it does not
        ((), ("5.0", "8.0"), "9.0", ("ptx", "8.0")),  # the highest PTX at or below
        (("sm_90a",), (), "9.0", ("cubin", "9.0")),  # arch-specific: exactly its capability
        (("9.0a",), (), "9.0", ("cubin", "9.0")),
        (("sm_100a",), (), "10.3", ("none", None)),  # not a higher minor of the same major
        (("sm_90a",), (), "10.0", ("none", None)),
        (("sm_80", "sm_90a"), ("compute_80",), "9.0", ("cubin", "9.0")),
        (("sm_80",), (), "9.0", ("none", None)),  # a cubin never crosses a major
        (("sm_80",), (), "12.0", ("none", None)),
        (("sm_80",), (), "not-a-cc", ("unknown", None)),
    ],
)
def test_kernel_route_rules(arch, ptx, cc, route):
    assert kernel_route(arch, ptx, cc) == route


@pytest.mark.parametrize(
    "spelled,cc",
    [
        ("9.0", "9.0"),
        ("sm_90", "9.0"),
        ("sm_90a", "9.0"),
        ("compute_90", "9.0"),
        ("90", "9.0"),
        ((9, 0), "9.0"),
        ("SM_86", "8.6"),
        ("sm_100", "10.0"),
        ("sm_100a", "10.0"),
        ("sm_100f", "10.0"),  # CUDA 12.9's family-specific targets
        ("10.0f", "10.0"),
        ("sm_120", "12.0"),
        ("compute_120f", "12.0"),
        ("not a cc", None),
    ],
)
def test_normalize_cc_reads_every_spelling(spelled, cc):
    assert normalize_cc(spelled) == cc


# --- min_driver_for_cuda: "12.2" -> the GA row (535.54.03); "12.2.2" -> that update's row (535.104.05). Updates not
# in NVIDIA's table (e.g. "10.1.243", or an nvcc build number "12.2.140") use the GA row.


@pytest.mark.parametrize(
    "cuda,os,driver",
    [
        ("12.2", "linux", "535.54.03"),
        ("12.2.0", "linux", "535.54.03"),
        ("12.2.1", "linux", "535.86.09"),
        ("12.2.2", "linux", "535.104.05"),
        ("12.2.140", "linux", "535.54.03"),
        ("10.1.243", "linux", "418.39"),
        ("11.0", "linux", "450.51.05"),  # the GA, not the 11.0 RC's 450.36.06
        ("12.8.1", "linux", "570.124.06"),
        ("12.2", "windows", "536.25"),
        ("12.2.2", "windows", "537.13"),
        ("13.0", "windows", None),  # Windows column N/A from 13.0
    ],
)
def test_min_driver_for_cuda(m, cuda, os, driver):
    assert m.min_driver_for_cuda(cuda, os) == driver


def test_cuda_release_of_a_minor_is_its_ga_and_of_an_update_that_update(m):
    assert m.cuda_release("11.0").release == "11.0.2"  # not the prerelease 11.0.1
    assert m.cuda_release("12.2").release == "12.2.0"
    assert m.cuda_release("12.2.2").release == "12.2.2"
    assert m.cuda_release("12.2.140").release == "12.2.0"


# --- driver_branch: "the highest branch <= its first version part. Works for Windows numbering too (576.xx -> R575)."


@pytest.mark.parametrize(
    "driver,branch",
    [("570.26", 570), ("569.99", 565), ("576.02", 575), ("565.57.01", 565), ("580.65.06", 580), ("596.36", 595)],
)
def test_driver_branch(m, driver, branch):
    assert m.driver_branch(driver).branch == branch


# --- max_cuda_for_driver: newest CUDA release whose toolkit driver is <= the driver; R565 gives 12.6 (12.7 is no
# toolkit); where NVIDIA lists no toolkit driver the branch table decides, above the major's floor.


@pytest.mark.parametrize(
    "driver,os,cuda",
    [
        ("535.54.03", "linux", "12.2"),  # equal to 12.2's toolkit driver
        ("535.54.02", "linux", "12.1"),  # one below it
        ("565.57.01", "linux", "12.6"),
        ("450.36.06", "linux", "10.2"),  # only the 11.0 RC's driver: a prerelease is no release
        ("450.51.05", "linux", "11.0"),
        ("580.88", "windows", "13.0"),  # no Windows toolkit driver for 13.0: branch R580, at CUDA 13's floor
        ("580.50", "windows", "12.9"),  # R580 but below CUDA 13's Windows floor 580.88
    ],
)
def test_max_cuda_for_driver(m, driver, os, cuda):
    assert m.max_cuda_for_driver(driver, os) == cuda


# --- driver_supports_cuda: full at or above the toolkit driver; minor-version compatibility at or above the major's
# floor; a newer major never.


@pytest.mark.parametrize(
    "driver,cuda,os,ok,via",
    [
        ("535.54.03", "12.2", "linux", True, "full"),
        ("535.54.02", "12.2", "linux", True, "minor-version-compat"),
        ("525.60.13", "12.4", "linux", True, "minor-version-compat"),  # the CUDA 12 floor itself
        ("525.60.12", "12.4", "linux", False, None),
        ("450.80.02", "11.8", "linux", True, "minor-version-compat"),
        ("450.80.01", "11.8", "linux", False, None),
        ("535.104.05", "12.2.2", "linux", True, "full"),
        ("535.104.04", "12.2.2", "linux", True, "minor-version-compat"),
        ("570.26", "13.0", "linux", False, None),
        ("580.88", "13.0", "windows", True, "full"),  # branch R580 serves 13.0; at the Windows floor
        ("580.87", "13.0", "windows", False, None),
    ],
)
def test_driver_supports_cuda(m, driver, cuda, os, ok, via):
    v = m.driver_supports_cuda(driver, cuda, os)
    assert (v.ok, v.via) == (ok, via)


def test_windows_driver_between_the_two_cuda12_floors_is_warned_about(m):
    v = m.driver_supports_cuda("527.50", "12.4", "windows")
    assert (v.ok, v.via, v.floor) == (True, "minor-version-compat", "527.41")
    assert "528.33" in v.reason
    assert "528.33" not in m.driver_supports_cuda("529.11", "12.4", "windows").reason  # at or above both floors


# --- driver_cuda_supports_cuda: every CUDA up to the reported one fully; a newer minor of the same major through
# minor-version compatibility where every driver reporting that CUDA is at or above the floor; a newer major never.


@pytest.mark.parametrize(
    "have,cuda,ok,via",
    [
        ("12.4", "12.4", True, "full"),
        ("12.4", "12.4.1", True, "full"),
        ("12.4", "12.2", True, "full"),
        ("12.4", "12.6", True, "minor-version-compat"),
        ("12.7", "12.8", True, "minor-version-compat"),
        ("11.2", "11.4", True, "minor-version-compat"),  # 11.2's own driver 460.27.03 >= 450.80.02
        ("11.0", "11.2", False, None),  # 11.0's GA driver 450.51.05 < 450.80.02
        ("12.4", "13.0", False, None),
        ("11.8", "12.0", False, None),
    ],
)
def test_driver_cuda_supports_cuda(m, have, cuda, ok, via):
    v = m.driver_cuda_supports_cuda(have, cuda)
    assert (v.ok, v.via) == (ok, via)


def test_driver_cuda_refusal_names_the_lower_of_floor_and_toolkit_driver(m):
    # CUDA 13.1's toolkit driver is 590.44.01, CUDA 13's floor 580.65.06: the lowest driver that runs it is the floor.
    v = m.driver_cuda_supports_cuda("12.4", "13.1")
    assert (v.ok, v.needed, v.floor) == (False, "590.44.01", "580.65.06")
    assert "580.65.06" in v.reason and "590.44.01" not in v.reason


# --- cuda_can_target: first_cuda <= cuda <= last_cuda (gpu_arch.toml), compared by minor.


@pytest.mark.parametrize(
    "cuda,cc,can",
    [
        ("11.8", "9.0", True),  # Hopper's first CUDA
        ("11.7", "9.0", False),
        ("12.8", "10.0", True),
        ("12.6", "10.0", False),
        ("11.8", "3.5", True),  # Kepler sm_35's last CUDA
        ("12.0", "3.5", False),
        ("12.9", "7.0", True),  # Volta's last
        ("13.0", "7.0", False),
        ("12.9.1", "7.0", True),
    ],
)
def test_cuda_can_target(m, cuda, cc, can):
    assert m.cuda_can_target(cuda, cc) is can


# --- cuDNN: the release row covering a version (first..through, by X.Y.Z); the integer encodings per major.


@pytest.mark.parametrize(
    "version,first",
    [
        ("8.9.7.29", "8.9.4"),  # four parts: the build number does not matter
        ("8.9.7", "8.9.4"),
        ("8.9.4", "8.9.4"),
        ("8.9.3", "8.9.0"),
        ("9.1.1", "9.1.0"),  # a row's `through` is in it
        ("9.1.0.70", "9.1.0"),
        ("9.10.2.21", "9.10.0"),
    ],
)
def test_cudnn_release_rows(m, version, first):
    assert m.cudnn_release(version).version == first


def test_cudnn_cuda_majors(m):
    assert m.cudnn_cuda_majors("8.9.7.29") == (11, 12)
    assert m.cudnn_cuda_majors("9.11.0") == (12,)
    assert m.cudnn_cuda_majors("9.12.0") == (12, 13)


# --- the operating system: "WSL uses the Windows display driver" (matrix.terms._norm_os): every spelling of Windows and
# WSL reads the Windows column; anything else the Linux one.


@pytest.mark.parametrize(
    "os,driver",
    [
        ("windows", "536.25"),
        ("Windows", "536.25"),
        ("win32", "536.25"),
        ("nt", "536.25"),
        ("wsl", "536.25"),
        ("wsl2", "536.25"),
        ("WSL2", "536.25"),
        ("linux", "535.54.03"),
        ("Linux", "535.54.03"),
        ("", "535.54.03"),
    ],
)
def test_each_spelling_of_the_os_reads_its_column(m, os, driver):
    assert m.min_driver_for_cuda("12.2", os) == driver
    assert m.driver_supports_cuda(driver, "12.2", os).os == ("linux" if driver.startswith("535") else "windows")


# --- GPU names (gpu_arch.toml): "ignoring a leading "NVIDIA" and "Tesla", longest match wins ... A name cut short by
# nvidia-smi ("...") matches only if every candidate agrees." (the Unicode ellipsis too: matrix.terms.gpu_name_tokens)


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("V100-SXM2-16GB", "7.0"),
        ("NVIDIA Tesla V100S-PCIE-32GB", "7.0"),
        ("NVIDIA A100-SXM4-40GB", "8.0"),
        ("nvidia a100 80gb pcie", "8.0"),
        ("NVIDIA GeForce RTX 4090 D", "8.9"),
        ("NVIDIA GeForce RTX 40...", "8.9"),
        ("NVIDIA GeForce RTX 40\u2026", "8.9"),
        ("Quadro P20...", "6.1"),
        ("NVIDIA GeForce GTX 1...", None),  # 6.1 and 7.5 disagree
    ],
)
def test_gpu_names(m, name, cc):
    assert m.compute_capability_for_gpu(name) == cc


# --- jax_release: "The JAX row in force for `version` (the newest row whose version <= it)" (jax.toml rows 0.4.20,
# 0.4.22, ...); memory_setting: "tensorflow", "pytorch"/"torch" or "jax".


@pytest.mark.parametrize(("version", "row"), [("0.4.20", "0.4.20"), ("0.4.21", "0.4.20"), ("0.4.22", "0.4.22"), ("0.4.19", None)])
def test_jax_release_in_force(m, version, row):
    got = m.jax_release(version)
    assert (got.version if got else None) == row


@pytest.mark.parametrize(
    ("spelled", "framework"), [("torch", "pytorch"), ("PyTorch", "pytorch"), (" tf ", "tensorflow"), ("jaxlib", "jax")]
)
def test_memory_setting_aliases(m, spelled, framework):
    assert m.memory_setting(spelled).framework == framework
