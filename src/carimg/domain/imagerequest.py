"""Image requests: the vehicle and framing parameters, validated into one ImageSpec.

The same rules serve the image endpoint's query, the URL-minting JSON bodies and the agent tools;
callers pass canonical names (`make`, `model`, `year`, `vehicle`, `view`, `color`, `finish`,
`width`, `height`, `size`, `fit`, `background`, `trim`, `padding`, `reflection`, `format`) after
resolving aliases. An image without `finish` keeps the paths, keys and ETags it had before finishes
existed; one without `reflection` those it had before reflections existed.
"""

from __future__ import annotations

import hashlib
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlencode

from carimg.catalog import Catalog, Vehicle
from carimg.domain.catalogsearch import bounded_text
from carimg.domain.errors import InvalidParameter, NotFound
from carimg.domain.views import (
    COLORS,
    DEFAULT_COLOR,
    DEFAULT_FORMAT,
    DEFAULT_VIEW,
    FINISHES,
    FORMAT_ALIASES,
    MAX_SIZE,
    SIZE_PRESETS,
    VIEW_BY_NAME,
)
from carimg.render import OutputSpec, paint_key, resolve_paint
from carimg.years import MAX_YEAR, MIN_YEAR

IMAGE_PATH: Final = "/api/v1/images/car"
MAX_NAME_LENGTH: Final = 100  # longer than any catalog name; bounds the suggestion search
FITS: Final = ("contain", "cover", "inside")
BACKGROUNDS: Final = ("transparent", "white", "black")
FORMATS_ACCEPTED: Final = ("png", "webp", "jpg", "jpeg", "auto")
_HEX = re.compile(r"#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})")
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}

