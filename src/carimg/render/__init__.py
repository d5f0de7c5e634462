"""carimg.render: procedural studio renders of catalog vehicles, and output transforms.

A library with no service imports.
"""

from carimg.render._palette import METALLIC_PRESETS, PRESET_COLORS
from carimg.render._views import VIEW_YAWS

__all__ = ["METALLIC_PRESETS", "PRESET_COLORS", "VIEW_YAWS"]
