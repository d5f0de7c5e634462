"""The README's likeness contact sheet: 24 well-known vehicles, before and after, labelled.

    python scripts/likeness_sheet.py render DIR          # renders with the carimg on sys.path
    python scripts/likeness_sheet.py compose BEFORE AFTER OUT.png
    python scripts/likeness_sheet.py refresh SHEET.png   # redraw the "after" cells in place

Render once with the old tree (`PYTHONPATH=<old checkout>/src`) and once with this one, then
compose: each vehicle is shown as a pair, the old render left of the new one. `refresh` redraws
the right-hand cells of a composed sheet with this tree's renders and keeps the old ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw

VEHICLES = [
    ("porsche", "911", 2020, "coupe", "Porsche 911 (992)"),
    ("jeep", "wrangler", 2020, "suv", "Jeep Wrangler (JL)"),
    ("land-rover", "defender", 2022, "suv", "Land Rover Defender"),
    ("mercedes-benz", "g-class", 2010, "suv", "Mercedes G-Class"),
    ("mini", "cooper", 2015, "hatchback", "MINI Cooper (F56)"),
    ("volkswagen", "beetle", 2000, "hatchback", "VW New Beetle"),
    ("smart", "fortwo", 2010, "coupe", "smart fortwo"),
    ("chevrolet", "corvette", 2021, "coupe", "Corvette (C8)"),
    ("mazda", "mx-5", 1995, "convertible", "Mazda MX-5 (NA)"),
    ("fiat", "500", 2012, "hatchback", "Fiat 500"),
    ("toyota", "prius", 2012, "hatchback", "Toyota Prius"),
    ("ford", "mustang", 2018, "coupe", "Ford Mustang"),
    ("tesla", "cybertruck", 2024, "pickup", "Tesla Cybertruck"),
    ("hummer", "h1", 2000, "truck", "Hummer H1"),
    ("volkswagen", "id-buzz", 2025, "minivan", "VW ID. Buzz"),
    ("lamborghini", "aventador", 2015, "coupe", "Lamborghini Aventador"),
    ("ford", "f-150", 2018, "pickup", "Ford F-150"),
    ("toyota", "camry", 2020, "sedan", "Toyota Camry"),
    ("honda", "civic", 1995, "sedan", "Honda Civic (1995)"),
    ("honda", "civic", 2020, "sedan", "Honda Civic (2020)"),
    ("volkswagen", "golf", 2015, "hatchback", "VW Golf (Mk7)"),
    ("bmw", "3-series", 2015, "sedan", "BMW 3 Series (F30)"),
    ("honda", "odyssey", 2015, "minivan", "Honda Odyssey"),
    ("suzuki", "jimny", 2020, "suv", "Suzuki Jimny"),
]
CELL = 220
COLS, LABEL_H = 4, 18


def _cell(make: str, model: str, year: int, body: str) -> Image.Image:
    from carimg.render import Appearance, render_source

    rgba = render_source(Appearance(make, model, year, body), "front-3-4", "silver")
    return Image.fromarray(rgba).resize((CELL, CELL), Image.Resampling.LANCZOS)


def _on_ground(tile: Image.Image) -> Image.Image:
    ground = Image.new("RGBA", tile.size, (240, 240, 240, 255))
    ground.alpha_composite(tile.convert("RGBA"))
    return ground.convert("RGB")


def _origin(index: int) -> tuple[int, int]:
    """Top-left corner of a vehicle's pair of cells (under its label)."""
    return (index % COLS) * 2 * CELL, (index // COLS) * (CELL + LABEL_H) + LABEL_H


def render(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for make, model, year, body, _ in VEHICLES:
        _cell(make, model, year, body).save(folder / f"{make}-{model}-{year}.png")


def refresh(sheet_path: Path) -> None:
    sheet = Image.open(sheet_path).convert("RGB")
    for index, (make, model, year, body, _) in enumerate(VEHICLES):
        x, y = _origin(index)
        sheet.paste(_on_ground(_cell(make, model, year, body)), (x + CELL, y))
    sheet.save(sheet_path, optimize=True)


def compose(before: Path, after: Path, out: Path) -> None:
    rows = (len(VEHICLES) + COLS - 1) // COLS
    sheet = Image.new("RGB", (COLS * 2 * CELL, rows * (CELL + LABEL_H)), (240, 240, 240))
    draw = ImageDraw.Draw(sheet)
    for index, (make, model, year, _, label) in enumerate(VEHICLES):
        x, y = _origin(index)
        for k, folder in enumerate((before, after)):
            tile = Image.open(folder / f"{make}-{model}-{year}.png")
            sheet.paste(_on_ground(tile), (x + k * CELL, y))
        draw.text((x + 6, y - LABEL_H + 3), f"{label}: before | after", fill=(20, 20, 20))
    sheet.save(out, optimize=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["render"]:
        render(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["compose"]:
        compose(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif sys.argv[1:2] == ["refresh"]:
        refresh(Path(sys.argv[2]))
    else:
        raise SystemExit(__doc__)
