"""The repository speaks of the product: no file, and no file name, cites a meeting (a numbered
session or issue), a commit hash as evidence, a clock time, or a path of one machine. A comment says
why, a test name says what, docs say what is true now; history is in git."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Written so that none of them matches its own source.
WORDS = {
    "a numbered session or issue": re.compile(r"(?<![a-z])(?:sessions?|issues?)[\s_-]*#?\d+", re.IGNORECASE),
    # 7 to 40 hex digits with a letter and a digit, standing alone (not part of a word, a name in a
    # path or a URL, or a hex literal)
    "a commit hash": re.compile(r"(?<![\w/.#-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w/])"),
    "a clock time": re.compile(r"\b\d{1,2}:\d\d(?::\d\d)?\s*(?:UTC|GMT)\b|\b\d{1,2}:\d\d\s*-\s*\d{1,2}:\d\d\b"),
    "a machine path": re.compile(r"(?<![\w.~])/(?:work|tmp|home|root|Users|mnt)/"),
}
SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist"}


def repository_files() -> list[str]:
    """Every file of the tree: git's tracked and not-ignored files, or, without git, a walk that
    leaves out the venv and caches."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
        return sorted({name for name in out.split("\0") if name and (ROOT / name).is_file()})
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, files in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            found += [str((Path(folder) / f).relative_to(ROOT)) for f in files]
        return sorted(found)


def text(path: Path) -> str | None:
    """The file's text, or None for a binary file (arrays, images, databases)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def offences(name: str, content: str | None) -> list[str]:
    found = [f"{name}: its name holds {what} ({m.group(0)!r})"
             for what, pattern in WORDS.items() for m in [pattern.search(name)] if m]
    for what, pattern in WORDS.items():
        for m in pattern.finditer(content or ""):
            line = content.count("\n", 0, m.start()) + 1
            found.append(f"{name}:{line}: {what}: {' '.join(m.group(0).split())!r}")
    return found


def test_the_words_are_caught_where_they_are_meant_to_be():
    sample = "\n".join([
        "measured in " + "ses" + "sion 13 of is" + "sue 16",
        "at commit " + "9f3c2" + "1a (the base)",
        "ran " + "22:" + "41-23:38, finished 10:" + "45 UTC",
        "cache in " + "/tm" + "p/s6 and /wo" + "rk/wt/x",
    ])
    kinds = {o.split(": ")[1] for o in offences("sample.md", sample)}
    assert kinds == set(WORDS)
    fine = ("a WinMine session of 24,320 boards; board[3:10]; 0x" + "FFFFFFFF; 3,000 layouts; ratio 4:1; "
            "github.com/b1f6c1c4/MineSweeperProb; Path(tempfile.gettempdir()); mines 10-99; 2**31 states")
    assert offences("fine.md", fine) == []
    assert offences("data/run_ses" + "sion3.csv", "") != []


def test_no_file_names_a_meeting_a_commit_a_clock_time_or_a_machine_path():
    files = repository_files()
    assert "README.md" in files and "tests/test_repository.py" in files
    found = [o for name in files for o in offences(name, text(ROOT / name))]
    if found:
        pytest.fail(f"{len(found)} process words in the repository (say why, what, or what is true now):\n"
                    + "\n".join(found), pytrace=False)