Value = str | int | float | bool | None
_PATHS: dict[tuple[object, ...], str] = {}
_PARSED: weakref.WeakKeyDictionary[Catalog, dict[tuple[object, ...], ImageSpec]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, slots=True)
class ImageSpec:
    """One fully validated image: a catalog vehicle, a view, a paint and the output framing."""

    vehicle: Vehicle
    view: str
    color: str  # a preset name, or "#rrggbb"
    width: int | None
    height: int | None
    fit: str
    background: str
    trim: bool
    padding: int  # percent of the trimmed vehicle's longer side
    format: str  # png | webp | jpg, after negotiating "auto"
    negotiated: bool = False  # format came from Accept (responses then Vary on it)
    variation: int = 0  # the render's seed; feedback moves a flagged render to the next one
    finish: str | None = None  # gloss, metallic, satin or matte; None: the colour's own
    reflection: bool = False  # a faint floor reflection (only on a background)
    # variant keys by renderer version, hashed once per spec: parse_image_request hands out the
    # same spec object for the same parameters, so a hot variant is hashed once per process
    _variant_keys: dict[str, str] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    # The render asset feedback is about: vehicle × view × paint (made once: every cached
    # delivery load checks the asset's variation).
    asset_key: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "asset_key", f"{self.vehicle.id}|{self.view}|{self.paint}")

    @property
    def paint(self) -> str:
        """The renderer's paint key: the colour, with `:finish` when another finish is asked."""
        return paint_key(self.color, self.finish)

    @property
    def output(self) -> OutputSpec:
        return OutputSpec(
            width=self.width,
            height=self.height,
            fit=self.fit,  # type: ignore[arg-type]
            trim=self.trim,
            padding=self.padding / 100,
            background=self.background,
            format=self.format,  # type: ignore[arg-type]
            reflection=self.reflection,
        )

    def source_key(self, renderer_version: str) -> str:
        """The cached source render this image derives from: vehicle × view × paint × seed."""
        parts = (renderer_version, self.vehicle.id, self.view, self.paint, str(self.variation))
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:40] + ".png"

    def variant_key(self, renderer_version: str) -> str:
        """Identity of the delivered bytes: the source plus every output choice."""
        key = self._variant_keys.get(renderer_version)  # asked several times a request
        if key is None:
            parts: tuple[str, ...] = (
                self.source_key(renderer_version),
                str(self.width), str(self.height), self.fit, self.background, str(self.trim),
                str(self.padding), self.format,
            )  # fmt: skip
            if self.reflection:  # only then: keys from before reflections stay the same
                parts += ("reflection",)
            key = hashlib.sha256("|".join(parts).encode()).hexdigest()[:40] + "." + self.format
            self._variant_keys[renderer_version] = key
        return key

    def params(self) -> dict[str, str | int]:
        """Canonical query parameters, in the spec's names and make spelling."""
        params = vehicle_query(self.vehicle, self.view, self.color, self.finish)
        if self.width is not None:
            params["w"] = self.width
        if self.height is not None:
            params["h"] = self.height
        if self.fit != "contain":
            params["fit"] = self.fit
        if self.background != "transparent":
            params["background"] = self.background
        if self.reflection:
            params["reflection"] = "true"
        if self.trim:
            params |= {"trim": "true", "padding": self.padding}
        params["format"] = self.format
        return params

    def canonical_path(self) -> str:
        choices = (
            self.vehicle.id, self.view, self.color, self.finish, self.width, self.height,
            self.fit, self.background, self.reflection, self.trim, self.padding, self.format,
        )  # fmt: skip
        path = _PATHS.get(choices)  # a header of every paid image: encode once
        if path is None:
            if len(_PATHS) >= 50_000:
                _PATHS.clear()
            path = _PATHS[choices] = f"{IMAGE_PATH}?{urlencode(self.params())}"
        return path

    def record(self) -> dict[str, str | int | bool | None]:
        """Every choice under the names `parse_image_request` reads (to store and re-parse);
        `reflection` only when asked (records from before reflections have none)."""
        record: dict[str, str | int | bool | None] = {
            **vehicle_query(self.vehicle, self.view, self.color, self.finish),
            "width": self.width,
            "height": self.height,
            "fit": self.fit,
            "background": self.background,
            "trim": self.trim,
            "padding": self.padding if self.trim else None,
            "format": self.format,
        }
        if self.reflection:
            record["reflection"] = True
        return record

    def vehicle_params(self) -> dict[str, str | int]:
        """The spec's VehicleParams: make and model slugs, year, view, color, size, format (and
        finish, when not the colour's own)."""
        params = vehicle_query(self.vehicle, self.view, self.color, self.finish)
        if self.width is not None:
            params["width"] = self.width
        if self.height is not None:
            params["height"] = self.height
        return params | {"format": self.format}

    def expected_size(self) -> tuple[int, int]:
        """Output pixels before rendering: exact, except trimmed images (then an upper bound)."""
        width, height = self.width, self.height
        if width is None and height is None:
            return MAX_SIZE, MAX_SIZE
        if width is None or height is None:
            side = width or height or MAX_SIZE
            return side, side
        if self.fit == "inside":
            side = min(width, height)
            return side, side
        return width, height


def vehicle_query(
    vehicle: Vehicle, view: str | None = None, color: str | None = None, finish: str | None = None
) -> dict[str, str | int]:
    """make, model, year (and view, color and finish when given) in the image endpoint's names."""
    query: dict[str, str | int] = {
        "make": vehicle.make.slug,
        "model": vehicle.model.slug,
        "year": vehicle.year,
    }
    if view is not None:
        query["view"] = view
    if color is not None:
        query["color"] = color
    if finish is not None:
        query["finish"] = finish
    return query


def image_path(vehicle: Vehicle) -> str:
    return f"{IMAGE_PATH}?{urlencode(vehicle_query(vehicle))}"


def _text(params: Mapping[str, Value], name: str) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).strip()
    return text or None


def _integer(params: Mapping[str, Value], name: str, low: int, high: int) -> int | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise InvalidParameter(name, f"'{name}' must be a whole number from {low} to {high}.")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidParameter(
            name, f"'{name}' must be a whole number from {low} to {high}."
        ) from None
    if not low <= number <= high:
        raise InvalidParameter(name, f"'{name}' must be from {low} to {high}; got {number}.")
    return number


