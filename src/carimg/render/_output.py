"""Output transforms: a cached 1024² source render → the size, fit, background and format asked for.

The steps run in order (trim → pad → fit/resize → background → encode), each a small function over
frozen values. Resizing happens in premultiplied alpha (Pillow's RGBa), so edges never pick up the
colour of transparent pixels (no dark fringes).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from carimg.formats import MEDIA_TYPES
from carimg.render._jit import njit
from carimg.render._reflection import floor_reflection

Fit = Literal["contain", "cover", "inside"]
Format = Literal["png", "webp", "jpg"]

SIZE_PRESETS: Final[dict[str, int]] = {"thumb": 256, "small": 512, "medium": 768, "large": 1024}
MAX_BOX: Final = 4096
TRIM_ALPHA: Final = 8  # alpha at or below this (about 3 %) counts as empty when trimming

# Encoder settings (see docs/RENDERER.md for the size/quality measurements behind them).
PNG_COMPRESS_LEVEL: Final = 6
WEBP_QUALITY: Final = 82
WEBP_ALPHA_QUALITY: Final = 90
WEBP_METHOD: Final = 2
JPEG_QUALITY: Final = 86

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


class OutputSpecError(ValueError):
    """An output spec value is out of range or unknown."""


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What the caller wants from a source render. Sizes never enlarge past the source."""

    width: int | None = None
    height: int | None = None
    fit: Fit = "inside"
    trim: bool = False
    padding: float = 0.0
    background: str = "transparent"  # transparent | white | black | #rrggbb
    format: Format = "png"
    reflection: bool = False  # a faint floor reflection (needs a background to lie on)

    def __post_init__(self) -> None:
        for name, v in (("width", self.width), ("height", self.height)):
            if v is not None and not 1 <= v <= MAX_BOX:
                raise OutputSpecError(f"{name} must be 1–{MAX_BOX}")
        if self.fit not in ("contain", "cover", "inside"):
            raise OutputSpecError("fit must be contain, cover or inside")
        if not 0.0 <= self.padding <= 0.5:
            raise OutputSpecError("padding must be between 0 and 0.5")
        if self.format not in MEDIA_TYPES:
            raise OutputSpecError("format must be png, webp or jpg")
        if self.reflection and background_rgba(self.background)[3] == 0 and self.format != "jpg":
            raise OutputSpecError("reflection needs a background other than transparent")
        background_rgba(self.background)


@dataclass(frozen=True, slots=True)
class DerivedImage:
    """Encoded bytes of a derived image and its pixel size."""

    data: bytes
    width: int
    height: int
    media_type: str


def background_rgba(value: str) -> tuple[int, int, int, int]:
    v = value.strip().lower()
    if v == "transparent":
        return (0, 0, 0, 0)
    if v == "white":
        return (255, 255, 255, 255)
    if v == "black":
        return (0, 0, 0, 255)
    if _HEX.match(v):
        return (int(v[1:3], 16), int(v[3:5], 16), int(v[5:7], 16), 255)
    raise OutputSpecError("background must be transparent, white, black or #rrggbb")


def alpha_bounds(rgba: NDArray[np.uint8]) -> tuple[int, int, int, int] | None:
    """(left, top, right, bottom) of pixels with alpha above TRIM_ALPHA, or None if empty."""
    mask = rgba[..., 3] > TRIM_ALPHA
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def trim(img: Image.Image, padding: float) -> Image.Image:
    """Crop to the alpha bounds, then add `padding` × the larger side of transparent margin."""
    box = alpha_bounds(np.asarray(img))
    if box is None:
        return img
    cropped = img.crop(box)
    pad = round(padding * max(cropped.size))
    if pad == 0:
        return cropped
    out = Image.new("RGBA", (cropped.width + 2 * pad, cropped.height + 2 * pad), (0, 0, 0, 0))
    out.paste(cropped, (pad, pad))
    return out


