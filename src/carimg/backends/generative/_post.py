"""Post-processing: a generated picture of a vehicle → a source render by the renderer's contract.

The contract (`carimg.render`): 1024×1024 RGBA with straight alpha, a transparent background, the
vehicle centred and framed as the procedural camera frames it, standing on a soft contact shadow.

1. Decode whatever the model sent (PNG, WebP or JPEG) to RGBA.
2. Transparency: when the model returned a cut-out (a clear share of fully transparent pixels),
   its alpha is kept. Otherwise the **matte step** removes the background: the background colour
   is the median of the picture's outer 4-pixel border; every border pixel within `MATTE_TOLERANCE`
   of it seeds a flood fill (so only background connected to the edge is removed, never a white
   roof inside the vehicle), and the fill's edge is feathered by a 1-pixel blur.
3. Framing: the vehicle's alpha bounds are scaled to the share of the square the procedural camera
   gives it (62–80 % of the width by yaw, at most 72 % of the height) and centred.
4. The contact shadow: two blurred ellipses under the vehicle (a tight dark contact and a wide
   soft ambient), flattened by the procedural camera's elevation (`ELEVATION_DEG`) and as wide
   beside the vehicle as the procedural ambient shadow (measured by view).
"""

from __future__ import annotations

import io
import math
from typing import Final

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFilter

from carimg.render import (
    ELEVATION_DEG,
    SOURCE_SIZE,
    VIEW_YAWS,
    alpha_bounds,
    encode_source_png,
)

MATTE_TOLERANCE: Final = 40  # per channel sum distance (PIL flood-fill threshold)
_CLEAR: Final = 0.02  # share of fully transparent pixels that counts as a returned cut-out
_ELEVATION: Final = math.radians(ELEVATION_DEG)  # the procedural camera's
_LENGTH_OVER_WIDTH: Final = 2.5  # a typical car's footprint, for the shadow's depth
_MARK: Final = (255, 0, 254)


class MalformedImage(ValueError):
    """The model's answer is not a usable picture of a vehicle."""


def decode(data: bytes) -> Image.Image:
    """The model's bytes as an RGBA image (MalformedImage when they are not a picture)."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
            return opened.convert("RGBA")
    except (OSError, ValueError, Image.DecompressionBombError) as error:
        raise MalformedImage(f"not an image: {type(error).__name__}") from error


def as_png(data: bytes) -> bytes:
    """The model's picture re-encoded as PNG (what an edit takes as its input image)."""
    buf = io.BytesIO()
    decode(data).save(buf, "PNG")
    return buf.getvalue()


def has_cutout(image: Image.Image) -> bool:
    alpha = np.asarray(image.getchannel("A"))
    return bool((alpha == 0).mean() >= _CLEAR)


