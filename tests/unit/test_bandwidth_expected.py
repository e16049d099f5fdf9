"""Expected link figures, from the bundled compatibility matrix: PCIe by generation and width, NVLink-C2C."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpudoctor.bandwidth.expected import LinkTable, expectation_for, expected_for_test, load_link_table
from gpudoctor.errors import MatrixError


@pytest.fixture(scope="module")
def table() -> LinkTable:
    return load_link_table()


@pytest.mark.parametrize(
    "gen, width, theoretical",
    [
        (1, 16, 4.0),  # 2.5 GT/s x 8b/10b
        (2, 16, 8.0),
        (3, 16, 15.75),  # 8 GT/s x 128b/130b
        (4, 16, 31.5),
        (5, 16, 63.0),
        (4, 8, 15.75),
        (3, 8, 7.88),
        (4, 4, 7.88),
        (5, 8, 31.5),
    ],
)
def test_pcie_theoretical_per_direction(table, gen, width, theoretical):
    spec = table.pcie(gen, width)
    assert spec is not None
    assert spec.theoretical_gb_per_s == pytest.approx(theoretical, rel=2e-3)
    assert spec.label == f"PCIe Gen{gen} x{width}"
    assert (spec.gen, spec.width, spec.kind) == (gen, width, "pcie")
    assert "pcie-spec-rates" in spec.sources


@pytest.mark.parametrize("gen, low, high", [(3, 11.0, 13.5), (4, 22.0, 26.6), (5, 49.5, 57.5)])
def test_pcie_practical_figures_bracket_published_measurements(table, gen, low, high):
    spec = table.pcie(gen, 16)
    assert spec.practical_low_gb_per_s < spec.practical_gb_per_s < spec.practical_high_gb_per_s < spec.theoretical_gb_per_s
    assert low <= spec.practical_low_gb_per_s and spec.practical_high_gb_per_s <= high
    # DGX A100 bandwidthTest (25.7/25.8), the P100 from its local socket (12.2/12.9), B300 nvbandwidth (55.6/57.3):
    published = {3: (12.2, 12.9), 4: (25.7, 25.8), 5: (55.6, 57.3)}[gen]
    assert all(spec.practical_low_gb_per_s <= v for v in published)


def test_old_generations_have_no_measured_practical_figure(table):
    assert table.pcie(1, 16).practical_gb_per_s is None
    assert table.pcie(2, 16).practical_low_gb_per_s is None


def test_unknown_generation_or_width(table):
    assert table.pcie(9, 16) is None
    assert table.pcie(4, 0) is None


@pytest.mark.parametrize(
    "name, theoretical, practical",
    [("NVIDIA GH200 480GB", 450.0, 330.0), ("NVIDIA GH200 144G HBM3e", 450.0, 330.0), ("NVIDIA GB200", 450.0, None)],
)
def test_grace_systems_use_nvlink_c2c(table, name, theoretical, practical):
    spec = table.c2c_for(name)
    assert spec is not None and spec.kind == "c2c"
    assert spec.theoretical_gb_per_s == theoretical  # 900 GB/s both ways, 450 each way
    assert spec.practical_gb_per_s == practical


@pytest.mark.parametrize("name", ["NVIDIA H100 80GB HBM3", "NVIDIA GH2000", "XGH200", None, ""])
def test_other_gpus_have_no_c2c_link(table, name):
    assert table.c2c_for(name) is None


def test_thresholds(table):
    assert table.threshold("suspicious_below_share") == 0.5
    assert table.threshold("pageable_share_low") == 0.2
    assert table.threshold("pageable_share_high") == 0.6
    assert table.threshold_sources("suspicious_below_share")


def test_missing_threshold_is_a_matrix_error():
    matrix = SimpleNamespace(link_threshold=lambda name: None, link=lambda g, w: None, c2c=())
    with pytest.raises(MatrixError):
        LinkTable(matrix).threshold("suspicious_below_share")


def test_expectation_uses_the_maximum_link_and_keeps_the_trained_one(table):
    exp = expectation_for(table, "NVIDIA A100 80GB PCIe", 4, 16, 4, 8)
    assert exp.best.label == "PCIe Gen4 x16"
    assert exp.trained.label == "PCIe Gen4 x8"
    same = expectation_for(table, "NVIDIA A100 80GB PCIe", 4, 16, 4, 16)
    assert same.trained is None


def test_expectation_prefers_c2c_on_grace(table):
    exp = expectation_for(table, "NVIDIA GH200 480GB", 5, 16, 5, 16)
    assert exp.best.kind == "c2c" and exp.trained is None


def test_expectation_without_link_facts(table):
    exp = expectation_for(table, "Some GPU", None, None, None, None)
    assert exp.best is None and exp.trained is None


def test_expected_figure_per_test(table):
    spec = table.pcie(4, 16)
    assert expected_for_test(spec, "h2d") == (spec.theoretical_gb_per_s, spec.practical_gb_per_s)
    assert expected_for_test(spec, "d2h") == (spec.theoretical_gb_per_s, spec.practical_gb_per_s)
    assert expected_for_test(spec, "h2d-pageable") == (spec.theoretical_gb_per_s, None)
    assert expected_for_test(spec, "bidir") == (2 * spec.theoretical_gb_per_s, None)  # full duplex
    assert expected_for_test(spec, "d2d") == (None, None)
    assert expected_for_test(spec, "p2p") == (None, None)
    assert expected_for_test(None, "h2d") == (None, None)


def test_spec_json_shape(table):
    doc = table.pcie(4, 16).to_json()
    assert set(doc) == {
        "label",
        "kind",
        "gen",
        "width",
        "theoretical_gb_per_s",
        "practical_gb_per_s",
        "practical_low_gb_per_s",
        "practical_high_gb_per_s",
        "sources",
    }
