"""carimg.render: procedural studio renders of catalog vehicles, and output transforms.

A library with no service imports. The whole public surface is re-exported here from private
modules.

    >>> from carimg.render import Appearance, render_source, encode_source_png, derive, OutputSpec
    >>> rgba = render_source(Appearance("toyota", "camry", 2020, "sedan"), "side", "red")
    >>> png = encode_source_png(rgba)
    >>> thumb = derive(rgba, OutputSpec(width=512, format="webp"))
    >>> glb = export_glb(Appearance("toyota", "camry", 2020, "sedan"), "red")  # glTF binary
"""

from carimg.bodystyles import BODY_STYLES
from carimg.render._appearance import Appearance
from carimg.render._glb import export_glb
from carimg.render._output import (
    SIZE_PRESETS,
    DerivedImage,
    OutputSpec,
    OutputSpecError,
    alpha_bounds,
    derive,
)
from carimg.render._palette import (
    FINISHES,
    METALLIC_PRESETS,
    PRESET_COLORS,
    PaintError,
    paint_key,
    resolve_paint,
)
from carimg.render._pool import RenderPool, RenderPoolRestarted
from carimg.render._render import (
    ELEVATION_DEG,
    SOURCE_SIZE,
    SourceRender,
    ViewError,
    encode_source_png,
    render_source,
    render_source_layers,
)
from carimg.render._views import VIEW_YAWS

__all__ = [
    "BODY_STYLES",
    "ELEVATION_DEG",
    "FINISHES",
    "METALLIC_PRESETS",
    "PRESET_COLORS",
    "SIZE_PRESETS",
    "SOURCE_SIZE",
    "VIEW_YAWS",
    "Appearance",
    "DerivedImage",
    "OutputSpec",
    "OutputSpecError",
    "PaintError",
    "RenderPool",
    "RenderPoolRestarted",
    "SourceRender",
    "ViewError",
    "alpha_bounds",
    "derive",
    "encode_source_png",
    "export_glb",
    "paint_key",
    "render_source",
    "render_source_layers",
    "resolve_paint",
]
