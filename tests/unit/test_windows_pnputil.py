"""pnputil's driver store listing, on every real capture (tests/fixtures/windows) and on hostile text."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.parsers.pnputil import PUBLISHED_NAME, nvidia_display_packages, nvidia_version, parse_enum_drivers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "windows"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_windows7_layout_finds_the_nvidia_display_package():
    packages = parse_enum_drivers(_read("pnputil-e_en_win7_nvidia-display-258.49.txt"))
    assert [p.published_name for p in packages] == ["oem0.inf", "oem1.inf"]
    (nvidia,) = nvidia_display_packages(packages)
    assert (nvidia.published_name, nvidia.version, nvidia.date, nvidia.nvidia_version) == (
        "oem1.inf",
        "8.17.12.5849",
        "06/09/2010",
        "258.49",
    )


def test_nvidia_audio_packages_are_not_display_packages():
    packages = parse_enum_drivers(_read("pnputil-e_en_win10_nvidia-audio-x3-intel-display.txt"))
    assert [p.published_name for p in packages] == ["oem4.inf", "oem9.inf", "oem14.inf", "oem7.inf"]
    assert [p.provider for p in packages if p.is_nvidia] == ["NVIDIA Corporation"] * 2
    assert nvidia_display_packages(packages) == []  # three NVIDIA HD Audio packages in the real store, none display
    intel = packages[1]
    assert intel.is_display and not intel.is_nvidia and intel.nvidia_version is None


def test_localised_labels_are_read_by_value_and_label():
    packages = parse_enum_drivers(_read("pnputil-e_zh-cn_win10.txt"))
    assert [p.published_name for p in packages] == ["oem22.inf", "oem37.inf", "oem20.inf", "oem27.inf"]
    assert [p.provider for p in packages] == ["AMD", "INTEL", "Broadcom", "INTEL"]
    assert packages[0].version == "15.20.0.0" and packages[0].date == "02/12/2015"
    assert packages[0].class_name == "系统设备" and not packages[0].is_display


@pytest.mark.parametrize(
    ("windows", "nvidia"),
    [("31.0.15.5222", "552.22"), ("8.17.12.5849", "258.49"), ("22.21.13.8253", "382.53"), ("32.0.15.7652", "576.52")],
)
def test_windows_driver_version_to_nvidia_number(windows, nvidia):
    # 22.21.13.8253 is the GTX 980 Ti's 382.53 (Win32_PnPSignedDriver in github.com/lord-carlos/nvidia-update/issues/1);
    # 32.0.15.7652 = 576.52 (github.com/the-database/mpv-AnimeJaNai/pull/81).
    assert nvidia_version(windows) == nvidia


@pytest.mark.parametrize("bad", [None, "", "31.0.15", "a.b.c.d", "1.2.3.4.5"])
def test_no_number_from_what_is_not_a_four_part_version(bad):
    assert nvidia_version(bad) is None


@pytest.mark.parametrize(
    "name",
    ["oem1.inf & calc.exe", "oem1.inf; Remove-Item C:\\", "$(iwr x).inf", "oem1.inf\n", "..\\oem1.inf", "oem.inf", "oem1.infx"],
)
def test_hostile_published_names_never_match_the_pattern(name):
    assert PUBLISHED_NAME.match(name) is None
    text = f"Published Name:     {name}\nOriginal Name:      nv_dispi.inf\nProvider Name:      NVIDIA\nClass Name:  Display adapters\n"
    for pkg in parse_enum_drivers(text):
        assert pkg.published_name is None or PUBLISHED_NAME.match(pkg.published_name)


def test_blocks_pasted_without_blank_lines_still_split():
    text = "Published Name: oem1.inf\nProvider Name: NVIDIA\nPublished Name: oem2.inf\nProvider Name: NVIDIA\n"
    assert [p.published_name for p in parse_enum_drivers(text)] == ["oem1.inf", "oem2.inf"]


def test_separate_version_and_date_lines():
    text = "Published Name:     oem10.inf\nDriver Version:     31.0.15.4633\nDriver Date:        12/06/2023\n"
    (pkg,) = parse_enum_drivers(text)
    assert (pkg.version, pkg.date) == ("31.0.15.4633", "12/06/2023")


def test_garbled_labels_still_give_the_provider_and_the_display_class_by_guid():
    # pnputil writes in the console's OEM code page; decoded as UTF-8 the translated labels become U+FFFD.
    text = (
        "\ufffd\ufffd\ufffd:     oem31.inf\n\ufffd\ufffd:      nv_dispi.inf\n\ufffd\ufffd\ufffd:      NVIDIA\n"
        "\ufffd\ufffd:         \ufffd\ufffd\n\ufffd GUID:         {4d36e968-e325-11ce-bfc1-08002be10318}\n"
        "\ufffd\ufffd:     03/22/2024 31.0.15.5222\n"
    )
    (pkg,) = nvidia_display_packages(parse_enum_drivers(text))
    assert (pkg.published_name, pkg.original_name, pkg.provider, pkg.nvidia_version) == (
        "oem31.inf",
        "nv_dispi.inf",
        "NVIDIA",
        "552.22",
    )
