"""The studio: an environment map of softboxes, prefiltered by roughness, and its lookup (numba).

Image-based lighting as a photographer's studio, set relative to the camera (the lights move with
it): a large overhead softbox, a horizontal strip behind the camera (the highlight band along the
shoulder), two tall softboxes either side, a rim light behind the vehicle, dark walls at the
horizon (the dark band across the flanks) and a grey floor. The map is a latitude-longitude image
in the camera's frame — f towards the camera, r to its right, u up — of radiance in linear units.

Level k of `studio_map()` is the map seen through a glossy lobe of roughness ROUGHNESS[k] (level 0
is the sharp map, the last the cosine-weighted irradiance over π, for diffuse light). Shaders look
up `env(map, d, cf, roughness)`, which blends the two nearest levels.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from carimg.render._jit import njit

W, H = 512, 256
ROUGHNESS = (0.0, 0.04, 0.09, 0.16, 0.26, 0.4, 0.6, 1.0)
DIFFUSE = len(ROUGHNESS) - 1  # the irradiance level
_SHARP_LEVELS = 4  # levels 1–3 blur the full map; rougher ones are computed at 64×32


def _soft(x: np.ndarray, lo: float, hi: float, edge: float) -> np.ndarray:
    """1 inside [lo, hi], 0 outside, with linear edges `edge` wide."""
    return np.clip((x - lo) / edge + 0.5, 0, 1) * np.clip((hi - x) / edge + 0.5, 0, 1)


def _directions(w: int, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit vectors (f, r, u) at texel centres of a w×h latitude-longitude map."""
    az = (np.arange(w) + 0.5) / w * 2 * np.pi - np.pi
    el = np.pi / 2 - (np.arange(h) + 0.5) / h * np.pi
    az, el = np.meshgrid(az, el)
    return np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)


def _radiance(w: int, h: int) -> np.ndarray:
    f, r, u = _directions(w, h)
    az = np.arctan2(r, f)
    px = 2.5 / h  # softbox edges about two texels wide: soft, as a diffuser's edge is
    # a dark floor, a little lighter towards the horizon: the lower flanks mirror it
    floor = 0.1 + 0.12 * np.clip(1 + u / 0.45, 0, 1) ** 2
    walls = 0.03 + 0.25 * np.clip((u - 0.1) / 0.8, 0, 1) ** 1.5
    # the wall behind the vehicle is lit (flat bonnets and roofs mirror it); the one behind the
    # camera stays dark (the flanks mirror it)
    walls = walls + 0.15 * _soft(u, 0.0, 0.4, 0.1) * np.clip(-f / 0.4, 0, 1)
    c = np.where(u < 0, floor, walls)
    # softboxes are flat rectangles, so their reflections keep straight, crisp edges: the
    # overhead one on the ceiling plane (u = 1), the strip on a wall facing the vehicle (f = 1)
    up = np.maximum(u, 1e-3)
    ahead = np.maximum(f, 1e-3)
    # the overhead box hangs right above the vehicle, a little behind the camera's side of it: a
    # raked windscreen or sloped rear glass seen from its own end mirrors the dark ceiling
    # beyond it, not the box
    overhead = _soft(f / up, -0.3, 0.12, 0.04) * _soft(r / up, -0.45, 0.45, 0.04) * (u > 0.05)
    c = c + 8.0 * overhead
    strip = _soft(u / ahead, 0.15, 0.24, 0.008) * _soft(r / ahead, -1.3, 1.3, 0.05) * (f > 0.05)
    c = c + 5.0 * strip
    tall = _soft(u, 0.0, 0.72, px)
    c = c + 4.5 * _soft(az, 0.95, 1.2, px) * tall + 3.0 * _soft(az, -1.2, -0.95, px) * tall
    # a rim light high behind the vehicle (high enough that a roof seen end-on stays dark)
    rim = _soft(u, 0.35, 0.65, px) * (np.abs(az) > 2.3)
    c = c + 1.2 * rim * np.clip((np.abs(az) - 2.3) / 0.2, 0, 1)
    return np.asarray(c, dtype=np.float64)


