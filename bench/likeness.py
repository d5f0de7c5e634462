"""Blind likeness check: four-view sheets of well-known vehicles under shuffled, unlabelled names.

Run: `.venv/bin/python bench/likeness.py OUT_DIR KEY_FILE [--seed N] [--before]`. Writes
`OUT_DIR/vehicle-NNN.png` (front-3-4, side, rear-3-4 and front of one vehicle, no text) and the
answer key to KEY_FILE, which must live outside OUT_DIR: the judge is given OUT_DIR only. The
method and the results are in docs/RENDERER.md ("Likeness").
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from PIL import Image

from carimg.catalog import load_catalog
from carimg.render import Appearance, render_source

DISTINCTIVE = [
    "porsche/911/2020",
    "jeep/wrangler/2020",
    "land-rover/defender/2022",
    "mercedes-benz/g-class/2010",
    "mini/cooper/2015",
    "volkswagen/beetle/2000",
    "smart/fortwo/2010",
    "chevrolet/corvette/2021",
    "mazda/mx-5/1995",
    "fiat/500/2012",
    "toyota/prius/2012",
    "ford/mustang/2018",
    "dodge/challenger/2015",
    "nissan/gt-r/2015",
    "tesla/cybertruck/2024",
    "tesla/model-s/2016",
    "hummer/h1/2000",
    "hummer/h2/2005",
    "volkswagen/id-buzz/2025",
    "lamborghini/aventador/2015",
    "ferrari/458/2012",
    "toyota/fj-cruiser/2010",
    "chrysler/pt-cruiser/2005",
    "nissan/cube/2010",
    "kia/soul/2012",
    "audi/tt/2002",
    "bmw/i3/2016",
    "land-rover/range-rover/2015",
    "suzuki/jimny/2020",
    "ford/bronco/2022",
    "mercedes-benz/sprinter/2015",
    "honda/nsx/1995",
    "toyota/supra/1995",
    "mazda/rx-7/1995",
    "lotus/elise/2005",
    "rolls-royce/phantom/2010",
    "fiat/multipla/2002",
    "levc/tx/2020",
    "dodge/viper/1995",
    "ford/gt/2006",
]
BEST_SELLERS = [
    "toyota/camry/2020",
    "honda/civic/2018",
    "ford/f-150/2018",
    "toyota/rav4/2020",
    "honda/cr-v/2019",
    "toyota/corolla/2020",
    "volkswagen/golf/2015",
    "chevrolet/silverado/2020",
    "nissan/rogue/2018",
    "ford/explorer/2018",
    "tesla/model-3/2020",
    "renault/clio/2015",
    "peugeot/208/2020",
    "nissan/qashqai/2018",
    "volkswagen/polo/2015",
    "ford/fiesta/2015",
    "bmw/3-series/2015",
    "honda/odyssey/2015",
    "jeep/grand-cherokee/2015",
    "toyota/hilux/2018",
]
VIEWS = ("front-3-4", "side", "rear-3-4", "front")
PAINTS = ("silver", "white", "red", "blue", "gray")  # light enough to show the shape
CELL = 480


def sheet(appearance: Appearance, paint: str) -> Image.Image:
    out = Image.new("RGB", (2 * CELL, 2 * CELL), (238, 238, 238))
    for k, view in enumerate(VIEWS):
        cell = Image.fromarray(render_source(appearance, view, paint))
        cell = cell.resize((CELL, CELL), Image.Resampling.LANCZOS)
        ground = Image.new("RGBA", cell.size, (238, 238, 238, 255))
        ground.alpha_composite(cell)
        out.paste(ground.convert("RGB"), ((k % 2) * CELL, (k // 2) * CELL))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("key", type=Path)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.key.resolve().is_relative_to(args.out.resolve()):
        raise SystemExit("the key must not be inside the folder the judge sees")
    catalog = load_catalog()
    specs = [("distinctive", s) for s in DISTINCTIVE] + [("best-seller", s) for s in BEST_SELLERS]
    rng = random.Random(args.seed)
    rng.shuffle(specs)
    numbers = rng.sample(range(100, 1000), len(specs))
    args.out.mkdir(parents=True, exist_ok=True)
    key = {}
    for index, ((group, spec), number) in enumerate(zip(specs, numbers, strict=True)):
        make, model, year = spec.split("/")
        vehicle = catalog.find_vehicle(make, model, int(year))
        if vehicle is None:
            raise SystemExit(f"{spec} is not in the catalog")
        appearance = Appearance(make, model, int(year), vehicle.model.body_style)
        name = f"vehicle-{number}.png"
        sheet(appearance, PAINTS[index % len(PAINTS)]).save(args.out / name)
        key[name] = {"vehicle": spec, "group": group, "body_style": vehicle.model.body_style}
    args.key.write_text(json.dumps(key, indent=1))
    print(f"{len(key)} sheets in {args.out}, key in {args.key}")


if __name__ == "__main__":
    main()
