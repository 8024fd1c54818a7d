"""The child process every worker of sweeplab runs in (replays/child.py): whole answers of any size,
answers in parts cut off at a deadline, and a fresh child after one is killed."""

from __future__ import annotations

import sys
import textwrap

import pytest

from sweeplab.errors import ChildError
from sweeplab.replays.child import Child

CHILD = textwrap.dedent('''
    import sys, time
    from sweeplab.replays.child import serve

    def whole(request):
        if isinstance(request, float):  # seconds to take
            time.sleep(request)
        return bytes(range(256)) * int(request)

    def parts(request):
        for i, pause in enumerate(request):
            time.sleep(pause)
            yield i, pause

    serve(parts if sys.argv[1] == "parts" else whole, parts=sys.argv[1] == "parts")
''')


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "child.py"
    path.write_text(CHILD)
    return str(path)


def test_a_whole_answer_larger_than_a_pipe_comes_back_whole(script):
    child = Child([sys.executable, script, "whole"])
    try:
        for size in (1, 4096, 20_000):  # up to 5 MB: many reads of the pipe make one frame
            assert child.ask(size, timeout=60) == bytes(range(256)) * size
    finally:
        child.close()


def test_parts_come_until_the_deadline_and_the_next_request_gets_a_fresh_child(script):
    child = Child([sys.executable, script, "parts"])
    try:
        assert child.ask_parts([0, 0, 0], timeout=60) == ([(0, 0), (1, 0), (2, 0)], False)
        first = child._proc
        got, late = child.ask_parts([0, 0, 30], timeout=3)
        assert (got, late) == ([(0, 0), (1, 0)], True)
        assert first is not None and first.poll() is not None  # killed past its time
        assert child.ask_parts([0], timeout=60) == ([(0, 0)], False)
    finally:
        child.close()


def test_a_whole_answer_past_its_time_is_an_error(script):
    child = Child([sys.executable, script, "whole"])
    try:
        with pytest.raises(ChildError, match="took over 2 s"):
            child.ask(30.0, timeout=2)
        assert child.ask(3, timeout=60) == bytes(range(256)) * 3  # a fresh child
    finally:
        child.close()
