"""Request ids: 96 random bits from `secrets`, cut from a pool, never shared with a fork."""

from __future__ import annotations

import os
import re

from carimg.api.headers import new_request_id


def test_request_ids_are_96_random_bits_in_hex() -> None:
    ids = [new_request_id() for _ in range(1000)]
    assert all(re.fullmatch(r"req_[0-9a-f]{24}", request_id) for request_id in ids)
    assert len(set(ids)) == 1000


def test_a_forked_child_never_issues_the_parent_s_next_ids() -> None:
    new_request_id()  # the pool holds the parent's next ids
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        os.write(write, " ".join(new_request_id() for _ in range(10)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as pipe:
        childs = set(pipe.read().split())
    parents = {new_request_id() for _ in range(300)}
    assert len(childs) == 10
    assert not childs & parents
