"""Blind realism check: the same view of 30 vehicles rendered by an older tree and by this one.

Run: `.venv/bin/python bench/realism.py BEFORE_TREE OUT_DIR KEY_FILE [--seed N] [--size 768]`.
BEFORE_TREE is a checkout of an older commit (`git worktree add ../before30 8733251`). Each of the
30 vehicles below is rendered at its one view and paint by both trees, each in its own worker
process (`PYTHONPATH=<tree>/src`, this interpreter), so each tree's renderer and design data are
the ones used, read fresh at run time; the public `carimg.render` API with default options (a
preset paint name, so its default finish), `render_source` then `derive` to SIZE px. Both renders
are laid on the same light studio grey, side by side with a thin gap and no text, the new one left
or right as the seed says (15 each), and written as `OUT_DIR/pair_01.png` … `pair_30.png` in an
order shuffled by the seed. The key (vehicle, body style, view, paint, which side is new, the
commits of both trees) goes to KEY_FILE, which must live outside OUT_DIR: the judge is given
OUT_DIR only. `--after TREE` renders another tree than this one as "new".

Score: `.venv/bin/python bench/realism.py --score KEY_FILE ANSWERS_FILE`. ANSWERS_FILE has one
line per pair, the pair's name, a colon and the side the judge picked as the one that looks more
like a real studio photograph; anything after the side is free text and is ignored:

    pair_01: L
    pair_02: R  the reflections on the bonnet look real
    pair_03.png: l

Other lines (headings, notes) are ignored. It prints how often the new render was picked, overall,
by body style and by view (a pair without an answer counts as not picked and is listed), and the
pairs where the old one was picked.
The method and the results are in docs/RENDERER.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PIL import Image

from carimg.catalog import load_catalog, load_design_data

ROOT = Path(__file__).resolve().parents[1]

# (make/model/year, view, paint): well-known vehicles across body styles, years 2010–2024, all
# but the V60 with a generation record. 10 front-3-4, 6 rear-3-4, 6 side, 4 front, 4 rear;
# white 6, black 5, silver 5 and gray 4 (metallic by default), red 5, blue 5.
VEHICLES: tuple[tuple[str, str, str], ...] = (
    ("toyota/camry/2020", "front-3-4", "red"),
    ("honda/accord/2019", "side", "white"),
    ("bmw/3-series/2015", "rear-3-4", "blue"),
    ("mercedes-benz/c-class/2016", "front", "black"),
    ("tesla/model-3/2019", "front-3-4", "white"),
    ("audi/a4/2018", "rear", "silver"),
    ("volkswagen/golf/2015", "front-3-4", "blue"),
    ("ford/fiesta/2015", "rear", "red"),
    ("mini/cooper/2015", "front", "silver"),
    ("renault/clio/2020", "rear-3-4", "gray"),
    ("peugeot/208/2020", "front-3-4", "black"),
    ("toyota/rav4/2020", "front-3-4", "silver"),
    ("honda/cr-v/2019", "rear-3-4", "white"),
    ("ford/explorer/2018", "side", "black"),
    ("jeep/wrangler/2020", "front-3-4", "red"),
    ("land-rover/range-rover/2015", "side", "gray"),
    ("nissan/qashqai/2018", "front", "white"),
    ("porsche/cayenne/2019", "rear", "blue"),
    ("ford/f-150/2018", "front-3-4", "gray"),
    ("toyota/hilux/2018", "rear-3-4", "white"),
    ("chevrolet/silverado/2020", "front", "gray"),
    ("porsche/911/2020", "rear-3-4", "silver"),
    ("ford/mustang/2018", "front-3-4", "blue"),
    ("chevrolet/corvette/2021", "side", "red"),
    ("volkswagen/golf-sportwagen/2017", "side", "silver"),
    ("subaru/outback/2017", "front-3-4", "blue"),
    ("volvo/v60/2020", "rear", "black"),
    ("mercedes-benz/sprinter/2015", "front-3-4", "white"),
    ("mazda/mx-5/2017", "rear-3-4", "red"),
    ("harley-davidson/sportster/2015", "side", "black"),
)
BACKGROUND = (236, 236, 236)  # light studio grey behind both renders
GAP = (255, 255, 255)
ANSWER = re.compile(r"^\s*(pair_\d+)(?:\.png)?\s*:\s*([LR])\b", re.IGNORECASE)

# Runs in a fresh interpreter with PYTHONPATH=<tree>/src: that tree's public API, default options.
WORKER = """
import json, sys, time
from pathlib import Path
import carimg.render as r
tree = Path(sys.argv[1]).resolve()
if not Path(r.__file__).resolve().is_relative_to(tree):
    raise SystemExit(f"carimg.render was imported from {r.__file__}, not from {tree}")
