"""The binary floors on pasted reports (issues 27/28): glibc's loader refusing an object that needs a newer GLIBC_ or
GLIBCXX_ (checks.catalogued.runtime_floors), and pip finding no TensorFlow for the shown Python (checks.installers).
Each rule on a recorded case, with its quiet twin: the same message where the floor is met, or where the cause is
the name or the index, must not fire."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.cli_json import ROOT, check, paste

CASES = ROOT / "tests/pasted/cases"


def _case(prefix: str) -> Path:
    (path,) = CASES.glob(f"{prefix}*/report.txt")
    return path


def _codes(doc: dict) -> set[str]:
    return {f["code"] for f in doc["findings"]}


def _argv(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def test_glibc_floor_on_ubuntu_1804_plans_a_newer_userland():
    doc = check(_case("pytorch-xla-4150"))
    assert "extension-glibc-too-old" in _codes(doc)
    # Ubuntu 18.04 ships glibc 2.27; the object needs 2.28: the oldest Ubuntu image at or above it is 20.04 (2.31).
    assert ["docker", "run", "--rm", "ubuntu:20.04", "ldd", "--version"] in _argv(doc)


def test_glibc_floor_met_by_the_shown_release_is_quiet(tmp_path):
    # The twin: the same message where the paste's distribution (Ubuntu 22.04, glibc 2.35) already meets GLIBC_2.28,
    # so the libc that refused it is another copy (an image's, a bundled one): the ask decides, no finding asserts.
    text = _case("pytorch-xla-4150").read_text(encoding="utf-8")
    twin = text.replace('VERSION="18.04.6 LTS (Bionic Beaver)"', 'VERSION="22.04.3 LTS (Jammy Jellyfish)"')
    twin = twin.replace('PRETTY_NAME="Ubuntu 18.04.6 LTS"', 'PRETTY_NAME="Ubuntu 22.04.3 LTS"')
    twin = twin.replace('VERSION_ID="18.04"', 'VERSION_ID="22.04"').replace("bionic", "jammy")
    assert "extension-glibc-too-old" not in _codes(paste(tmp_path, twin))


def test_glibcxx_in_a_conda_env_installs_conda_forge_libstdcxx_there():
    doc = check(_case("bundlesdf-185"))
    assert "extension-glibc-too-old" in _codes(doc)
    assert ["conda", "install", "-p", "/opt/conda/envs/py38", "-c", "conda-forge", "libstdcxx-ng"] in _argv(doc)
    # Never a system library swap.
    assert not any(a[:1] in (["apt-get"], ["apt"], ["sudo"]) for a in _argv(doc))


def test_glibc_floor_unshown_machine_asks_ldd():
    doc = check(_case("jax-5272"))
    assert "extension-glibc-too-old" in _codes(doc)
    assert ["ldd", "--version"] in [a["argv"] for a in doc["pasted"]["ask_for"] or []]


def test_tensorflow_pin_without_wheels_for_the_python_makes_one_beside():
    doc = check(_case("tensorflow-60512"))
    assert "python-no-wheel" in _codes(doc)
    # tensorflow.toml: 2.3 is ">=3.5,<3.9"; pip --dry-run (h170) found tensorflow-2.3.0-cp38 and no cp39 wheel.
    assert ["uv", "venv", "--python", "3.8"] in _argv(doc)


def test_a_typo_or_a_private_index_asserts_no_floor():
    for prefix in ("django-taggit-600", "artifact-keeper-1130"):
        assert "python-no-wheel" not in _codes(check(_case(prefix)))


def test_a_linux_wheel_on_a_named_mac_installs_the_release_by_name():
    doc = check(_case("fastai-v3-4"))
    assert "python-no-wheel" in _codes(doc)
    # pip --dry-run (h170): torch==1.0.0 for CPython 3.7 on macOS resolves to torch-1.0.0-cp37-none-macosx_10_7_x86_64.
    assert any(a[-3:] == ["pip", "install", "torch==1.0.0"] for a in _argv(doc))


def test_a_linux_wheel_on_linux_with_the_python_unshown_asserts_nothing():
    # The twin: the same refusal on a Linux machine (CentOS 7's el7 kernel) whose Python the paste does not show: the
    # file's platform fits, its cp35 tag may not; only the ask for sys.version decides.
    doc = check(_case("clevr-iep-38"))
    assert "python-no-wheel" not in _codes(doc)
    assert any("sys.version" in " ".join(a["argv"]) for a in doc["pasted"]["ask_for"] or [])


def _with_collect_env(error_case: str, tmp_path) -> dict:
    """A recorded collect_env (Libc version: glibc-2.31, tests/pasted/catalogue_examples) beside a recorded case's text."""
    env = (ROOT / "tests/pasted/catalogue_examples/pytorch-97865-pypy-no-torch.txt").read_text(encoding="utf-8")
    return paste(tmp_path, env + "\n" + _case(error_case).read_text(encoding="utf-8"))


