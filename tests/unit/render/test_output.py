"""Output transforms: exact sizes, no enlargement, trim bounds, backgrounds, formats, fringes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from carimg.render import DerivedImage, OutputSpec, OutputSpecError, alpha_bounds, derive


@pytest.fixture(scope="module")
def source() -> np.ndarray:
    """A white opaque 500² square on a transparent background whose colour channels are black."""
    rgba = np.zeros((1024, 1024, 4), dtype=np.uint8)
    rgba[150:650, 350:850] = (255, 255, 255, 255)
    return rgba


def _open(img: DerivedImage) -> Image.Image:
    return Image.open(io.BytesIO(img.data))


def test_width_fits_inside(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=512))
    assert (out.width, out.height) == (512, 512)
    assert _open(out).size == (512, 512)


def test_never_enlarges_past_the_source(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=2048, height=3000))
    assert (out.width, out.height) == (1024, 1024)


def test_contain_gives_the_exact_box(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=400, height=300, fit="contain", background="white"))
    assert _open(out).size == (400, 300)
    img = np.asarray(_open(out).convert("RGBA"))
    assert tuple(img[150, 5]) == (255, 255, 255, 255)  # letterbox


def test_cover_gives_the_exact_box(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=400, height=200, fit="cover"))
    assert _open(out).size == (400, 200)


def test_trim_crops_to_alpha_bounds(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(trim=True))
    assert (out.width, out.height) == (500, 500)


def test_trim_padding_adds_margin(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(trim=True, padding=0.1))
    assert (out.width, out.height) == (600, 600)
    bounds = alpha_bounds(np.asarray(_open(out).convert("RGBA")))
    assert bounds == (50, 50, 550, 550)


def test_jpeg_has_no_alpha_and_is_flattened_on_white(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=256, format="jpg"))
    img = _open(out)
    assert out.media_type == "image/jpeg"
    assert img.mode == "RGB"
    assert min(img.getpixel((2, 2))) > 245  # type: ignore[arg-type]


def test_webp_keeps_alpha(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=256, format="webp"))
    img = _open(out)
    assert out.media_type == "image/webp"
    assert img.mode == "RGBA"
    assert img.getpixel((2, 2))[3] == 0  # type: ignore[index]


def test_hex_background_fills_transparent_pixels(source: np.ndarray) -> None:
    out = derive(source, OutputSpec(width=256, background="#336699"))
    assert _open(out).convert("RGB").getpixel((2, 2)) == (0x33, 0x66, 0x99)


def test_premultiplied_resize_has_no_dark_fringe(source: np.ndarray) -> None:
    img = np.asarray(_open(derive(source, OutputSpec(width=300))).convert("RGBA"))
    edge = (img[..., 3] > 10) & (img[..., 3] < 245)
    assert edge.sum() > 50
    assert img[..., :3][edge].min() >= 245


def test_same_spec_gives_the_same_bytes(source: np.ndarray) -> None:
    spec = OutputSpec(width=300, format="webp")
    assert derive(source, spec).data == derive(source, spec).data


@pytest.mark.parametrize(
    "kwargs",
    [{"width": 0}, {"padding": 0.6}, {"background": "pink"}, {"format": "gif"}, {"fit": "fill"}],
)
def test_invalid_specs_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(OutputSpecError):
        OutputSpec(**kwargs)  # type: ignore[arg-type]


def test_halving_averages_in_premultiplied_alpha() -> None:
    # one opaque red pixel next to three transparent black ones: the half-size pixel stays red
    # (no dark fringe) with a quarter of the alpha
    src = np.zeros((4, 4, 4), dtype=np.uint8)
    src[0, 0] = (200, 10, 20, 255)
    src[2:, 2:] = (30, 60, 90, 128)
    out = derive(src, OutputSpec(width=2, format="png"))
    px = np.asarray(Image.open(io.BytesIO(out.data)).convert("RGBA"))
    assert px.shape == (2, 2, 4)
    assert tuple(px[0, 0]) == (200, 10, 20, 64)
    assert tuple(px[1, 1]) == (30, 60, 90, 128)
    assert tuple(px[0, 1]) == (0, 0, 0, 0)
