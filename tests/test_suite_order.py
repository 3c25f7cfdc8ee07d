"""`make test` hands the files with a slow test out first (tests/conftest.py), so that the short ones even out the
end of the run on its two workers."""

from __future__ import annotations

from pathlib import Path

from tests import conftest


class _Item:
    """What the ordering reads of a collected test: its file and its markers."""

    def __init__(self, path: str, slow: bool):
        self.path = Path(path)
        self.slow = slow

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self.slow else None


def test_files_with_a_slow_test_come_first_each_group_in_collection_order():
    items = [_Item("a.py", False), _Item("b.py", False), _Item("b.py", True), _Item("c.py", False), _Item("d.py", True)]
    conftest.pytest_collection_modifyitems(None, items)
    assert [(i.path.name, i.slow) for i in items] == [
        ("b.py", False),
        ("b.py", True),
        ("d.py", True),
        ("a.py", False),
        ("c.py", False),
    ]


def test_the_workers_take_whole_files_in_that_order():
    makefile = (conftest.PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--dist loadfile --no-loadscope-reorder" in makefile
