"""The markdown reply (`check --format markdown`) and the GitHub step summary, rendered as GitHub renders
them (cmark-gfm with GitHub's extensions): no link, image, HTML element, mention or issue reference comes
from data, for every hostile string and for the whole hostile corpus of recorded machines."""

from __future__ import annotations

import pytest

from gpudoctor.model import ExitCode, Severity
from gpudoctor.render.github import render_github_summary
from gpudoctor.render.markdown import render_markdown
from tests.hostile.gfm import made_from
from tests.hostile.strings import HOSTILE
from tests.hostile.test_render_github import hostile_report


def test_the_checker_sees_what_github_would_make():
    # Without code spans each of these becomes something: the check below would catch a renderer that leaks.
    found = made_from("a _www.x.com b x@y.co \\@admin \\#12 owner/repo#3 https://e.example [l](u) <img src=x>")
    kinds = {f.split()[0] for f in found}
    assert kinds == {"element", "mention", "reference"}, found
    assert sum(f.startswith("element <a") for f in found) >= 4  # www, mailto, URL, [l](u)
    assert made_from("`@admin #12 www.x.com` and\n\n```\n@a #1\n```\n") == []


@pytest.fixture(scope="module")
def machine_report():
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from tests.hostile.corpus import load_base

    return diagnose(ReplayHost(validate_snapshot(load_base("p100-driver510-torch-cu121"))))


@pytest.mark.parametrize("h", HOSTILE)
def test_no_link_mention_or_reference_from_data(h, machine_report):
    import dataclasses

    report, outcomes = hostile_report(h)
    # The reply needs a whole machine's facts (its platform picks the shell): a real one, the hostile findings.
    reply = render_markdown(dataclasses.replace(machine_report, findings=report.findings), ExitCode.FINDINGS)
    summary = render_github_summary(report, outcomes, ExitCode.FINDINGS, Severity.WARNING, node=h)
    assert made_from(reply) == [], reply
    assert made_from(summary) == [], summary


def test_the_hostile_corpus_makes_no_link_mention_or_reference(tmp_path):
    from gpudoctor.doctor import diagnose
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from tests.hostile.corpus import MARKDOWN_PAYLOADS, markdown_cases

    cases = markdown_cases()
    assert len(cases) >= len(MARKDOWN_PAYLOADS) * 5
    checked = 0
    for i, case in enumerate(cases):
        path = tmp_path / f"{i}.json"
        path.write_text(case.text(), encoding="utf-8")
        try:
            report = diagnose(ReplayHost(load_snapshot(str(path))))
        except GpudoctorError:
            continue
        for md in (render_markdown(report, ExitCode.FINDINGS), render_github_summary(report, (), ExitCode.FINDINGS)):
            assert made_from(md) == [], (case.name, md)
        checked += 1
    assert checked >= len(cases) // 2
