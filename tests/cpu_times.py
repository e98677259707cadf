"""Per-test CPU time, for finding where the suite's time goes ("Timing" in tests/README.md).

    pytest -p tests.cpu_times ...   # writes .pytest_cache/cpu/<worker>.tsv

Each row: test id, phase (setup, call, teardown), CPU seconds of the worker process and of the
subprocesses it waited for in that phase (a live server, ``manage.py``, R), wall seconds. CPU,
not wall time, is what a shared machine does not inflate. ``python -m tests.cpu_times`` sums
the rows by file, most expensive first.
"""

import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

OUT = Path(__file__).resolve().parent.parent / ".pytest_cache" / "cpu"
OUT = Path(os.environ.get("CPU_TIMES_DIR", OUT))


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


_file = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _timed(item, "teardown")


def _timed(item, phase):
    own, children = _cpu()
    wall = time.monotonic()
    yield
    own_after, children_after = _cpu()
    wall = time.monotonic() - wall
    own, children = own_after - own, children_after - children
    # Whether the test is left out of the fast loop by its code (not by tests/measured_slow.txt).
    marked = item.get_closest_marker("e2e") or any(
        not mark.kwargs.get("measured") for mark in item.iter_markers("slow")
    )
    _out().write(
        f"{item.nodeid}\t{phase}\t{own:.3f}\t{children:.3f}\t{wall:.3f}\t{int(bool(marked))}\n"
    )


def _out():
    """This process's file, rewritten by each run and written as the tests end (so a run
    still going can be read)."""
    global _file
    if _file is None:
        OUT.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _file = open(OUT / f"{worker}.tsv", "w", buffering=1)  # noqa: SIM115 (the session's)
    return _file


def pytest_sessionfinish(session):
    own, children = _cpu()
    _out().write(f"#process\t-\t{own:.3f}\t{children:.3f}\t0\n")
    _out().close()


HEADER = """\
# Tests over {ms} ms of CPU (setup, call and teardown; the process's and its subprocesses'), by
# id, when last measured: tests/conftest.py marks them slow, so `make test-fast` leaves them out
# and `make test` runs them. Written by `make test-times` (tests/cpu_times.py); a test renamed
# since is simply no longer listed, a test that grew slow is listed at the next measurement."""


def read(folder=OUT):
    """``(rows, processes)``: each row ``(nodeid, phase, cpu, own, children, wall,
    first_of_module, marked)`` in the order run on its process (the first setup of a module on a
    process also sets up its module- and session-scoped fixtures); ``processes``: the CPU of
    the whole processes, start-up and collection included."""
    rows, processes = [], 0.0
    for path in sorted(Path(folder).glob("*.tsv")):
        module = None
        for line in path.read_text().splitlines():
            nodeid, phase, own, children, wall, *marked = line.split("\t")
            own, children, wall = float(own), float(children), float(wall)
            if nodeid == "#process":
                processes += own + children
                continue
            first = phase == "setup" and nodeid.split("::")[0] != module
            if phase == "setup":
                module = nodeid.split("::")[0]
            rows.append((nodeid, phase, own + children, own, children, wall, first, marked))
    return rows, processes


def by_file(folder=OUT):
    files = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    rows, processes = read(folder)
    for nodeid, phase, _cpu, own, children, wall, *_flags in rows:
        row = files[nodeid.split("::")[0]]
        row[0] += own
        row[1] += children
        row[2] += wall
        row[3] += phase == "call"
    total = sum(own + children for own, children, _wall, _n in files.values())
    print(f"{'cpu s':>8} {'own':>8} {'subproc':>8} {'wall s':>8} {'tests':>6}  file")
    for name, (own, children, wall, count) in sorted(
        files.items(), key=lambda kv: -(kv[1][0] + kv[1][1])
    ):
        print(f"{own + children:8.1f} {own:8.1f} {children:8.1f} {wall:8.1f} {count:6d}  {name}")
    print(f"{total:8.1f} in tests; {processes:.1f} in the processes in all")


def per_test(folder=OUT):
    """CPU seconds per test: its setup, call and teardown, but not the first setup of its
    module on its process (the module's and the session's fixtures, which the next test would
    pay if this one were left out)."""
    tests = defaultdict(float)
    for nodeid, _phase, cpu, *_rest, first, _marked in read(folder)[0]:
        tests[nodeid] += 0.0 if first else cpu
    return tests


def marked_in_code(folder=OUT):
    """The tests their code leaves out of the fast loop (``slow`` by hand, or ``e2e``)."""
    return {nodeid for nodeid, *_rest, marked in read(folder)[0] if marked == ["1"]}


FILES_HEADER = """\
# Each test file's wall seconds (its tests' setup, call and teardown on their worker) when last
# measured, written by `make test-times` (tests/cpu_times.py): the xdist workers take the
# longest files first (tests/conftest.py). A file not listed is estimated from its marks."""


def file_seconds(folder=OUT):
    """tests/file_times.txt's text: each file's wall seconds, longest first."""
    seconds = defaultdict(float)
    for nodeid, _phase, _cpu, _own, _children, wall, *_flags in read(folder)[0]:
        seconds[nodeid.split("::")[0]] += wall
    print(FILES_HEADER)
    for path, wall in sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{wall:.1f} {path}")


def main(args):
    if args[:1] == ["files"]:
        # python -m tests.cpu_times files [FOLDER]: tests/file_times.txt's text.
        file_seconds(*args[1:])
    elif args[:1] == ["slow"]:
        # python -m tests.cpu_times slow MS [FOLDER]: tests/measured_slow.txt's text, the
        # tests over MS milliseconds of CPU that their code does not already leave out.
        seconds, folder = float(args[1]) / 1000, (args[2:] or [OUT])[0]
        left_out = marked_in_code(folder)
        print(HEADER.format(ms=args[1]))
        for nodeid, cpu in sorted(per_test(folder).items()):
            if cpu > seconds and nodeid not in left_out:
                print(nodeid)
    else:
        by_file(*args)


if __name__ == "__main__":
    main(sys.argv[1:])
