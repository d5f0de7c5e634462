"""`python -m carimg.render.warm`: compile the renderer's numba kernels into their on-disk cache.

Run once after installing (`make` does), so the first render a server makes takes about a second,
not the half minute numba needs to compile every kernel from scratch.
"""

from __future__ import annotations

import time

from carimg.render._appearance import Appearance
from carimg.render._output import OutputSpec, derive
from carimg.render._render import render_source


def main() -> None:
    started = time.perf_counter()
    for body_style in ("hatchback", "motorcycle", "auto-rickshaw"):
        rgba = render_source(Appearance("carimg", "warmup", 2020, body_style), "side", "white")
    derive(rgba, OutputSpec(width=512, format="webp"))
    print(f"renderer kernels ready ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
