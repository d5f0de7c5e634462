"""RenderPool: renders off the event loop, in a thread (workers=0) or worker processes."""

from __future__ import annotations

import asyncio

from carimg.render import Appearance, RenderPool, encode_source_png, render_source

APP = Appearance("honda", "civic", 2018, "hatchback")


async def test_in_process_pool_returns_the_source_png() -> None:
    with RenderPool(workers=0) as pool:
        data = await pool.render(APP, "front-3-4", "blue")
    assert data == encode_source_png(render_source(APP, "front-3-4", "blue"))


async def test_event_loop_keeps_answering_while_rendering() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    with RenderPool(workers=0) as pool:
        task = asyncio.create_task(ticker())
        await pool.render(APP, "side", "white")
        task.cancel()
    assert ticks >= 3


async def test_process_pool_renders_in_a_worker() -> None:
    pool = RenderPool(workers=1, warm_up=False)
    try:
        data = await pool.render(APP, "rear", "gray")
    finally:
        pool.close()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data == encode_source_png(render_source(APP, "rear", "gray"))
