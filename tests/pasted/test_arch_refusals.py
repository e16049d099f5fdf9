"""A compiler refusing an architecture, read into a typed fact (gpudoctor.parsers.arch_flags) and judged against the
first CUDA release of the variant it names (compat_matrix/gpu_arch.toml: first_cuda, a_first_cuda, f_first_cuda) by
the one check that decides it (gpudoctor.checks.catalogued.compilers.check_nvcc_arch): a toolkit older than that
release is installed for the platform the text shows; a release shown or stated that compiles it means another nvcc
ran, and which one is asked, never a reinstall (branch h241)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.parsers.arch_flags import arch_name, read_refusal
from tests.pasted.test_windows_loader_codes import _case, _run

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "pasted" / "catalogue_examples"


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(c.words) for c in finding.remediation.commands if hasattr(c, "words")]


def _line(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


def test_the_refusals_of_recorded_pastes_are_typed():
    # nvcc's two messages and ptxas's, each from a recorded paste: the architecture, its CC and variant, the program
    cases = (
        (_case("plans16", "1655-"), "nvcc fatal", ("compute_120", "12.0", "", True, "nvcc")),
        ((EXAMPLES / "pycuda-440-nvcc116-sm89-not-defined.txt").read_text(), "nvcc fatal", ("sm_89", "8.9", "", False, "nvcc")),
        (_case("plans6", "501-"), "ptxas fatal", ("sm_121a", "12.1", "a", False, "ptxas")),
        (_case("plans10", "1016-"), "nvcc fatal", ("compute_70", "7.0", "", True, "nvcc")),
    )
    for text, needle, (arch, cc, suffix, virtual, by) in cases:
        refusal = read_refusal(_line(text, needle))
        assert refusal is not None
        assert (refusal.arch.text, refusal.arch.cc, refusal.arch.suffix, refusal.arch.virtual, refusal.by) == (
            arch,
            cc,
            suffix,
            virtual,
            by,
        )


def test_what_is_no_refusal_stays_unread():
    # quiet twins: an architecture in a flag list (openpose's CMake line), nvcc's other fatal (no cl.exe), a line
    # number and a port; AMD's targets are named as AMD's, with no CUDA compute capability
    openpose = (EXAMPLES / "openpose-2053-nvcc-cuda110-compute86.txt").read_text()
    assert read_refusal(_line(openpose, "Added CUDA NVCC flags")) is None
    assert read_refusal(_line((EXAMPLES / "pydrr-6-nvcc-cannot-find-cl-exe.txt").read_text(), "nvcc fatal")) is None
    assert read_refusal("fatal error at line 120, port 8080") is None
    for text in ("120", "12.0", "sm_", "compute_1234", "version_86"):
        assert arch_name(text) is None
    amd = arch_name("gfx1100")
    assert amd is not None and amd.amd and amd.cc is None
    assert arch_name("sm_100f") == arch_name("sm_100f") and (arch_name("sm_100f") or amd).suffix == "f"


def test_a_release_stated_that_compiles_the_architecture_asks_which_nvcc_ran():
    # tests/blind/plans10/cases/1016-* ("CUDA9.0" stated beside nvcc refusing compute_70, which CUDA 9.0 compiles): the
    # nvcc that ran is another; the plan finds it (PATH, CMake's cache) and installs nothing
    _, codes, _ = _run(_case("plans10", "1016-"))
    finding = codes["toolkit-arch-unsupported"]
    argvs = _argvs(finding)
    assert ("which", "-a", "nvcc") in argvs
    assert ("grep", "CMAKE_CUDA_COMPILER", "CMakeCache.txt") in argvs
    assert not any(a[:1] in (("apt-get",), ("dnf",), ("gpudoctor",)) for a in argvs)
    assert "9.0" in finding.title and "pasted-error-unexplained" not in codes


def test_a_toolkit_shown_that_compiles_the_architecture_is_two_toolkits():
    # the nvcc --version of tests/blind/plans15/cases/1551-* (CUDA 13.0) beside the refusal of compute_120a (CUDA 12.8
    # on, as plans16 1656's reporter saw with a 13.0 toolkit appended last on PATH): not a reinstall
    version = "\n".join(_case("plans15", "1551-").splitlines()[8:14])
    text = version + "\n$ cmake --build build\nnvcc fatal   : Unsupported gpu architecture 'compute_120a'\n"
    _, codes, _ = _run(text)
    finding = codes["toolkit-arch-unsupported"]
    assert "13.0" in finding.title and "compute_120a" in finding.title
    assert ("which", "-a", "nvcc") in _argvs(finding)
    assert not any("cuda-toolkit" in " ".join(a) for a in _argvs(finding))


def test_a_lettered_variant_is_judged_by_its_own_first_release():
    # compute_120a (CUDA 12.8 on) and a toolkit's ptxas refusing sm_121f (12.9 on), no toolkit shown: older than those;
    # the quiet twin compute_86a, a variant no CUDA release has, is judged by none
    for arch, program, first in (("compute_120a", "nvcc", "12.8"), ("sm_121f", "ptxas", "12.9")):
        message = (
            f"nvcc fatal   : Unsupported gpu architecture '{arch}'"
            if program == "nvcc"
            else f"ptxas fatal   : Value '{arch}' is not defined for option 'gpu-name'"
        )
        _, codes, _ = _run(f"$ cmake --build build\n{message}\n")
        assert first in codes["toolkit-arch-unsupported"].title
    _, codes, _ = _run("$ cmake --build build\nnvcc fatal   : Unsupported gpu architecture 'compute_86a'\n")
    assert "toolkit-arch-unsupported" not in codes


def test_windows_rebuilds_with_the_configure_shown_in_a_new_folder():
    # tests/blind/plans16/cases/1655-* (Windows: "cmake -DGGML_CUDA=ON -DLLAMA_CURL=OFF .."): after the toolkit, the
    # same options in a new build folder, where CMake finds the new nvcc; no Linux command
    _, codes, _ = _run(_case("plans16", "1655-"))
    argvs = _argvs(codes["toolkit-arch-unsupported"])
    assert ("cmake", "-B", "build-cuda128", "-DGGML_CUDA=ON", "-DLLAMA_CURL=OFF") in argvs
    assert ("cmake", "--build", "build-cuda128", "--config", "Release") in argvs
    assert ("where", "nvcc") in argvs and ("which", "-a", "nvcc") not in argvs


def test_linux_installs_the_distributions_toolkit_package():
    # the openpose#2053 paste (compute_86, CUDA 11.1 on) with a distribution line put before it (Ubuntu 20.04, which
    # the paste itself does not name): NVIDIA's cuda-toolkit-11-1 for it, then this shell's PATH; the paste as
    # recorded, no distribution shown, installs nothing by command (the summary says what)
    text = "Ubuntu 20.04\n" + (EXAMPLES / "openpose-2053-nvcc-cuda110-compute86.txt").read_text()
    _, codes, _ = _run(text)
    argvs = _argvs(codes["toolkit-arch-unsupported"])
    assert any(a[-1:] == ("cuda-toolkit-11-1",) for a in argvs)
    assert any(a[:2] == ("gpudoctor", "switch-cuda") for a in argvs)
    _, codes, _ = _run((EXAMPLES / "openpose-2053-nvcc-cuda110-compute86.txt").read_text())
    assert not any("cuda-toolkit-11-1" in a for a in _argvs(codes["toolkit-arch-unsupported"]))


def test_no_toolkit_version_is_chosen_where_neither_torch_nor_the_driver_is_shown():
    # tests/blind/plans7/cases/637-* (nvcc 11.5 refusing compute_89 for an RTX 4090; no torch, no driver shown): no
    # version is chosen ("none fits" would name rules never checked), and the GPU's own floor, 11.8, is what it says;
    # the twin, tests/blind/plans15/cases/1548-* (a driver shown: CUDA 11.2 for an RTX 3090), chooses one
    from gpudoctor.checks import Context
    from gpudoctor.checks.toolkit import toolkit_fix
    from gpudoctor.doctor import diagnose  # (the facts again, for the toolkit step's own record)
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted

    _, codes, _ = _run(_case("plans7", "637-"))
    for case, unchosen, version in (("plans7/637-", True, None), ("plans15/1548-", False, "11.2")):
        blind_set, prefix = case.split("/")
        text = _case(blind_set, prefix)
        facts = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t"))).facts
        fix = toolkit_fix(facts, Context())
        assert (fix.unchosen, fix.version) == (unchosen, version)
    assert "11.8" in codes["toolkit-arch-unsupported"].remediation.summary


def test_a_ptxas_refusal_among_tritons_errors_is_tritons_copy_not_the_toolkits():
    # tests/pasted/catalogue_examples/triton-9181-gb10-ptxas-sm121a-not-defined.txt and tests/blind/plans6/cases/501-*:
    # the ptxas that refused sm_121a is Triton's own (TRITON_PTXAS_PATH is the move), no toolkit install of 12.9
    for text in ((EXAMPLES / "triton-9181-gb10-ptxas-sm121a-not-defined.txt").read_text(), _case("plans6", "501-")):
        _, codes, _ = _run(text)
        finding = codes["toolkit-arch-unsupported"]
        assert any(getattr(c, "name", "") == "TRITON_PTXAS_PATH" for c in finding.remediation.commands)
        assert not any("which" in a for a in _argvs(finding))
