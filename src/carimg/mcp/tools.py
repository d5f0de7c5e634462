"""The agent tools, defined once: names, argument schemas, descriptions and result shapes.

`build_server(backend)` registers every tool on an `MCPServer`; a `ToolBackend` does the work.
The remote endpoint (`domain_backend.DomainBackend`) calls the domain services directly; the
command-line client's local stdio server implements the same protocol over the HTTP API, so both
offer exactly the same tools. A backend reports an anticipated failure by raising `ToolFailure`
with text that tells the agent what to do next (`problem_text` writes it from a problem document).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from carimg.years import MAX_YEAR, MIN_YEAR

SERVER_NAME = "carimg"
INSTRUCTIONS = f"""carimg renders studio images of vehicles from an open catalog (makes, models, \
model years {MIN_YEAR} onward).
- Free: search_vehicles, resolve_vehicle, list_image_options, get_account, rate_image, describe_api.
- Paid: get_car_image (1 credit: the image plus a signed URL to it) and create_car_image_urls \
(1 credit per URL, charged when created; loading the URLs is free until they expire).
Typical flow: resolve_vehicle (free text such as "red 2020 Porsche 911 side view") or \
search_vehicles, then get_car_image with the returned make, model and year. Check the balance \
with get_account before large batches. Failures say what to do (buy credits, which scope is \
missing, when to retry)."""

# -- arguments ---------------------------------------------------------------------------------

Make = Annotated[
    str | None,
    Field(
        min_length=1,
        description="Make name or slug, e.g. 'toyota' or 'Mercedes-Benz'. "
        "Required unless 'vehicle' is given.",
    ),
]
Model = Annotated[
    str | None,
    Field(
        min_length=1,
        description="Model name, slug or unique prefix, e.g. 'camry' or 'f-150'. "
        "Required unless 'vehicle' is given.",
    ),
]
Year = Annotated[
    int | None,
    Field(
        ge=MIN_YEAR,
        le=MAX_YEAR,
        description=f"Model year ({MIN_YEAR} onward). Required unless 'vehicle'.",
    ),
]
VehicleId = Annotated[
    str | None,
    Field(
        description="A catalog vehicle id ('veh_…', from search_vehicles or resolve_vehicle) "
        "instead of make, model and year."
    ),
]
View = Annotated[
    str | None,
    Field(
        description="Camera angle: front, front-3-4 (default), side (faces left), side-right, "
        "rear or rear-3-4. Aliases such as hero, profile and back work too."
    ),
]
Color = Annotated[
    str | None,
    Field(
        description="Paint: white, black, gray, silver (default), blue, red, green, brown, beige, "
        "tan, orange, yellow, gold, burgundy, purple, or any hex such as #1a2b3c."
    ),
]
Finish = Annotated[
    Literal["gloss", "metallic", "satin", "matte"] | None,
    Field(
        description="Paint finish: gloss, metallic, satin or matte. Omit it for the paint's own "
        "(silver, gold and gray metallic, the rest gloss)."
    ),
]
Width = Annotated[
    int | None, Field(ge=1, le=1024, description="Width in pixels (fit inside, never enlarged).")
]
Height = Annotated[int | None, Field(ge=1, le=1024, description="Height in pixels.")]
Size = Annotated[
    Literal["thumb", "small", "medium", "large"] | None,
    Field(description="Size preset: thumb 256, small 512, medium 768, large 1024 px wide."),
]
ImageFormat = Annotated[
    Literal["png", "webp", "jpg"] | None,
    Field(description="png (default) and webp are transparent; jpg is flattened on white."),
]
Fit = Annotated[
    Literal["contain", "cover", "inside"] | None,
    Field(description="How width and height frame the image (default contain)."),
]
Background = Annotated[
    str | None, Field(description="transparent (default), white, black or a hex color.")
]
Trim = Annotated[bool | None, Field(description="Crop to the vehicle's bounds.")]
Padding = Annotated[
    int | None, Field(ge=0, le=50, description="Padding around a trimmed vehicle, percent.")
]
Reflection = Annotated[
    bool | None,
    Field(
        description="A faint floor reflection under the vehicle; needs a background other than "
        "transparent (or jpg)."
    ),
]


class ImageRequest(BaseModel):
    """One image: a catalog vehicle (make, model and year, or a vehicle id) and its framing."""

    model_config = ConfigDict(extra="forbid")

    make: Make = None
    model: Model = None
    year: Year = None
    vehicle: VehicleId = None
    view: View = None
    color: Color = None
    finish: Finish = None
    width: Width = None
    height: Height = None
    size: Size = None
    format: ImageFormat = None
    fit: Fit = None
    background: Background = None
    trim: Trim = None
    padding: Padding = None
    reflection: Reflection = None

    def query(self) -> dict[str, str | int | bool]:
        """The fields that were given, in the image endpoint's JSON names."""
        return self.model_dump(exclude_none=True)


