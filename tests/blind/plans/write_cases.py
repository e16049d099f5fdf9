"""Write tests/blind/plans/cases/<slug>/{input.txt,expect.toml} from the case data (run once, before gpudoctor)."""

import json
from pathlib import Path

from tests.blind.plans import _cases_part2, _cases_part3, _cases_part4, _cases_part5, _cases_part6  # noqa: F401  (register cases)
from tests.blind.plans._cases_part1 import CASES

HERE = Path(__file__).resolve().parent


def s(v: str) -> str:
    return json.dumps(v, ensure_ascii=False)


def arr(values: list[str]) -> str:
    return "[" + ", ".join(s(v) for v in values) + "]"


def toml_of(c: dict) -> str:
    lines = [
        f"url = {s(c['url'])}",
        f"title = {s(c['title'])}",
        f"kind = {s(c['kind'])}",
        f"platform = {s(c['platform'])}",
        "written_before_run = true",
        f"diagnosis = {s(c['diagnosis'])}",
        f"fixed_by = {s(c['fixed_by'])}",
        *([f"correction = {s(c['correction'])}"] if c.get("correction") else []),
        "",
        "[plan]",
        "# the commands a senior engineer would paste for THIS machine, in order",
        f"steps = {arr(c['plan'])}",
        "# acceptable alternatives (each a list of steps or a one-line description)",
        "alternatives = [" + ", ".join(arr(a) for a in c["alternatives"]) + "]",
        "# what makes a printed plan wrong for this case",
        f"wrong_if = {arr(c['wrong_if'])}",
        "# how the pins in the plan were checked",
        f"pins_checked = {arr(c['pins'])}",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    slugs = [c["slug"] for c in CASES]
    assert len(slugs) == len(set(slugs)), "duplicate slug"
    urls = [c["url"] for c in CASES]
    assert len(urls) == len(set(urls)), "duplicate url"
    for c in CASES:
        d = HERE / "cases" / c["slug"]
        d.mkdir(parents=True, exist_ok=True)
        (d / "input.txt").write_text(c["input"], encoding="utf-8")
        (d / "expect.toml").write_text(toml_of(c), encoding="utf-8")
    print(len(CASES), "cases written")


if __name__ == "__main__":
    main()