def matte(image: Image.Image, tolerance: int = MATTE_TOLERANCE) -> Image.Image:
    """The image with its edge-connected background made transparent (see the module's step 2)."""
    rgb = image.convert("RGB")
    pixels: NDArray[np.uint8] = np.asarray(rgb)
    border = np.concatenate(
        [pixels[:4].reshape(-1, 3), pixels[-4:].reshape(-1, 3),
         pixels[:, :4].reshape(-1, 3), pixels[:, -4:].reshape(-1, 3)]
    )  # fmt: skip
    background = np.median(border, axis=0)
    filled = rgb.copy()
    h, w = pixels.shape[:2]
    step = max(1, min(w, h) // 64)
    seeds = [(x, y) for x in range(0, w, step) for y in (0, h - 1)]
    seeds += [(x, y) for y in range(0, h, step) for x in (0, w - 1)]
    for x, y in seeds:
        here = np.asarray(filled.getpixel((x, y)))
        if tuple(here) == _MARK or np.abs(pixels[y, x] - background).sum() > tolerance:
            continue
        ImageDraw.floodfill(filled, (x, y), _MARK, thresh=tolerance)
    marked = np.all(np.asarray(filled) == _MARK, axis=2) & np.any(pixels != _MARK, axis=2)
    alpha = Image.fromarray(np.where(marked, 0, 255).astype(np.uint8), "L")
    alpha = alpha.filter(ImageFilter.GaussianBlur(1.0))
    kept = np.minimum(np.asarray(alpha), np.asarray(image.getchannel("A")))
    out = image.copy()
    out.putalpha(Image.fromarray(kept.astype(np.uint8), "L"))
    return out


def framing(view: str) -> tuple[float, float]:
    """(width share, height share) of the square the procedural camera gives a vehicle."""
    side = abs(math.sin(math.radians(VIEW_YAWS[view])))
    return 0.62 + 0.18 * min(1.0, side / 0.5), 0.72


def frame(image: Image.Image, view: str, size: int = SOURCE_SIZE) -> Image.Image:
    """The vehicle cropped to its alpha bounds, scaled and centred as the procedural renders."""
    box = alpha_bounds(np.asarray(image))
    if box is None:
        raise MalformedImage("the picture shows nothing once its background is removed")
    vehicle = image.crop(box)
    share_w, share_h = framing(view)
    scale = min(share_w * size / vehicle.width, share_h * size / vehicle.height)
    width, height = max(1, round(vehicle.width * scale)), max(1, round(vehicle.height * scale))
    vehicle = vehicle.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=3.0)
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    out.alpha_composite(vehicle, ((size - width) // 2, (size - height) // 2))
    return out


def _ellipse(size: int, centre: tuple[float, float], radii: tuple[float, float], blur: float,
             strength: float) -> NDArray[np.float64]:  # fmt: skip
    layer = Image.new("L", (size, size), 0)
    (cx, cy), (rx, ry) = centre, radii
    ImageDraw.Draw(layer).ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=255)
    layer = layer.filter(ImageFilter.GaussianBlur(blur))
    return np.asarray(layer, dtype=np.float64) / 255.0 * strength


def contact_shadow(image: Image.Image, view: str) -> Image.Image:
    """The framed vehicle over a soft contact shadow (black, straight alpha, as composited)."""
    rgba = np.asarray(image, dtype=np.float64) / 255.0
    box = alpha_bounds(np.asarray(image))
    if box is None:
        return image
    left, _, right, bottom = box
    width = right - left
    yaw = math.radians(VIEW_YAWS[view])
    across = _LENGTH_OVER_WIDTH * abs(math.cos(yaw)) + abs(math.sin(yaw))
    along = _LENGTH_OVER_WIDTH * abs(math.sin(yaw)) + abs(math.cos(yaw))
    depth = width * math.sin(_ELEVATION) * across / along  # the footprint's apparent height
    centre = ((left + right) / 2, bottom - depth * 0.25)
    size = image.width
    # the procedural ambient shadow spreads wider beside a vehicle seen end-on (measured)
    spread = 0.548 + 0.092 * abs(math.cos(yaw)) ** 12
    contact = _ellipse(size, centre, (width * 0.44, depth * 0.42), max(2.0, width * 0.004), 0.85)
    ambient = _ellipse(size, centre, (width * spread, depth * 0.5), max(4.0, width * 0.012), 0.5)
    shadow = 1.0 - (1.0 - contact) * (1.0 - ambient)
    a = rgba[..., 3]
    out_a = a + (1.0 - a) * shadow
    safe = np.where(out_a > 0, out_a, 1.0)
    rgb = rgba[..., :3] * (a / safe)[..., None]  # the shadow is black
    out = np.dstack([rgb, out_a])
    return Image.fromarray(np.round(out * 255.0).astype(np.uint8), "RGBA")


def to_source(data: bytes, view: str) -> bytes:
    """The model's picture of `view` as a source render's PNG bytes (see the module's steps)."""
    image = decode(data)
    if not has_cutout(image):
        image = matte(image)
    framed = frame(image, view)
    return encode_source_png(np.asarray(contact_shadow(framed, view)))