class VehicleSearch(BaseModel):
    """What search_vehicles asks the catalog (the parameters of GET /api/v1/vehicles)."""

    query: str | None = None
    year: int | None = None
    make: str | None = None
    model: str | None = None
    limit: int = 10


class Feedback(BaseModel):
    """A rating of a delivered image (the body of POST /api/v1/feedback)."""

    model_config = ConfigDict(extra="forbid")

    request_id: str | None = None
    make: str | None = None
    model: str | None = None
    year: int | None = None
    view: str | None = None
    color: str | None = None
    finish: str | None = None
    rating: int | None = None
    verdict: Literal["good", "bad"] | None = None
    reason: str | None = None


# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImageResult:
    """One delivered image and the signed URL that serves the same bytes (1 credit in all)."""

    data: bytes
    media_type: str
    url: str
    expires_at: str
    width: int
    height: int
    vehicle: dict[str, Any]
    credits_charged: int
    credits_remaining: int


class DeliveryUrl(BaseModel):
    id: str
    url: str
    expires_at: str
    max_uses: int
    vehicle: dict[str, Any]


class ImageUrlsResult(BaseModel):
    urls: list[DeliveryUrl]
    credits_charged: int
    credits_remaining: int
    credits_per_url: int = 1


class FeedbackResult(BaseModel):
    asset_id: str
    recorded: bool = True
    flagged: bool = False


class ToolFailure(ToolError):
    """An anticipated failure; its text is shown to the agent, so it says what to do."""


class ToolBackend(Protocol):
    """Does the work of each tool. Results are typed; failures raise `ToolFailure`.

    Dictionaries are the `data` member of the REST endpoint the tool mirrors.
    """

    async def get_car_image(self, request: ImageRequest) -> ImageResult: ...

    async def create_car_image_urls(
        self, images: list[ImageRequest], ttl_seconds: int | None, max_uses: int
    ) -> ImageUrlsResult: ...

    async def search_vehicles(self, search: VehicleSearch) -> dict[str, Any]: ...

    async def resolve_vehicle(
        self, query: str, year: int | None, make: str | None, model: str | None
    ) -> dict[str, Any]: ...

    async def list_image_options(self) -> dict[str, Any]: ...

    async def get_account(self) -> dict[str, Any]: ...

    async def rate_image(self, feedback: Feedback) -> FeedbackResult: ...

    async def describe_api(self, endpoint: str | None) -> str: ...


# -- failures ----------------------------------------------------------------------------------


def problem_text(problem: Mapping[str, Any], retry_after: int | None = None) -> str:
    """What an agent should read for a problem document (`retry_after` from the header)."""
    status = int(problem.get("status") or 500)
    detail = str(problem.get("detail") or problem.get("title") or "The request failed.")
    if status == 402:
        return _payment_text(problem, detail)
    if status == 403 and problem.get("required_scope"):
        scope = problem["required_scope"]
        return (
            f"{detail} This credential lacks the scope '{scope}'. Use an API key that holds "
            f"'{scope}' (keys are created in the dashboard), or reconnect this app and allow "
            f"'{scope}' on the consent page. Retrying with the same credential fails again."
        )
    if status == 429:
        wait = retry_after if retry_after is not None else problem.get("retry_after_seconds")
        when = f" Retry in {wait} seconds" if wait is not None else " Retry later"
        reset = (
            f" (the daily share resets at {problem['reset_at']})" if "reset_at" in problem else ""
        )
        return f"Rate limited: {detail}{when}{reset}; do not retry sooner."
    if status == 401:
        return f"{detail} Fix the credentials (a cimg_ API key, or reconnect this app), then retry."
    if status == 400 and problem.get("allowed"):
        return f"{detail} Allowed values: {', '.join(map(str, problem['allowed']))}."
    if status in (502, 503, 500):
        wait = f" in {retry_after} seconds" if retry_after is not None else " later"
        return f"{detail} Nothing was charged for this failure; retry{wait}."
    return detail