def _choice(params: Mapping[str, Value], name: str, choices: tuple[str, ...]) -> str | None:
    value = _text(params, name)
    if value is None:
        return None
    if value.lower() not in choices:
        raise InvalidParameter(
            name,
            f"'{name}' must be one of {', '.join(choices)}; got '{value}'.",
            allowed=list(choices),
        )
    return value.lower()


def parse_color(value: str, parameter: str = "color") -> str:
    """One of the 15 presets, or any hex (`1a2b3c`, `#1a2b3c`, `#abc`) as `#rrggbb`."""
    lowered = value.strip().lower()
    if lowered in COLORS:
        return lowered
    match = _HEX.fullmatch(lowered)
    if match:
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(ch * 2 for ch in digits)
        return f"#{digits}"
    raise InvalidParameter(
        parameter,
        f"'{value}' is not a color: use one of {', '.join(COLORS)} or a hex like #1a2b3c.",
        allowed=list(COLORS),
    )


def parse_finish(value: str | None, color: str) -> str | None:
    """gloss, metallic, satin or matte (any case) for a parsed `color`; None for the colour's own
    finish, asked for or not (one image, one key: `red` and `red` in gloss are the same)."""
    finish = _choice({"finish": value}, "finish", tuple(FINISHES))
    return None if finish == resolve_paint(color)[1] else finish


def parse_view(value: str, parameter: str = "view") -> str:
    view = VIEW_BY_NAME.get(value.strip().lower())
    if view is None:
        raise InvalidParameter(
            parameter,
            f"'{value}' is not a view: use one of {', '.join(sorted(VIEW_BY_NAME))}.",
            allowed=sorted(VIEW_BY_NAME),
        )
    return view


def _flag(params: Mapping[str, Value], name: str) -> bool:
    value = _text(params, name)
    if value is None:
        return False
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise InvalidParameter(name, f"'{name}' must be true or false.")


def negotiate_format(accept: str | None) -> str:
    """`format=auto`: WebP when the client accepts it, otherwise PNG."""
    return "webp" if accept and "image/webp" in accept.lower() else "png"


def resolve_vehicle(catalog: Catalog, params: Mapping[str, Value]) -> Vehicle:
    """The catalog vehicle named by `vehicle`, or by make, model and year (404 with suggestions)."""
    vehicle_id = _text(params, "vehicle")
    named = [name for name in ("make", "model", "year") if params.get(name) not in (None, "")]
    if vehicle_id is not None:
        if named:
            raise InvalidParameter(
                "vehicle", f"Send either 'vehicle' or make/model/year, not both ({named[0]})."
            )
        found = catalog.vehicle_by_id(vehicle_id)
        if found is None:
            raise NotFound(f"No catalog vehicle with id '{vehicle_id}'.")
        return found
    make, model = _text(params, "make"), _text(params, "model")
    for name, text in (("make", make), ("model", model)):
        if text is not None and len(text) > MAX_NAME_LENGTH:
            raise InvalidParameter(name, f"'{name}' is at most {MAX_NAME_LENGTH} characters.")
    year = _integer(params, "year", MIN_YEAR, MAX_YEAR)
    for name, value in (("make", make), ("model", model), ("year", year)):
        if value is None:
            raise InvalidParameter(name, f"'{name}' is required (or send a catalog 'vehicle' id).")
    assert make is not None and model is not None and year is not None
    found = catalog.find_vehicle(make, model, year)
    if found is None:
        raise vehicle_not_found(catalog, make, model, year)
    return found


