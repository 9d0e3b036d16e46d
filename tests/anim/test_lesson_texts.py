"""What the README and the User Guide say about the lessons is the lesson registry's, and the
lessons' narration names hosts so it reads (issue 29: the README said ten lessons of twelve;
lesson 5 said "The incast flows and flow a share r's port")."""

from __future__ import annotations

import re
from pathlib import Path

from fabricviz.anim.lessons import bundled, find_lesson

ROOT = Path(__file__).resolve().parents[2]
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                "nineteen", "twenty")


def test_the_readme_counts_the_bundled_lessons():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    (said,) = re.findall(r"The Lessons menu opens (\w+) bundled lessons", text)
    assert len(bundled()) == 12 and said == NUMBER_WORDS[len(bundled())]


def test_the_guide_lists_every_bundled_lesson_by_its_title():
    page = (ROOT / "assets" / "guide" / "6-lessons.md").read_text(encoding="utf-8")
    block = page.split("<!-- lessons:", 1)[1].split("<!-- /lessons -->", 1)[0]
    listed = re.findall(r"^(\d+)\. (.+)$", block, flags=re.M)
    assert listed == [(str(num), find_lesson(str(num)).title) for num, _, _ in bundled()]


def test_narration_names_a_one_letter_host_as_a_host():
    """A host called "a", "r" or "v" reads as a word ("flow a share r's port") unless the text
    says "host a": after flow / victim / to / from / with / behind / under, and before "'s", a
    one-letter host name comes as "host x"."""
    checked = 0
    for num, name, _ in bundled():
        lesson = find_lesson(str(num))
        f = lesson.build_fabric()
        short = sorted({f.name_of(int(d)) for d in f.device_ids()} & set("abcdefghijklmnopqrstuvwxyz"))
        for where, text in [("summary", lesson.summary)] + [(f"step {i + 1}", s.say)
                                                             for i, s in enumerate(lesson.steps)]:
            for n in short:
                for bad in (rf"\b(flow|victim|to|from|with|behind|under|into|on) {n}(?![\w-])", rf"(?<!host ){n}'s\b"):
                    assert not re.search(bad, text), (name, where, n, re.search(bad, text).group(0))
                checked += len(re.findall(rf"\bhost {n}(?![\w-])", text))
    assert checked >= 10                            # lesson 5 names its hosts a, r and v many times