def _payment_text(problem: Mapping[str, Any], detail: str) -> str:
    pricing = problem.get("pricing") or {}
    pricing_url = pricing.get("pricing_url") if isinstance(pricing, Mapping) else None
    if problem.get("code") == "plan_vehicle_limit":
        next_plan = problem.get("next_plan") or {}
        upgrade = next_plan.get("checkout_url") if isinstance(next_plan, Mapping) else None
        return (
            f"{detail} Nothing was charged. A person can upgrade the plan"
            + (f" at {upgrade}" if upgrade else "")
            + (f" (plans and prices: {pricing_url})" if pricing_url else "")
            + "; vehicles already served this month keep working."
        )
    checkout = problem.get("checkout_url")
    return (
        f"{detail} Nothing was charged. A person must buy credits"
        + (f" at {checkout}" if checkout else "")
        + (f" (packs and prices: {pricing_url})" if pricing_url else "")
        + "; retry once the purchase is complete. Check the balance with get_account."
    )


# -- the server --------------------------------------------------------------------------------

_Tool = TypeVar("_Tool", bound=Callable[..., Any])
_READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
_PAID = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)


def image_content(result: ImageResult) -> CallToolResult:
    """The image itself, and a text block with its URL, size and billing for the agent."""
    summary = {
        "url": result.url,
        "expires_at": result.expires_at,
        "width": result.width,
        "height": result.height,
        "format": result.media_type,
        "vehicle": result.vehicle,
        "credits_charged": result.credits_charged,
        "credits_remaining": result.credits_remaining,
    }
    return CallToolResult(
        content=[
            ImageContent(
                type="image",
                data=base64.b64encode(result.data).decode("ascii"),
                mime_type=result.media_type,
            ),
            TextContent(type="text", text=json.dumps(summary, indent=2)),
        ],
        structured_content=summary,
    )