def test_collect_env_glibc_below_the_floor_is_named(tmp_path):
    # pyg-lib#548's libpyg.so needs GLIBC_2.33; collect_env shows glibc 2.31: the finding carries the machine's glibc,
    # and ldd --version is not asked (collect_env answered it).
    doc = _with_collect_env("pyg-lib-548", tmp_path)
    (f,) = [f for f in doc["findings"] if f["code"] == "extension-glibc-too-old"]
    assert any("glibc-2.31" in e["value"] for e in f["evidence"])
    assert ["ldd", "--version"] not in [a["argv"] for a in doc["pasted"]["ask_for"] or []]


def test_collect_env_glibc_at_the_floor_asserts_nothing(tmp_path):
    # The twin: jax#5272's xla_extension needs GLIBC_2.23, and collect_env's glibc 2.31 has it: the libc that refused
    # it is another copy, so no floor is asserted.
    assert "extension-glibc-too-old" not in _codes(_with_collect_env("jax-5272", tmp_path))


# After-round h244 (plans17): the message as GitHub markdown prints it, its backquote eaten by an inline code span.
PLANS17_APEX = next((ROOT / "tests/blind/plans17/cases").glob("1718-*/input.txt"))


def test_glibcxx_unquoted_in_a_conda_env_installs_libstdcxx_in_the_interpreters_env():
    # tests/blind/plans17/cases/1718-*/input.txt: "/lib64/libstdc++.so.6: version GLIBCXX_3.4.20 not found" (no
    # quotes); its first occurrence names no requirer, and the torch the paste shows runs in a conda environment's
    # python, so the C++ runtime goes into that environment.
    doc = check(PLANS17_APEX)
    assert "extension-glibc-too-old" in _codes(doc)
    assert ["conda", "install", "-p", "/home/hongqiay/.conda/envs/tprf2", "-c", "conda-forge", "libstdcxx-ng"] in _argv(doc)
    assert not any(a[:1] in (["apt-get"], ["apt"], ["sudo"]) for a in _argv(doc))


def test_glibcxx_unquoted_title_is_read(tmp_path):
    # The title of https://github.com/horovod/horovod/issues/406, as its reporter typed it (no quotes).
    doc = paste(tmp_path, "libstdc++.so.6: version GLIBCXX_3.4.22 not found\n")
    assert "extension-glibc-too-old" in _codes(doc)


def test_glibcxx_unquoted_outside_conda_installs_nothing_in_an_env(tmp_path):
    # The twin: the same report with the interpreter in a venv, not a conda environment: no conda install is planned.
    text = PLANS17_APEX.read_text(encoding="utf-8").replace("/.conda/envs/tprf2/", "/venvs/tprf2/")
    doc = paste(tmp_path, text)
    assert "extension-glibc-too-old" in _codes(doc)
    assert not any(a[:2] == ["conda", "install"] for a in _argv(doc))


def test_glibcxx_versions_listed_without_not_found_are_quiet(tmp_path):
    # The twin: `strings libstdc++.so.6 | grep GLIBCXX` output names versions but no loader refusal.
    text = "$ strings /usr/lib64/libstdc++.so.6 | grep GLIBCXX_3.4.1\nGLIBCXX_3.4.18\nGLIBCXX_3.4.19\n"
    assert "extension-glibc-too-old" not in _codes(paste(tmp_path, text))
