"""Request ids: time first (rows keyed by them are appended in order), then 64 random bits."""

from __future__ import annotations

import os
import re
import time

from carimg.api.headers import new_request_id


def test_request_ids_are_time_then_64_random_bits_in_hex() -> None:
    ids = [new_request_id() for _ in range(1000)]
    assert all(re.fullmatch(r"req_[0-9a-f]{28}", request_id) for request_id in ids)
    assert len(set(ids)) == 1000


def test_a_later_request_id_sorts_later() -> None:
    first = new_request_id()
    time.sleep(0.002)
    assert new_request_id() > first


def test_a_forked_child_never_issues_the_parent_s_next_ids() -> None:
    new_request_id()  # the pool holds the parent's next random bytes
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        os.write(write, " ".join(new_request_id() for _ in range(10)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as pipe:
        childs = {request_id[-16:] for request_id in pipe.read().split()}
    parents = {new_request_id()[-16:] for _ in range(300)}
    assert len(childs) == 10
    assert not childs & parents