def build_server(backend: ToolBackend, *, version: str = "") -> MCPServer:
    """An MCP server offering carimg's tools, each delegating to `backend`."""
    # WARNING: the SDK logs every stateless request at INFO.
    server: MCPServer = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, version=version, log_level="WARNING"
    )

    def tool(
        name: str,
        title: str,
        annotations: ToolAnnotations | None = None,
        structured_output: bool | None = None,
    ) -> Callable[[_Tool], _Tool]:
        """Register a tool; its docstring, on one line, is the description agents read."""

        def register(fn: _Tool) -> _Tool:
            server.add_tool(
                fn,
                name=name,
                title=title,
                description=" ".join((fn.__doc__ or "").split()),
                annotations=annotations,
                structured_output=structured_output,
            )
            return fn

        return register

    @tool(
        "get_car_image",
        title="Get a car image (1 credit)",
        annotations=_PAID,
        structured_output=False,
    )
    async def get_car_image(
        make: Make = None,
        model: Model = None,
        year: Year = None,
        vehicle: VehicleId = None,
        view: View = None,
        color: Color = None,
        finish: Finish = None,
        width: Width = None,
        height: Height = None,
        size: Size = "small",
        format: ImageFormat = None,
        fit: Fit = None,
        background: Background = None,
        trim: Trim = None,
        padding: Padding = None,
        reflection: Reflection = None,
    ) -> CallToolResult:
        """Render a studio image of one catalog vehicle and return it as an image, together with
        a signed URL that serves the same image (share or embed it; loading it is free until it
        expires). Costs 1 credit for both. Give make, model and year (or a vehicle id from
        search_vehicles/resolve_vehicle). Size defaults to small (512 px); ask for large (1024 px)
        only when needed. If the vehicle is not in the catalog the error lists close matches."""
        request = ImageRequest(
            make=make, model=model, year=year, vehicle=vehicle, view=view, color=color,
            finish=finish, width=width, height=height, size=size, format=format, fit=fit,
            background=background, trim=trim, padding=padding, reflection=reflection,
        )  # fmt: skip
        return image_content(await backend.get_car_image(request))

    @tool("create_car_image_urls", title="Create signed image URLs", annotations=_PAID)
    async def create_car_image_urls(
        images: Annotated[
            list[ImageRequest],
            Field(min_length=1, max_length=50, description="1 to 50 images, one URL each."),
        ],
        ttl_seconds: Annotated[
            int | None,
            Field(ge=60, le=604800, description="Lifetime of the URLs, seconds (default 3600)."),
        ] = None,
        max_uses: Annotated[
            int, Field(ge=0, le=1000, description="Loads per URL; 0 (default) is unlimited.")
        ] = 0,
    ) -> ImageUrlsResult:
        """Create signed delivery URLs for images, to put in web pages or e-mails: browsers load
        them without any key. Costs 1 credit per URL, charged once now for the whole batch
        (loading is free until expiry); nothing is charged if any item is invalid (the error
        names its index). The image renders on the first load."""
        return await backend.create_car_image_urls(images, ttl_seconds, max_uses)

    @tool("search_vehicles", title="Search the vehicle catalog", annotations=_READ_ONLY)
    async def search_vehicles(
        query: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=200,
                description="Free text such as 'ford f150' or 'model 3'; omit to browse.",
            ),
        ] = None,
        year: Annotated[int | None, Field(ge=MIN_YEAR, description="Model year.")] = None,
        make: Annotated[
            str | None,
            Field(description="A make slug or name: lists its models (with year: that year's)."),
        ] = None,
        model: Annotated[
            str | None, Field(description="With make: that model's years and vehicle ids.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=25, description="Search results (1 to 25).")] = 10,
    ) -> dict[str, Any]:
        """Find vehicles in the catalog (free). With query: matching makes and models with their
        years. With make (and model): its models, or the model's years and vehicle ids. With only
        year: the makes of that year. With nothing: the years covered. Use the slugs returned as
        make and model in get_car_image."""
        search = VehicleSearch(query=query, year=year, make=make, model=model, limit=limit)
        return await backend.search_vehicles(search)

    @tool("resolve_vehicle", title="Resolve a description", annotations=_READ_ONLY)
    async def resolve_vehicle(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="What the user asked for, e.g. 'navy 2019 honda civic from behind'.",
            ),
        ],
        year: Annotated[
            int | None, Field(ge=MIN_YEAR, description="Overrides a year in the text.")
        ] = None,
        make: Annotated[
            str | None, Field(max_length=60, description="Constrain to a make.")
        ] = None,
        model: Annotated[
            str | None, Field(max_length=60, description="Constrain to a model.")
        ] = None,
    ) -> dict[str, Any]:
        """Turn a free-text description into exact image parameters (free). Returns params (make,
        model, year, view, color …) ready for get_car_image, a confidence, and candidates. When
        confidence is high use params directly; otherwise confirm with the user among the
        candidates."""
        return await backend.resolve_vehicle(query, year, make, model)

    @tool("list_image_options", title="List image options", annotations=_READ_ONLY)
    async def list_image_options() -> dict[str, Any]:
        """Every view (with aliases and angles), color, size preset and format, the prices and
        credit packs, catalog coverage and the limits (free)."""
        return await backend.list_image_options()

    @tool("get_account", title="Check the account", annotations=_READ_ONLY)
    async def get_account() -> dict[str, Any]:
        """The credit balance, pricing and packs, 30 days of usage, this credential and links
        (free). Check the balance before creating many URLs."""
        return await backend.get_account()

    @tool("rate_image", title="Rate an image")
    async def rate_image(
        request_id: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=128,
                description="The request id of the image's delivery, when known.",
            ),
        ] = None,
        make: Annotated[str | None, Field(description="Or identify the image by make…")] = None,
        model: Annotated[str | None, Field(description="…model…")] = None,
        year: Annotated[int | None, Field(description="…and year (view and color too).")] = None,
        view: View = None,
        color: Color = None,
        finish: Finish = None,
        rating: Annotated[
            int | None, Field(ge=1, le=5, description="1 (bad) to 5 (great).")
        ] = None,
        verdict: Annotated[Literal["good", "bad"] | None, Field(description="good or bad.")] = None,
        reason: Annotated[
            str | None, Field(max_length=500, description="What is wrong or right.")
        ] = None,
    ) -> FeedbackResult:
        """Report whether a delivered image looks right (free). Send a rating or a verdict, and
        identify the image by request_id or by make, model and year. Bad reports from several
        accounts, each naming the request_id that delivered the image to it, send the render
        back for regeneration (flagged is then true); other reports are only recorded."""
        feedback = Feedback(
            request_id=request_id, make=make, model=model, year=year, view=view, color=color,
            finish=finish, rating=rating, verdict=verdict, reason=reason,
        )  # fmt: skip
        return await backend.rate_image(feedback)

    @tool(
        "describe_api",
        title="Explain the HTTP API",
        annotations=_READ_ONLY,
        structured_output=False,
    )
    async def describe_api(
        endpoint: Annotated[
            str | None,
            Field(
                description="An operation id (get_car_image), a path (/api/v1/image-urls) or "
                "'METHOD /path'; omit to list every endpoint."
            ),
        ] = None,
    ) -> str:
        """Explain an endpoint of carimg's HTTP API from its OpenAPI document: method, path,
        parameters, body, responses and errors. Use it to write code that calls the API."""
        return await backend.describe_api(endpoint)

    return server
