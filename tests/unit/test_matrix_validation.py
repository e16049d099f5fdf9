"""Validation of candidate matrix files: each check produces its own "file:row-key: message"."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import FILES, check_matrix, load_matrix, validate

DATA = Path(__file__).resolve().parents[2] / "compat_matrix"
PROBLEM = re.compile(r"^[a-z_]+\.toml(:[^:]+)?: \S")


def problems_for(tmp_path: Path, name: str, text: str) -> list[str]:
    """Validate one candidate file (against the bundled others); return its problems."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    found = check_matrix(path)
    assert found, "expected problems"
    for p in found:
        assert PROBLEM.match(p), p
    return found


def bundled(stem: str) -> str:
    return (DATA / f"{stem}.toml").read_text(encoding="utf-8")


def assert_has(found: list[str], expected: str) -> None:
    assert any(expected in p for p in found), "\n".join(found)


TORCH_ROW = """
schema_version = 1
[[release]]
version = "1.12"
python = ">=3.7,<3.11"
pypi_default = "cu116"
source = "pytorch-release-md"
variant = [
  {{ tag = "cu116", cuda = "11.6", cudnn = "8.3.2.44", arch = ["7.0", "8.0"], source = "pytorch-builder"{extra} }},
]
"""


def test_valid_candidate_has_no_problems(tmp_path: Path) -> None:
    path = tmp_path / "cuda_driver.toml"
    path.write_text(bundled("cuda_driver"), encoding="utf-8")
    assert check_matrix(path) == []
    m = load_matrix(path)
    assert m.origins["cuda_driver"] == str(path) and m.origins["torch"] == "bundled"


def test_unknown_key(tmp_path: Path) -> None:
    found = problems_for(tmp_path, "torch.toml", TORCH_ROW.format(extra=', colour = "red"'))
    assert_has(found, "torch.toml:release[1.12].variant[cu116]: unknown key 'colour'")


def test_missing_required_key(tmp_path: Path) -> None:
    text = bundled("tensorflow").replace('cudnn = "8.1"\n', "", 1)
    found = problems_for(tmp_path, "tensorflow.toml", text)
    assert_has(found, "tensorflow.toml:release[2.5]: missing required key 'cudnn'")


def test_version_must_parse(tmp_path: Path) -> None:
    text = bundled("cuda_driver").replace('linux = "580.82.07"', 'linux = "N/A"')
    found = problems_for(tmp_path, "cuda_driver.toml", text)
    assert_has(found, "cuda_driver.toml:release[13.0.1]: 'linux' is not a valid version: 'N/A'")