def _blur_rows(img: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Blur each row with its own Gaussian sigma (texels), wrapping around in azimuth."""
    w = img.shape[1]
    freq = np.fft.rfftfreq(w)
    spec = np.fft.rfft(img, axis=1)
    gain = np.exp(-2 * (np.pi * freq[None, :] * sigma[:, None]) ** 2)
    return np.asarray(np.fft.irfft(spec * gain, n=w, axis=1), dtype=np.float64)


def _blur_cols(img: np.ndarray, sigma: float) -> np.ndarray:
    h = img.shape[0]
    padded = np.concatenate([img[::-1], img, img[::-1]], axis=0)
    freq = np.fft.rfftfreq(3 * h)
    gain = np.exp(-2 * (np.pi * freq * sigma) ** 2)
    out = np.fft.irfft(np.fft.rfft(padded, axis=0) * gain[:, None], n=3 * h, axis=0)
    return np.asarray(out[h : 2 * h], dtype=np.float64)


def _lobe_sigma(roughness: float) -> float:
    """Angular spread (radians) of a glossy lobe of this roughness."""
    return 0.7 * roughness * roughness + 0.5 * roughness


def _gloss(sharp: np.ndarray, roughness: float) -> np.ndarray:
    """A separable Gaussian of the lobe's spread; wider in azimuth towards the poles."""
    h, w = sharp.shape
    s = _lobe_sigma(roughness) / (np.pi / h)
    el = np.pi / 2 - (np.arange(h) + 0.5) / h * np.pi
    rows = s / np.maximum(np.cos(el), 0.05)
    return _blur_cols(_blur_rows(sharp, np.minimum(rows, w)), s)


def _convolved(sharp: np.ndarray, roughness: float | None) -> np.ndarray:
    """The map convolved at 64×32 with a lobe (a vMF kernel) or, for None, the cosine lobe."""
    lw, lh = 64, 32
    small = sharp.reshape(lh, H // lh, lw, W // lw).mean(axis=(1, 3))
    f, r, u = (a.reshape(-1) for a in _directions(lw, lh))
    dirs = np.stack([f, r, u], axis=1)
    el = np.pi / 2 - (np.arange(lh) + 0.5) / lh * np.pi
    solid = np.repeat(np.cos(el), lw)
    cos = dirs @ dirs.T
    if roughness is None:
        weight = np.maximum(cos, 0.0) * solid[None, :]
    else:
        kappa = 1.0 / _lobe_sigma(roughness) ** 2
        weight = np.exp(kappa * (cos - 1.0)) * solid[None, :]
    out = (weight @ small.reshape(-1)) / weight.sum(axis=1)
    return _upsample(out.reshape(lh, lw))


def _upsample(small: np.ndarray) -> np.ndarray:
    """Bilinear upsampling of a latitude-longitude map to W×H (wrapping in azimuth)."""
    lh, lw = small.shape
    x = (np.arange(W) + 0.5) / W * lw - 0.5
    y = np.clip((np.arange(H) + 0.5) / H * lh - 0.5, 0, lh - 1)
    x0 = np.floor(x).astype(int)
    y0 = np.minimum(np.floor(y).astype(int), lh - 2)
    tx = x - x0
    ty = y - y0
    a = small[:, x0 % lw] * (1 - tx) + small[:, (x0 + 1) % lw] * tx
    return np.asarray(a[y0] * (1 - ty)[:, None] + a[y0 + 1] * ty[:, None], dtype=np.float64)


@cache
def studio_map() -> np.ndarray:
    """The prefiltered studio, (levels, H, W) float64; computed once per process."""
    sharp = _radiance(W, H)
    levels = [sharp]
    for k in range(1, len(ROUGHNESS) - 1):
        rough = ROUGHNESS[k]
        levels.append(_gloss(sharp, rough) if k < _SHARP_LEVELS else _convolved(sharp, rough))
    levels.append(_convolved(sharp, None))
    out = np.ascontiguousarray(np.stack(levels))
    out.setflags(write=False)
    return out


@njit(cache=True, nogil=True)
def _level(roughness: float) -> float:
    """The fractional map level of a roughness (levels follow ROUGHNESS)."""
    if roughness <= 0.0:
        return 0.0
    if roughness < 0.04:
        return roughness / 0.04
    if roughness < 0.09:
        return 1.0 + (roughness - 0.04) / 0.05
    if roughness < 0.16:
        return 2.0 + (roughness - 0.09) / 0.07
    if roughness < 0.26:
        return 3.0 + (roughness - 0.16) / 0.1
    if roughness < 0.4:
        return 4.0 + (roughness - 0.26) / 0.14
    if roughness < 0.6:
        return 5.0 + (roughness - 0.4) / 0.2
    return 6.0 + min((roughness - 0.6) / 0.4, 1.0)


@njit(cache=True, nogil=True)
def _texel(smap: np.ndarray, lv: int, fx: float, fy: float) -> float:
    h = smap.shape[1]
    w = smap.shape[2]
    x0 = math.floor(fx)
    y0 = math.floor(fy)
    tx = fx - x0
    ty = fy - y0
    xa = int(x0) % w
    xb = (xa + 1) % w
    ya = min(max(int(y0), 0), h - 1)
    yb = min(ya + 1, h - 1)
    top = smap[lv, ya, xa] * (1.0 - tx) + smap[lv, ya, xb] * tx
    bot = smap[lv, yb, xa] * (1.0 - tx) + smap[lv, yb, xb] * tx
    return float(top * (1.0 - ty) + bot * ty)


@njit(cache=True, nogil=True)
def env(
    smap: np.ndarray, dx: float, dy: float, dz: float, cfx: float, cfy: float, roughness: float
) -> float:
    """Studio radiance seen along world direction d through a lobe of `roughness`.

    (cfx, cfy) is the horizontal unit vector from the vehicle to the camera.
    """
    f = dx * cfx + dy * cfy
    r = -dx * cfy + dy * cfx
    u = min(max(dz, -1.0), 1.0)
    h = smap.shape[1]
    w = smap.shape[2]
    fx = (math.atan2(r, f) + math.pi) / (2.0 * math.pi) * w - 0.5
    fy = (0.5 * math.pi - math.asin(u)) / math.pi * h - 0.5
    lv = _level(roughness)
    k = int(lv)
    if k >= smap.shape[0] - 2:
        k = smap.shape[0] - 2
        t = min(lv - k, 1.0)
    else:
        t = lv - k
    a = _texel(smap, k, fx, fy)
    if t <= 0.0:
        return a
    return float(a * (1.0 - t) + _texel(smap, k + 1, fx, fy) * t)


@njit(cache=True, nogil=True)
def irradiance(smap: np.ndarray, nx: float, ny: float, nz: float, cfx: float, cfy: float) -> float:
    """Diffuse light arriving at a surface of normal n (over π: a white surface's radiance)."""
    h = smap.shape[1]
    w = smap.shape[2]
    f = nx * cfx + ny * cfy
    r = -nx * cfy + ny * cfx
    u = min(max(nz, -1.0), 1.0)
    fx = (math.atan2(r, f) + math.pi) / (2.0 * math.pi) * w - 0.5
    fy = (0.5 * math.pi - math.asin(u)) / math.pi * h - 0.5
    return _texel(smap, smap.shape[0] - 1, fx, fy)