for job in json.load(sys.stdin):
    start = time.perf_counter()
    look = r.Appearance(job["make"], job["model"], job["year"], job["body_style"])
    rgba = r.render_source(look, job["view"], job["paint"])
    size = job["size"]
    image = r.derive(rgba, r.OutputSpec(width=size, height=size, format="png"))
    Path(job["out"]).write_bytes(image.data)
    print(json.dumps({"out": job["out"], "seconds": time.perf_counter() - start}), flush=True)
"""


def tree_state(tree: Path) -> dict[str, Any]:
    """The commit a tree is at and whether its sources differ from it (recorded in the key)."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(tree), *args], capture_output=True, text=True, check=False
        )
        return done.stdout

    digest = hashlib.sha256()  # the renderer's modules as read now (they may be uncommitted)
    for path in sorted((tree / "src" / "carimg" / "render").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return {
        "tree": str(tree),
        "commit": git("rev-parse", "HEAD").strip(),
        "uncommitted": git(
            "status", "--porcelain", "--", "src/carimg/render", "src/carimg/catalog"
        ).splitlines(),
        "render_sources_sha256": digest.hexdigest()[:16],
    }


def run_worker(tree: Path, jobs: list[dict[str, Any]]) -> list[float]:
    """Render jobs with `tree`'s own code in a subprocess; the seconds each render took."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    python = ROOT / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python if python.exists() else sys.executable), "-c", WORKER, str(tree)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the worker for {tree} failed:\n{done.stderr[-4000:]}")
    return [json.loads(line)["seconds"] for line in done.stdout.splitlines() if line.strip()]


def pair_image(left: Image.Image, right: Image.Image, size: int) -> Image.Image:
    gap = max(2, size // 96)
    out = Image.new("RGB", (2 * size + gap, size), GAP)
    for x, render in ((0, left), (size + gap, right)):
        if render.size != (size, size):
            raise SystemExit(f"a render came back {render.size}, not {size}×{size}")
        ground = Image.new("RGBA", (size, size), (*BACKGROUND, 255))
        ground.alpha_composite(render.convert("RGBA"))
        out.paste(ground.convert("RGB"), (x, 0))
    return out


def make_pairs(args: argparse.Namespace) -> None:
    before, after = args.before.resolve(), args.after.resolve()
    for tree in (before, after):
        if not (tree / "src" / "carimg" / "render" / "__init__.py").exists():
            raise SystemExit(f"{tree} is not a carimg tree (no src/carimg/render)")
    if before == after:
        raise SystemExit("the before tree is the tree being measured")
    if args.key.resolve().is_relative_to(args.out.resolve()):
        raise SystemExit("the key must not be inside the folder the judge sees")
    catalog, design = load_catalog(), load_design_data()
    rng = random.Random(args.seed)
    order = list(range(len(VEHICLES)))
    rng.shuffle(order)
    sides = ["L", "R"] * (len(VEHICLES) // 2) + ["L"] * (len(VEHICLES) % 2)
    rng.shuffle(sides)
    started = time.perf_counter()
    trees = {"new": tree_state(after), "old": tree_state(before)}
    entries: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="realism-") as scratch:
        jobs: dict[str, list[dict[str, Any]]] = {"new": [], "old": []}
        for number, index in enumerate(order, start=1):
            spec, view, paint = VEHICLES[index]
            make, model, year = spec.split("/")
            vehicle = catalog.find_vehicle(make, model, int(year))
            if vehicle is None:
                raise SystemExit(f"{spec} is not in the catalog")
            style = vehicle.model.body_style
            record = design.find(vehicle.make.slug, vehicle.model.slug, vehicle.year, style)
            name = f"pair_{number:02d}"
            entries[name] = {
                "vehicle": spec,
                "body_style": style,
                "generation": record.generation if record else None,
                "view": view,
                "paint": paint,
                "new": sides[number - 1],
            }
            for which in jobs:
                jobs[which].append(
                    {
                        "make": vehicle.make.slug,
                        "model": vehicle.model.slug,
                        "year": vehicle.year,
                        "body_style": style,
                        "view": view,
                        "paint": paint,
                        "size": args.size,
                        "out": str(Path(scratch) / f"{name}-{which}.png"),
                    }
                )
        # each tree's jobs in halves, the two workers busy until the last half is done
        work = [
            (tree, part)
            for which, tree in (("new", after), ("old", before))
            for part in (jobs[which][0::2], jobs[which][1::2])
        ]
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            seconds = list(pool.map(lambda item: run_worker(*item), work))
        args.out.mkdir(parents=True, exist_ok=True)
        for name, entry in entries.items():
            with (
                Image.open(Path(scratch) / f"{name}-new.png") as new,
                Image.open(Path(scratch) / f"{name}-old.png") as old,
            ):
                left, right = (new, old) if entry["new"] == "L" else (old, new)
                pair_image(left, right, args.size).save(
                    args.out / f"{name}.png", "PNG", compress_level=6
                )
    wall = time.perf_counter() - started
    key = {
        "seed": args.seed,
        "size": args.size,
        **trees,
        "pairs": entries,
    }
    args.key.parent.mkdir(parents=True, exist_ok=True)
    args.key.write_text(json.dumps(key, indent=1) + "\n")
    new_s = [s for part in seconds[:2] for s in part]
    old_s = [s for part in seconds[2:] for s in part]
    print(
        f"{len(entries)} pairs in {args.out}, key in {args.key}; {wall:.1f} s wall "
        f"(render + derive: new {sum(new_s) / len(new_s):.2f} s, "
        f"old {sum(old_s) / len(old_s):.2f} s a render)"
    )


def score(key_file: Path, answers_file: Path) -> None:
    pairs: dict[str, dict[str, Any]] = json.loads(key_file.read_text())["pairs"]
    picks: dict[str, str] = {}
    for line in answers_file.read_text().splitlines():
        match = ANSWER.match(line)
        if match is None:
            continue
        name, side = match.group(1).lower(), match.group(2).upper()
        if name not in pairs:
            raise SystemExit(f"{name} is not in the key")
        if name in picks and picks[name] != side:
            raise SystemExit(f"{name} is answered twice, differently")
        picks[name] = side

    def line(label: str, names: list[str]) -> str:
        hits = sum(picks.get(n) == pairs[n]["new"] for n in names)  # unanswered: not picked
        return f"{label:<14} {hits:>2} of {len(names):>2}  ({100 * hits / len(names):5.1f} %)"

    if not picks:
        raise SystemExit(f"no answers in {answers_file} (lines like `pair_07: L`)")
    everything = sorted(pairs)
    print(line("new picked", everything) + "  target ≥ 90 %")
    for field in ("body_style", "view"):
        print(f"by {field.replace('_', ' ')}:")
        groups: dict[str, list[str]] = defaultdict(list)
        for name in everything:
            groups[pairs[name][field]].append(name)
        for label in sorted(groups):
            print("  " + line(label, groups[label]))
    lost = [n for n in sorted(picks) if picks[n] != pairs[n]["new"]]
    if lost:
        print("old render picked:")
        for n in lost:
            p = pairs[n]
            print(f"  {n}  {p['vehicle']} ({p['body_style']}), {p['view']}, {p['paint']}")
    missing = sorted(set(pairs) - set(picks))
    if missing:
        print(f"no answer, counted as not picked ({len(missing)}): {', '.join(missing)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, meta, text in (
        ("before", "BEFORE_TREE", "the older tree (a git worktree)"),
        ("out", "OUT_DIR", "folder for pair_NN.png, the one the judge is given"),
        ("key", "KEY_FILE", "answer key (JSON), outside OUT_DIR"),
    ):
        parser.add_argument(name, type=Path, nargs="?", metavar=meta, help=text)
    parser.add_argument("--seed", type=int, default=2030)
    parser.add_argument("--size", type=int, default=768, help="px of each render (64–1024)")
    parser.add_argument("--after", type=Path, default=ROOT, help="the new tree (default: this)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes at once")
    parser.add_argument(
        "--score", nargs=2, type=Path, metavar=("KEY_FILE", "ANSWERS_FILE"), help="score answers"
    )
    args = parser.parse_args()
    if args.score:
        if args.before is not None:
            parser.error("--score takes no other arguments")
        score(*args.score)
        return
    if args.key is None:
        parser.error("BEFORE_TREE, OUT_DIR and KEY_FILE are needed")
    if not 64 <= args.size <= 1024:
        parser.error("--size must be 64–1024")
    make_pairs(args)


if __name__ == "__main__":
    main()