@njit(cache=True, nogil=True)
def _halve_premultiplied(src: np.ndarray, out: np.ndarray) -> None:
    """2×2 box reduction of straight-alpha RGBA, averaged in premultiplied alpha (no fringes).

    One pass over uint8 with integer sums: colour = Σ(c·a) / Σa, alpha = Σa / 4, both rounded.
    """
    h, w = out.shape[0], out.shape[1]
    for y in range(h):
        for x in range(w):
            sa = 0
            sr = 0
            sg = 0
            sb = 0
            for j in range(2):
                for i in range(2):
                    a = int(src[2 * y + j, 2 * x + i, 3])
                    sa += a
                    sr += a * int(src[2 * y + j, 2 * x + i, 0])
                    sg += a * int(src[2 * y + j, 2 * x + i, 1])
                    sb += a * int(src[2 * y + j, 2 * x + i, 2])
            if sa == 0:
                out[y, x, 0] = 0
                out[y, x, 1] = 0
                out[y, x, 2] = 0
                out[y, x, 3] = 0
                continue
            half = sa // 2
            out[y, x, 0] = (sr + half) // sa
            out[y, x, 1] = (sg + half) // sa
            out[y, x, 2] = (sb + half) // sa
            out[y, x, 3] = (sa + 2) // 4


def _resize(img: Image.Image, size: tuple[int, int]) -> Image.Image:
    if img.size == size:
        return img
    if img.width == 2 * size[0] and img.height == 2 * size[1] and img.mode == "RGBA":
        # the common case (1024 source → 512): one numba pass instead of three Pillow passes
        out = np.empty((size[1], size[0], 4), dtype=np.uint8)
        _halve_premultiplied(np.ascontiguousarray(np.asarray(img)), out)
        return Image.fromarray(out, "RGBA")
    premultiplied = img.convert("RGBa")
    if img.width == 2 * size[0] and img.height == 2 * size[1]:
        small = premultiplied.reduce(2)
    else:
        small = premultiplied.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    return small.convert("RGBA")


def fit(img: Image.Image, spec: OutputSpec) -> Image.Image:
    """Scale to the spec's box without enlarging; exact boxes for contain/cover with w and h."""
    w0, h0 = img.size
    w, h = spec.width, spec.height
    if w is None and h is None:
        return img
    if w is not None and h is not None and spec.fit in ("contain", "cover"):
        if spec.fit == "contain":
            scale = min(w / w0, h / h0, 1.0)
            inner = _resize(img, (max(1, round(w0 * scale)), max(1, round(h0 * scale))))
        else:
            scale = min(max(w / w0, h / h0), 1.0)
            scaled = _resize(img, (max(1, round(w0 * scale)), max(1, round(h0 * scale))))
            cw, ch = min(w, scaled.width), min(h, scaled.height)
            left, top = (scaled.width - cw) // 2, (scaled.height - ch) // 2
            inner = scaled.crop((left, top, left + cw, top + ch))
        canvas = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        canvas.paste(inner, ((w - inner.width) // 2, (h - inner.height) // 2))
        return canvas
    scale = min(w / w0 if w is not None else 1.0, h / h0 if h is not None else 1.0, 1.0)
    return _resize(img, (max(1, round(w0 * scale)), max(1, round(h0 * scale))))


def flatten(img: Image.Image, background: str, fmt: str, reflection: bool = False) -> Image.Image:
    """Composite over the background (with a floor reflection); JPEG falls back to white."""
    bg = background_rgba(background)
    if bg[3] == 0 and fmt != "jpg":
        return img
    if bg[3] == 0:
        bg = (255, 255, 255, 255)
    base = Image.new("RGBA", img.size, bg)
    if reflection:
        base.alpha_composite(floor_reflection(img))
    base.alpha_composite(img)
    return base


def encode(img: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    elif fmt == "webp":
        img.save(
            buf, "WEBP", quality=WEBP_QUALITY, alpha_quality=WEBP_ALPHA_QUALITY, method=WEBP_METHOD
        )
    else:
        img.convert("RGB").save(buf, "JPEG", quality=JPEG_QUALITY, optimize=True, subsampling=2)
    return buf.getvalue()


def derive(source: NDArray[np.uint8], spec: OutputSpec) -> DerivedImage:
    """Apply trim, padding, fit, background and format to a source render."""
    img = Image.fromarray(np.ascontiguousarray(source), "RGBA")
    if spec.trim:
        img = trim(img, spec.padding)
    img = fit(img, spec)
    img = flatten(img, spec.background, spec.format, spec.reflection)
    return DerivedImage(
        data=encode(img, spec.format),
        width=img.width,
        height=img.height,
        media_type=MEDIA_TYPES[spec.format],
    )
