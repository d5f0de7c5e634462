"""The options document: every enumeration, price and limit a client needs, from live data."""

from __future__ import annotations

from typing import Any

from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.limits import DEFAULT_PLAN, KEY_REQUESTS_PER_MINUTE
from carimg.domain.pricing import pricing_for
from carimg.domain.views import (
    COLORS,
    FINISHES,
    FORMATS,
    MAX_SIZE,
    SIZE_PRESETS,
    SOURCE_SIZE,
    VIEWS,
)
from carimg.render import METALLIC_PRESETS


def build_options(settings: Settings, catalog: Catalog) -> dict[str, Any]:
    """The `data` member of `GET /api/v1/images/options`."""
    pricing = pricing_for(settings.pricing_variant)
    stats = catalog.stats
    base = settings.base_url
    return {
        "views": [
            {
                "id": view.id,
                "label": view.label,
                "yaw_degrees": view.yaw_degrees,
                "description": view.description,
                "aliases": list(view.aliases),
            }
            for view in VIEWS
        ],
        "colors": [
            {
                "name": name,
                "hex": hex_value,
                "finish": "metallic" if name in METALLIC_PRESETS else "gloss",  # without `finish`
            }
            for name, hex_value in COLORS.items()
        ],
        "finishes": [{"id": name, "description": text} for name, text in FINISHES.items()],
        "sizes": {"presets": dict(SIZE_PRESETS), "max": MAX_SIZE, "source": SOURCE_SIZE},
        "formats": [
            {"id": fmt.id, "mime": fmt.mime, "transparent": fmt.transparent} for fmt in FORMATS
        ],
        "pricing": {
            "variant": pricing.variant,
            "credits_per_image": pricing.credits_per_image,
            "credits_per_dollar": pricing.credits_per_dollar,
            "free_credits": pricing.free_credits,
            "packs": [
                {"id": pack.id, "credits": pack.credits, "cents": pack.cents, "label": pack.label}
                for pack in pricing.packs
            ],
            **(
                {
                    "plans": [
                        {
                            "id": plan.id,
                            "name": plan.name,
                            "price_monthly": plan.price_monthly,
                            "credits_per_month": plan.credits_per_month,
                            "distinct_vehicles_per_month": plan.distinct_vehicles_per_month,
                        }
                        for plan in pricing.plans
                    ]
                }
                if pricing.plans
                else {}
            ),
        },
        "catalog": {
            "makes": stats.makes,
            "models": stats.models,
            "model_year_entries": stats.model_year_entries,
            "vehicles": catalog.vehicle_count,
            "years": {"from": stats.year_from, "to": stats.year_to},
            "sources": [
                {
                    "id": source.id,
                    "name": source.name,
                    "region": source.region,
                    "license": source.license,
                    **({"license_url": source.license_url} if source.license_url else {}),
                    "url": source.url,
                }
                for source in catalog.sources
            ],
        },
        "limits": {
            "rate_limit_per_minute_default": KEY_REQUESTS_PER_MINUTE[DEFAULT_PLAN],
            "max_batch_urls": settings.max_batch_urls,
            "delivery_ttl": {
                "default": settings.delivery_ttl_default,
                "min": settings.delivery_ttl_min,
                "max": settings.delivery_ttl_max,
            },
        },
        "links": {
            "image": f"{base}/api/v1/images/car",
            "image_urls": f"{base}/api/v1/image-urls",
            "vehicles": f"{base}/api/v1/vehicles",
            "resolve": f"{base}/api/v1/images/resolve",
            "pricing": f"{base}/api/v1/pricing",
            "openapi": f"{base}/openapi.json",
            "docs": f"{base}/docs",
            "health": f"{base}/api/health",
        },
    }
