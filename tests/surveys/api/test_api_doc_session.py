"""docs/api.md's curl session and its Python example, typed literally against ``make run``.

A new researcher typed the session and it failed (issue 24: user ``ada`` did not exist, survey 1
was the demo, the answer keys were not the new survey's). This test reads the two fenced blocks
from the page, runs every ``$`` command in one bash (so variables carry over, as in a terminal)
against ``make run``'s development server with the demo seeded, and checks what each prints
against what the page shows. ``…`` on the page stands for any text; values that differ from run
to run (the token, the link code, random ids, dates and times) are compared by their form.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live import development_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "api.md"
DOCUMENTED = "127.0.0.1:8000"  # make run's address, as the page writes it
END = "@@end-of-command"

# What differs between runs, each replaced by its name on both sides before comparing.
VOLATILE = [
    (re.compile(r"rrs_[A-Za-z0-9_-]{20,}"), "<token>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"), "<time>"),
    (re.compile(r"\d{4}-\d\d-\d\d"), "<date>"),
]


def fenced(language, *, after):
    """The first ``language`` fenced block of the page after the heading ``after``."""
    text = PAGE.read_text()
    start = text.index(after)
    match = re.search(rf"```{language}\n(.*?)```", text[start:], re.S)
    return match.group(1)


def complete(command):
    """Whether ``command`` is whole shell (not ending in a backslash, quotes closed)."""
    if command.rstrip().endswith("\\"):
        return False
    return subprocess.run(["bash", "-n", "-c", command], capture_output=True).returncode == 0


def console_steps(block):
    """``[(command, the output shown under it)]`` of a console block: a ``$`` line starts a
    command, which goes on until it is whole shell; the lines after it, up to the next ``$``
    line, are its output (a blank line ends nothing)."""
    steps = []
    for line in block.splitlines():
        if steps and not complete(steps[-1][0]):
            steps[-1][0] += "\n" + line.removeprefix("$ ")
        elif line.startswith("$ "):
            steps.append([line[2:], []])
        elif steps:
            steps[-1][1].append(line)
        else:
            raise AssertionError(f"output before any command: {line!r}")
    return [(command, "\n".join(output).strip()) for command, output in steps]


def normalized(text, *, slugs):
    for slug in slugs:
        text = text.replace(slug, "<slug>")
    for pattern, name in VOLATILE:
        text = pattern.sub(name, text)
    # The page wraps long JSON lines; compare without line breaks and the indent after them.
    return re.sub(r"\n\s*", "", text).strip()


def assert_shown(actual, shown, *, slugs, where):
    """``actual`` is what the page shows: its pieces between ``…`` appear in order, the first
    at the start and the last at the end unless ``…`` stands there."""
    actual, shown = normalized(actual, slugs=slugs), normalized(shown, slugs=slugs)
    pieces = shown.split("…")
    position = 0
    last = len(pieces) - 1
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        # The last piece ends the output (unless "…" follows it): look for it from the end.
        found = actual.rfind(piece, position) if index == last else actual.find(piece, position)
        assert found >= 0, f"{where}: {piece!r} not in {actual[position:][:400]!r}"
        if index == 0:
            assert found == 0, f"{where}: the output starts {actual[:200]!r}, not {piece!r}"
        position = found + len(piece)
    if pieces[-1]:
        assert position == len(actual), f"{where}: more output: {actual[position:][:300]!r}"


@pytest.fixture(scope="module")
def make_run():
    """What ``make run`` serves: the development server, migrated, with the demo seeded."""
    with development_server() as server:
        server.manage("seed_demo", "--base-url", server.url)
        yield server


def test_the_curl_session_runs_as_written_against_make_run(make_run, tmp_path):
    steps = console_steps(fenced("console", after="## A complete session with curl"))
    port = make_run.url.rsplit(":", 1)[1]
    script = "\n".join(
        f"{command.replace(DOCUMENTED, f'127.0.0.1:{port}')}\nprintf '\\n{END} %d\\n' $?"
        for command, _shown in steps
    )
    run = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert run.stderr == ""
    outputs = run.stdout.split(END)
    assert len(outputs) == len(steps) + 1, run.stdout[-2000:]
    slugs = set(re.findall(r'"slug":"([^"]+)"', run.stdout)) | set(
        re.findall(r'"slug":"([^"]+)"', PAGE.read_text())
    )
    status = "0"
    for (command, shown), output in zip(steps, outputs, strict=False):
        # Each output begins with the status of the command before it.
        assert status == "0", f"{command!r} before this one failed"
        if output.startswith(" "):
            status, _newline, output = output[1:].partition("\n")
        actual = output.replace(f"127.0.0.1:{port}", DOCUMENTED)
        assert_shown(actual, shown, slugs=slugs, where=command.splitlines()[0])
    assert outputs[-1].strip() == "0"


def test_the_python_example_runs_as_written_against_make_run(make_run, tmp_path):
    code = fenced("python", after="## The same from Python")
    shown = fenced("text", after="## The same from Python")
    port = make_run.url.rsplit(":", 1)[1]
    program = tmp_path / "example.py"
    program.write_text(code.replace(DOCUMENTED, f"127.0.0.1:{port}"))
    run = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    slugs = set(re.findall(r"/s/([A-Za-z0-9_-]+)/", run.stdout + shown))
    assert_shown(
        run.stdout.replace(f"127.0.0.1:{port}", DOCUMENTED), shown, slugs=slugs, where="python"
    )
