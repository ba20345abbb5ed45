"""The README stays short and true: about 200 lines, its two set-up commands at the top (the second is the one
.ci/run runs), and every relative link in it and in docs/ leads to a file and, with an anchor, to a heading there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if match := re.match(r"#{1,6} (.+)", line):
            base = slug(match.group(1))
            found.add(f"{base}-{seen[base]}" if base in seen else base)
            seen[base] = seen.get(base, 0) + 1
    return found


def relative_links(page: Path) -> list[str]:
    return [link for link in LINK.findall(FENCE.sub("", page.read_text()))
            if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for link in relative_links(page):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {target.name}")
    assert broken == [], f"{page.name}: " + "; ".join(broken)


def test_the_readme_is_about_200_lines_and_starts_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 210, f"{len(lines)} lines: move detail into docs/"
    assert lines[2] == "```bash" and lines[5] == "```"
    example, tests = lines[3], lines[4]
    assert example.endswith('.venv/bin/kitebase run "handle KITE-142, and tell me if other customers have hit the '
                            'same problem" --approve auto')
    assert tests.endswith('-e ".[test]" && .venv/bin/python -m pytest -q -n 2')
    assert ".venv/bin/python -m pytest -q -p no:cacheprovider -n 2" in (ROOT / ".ci" / "run").read_text(), \
        "CI runs the README's test command"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    assert [p.name for p in PAGES[1:] if f"(docs/{p.name}" not in readme] == []


def test_slugs_are_githubs() -> None:
    assert slug("Evaluating the agent's judgement") == "evaluating-the-agents-judgement"
    assert slug("How Slack gets its messages: the outbox") == "how-slack-gets-its-messages-the-outbox"