def vehicle_not_found(catalog: Catalog, make: str, model: str, year: int) -> NotFound:
    """404 for a vehicle miss, with up to five catalog vehicles close to what was asked."""
    suggestions: list[Vehicle] = []
    for hit in catalog.search(bounded_text(f"{make} {model}"), limit=10):
        if hit.model is None:
            continue
        nearest = min(hit.model.years, key=lambda y: (abs(y - year), -y))
        suggestions.append(catalog.vehicle(hit.model, nearest))
        if len(suggestions) == 5:
            break
    listed = "; ".join(
        f"{v.make.name} {v.model.name} {v.year} ({v.id}, {image_path(v)})" for v in suggestions
    )
    detail = f"No {make} {model} {year} in the catalog."
    if listed:
        detail += f" Closest: {listed}."
    return NotFound(
        detail,
        suggestions=[
            {
                "id": v.id,
                "make": v.make.slug,
                "model": v.model.slug,
                "year": v.year,
                "name": f"{v.make.name} {v.model.name} {v.year}",
                "image_path": image_path(v),
            }
            for v in suggestions
        ],
    )


def parse_image_request(
    catalog: Catalog, params: Mapping[str, Value], *, accept: str | None = None
) -> ImageSpec:
    """Validate every parameter (400) and find the vehicle (404); nothing is charged here.

    The catalog never changes, so the same parameters always give the same spec: specs are
    remembered per catalog (failures are not). The key keeps the parameters' order (the same
    query in another order is remembered apart) and their types (`1` is not `True`)."""
    key = (accept, tuple(params.items()), tuple(map(type, params.values())))
    parsed = _PARSED.get(catalog)
    if parsed is None:
        parsed = _PARSED[catalog] = {}
    spec = parsed.get(key)
    if spec is None:
        spec = _parse_image_request(catalog, params, accept)
        if len(parsed) >= 50_000:
            parsed.clear()
        parsed[key] = spec
    return spec


def _parse_image_request(
    catalog: Catalog, params: Mapping[str, Value], accept: str | None
) -> ImageSpec:
    view = parse_view(_text(params, "view") or DEFAULT_VIEW)
    color = parse_color(_text(params, "color") or DEFAULT_COLOR)
    finish = parse_finish(_text(params, "finish"), color)
    width = _integer(params, "width", 1, MAX_SIZE)
    height = _integer(params, "height", 1, MAX_SIZE)
    size = _choice(params, "size", tuple(SIZE_PRESETS))
    if size is not None and width is None and height is None:
        width = SIZE_PRESETS[size]
    fit = _choice(params, "fit", FITS) or "contain"
    requested_format = _choice(params, "format", FORMATS_ACCEPTED) or DEFAULT_FORMAT
    negotiated = requested_format == "auto"
    image_format = (
        negotiate_format(accept)
        if negotiated
        else FORMAT_ALIASES.get(requested_format, requested_format)
    )
    background = _text(params, "background")
    if background is None:
        background = "white" if image_format == "jpg" else "transparent"
    elif background.lower() in BACKGROUNDS:
        background = background.lower()
    else:
        background = parse_color(background, "background")
        if background in COLORS:  # a preset name is not a background; only hex is
            raise InvalidParameter(
                "background", "'background' is transparent, white, black or a hex color."
            )
    if background == "transparent" and image_format == "jpg":
        raise InvalidParameter(
            "background", "JPEG has no transparency: use png or webp, or another background."
        )
    trim = _flag(params, "trim")
    padding = _integer(params, "padding", 0, 50)
    if padding is not None and not trim:
        raise InvalidParameter("padding", "'padding' frames a trimmed image; send trim=true too.")
    reflection = _flag(params, "reflection")
    if reflection and background == "transparent":  # the renderer's OutputSpec refuses it too
        raise InvalidParameter(
            "reflection",
            "'reflection' needs a background other than transparent: send background=white, "
            "black or a hex color too (or format=jpg).",
        )
    vehicle = resolve_vehicle(catalog, params)
    return ImageSpec(
        vehicle=vehicle,
        view=view,
        color=color,
        width=width,
        height=height,
        fit=fit,
        background=background,
        trim=trim,
        padding=padding or 0,
        format=image_format,
        negotiated=negotiated,
        finish=finish,
        reflection=reflection,
    )
