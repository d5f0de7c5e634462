"""Check design records against the format and the catalog: `check_design.py FILE...`.

Prints one line per problem (bad record, make or model slug not in the catalog, years the catalog
does not list for that model) and a summary; exits 1 when any record is bad.
"""

from __future__ import annotations

import sys
from pathlib import Path

from carimg.catalog import DesignDataError, load_catalog, read_design_data


def main(paths: list[str]) -> int:
    catalog = load_catalog()
    bad = 0
    total = 0
    for name in paths:
        try:
            data = read_design_data(Path(name))
        except DesignDataError as error:
            print(f"FORMAT {error}")
            return 1
        for g in data.generations:
            total += 1
            make = catalog.find_make(g.make)
            if make is None or make.slug != g.make:
                print(f"MAKE   {g.make}/{g.model} {g.generation}: no catalog make slug {g.make!r}")
                bad += 1
                continue
            slugs = {m.slug: m for m in catalog.models_of(make)}
            for slug in g.model_slugs:
                model = slugs.get(slug)
                if model is None:
                    print(f"MODEL  {g.make}/{slug} {g.generation}: not a catalog model slug")
                    bad += 1
                elif not set(range(g.years[0], g.years[1] + 1)) & set(model.years):
                    print(
                        f"YEARS  {g.make}/{slug} {g.generation} {g.years}: catalog has "
                        f"{model.years[0]}–{model.years[-1]}"
                    )
                    bad += 1
    print(f"{total} records, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
