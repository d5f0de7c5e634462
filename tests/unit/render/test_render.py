"""Source renders: determinism, alpha, every body style at every view, mirrored sides, inputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from carimg.render import (
    BODY_STYLES,
    VIEW_YAWS,
    Appearance,
    PaintError,
    SourceRender,
    ViewError,
    encode_source_png,
    render_source,
)

SmallRender = Callable[..., SourceRender]

CAMRY = Appearance("toyota", "camry", 2020, "sedan")


@pytest.fixture(scope="module")
def camry_side() -> np.ndarray:
    return render_source(CAMRY, "side", "red")


def test_same_inputs_give_the_same_png_bytes(camry_side: np.ndarray) -> None:
    again = render_source(CAMRY, "side", "red")
    assert encode_source_png(camry_side) == encode_source_png(again)


def test_source_is_1024_square_rgba(camry_side: np.ndarray) -> None:
    assert camry_side.shape == (1024, 1024, 4)
    assert camry_side.dtype == np.uint8


def test_variation_changes_the_render(small_render: SmallRender) -> None:
    a = Appearance("toyota", "camry", 2020, "sedan")
    from carimg.render import render_source_layers

    one = render_source_layers(a, "side", "red", size=256).rgba
    other = render_source_layers(
        Appearance("toyota", "camry", 2020, "sedan", variation=1), "side", "red", size=256
    ).rgba
    assert not np.array_equal(one, other)


def test_corners_are_transparent(camry_side: np.ndarray) -> None:
    alpha = camry_side[..., 3]
    for corner in (alpha[:40, :40], alpha[:40, -40:], alpha[-40:, :40], alpha[-40:, -40:]):
        assert corner.max() == 0


def test_body_is_opaque(camry_side: np.ndarray) -> None:
    alpha = camry_side[..., 3]
    assert alpha[512, 512] == 255
    assert (alpha == 255).mean() > 0.1


def test_contact_shadow_is_partial_alpha_under_the_vehicle(camry_side: np.ndarray) -> None:
    alpha = camry_side[..., 3].astype(int)
    opaque_rows = np.flatnonzero((alpha == 255).any(axis=1))
    below = alpha[opaque_rows[-1] + 2 : opaque_rows[-1] + 12, 300:724]
    assert 0 < below.max() < 255
    assert ((below > 0) & (below < 255)).mean() > 0.5


def test_edges_are_antialiased(camry_side: np.ndarray) -> None:
    alpha = camry_side[..., 3]
    top_half = alpha[:512]  # no shadow above the vehicle: only silhouette edges
    partial = ((top_half > 0) & (top_half < 255)).sum()
    assert partial > 200


def test_side_view_fills_about_80_percent_of_the_width(camry_side: np.ndarray) -> None:
    cols = np.flatnonzero((camry_side[..., 3] == 255).any(axis=0))
    width = (cols[-1] - cols[0]) / 1024
    assert 0.72 < width < 0.86
    assert abs((cols[0] + cols[-1]) / 2 - 512) < 20


@pytest.mark.parametrize("style", BODY_STYLES)
def test_every_body_style_renders_at_every_view(small_render: SmallRender, style: str) -> None:
    for view in VIEW_YAWS:
        rgba = small_render(style, view).rgba
        alpha = rgba[..., 3]
        opaque = alpha == 255
        assert opaque.mean() > 0.03, view
        rows = np.flatnonzero(opaque.any(axis=1))
        cols = np.flatnonzero(opaque.any(axis=0))
        assert rows[0] > 0 and rows[-1] < 255 and cols[0] > 0 and cols[-1] < 255, view
        assert rgba[..., :3][opaque].std() > 5, view  # shaded, not a flat silhouette


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


@pytest.mark.parametrize("style", ["sedan", "pickup", "minivan", "motorcycle", "auto-rickshaw"])
def test_side_right_silhouette_mirrors_side(small_render: SmallRender, style: str) -> None:
    left = small_render(style, "side").rgba[..., 3] > 127
    right = small_render(style, "side-right").rgba[..., 3] > 127
    assert _iou(left, right[:, ::-1]) > 0.97


def test_side_faces_left(small_render: SmallRender) -> None:
    # the front of a car is lower than its roof: the left end of the side view is its nose
    alpha = small_render("sedan", "side").rgba[..., 3] == 255
    cols = np.flatnonzero(alpha.any(axis=0))
    top_of = [int(np.flatnonzero(alpha[:, c])[0]) for c in (cols[0] + 8, cols[-1] - 8)]
    nose_mask = small_render("sedan", "front").paint_mask
    assert nose_mask.sum() > 0
    assert top_of[0] >= top_of[1] - 3  # nose (left) no higher than tail (right)


def test_hex_paint_equals_the_non_metallic_preset_of_the_same_hex(
    small_render: SmallRender,
) -> None:
    assert np.array_equal(
        small_render("sedan", "side", "blue").rgba, small_render("sedan", "side", "#1F4E9A").rgba
    )


def test_any_yaw_is_accepted() -> None:
    from carimg.render import render_source_layers

    r = render_source_layers(CAMRY, None, "white", yaw=200, size=128)
    assert r.rgba.shape == (128, 128, 4)


def test_unknown_view_is_refused() -> None:
    with pytest.raises(ViewError):
        render_source(CAMRY, "top", "red")


def test_unknown_paint_is_refused() -> None:
    with pytest.raises(PaintError):
        render_source(CAMRY, "side", "sparkly")


def test_unknown_body_style_is_refused() -> None:
    with pytest.raises(ValueError):
        Appearance("toyota", "camry", 2020, "spaceship")


@pytest.mark.parametrize("style", ["sedan", "pickup", "truck", "bus", "kei", "convertible"])
def test_body_shell_is_closed_so_back_faces_can_be_culled(style: str) -> None:
    from carimg.render import _materials as m
    from carimg.render._render import build_model

    mesh = build_model(Appearance("testmake", f"test-{style}", 2020, style)).mesh
    body = mesh.mats == m.BODY
    assert body.any() and mesh.closed[body].all()
    tyres = mesh.mats == m.TIRE
    assert mesh.closed[tyres].all()
    assert not mesh.closed[mesh.mats == m.RIM].any()  # open discs are drawn from both sides


def test_culling_back_faces_does_not_change_the_image() -> None:
    from carimg.render import _render as r

    model = r.build_model(CAMRY)
    culled = r.render_model(model, 35.0, "red", size=192).rgba
    mesh = model.mesh
    unculled_mesh = type(mesh)(
        mesh.verts, mesh.normals, mesh.attrs, mesh.tris, mesh.mats, mesh.parts,
        np.zeros_like(mesh.closed), mesh.outward,
    )  # fmt: skip
    unculled = r.render_model(
        type(model)(unculled_mesh, model.decal, model.profile), 35.0, "red", size=192
    ).rgba
    diff = np.abs(culled.astype(int) - unculled.astype(int))
    assert (diff.max(axis=2) > 8).mean() < 0.001