def test_specifier_must_parse(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('">=3.7,<3.11"', '">=3.7,<<3.11"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "torch.toml:release[1.12]: 'python' is not a valid version specifier: '>=3.7,<<3.11'")
    text = TORCH_ROW.format(extra="").replace('">=3.7,<3.11"', '"~=3"')
    assert_has(problems_for(tmp_path, "torch.toml", text), "'python' is not a valid version specifier")


def test_wrong_types(tmp_path: Path) -> None:
    text = bundled("link_bandwidth").replace("gen = 3,", 'gen = "3",').replace("rate_gt_s = 2.5", "rate_gt_s = true")
    found = problems_for(tmp_path, "link_bandwidth.toml", text)
    assert_has(found, "'gen' must be an integer, not '3'")
    assert_has(found, "link_bandwidth.toml:pcie[1]: 'rate_gt_s' must be a number, not True")


def test_compute_capability_format(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('arch = ["7.0", "8.0"]', 'arch = ["sm_70"]')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "'arch[0]' must be a compute capability like \"8.6\", not 'sm_70'")


def test_duplicate_keys(tmp_path: Path) -> None:
    # "NVIDIA H100" and "H100" normalize to the same name.
    text = bundled("gpu_arch").replace(
        '  { name = "H800"',
        '  { name = "NVIDIA H100", cc = "9.0", segment = "datacenter", source = "nvidia-cc-page" },\n  { name = "H800"',
    )
    found = problems_for(tmp_path, "gpu_arch.toml", text)
    assert_has(found, "gpu_arch.toml:gpu[h100]: duplicate key")


def test_rows_must_be_sorted(tmp_path: Path) -> None:
    text = bundled("tensorflow")
    a = text.index('[[release]]\nversion = "2.1"\n')
    b = text.index('[[release]]\nversion = "2.2"\n')
    c = text.index('[[release]]\nversion = "2.3"\n')
    swapped = text[:a] + text[b:c] + text[a:b] + text[c:]
    found = problems_for(tmp_path, "tensorflow.toml", swapped)
    assert_has(found, "tensorflow.toml:release[2.1]: rows must be sorted by version: 2.1 comes after 2.2")


def test_unknown_source_is_reported(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('source = "pytorch-builder"', 'source = "my-blog"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "torch.toml:release[1.12].variant[cu116]: cites unknown source 'my-blog'")


def test_declared_source_must_be_cited(tmp_path: Path) -> None:
    text = bundled("sources").replace(
        "source = [\n",
        'source = [\n  { key = "unused-source", title = "Nobody cites me", url = "https://example.org", accessed = "2026-11-22" },\n',
    )
    found = problems_for(tmp_path, "sources.toml", text)
    assert found == ["sources.toml:source[unused-source]: declared but never cited"]


def test_source_needs_url_or_document_and_a_date(tmp_path: Path) -> None:
    text = bundled("sources").replace(
        'url = "https://docs.jax.dev/en/latest/changelog.html", accessed = "2026-11-22"', 'accessed = "2026-13-01"'
    )
    found = problems_for(tmp_path, "sources.toml", text)
    assert_has(found, "sources.toml:source[jax-changelog]: 'accessed' is not a real date: '2026-13-01'")
    text = bundled("sources").replace('url = "https://docs.jax.dev/en/latest/changelog.html", ', "")
    assert_has(problems_for(tmp_path, "sources.toml", text), "source[jax-changelog]: needs a 'url' or a 'document'")


def test_cuda_named_by_a_framework_must_exist(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('tag = "cu116", cuda = "11.6"', 'tag = "cu119", cuda = "11.9"')
    text = text.replace('pypi_default = "cu116"', 'pypi_default = "cu119"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "torch.toml:release[1.12].variant[cu119]: CUDA 11.9 is not a CUDA release in cuda_driver.toml")


def test_tag_must_match_cuda(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('tag = "cu116"', 'tag = "cu117"').replace('"cu116"', '"cu117"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "variant[cu117]: tag cu117 does not match CUDA 11.6 (expected cu116)")


def test_pypi_default_must_be_a_variant(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('pypi_default = "cu116"', 'pypi_default = "cu102"')
    assert_has(
        problems_for(tmp_path, "torch.toml", text), "torch.toml:release[1.12]: pypi_default cu102 is not one of its variants"
    )


def test_compute_capability_must_exist(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra="").replace('arch = ["7.0", "8.0"]', 'arch = ["7.0", "8.8"]')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "variant[cu116]: arch compute capability 8.8 is not in gpu_arch.toml")


def test_arch_must_be_buildable_by_that_cuda(tmp_path: Path) -> None:
    # CUDA 12 cannot target Kepler.
    text = TORCH_ROW.format(extra="").replace('tag = "cu116", cuda = "11.6"', 'tag = "cu121", cuda = "12.1"')
    text = text.replace('arch = ["7.0", "8.0"]', 'arch = ["3.7", "8.0"]').replace('"cu116"', '"cu121"')
    text = text.replace('cudnn = "8.3.2.44"', 'cudnn = "8.9.2.26"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "variant[cu121]: arch sm_37 cannot be built with CUDA 12.1")


def test_cudnn_must_be_plausible_for_the_cuda_major(tmp_path: Path) -> None:
    # cuDNN 8.1 never had a CUDA 12 build.
    text = TORCH_ROW.format(extra="").replace('tag = "cu116", cuda = "11.6"', 'tag = "cu121", cuda = "12.1"')
    text = text.replace('"cu116"', '"cu121"').replace('cudnn = "8.3.2.44"', 'cudnn = "8.1.0.77"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "variant[cu121]: cuDNN 8.1.0.77 has no CUDA 12 build (cudnn.toml row 8.1.0: CUDA 10, 11)")
    text = TORCH_ROW.format(extra="").replace('cudnn = "8.3.2.44"', 'cudnn = "6.0.21"')
    assert_has(problems_for(tmp_path, "torch.toml", text), "cuDNN 6.0.21 is not covered by any cudnn.toml release row")


def test_tensorflow_sonames_must_follow_the_versions(tmp_path: Path) -> None:
    text = bundled("tensorflow").replace(
        'sonames = ["libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11", "libcufft.so.10", "libcurand.so.10", "libcusolver.so.11", "libcusparse.so.11", "libcudnn.so.8"]\nwindows_gpu = true\narch = ["3.5", "5.0", "6.0", "7.0", "7.5", "8.0"]\nptx = ["8.0"]\nand_cuda = false\nsource = ["tf-tested-configs", "tf-tested-configs-windows", "tf-dso-loader", "pypi-tf-wheels"]\nnote = "Last release',
        'sonames = ["libcudart.so.11.2", "libcudnn.so.7"]\nwindows_gpu = true\narch = ["3.5", "5.0", "6.0", "7.0", "7.5", "8.0"]\nptx = ["8.0"]\nand_cuda = false\nsource = ["tf-tested-configs", "tf-tested-configs-windows", "tf-dso-loader", "pypi-tf-wheels"]\nnote = "Last release',
    )
    found = problems_for(tmp_path, "tensorflow.toml", text)
    assert_has(found, "tensorflow.toml:release[2.10]: CUDA 11.2 builds load libcudart.so.11.0, not libcudart.so.11.2")
    assert_has(found, "tensorflow.toml:release[2.10]: cuDNN 8.1 is libcudnn.so.8, not libcudnn.so.7")


def test_cudnn_specifier_must_match_a_cuda_release(tmp_path: Path) -> None:
    text = bundled("cudnn").replace('{ version = "7.2.1", cuda = ["==9.2.*"]', '{ version = "7.2.1", cuda = ["==9.3.*"]')
    found = problems_for(tmp_path, "cudnn.toml", text)
    assert_has(found, "cudnn.toml:release[7.2.1]: CUDA specifier '==9.3.*' matches no CUDA release in cuda_driver.toml")


def test_enum_values(tmp_path: Path) -> None:
    text = bundled("jax").replace('rule = "not-newer"', 'rule = "roughly"')
    found = problems_for(tmp_path, "jax.toml", text)
    assert_has(found, "jax.toml:pin[0.3.0/jaxlib+jax]: 'rule' must be one of equal, equal-numeric, not-newer, not 'roughly'")


def test_precision_rows(tmp_path: Path) -> None:
    text = bundled("precision").replace(
        '{ cc = "6.2", tensor_cores = false, precisions = []', '{ cc = "6.2", tensor_cores = false, precisions = ["FP16"]'
    )
    found = problems_for(tmp_path, "precision.toml", text)
    assert_has(found, "precision.toml:cc[6.2]: lists precisions but tensor_cores = false")


def test_schema_version_and_unknown_tables(tmp_path: Path) -> None:
    text = bundled("memory_settings").replace("schema_version = 1", 'schema_version = 2\nextra = "x"')
    found = problems_for(tmp_path, "memory_settings.toml", text)
    assert_has(found, "memory_settings.toml: schema_version must be 1, not 2")
    assert_has(found, "memory_settings.toml: unknown top-level key 'extra'")


def test_missing_table(tmp_path: Path) -> None:
    found = problems_for(tmp_path, "link_bandwidth.toml", "schema_version = 1\npcie = []\nc2c = []\n")
    assert_has(found, "link_bandwidth.toml: missing table 'threshold'")


def test_toml_syntax_error(tmp_path: Path) -> None:
    found = problems_for(tmp_path, "jax.toml", "schema_version = 1\n[[release]\n")
    assert len(found) == 1 and found[0].startswith("jax.toml: TOML syntax error:")


def test_all_problems_are_collected_at_once(tmp_path: Path) -> None:
    text = TORCH_ROW.format(extra=', colour = "red"').replace('python = ">=3.7,<3.11"', 'python = "3.7+"')
    text = text.replace('source = "pytorch-release-md"', 'source = "nowhere"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "unknown key 'colour'")
    assert_has(found, "'python' is not a valid version specifier")
    assert_has(found, "cites unknown source 'nowhere'")
    with pytest.raises(MatrixError) as exc:
        load_matrix(tmp_path / "torch.toml")
    assert exc.value.problems == found
    assert "invalid compatibility matrix" in exc.value.message


def test_candidate_file_name_must_be_a_matrix_file(tmp_path: Path) -> None:
    path = tmp_path / "my-torch.toml"
    path.write_text(bundled("torch"), encoding="utf-8")
    found = check_matrix(path)
    assert found == ["my-torch.toml: not a matrix file name (expected one of " + ", ".join(f"{s}.toml" for s in FILES) + ")"]
    assert check_matrix(tmp_path / "missing.toml") == [f"{tmp_path / 'missing.toml'}: no such file or directory"]


def test_directory_overlays_the_bundled_files(tmp_path: Path) -> None:
    for stem in FILES:
        shutil.copy(DATA / f"{stem}.toml", tmp_path / f"{stem}.toml")
    assert check_matrix(tmp_path) == []
    (tmp_path / "torch.toml").unlink()  # missing files come from the bundled matrix
    m = load_matrix(tmp_path)
    assert m.origins["torch"] == "bundled" and m.origins["jax"] == str(tmp_path / "jax.toml")
    (tmp_path / "extra.toml").write_text("x = 1\n", encoding="utf-8")
    assert check_matrix(tmp_path)[0].startswith("extra.toml: not a matrix file")


def test_validate_on_parsed_documents() -> None:
    docs = {stem: tomllib.loads((DATA / f"{stem}.toml").read_text(encoding="utf-8")) for stem in FILES}
    m = validate(docs)
    assert m.torch_release("2.4") is not None
    del docs["precision"]
    with pytest.raises(MatrixError) as exc:
        validate(docs)
    assert "precision.toml: missing file" in exc.value.problems


def test_broken_bundled_data_still_ends_in_a_full_matrix_error() -> None:
    # The bundled matrix is built without per-field checks; a surprise falls back to full validation.
    from gpudoctor.matrix.schema import build

    docs = {stem: tomllib.loads((DATA / f"{stem}.toml").read_text(encoding="utf-8")) for stem in FILES}
    docs["cuda_driver"]["release"][0]["linux"] = "N/A"
    docs["torch"]["release"][0]["surprise"] = 1
    with pytest.raises(MatrixError) as exc:
        build(docs, {}, trusted=True)
    assert any("'linux' is not a valid version: 'N/A'" in p for p in exc.value.problems)
    assert any("torch.toml:release[1.7]: unknown key 'surprise'" in p for p in exc.value.problems)


def test_specifier_outside_the_numeric_subset(tmp_path: Path) -> None:
    # Valid PEP 440, but the matrix compares plain numeric versions only.
    text = TORCH_ROW.format(extra="").replace('">=3.7,<3.11"', '">=3.7rc1,<3.11"')
    found = problems_for(tmp_path, "torch.toml", text)
    assert_has(found, "torch.toml:release[1.12]: 'python' uses a specifier form the matrix does not support")


def test_a_library_build_row_keeps_its_range_and_its_pin_inside_it(tmp_path: Path) -> None:
    text = bundled("libraries").replace(
        'since = "3.0", until = "4.0", cuda = 11, cudnn = 8, pin = "3.24.0"',
        'since = "3.0", until = "3.0", cuda = 11, cudnn = 8, pin = "4.4.0"',
    )
    found = problems_for(tmp_path, "libraries.toml", text)
    assert_has(found, "until must be newer than since")
    assert_has(found, "pin 4.4.0 is not a release of this row")
    text = bundled("libraries").replace('pin = "1.23.2", pin_python', "pin_python")
    assert_has(problems_for(tmp_path, "libraries.toml", text), "pin_python needs pin")


PINS_ROW = TORCH_ROW.replace(
    "schema_version = 1\n",
    'schema_version = 1\nnvidia_pins = [\n  {{ torch = "1.12.1", variant = "cu116", wheels = [{wheels}], source = "pypi-torch-wheels" }},\n]\n',
)


@pytest.mark.parametrize(
    ("wheels", "problem"),
    [
        ('"nvidia-cudnn-cu11==8.3.2.44"', None),
        ('"nvidia-cublas-cu12==12.1.3.1"', "wheel 'nvidia-cublas-cu12==12.1.3.1' is not nvidia-<lib>-cu11==<version>"),
        ('"nvidia-cudnn-cu11==8.5.0.96"', "nvidia-cudnn-cu11==8.5.0.96 is not the variant's cuDNN 8.3.2.44"),
        ('"nvidia-cublas-cu11>=11"', "wheel 'nvidia-cublas-cu11>=11' is not nvidia-<lib>-cu11==<version>"),
    ],
)
def test_nvidia_pins_name_the_variants_cuda_major_and_cudnn(tmp_path: Path, wheels: str, problem: str | None) -> None:
    # torch.toml nvidia_pins: the wheels a torch build pins, of its CUDA major, its cuDNN the variant's.
    path = tmp_path / "torch.toml"
    path.write_text(PINS_ROW.format(wheels=wheels, extra=""), encoding="utf-8")
    found = [p for p in check_matrix(path) if "nvidia_pins" in p]
    if problem is None:
        assert found == []
    else:
        assert_has(found, f"torch.toml:nvidia_pins[1.12.1]: {problem}")


def test_nvidia_pins_are_of_a_release_and_its_pypi_build(tmp_path: Path) -> None:
    text = PINS_ROW.format(wheels='"nvidia-cudnn-cu11==8.3.2.44"', extra="")
    found = problems_for(tmp_path, "torch.toml", text.replace('torch = "1.12.1"', 'torch = "1.11.0"'))
    assert_has(found, "nvidia_pins[1.11.0]: torch 1.11.0 has no release row with the variant cu116")


def test_the_bundled_pins_are_the_pypi_builds_requires():
    # Read from the wheels' metadata: torch 2.2.1 (its PyPI build, cu121) pins NCCL 2.19.3 and cuDNN 8.9.2.26.
    pins = dict(load_matrix().nvidia_pins("2.2.1+cu121", "cu121").wheels)
    assert (pins["nvidia-nccl-cu12"], pins["nvidia-cudnn-cu12"], len(pins)) == ("2.19.3", "8.9.2.26", 11)
    assert load_matrix().nvidia_pins("2.2.1+cu118", "cu118") is None  # the PyTorch index's other builds: not read


def test_a_lettered_variant_before_its_ccs_first_release_is_a_problem(tmp_path):
    # gpu_arch.toml's a_first_cuda / f_first_cuda (h241): sm_90a from CUDA 12.0, never before 9.0's own 11.8
    text = bundled("gpu_arch").replace('first_cuda = "11.8", a_first_cuda = "12.0"', 'first_cuda = "11.8", a_first_cuda = "11.0"')
    assert text != bundled("gpu_arch")
    assert_has(problems_for(tmp_path, "gpu_arch.toml", text), "a_first_cuda is before first_cuda")
