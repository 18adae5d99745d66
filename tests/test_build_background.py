"""The build computes the card's statistics in a forked child (issue 23): the same answer as in
the process itself, its errors raised in the parent, and no child left behind."""
from __future__ import annotations

import os

import pytest

from mhmmkg.builders import build


def _pid_and(value):
    return os.getpid(), value


def _fail(message):
    raise ValueError(message)


def _die():
    os._exit(3)


def test_the_answer_is_the_one_computed_here_and_comes_from_a_child():
    with build._in_background(_pid_and, {"a": [1.5, None, "x"]}) as answer:
        pid, value = answer()
    assert value == {"a": [1.5, None, "x"]}
    assert pid != os.getpid() or not hasattr(os, "fork")


def test_an_error_in_the_child_is_raised_here():
    with pytest.raises(ValueError, match="bad stats"), build._in_background(_fail, "bad stats") as answer:
        answer()


def test_a_child_that_dies_without_an_answer_is_replaced_by_computing_here():
    calls = []

    def die_in_child_only(parent=os.getpid()):
        if os.getpid() != parent:
            _die()
        calls.append(1)
        return "here"

    with build._in_background(die_in_child_only) as answer:
        assert answer() == "here"
    assert calls == [1]


def test_a_child_not_asked_for_its_answer_is_stopped_and_reaped(monkeypatch):
    children, fork = [], os.fork

    def recorded_fork():
        pid = fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    with pytest.raises(RuntimeError), build._in_background(_pid_and, 1):
        raise RuntimeError("the build failed meanwhile")
    assert len(children) == 1
    with pytest.raises(ChildProcessError):      # already reaped: no zombie left
        os.waitpid(children[0], os.WNOHANG)
