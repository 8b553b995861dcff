"""The order ``make test`` hands modules to its workers (tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.conftest import LONGEST_FIRST, pytest_collection_modifyitems
from tests.support import REPO_ROOT


def test_every_module_named_longest_first_exists() -> None:
    missing = [path for path in LONGEST_FIRST if not (REPO_ROOT / path).is_file()]
    assert not missing, f"tests/conftest.py LONGEST_FIRST names modules that are gone: {missing}"


class Item:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_the_longest_modules_come_first_and_the_rest_keep_their_order() -> None:
    ids = [
        "tests/a/test_x.py::test_1",
        f"{LONGEST_FIRST[1]}::test_b",
        "tests/a/test_x.py::test_2",
        f"{LONGEST_FIRST[0]}::test_first",
        f"{LONGEST_FIRST[0]}::test_second",
        "tests/b/test_y.py::test_1",
    ]
    items: list[pytest.Item] = [Item(i) for i in ids]  # type: ignore[misc]
    pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        f"{LONGEST_FIRST[0]}::test_first",
        f"{LONGEST_FIRST[0]}::test_second",
        f"{LONGEST_FIRST[1]}::test_b",
        "tests/a/test_x.py::test_1",
        "tests/a/test_x.py::test_2",
        "tests/b/test_y.py::test_1",
    ]
