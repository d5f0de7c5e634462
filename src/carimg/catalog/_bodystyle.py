"""Body styles: which shape the renderer draws for a catalog model, and where that came from.

Pure rules, no I/O. Inputs are the registry make name, the model name, the catalog vehicle type
id (1 Motorcycle, 2 Passenger Car, 3 Truck, 5 Bus, 7 MPV, 10001 Auto Rickshaw, 10002 Other) and,
where NHTSA vPIC knows the model, its most common vPIC body class (see `_vpic`).

Precedence (first that applies wins; the source tag says which):

1. ``rules:known`` — the small explicit tables below: kei cars, scooters (for motorcycles only)
   and a few hand-checked models whose registry name says nothing about their shape (Hiace,
   Hilux, Transporter, Outback …). They beat vPIC because they were checked by hand.
2. ``rules:type`` — vehicle type Auto Rickshaw always draws an auto-rickshaw.
3. ``vpic`` — the vPIC body class, when it fits the vehicle type (a motorcycle never takes a car
   class, a car never takes a motorcycle class). One exception, tagged ``rules:name``: a clear
   body word in the name (`Cabriolet`, `Coupe`, `Wagon`, `Sportback` …) refines a vPIC
   passenger-car class into another passenger-car class (`Golf Cabriolet` is a convertible even
   when vPIC's class for the key is hatchback); it never turns a vPIC van or pickup into a car.
4. ``rules:name`` — body words in the model name (`Convertible`, `Estate`, `Van`, `Pick Up`,
   `Crew Cab`, `Bus`, `Scooter`, `Rickshaw` …).
5. ``rules:make`` — makes that build one kind of vehicle: bus builders (Optare, Van Hool …),
   heavy-truck makers (Kenworth, Scania …), scooter makers (Vespa, Kymco …; motorcycles only)
   and auto-rickshaw makers.
6. ``rules:type`` — the vehicle type's default: Motorcycle → motorcycle, Passenger Car → sedan,
   Truck → truck, Bus → bus, MPV → suv, Other → other.

Model names are compared as lower-case ASCII words (`N-BOX` → `n box`). A table entry such as
``"nbox"`` matches a name whose first words join to it (`N-BOX`, `NBOX SLASH`, `N BOX CUSTOM`),
or the name followed directly by a number (`RX350` for ``"rx"``); the longest entry wins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Final

SOURCE_VPIC: Final = "vpic"
SOURCE_KNOWN: Final = "rules:known"
SOURCE_NAME: Final = "rules:name"
SOURCE_MAKE: Final = "rules:make"
SOURCE_TYPE: Final = "rules:type"
SOURCES: Final[tuple[str, ...]] = (
    SOURCE_VPIC,
    SOURCE_KNOWN,
    SOURCE_NAME,
    SOURCE_MAKE,
    SOURCE_TYPE,
)

MOTORCYCLE: Final = 1
PASSENGER_CAR: Final = 2
TRUCK: Final = 3
BUS: Final = 5
MPV: Final = 7
AUTO_RICKSHAW: Final = 10001
OTHER_VEHICLE: Final = 10002

_TYPE_DEFAULTS: Final[Mapping[int, str]] = {
    MOTORCYCLE: "motorcycle",
    PASSENGER_CAR: "sedan",
    TRUCK: "truck",
    BUS: "bus",
    MPV: "suv",
    AUTO_RICKSHAW: "auto-rickshaw",
    OTHER_VEHICLE: "other",
}

_CAR_SHAPES: Final = frozenset({"sedan", "hatchback", "wagon", "coupe", "convertible", "fastback"})
_REFINEMENTS: Final = _CAR_SHAPES | {"van", "pickup"}
_TWO_WHEELERS: Final = frozenset({"motorcycle", "scooter"})
# vPIC classes a motorcycle may take (dirt bikes, scooters, three-wheelers, ATVs → other).
_MOTORCYCLE_OK: Final = frozenset({"motorcycle", "scooter", "other"})

# --- vPIC ---------------------------------------------------------------------------------------

_VPIC_EXACT: Final[Mapping[str, str]] = {
    "Sedan/Saloon": "sedan",
    "Limousine": "sedan",
    "Hatchback/Liftback/Notchback": "hatchback",
    "Wagon": "wagon",
    "Coupe": "coupe",
    "Convertible/Cabriolet": "convertible",
    "Roadster": "convertible",
    "Sport Utility Vehicle (SUV)/Multi-Purpose Vehicle (MPV)": "suv",
    "Crossover Utility Vehicle (CUV)": "crossover",
    "Pickup": "pickup",
    "Sport Utility Truck (SUT)": "pickup",
    "Minivan": "minivan",
    "Van": "van",
    "Cargo Van": "van",
    "Step Van / Walk-in Van": "van",
    "Ambulance": "van",
    "Bus": "bus",
    "Bus - School Bus": "bus",
    "Motorhome": "bus",
    "Streetcar / Trolley": "bus",
    "Truck": "truck",
    "Truck-Tractor": "truck",
    "Fire Apparatus": "truck",
    "Street Sweeper": "truck",
    "Incomplete": "truck",
    "Low Speed Vehicle (LSV) / Neighborhood Electric Vehicle (NEV)": "other",
    "Trailer": "other",
    "Motorcycle - Scooter": "scooter",
    "Motorcycle - Moped": "scooter",
}
_VPIC_TWO_WHEEL_OFFROAD: Final = ("Dirt Bike", "Enduro", "Motocross")


def body_style_from_vpic(body_class: str) -> str | None:
    """The body style for a vPIC `Body Class` name, or None for a class this module does not know.

    Sedan/Saloon and Limousine → sedan; Hatchback/Liftback/Notchback → hatchback; Roadster and
    Convertible/Cabriolet → convertible; SUV/MPV → suv; CUV → crossover; Pickup and Sport Utility
    Truck → pickup; Van, Cargo Van, Step Van, Ambulance → van; Bus, School Bus, Motorhome,
    Streetcar → bus; Truck, Truck-Tractor, fire and sweeper trucks and every `Incomplete …`
    chassis → truck, except bus and motor-coach chassis → bus; `Motorcycle - Scooter` and
    `Moped` → scooter, every other `Motorcycle - …` → motorcycle; off-road dirt bikes, enduro
    and motocross → motorcycle, other off-road vehicles (ATV, golf cart, tractor …), LSVs and
    trailers → other.
    """
    name = " ".join(body_class.split())
    if name in _VPIC_EXACT:
        return _VPIC_EXACT[name]
    if name.startswith("Incomplete"):
        if "Trailer" in name:
            return "other"
        if "Bus" in name or "Coach" in name:
            return "bus"
        return "truck"
    if name.startswith("Motorcycle"):
        return "motorcycle"
    if name.startswith("Off-road Vehicle"):
        return "motorcycle" if any(word in name for word in _VPIC_TWO_WHEEL_OFFROAD) else "other"
    return None


# --- text ---------------------------------------------------------------------------------------

_WORD: Final = re.compile(r"[a-z0-9]+")
_NUMBER_TAIL: Final = re.compile(r"\d[0-9a-z]{0,4}")


def _words(text: str) -> tuple[str, ...]:
    """Lower-case ASCII words: `Citroën C4 Grand-Picasso` → `citroen c4 grand picasso`."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return tuple(_WORD.findall(folded))


def _key(text: str) -> str:
    return "".join(_words(text))


def _match(table: Mapping[str, str], words: tuple[str, ...]) -> str | None:
    """Longest entry equal to the joined first words, or to the name less a number tail."""
    best: str | None = None
    joined = ""
    for word in words:
        joined += word
        if joined in table and (best is None or len(joined) > len(best)):
            best = joined
    full = "".join(words)
    for entry in table:
        if (
            full.startswith(entry)
            and _NUMBER_TAIL.fullmatch(full[len(entry) :])
            and (best is None or len(entry) > len(best))
        ):
            best = entry
    return best


# --- known models -------------------------------------------------------------------------------

# Kei cars, vans and trucks (Japanese 660 cc class), by make: model name prefixes.
KEI_MODELS: Final[Mapping[str, frozenset[str]]] = {
    "honda": frozenset(
        {"nbox", "nwgn", "none", "nvan", "n360", "life", "zest", "thats", "beat", "s660", "acty",
         "vamos", "today"}
    ),
    "suzuki": frozenset(
        {"wagonr", "alto", "lapin", "hustler", "spacia", "every", "carry", "mrwagon", "palette",
         "cervo", "kei", "cappuccino", "twin"}
    ),
    "daihatsu": frozenset(
        {"tanto", "move", "mira", "cast", "copen", "hijet", "atrai", "wake", "esse", "naked",
         "max", "sonica", "cuore", "taft", "midget"}
    ),
    "mitsubishi": frozenset(
        {"ek", "ekwagon", "ekspace", "ekx", "ekcross", "i", "imiev", "minica", "toppo",
         "pajeromini", "minicab", "townbox", "delicamini"}
    ),
    "nissan": frozenset({"dayz", "roox", "moco", "otti", "pino", "kix", "sakura", "clipper"}),
    "mazda": frozenset({"carol", "flair", "scrum", "azwagon", "az1", "spiano", "laputa"}),
    "subaru": frozenset({"r1", "r2", "pleo", "stella", "sambar", "vivio", "rex", "dias", "lucra"}),
    "toyota": frozenset({"pixis"}),
    "autozam": frozenset({"az1", "carol", "scrum", "revue"}),
}  # fmt: skip

# Scooters (consulted for vehicle type Motorcycle only), by make: model name prefixes.
SCOOTER_MODELS: Final[Mapping[str, frozenset[str]]] = {
    "honda": frozenset(
        {"pcx", "sh", "forza", "dio", "activa", "lead", "vision", "nss", "scv", "ses", "fes",
         "zoomer", "ruckus", "giorno", "tact", "today", "spacy", "adv", "xadv", "silverwing",
         "swing", "ps", "sfx", "pantheon", "gyro", "gyrocanopy", "nsc", "ww", "cn"}
    ),
    "yamaha": frozenset(
        {"nmax", "xmax", "tmax", "aerox", "jog", "cv50", "vino", "zuma", "bws", "majesty",
         "cygnus", "neos", "neo", "delight", "yp", "yq", "cw", "xc", "xp", "ray", "fascino",
         "tricity", "axis", "beluga", "vity", "why"}
    ),
    "suzuki": frozenset(
        {"burgman", "address", "lets", "access", "avenis", "an", "uh", "uz", "ay", "katana50",
         "sepia", "epicuro"}
    ),
    "gilera": frozenset({"runner", "stalker", "fuoco", "nexus", "ice", "dna"}),
    "aprilia": frozenset({"sr", "scarabeo", "mojito", "sportcity", "atlantic", "leonardo", "sxr",
                          "rally", "amico"}),
    "peugeot": frozenset(
        {"speedfight", "vivacity", "satelis", "tweet", "kisbee", "ludix", "django", "metropolis",
         "geopolis", "elystar", "trekker", "elyseo", "buxy", "zenith", "looxor", "jetforce",
         "streetzone", "belville", "citystar", "pulsion", "squab", "vclic"}
    ),
    "bajaj": frozenset({"chetak"}),
    "tvs": frozenset({"jupiter", "ntorq", "scooty", "wego", "zest", "pep", "iqube"}),
    "hero": frozenset({"maestro", "pleasure", "destini", "duet"}),
    "bmw": frozenset({"c1", "c400x", "c400gt", "c600sport", "c650gt", "c650sport", "ce04"}),
}  # fmt: skip

# Hand-checked models whose name does not reveal the body, by make: model prefix → style.
KNOWN_MODELS: Final[Mapping[str, Mapping[str, str]]] = {
    "toyota": {
        "auris": "hatchback", "aqua": "hatchback", "passo": "hatchback", "fielder": "wagon",
        "caldina": "wagon", "succeed": "wagon", "wish": "minivan", "ipsum": "minivan",
        "picnic": "minivan", "kluger": "suv", "deliboy": "van", "soarer": "coupe", "hiace": "van",
        "regius": "van", "regiusace": "van", "liteace": "van", "townace": "van", "proace": "van",
        "granvia": "minivan", "estima": "minivan", "previa": "minivan", "alphard": "minivan",
        "vellfire": "minivan", "noah": "minivan", "voxy": "minivan", "sienta": "minivan",
        "granace": "minivan", "innova": "minivan", "hilux": "pickup", "hiluxsurf": "suv",
        "landcruiser": "suv", "prado": "suv", "harrier": "suv", "probox": "wagon", "coaster": "bus",
        "vitz": "hatchback", "yaris": "hatchback", "aygo": "hatchback", "starlet": "hatchback",
    },
    "volkswagen": {
        "syncro": "van", "microbus": "van", "westfalia": "van", "grandcalifornia": "van",
        "kombi": "van", "scirocco": "coupe", "transporter": "van", "caravelle": "van",
        "crafter": "van", "caddy": "van", "caddymaxi": "van", "lt": "van", "california": "van",
        "type2": "van", "t2": "van", "amarok": "pickup", "sharan": "minivan", "touran": "minivan",
        "polo": "hatchback", "golf": "hatchback", "up": "hatchback",
    },
    "mercedesbenz": {
        "mb100": "van", "mb140": "van", "xclass": "pickup", "sprinter": "van", "vito": "van",
        "citan": "van", "viano": "minivan", "vclass": "minivan", "unimog": "truck",
    },
    "ford": {
        "transit": "van", "tourneo": "van", "econovan": "van", "ranger": "pickup",
        "galaxy": "minivan", "smax": "minivan", "fiesta": "hatchback", "ka": "hatchback",
        "kuga": "suv",
    },
    "renault": {
        "megane": "hatchback", "twingo": "hatchback", "5": "hatchback", "zoe": "hatchback",
        "koleos": "suv", "extra": "van", "master": "van", "trafic": "van", "kangoo": "van",
        "espace": "minivan", "scenic": "minivan", "grandscenic": "minivan", "clio": "hatchback",
    },
    "renaulttrucks": {"master": "van", "trafic": "van"},
    "peugeot": {
        "107": "hatchback", "108": "hatchback", "306": "hatchback", "307": "hatchback",
        "308": "hatchback", "806": "minivan", "807": "minivan", "rifter": "minivan",
        "2008": "crossover", "3008": "crossover", "boxer": "van", "expert": "van", "partner": "van",
        "bipper": "van", "106": "hatchback", "205": "hatchback", "206": "hatchback",
        "207": "hatchback", "208": "hatchback",
    },
    "citroen": {
        "c1": "hatchback", "c4": "hatchback", "saxo": "hatchback", "c15": "van", "relay": "van",
        "dispatch": "van", "berlingo": "van", "nemo": "van", "jumper": "van", "jumpy": "van",
        "c3": "hatchback",
    },
    "fiat": {
        "ducato": "van", "scudo": "van", "doblo": "van", "fiorino": "van", "talento": "van",
        "punto": "hatchback", "panda": "hatchback",
    },
    "vauxhall": {
        "agila": "hatchback", "viva": "hatchback", "tigra": "coupe", "antara": "suv", "midi": "van",
        "rascal": "van", "brava": "pickup", "movano": "van", "vivaro": "van", "combo": "van",
        "astravan": "van", "corsavan": "van", "zafira": "minivan", "meriva": "minivan",
        "corsa": "hatchback", "astra": "hatchback", "frontera": "suv",
    },
    "opel": {"movano": "van", "vivaro": "van", "combo": "van", "corsa": "hatchback"},
    "nissan": {
        "ad": "wagon", "wingroad": "wagon", "avenir": "wagon", "d21": "pickup", "env200": "van",
        "kubistar": "van", "caravan": "van", "vanette": "van", "urvan": "van", "homy": "van",
        "nv200": "van", "nv300": "van", "nv350": "van", "nv400": "van", "primastar": "van",
        "interstar": "van", "townstar": "van", "navara": "pickup", "np300": "pickup",
        "d22": "pickup", "datsun": "pickup", "serena": "minivan", "elgrand": "minivan",
        "patrol": "suv", "safari": "suv", "terrano": "suv", "qashqai": "crossover",
        "juke": "crossover", "xtrail": "suv", "march": "hatchback", "micra": "hatchback",
        "note": "hatchback", "fairlady": "coupe", "silvia": "coupe",
        "cube": "minivan",  # a tall-box compact MPV; vPIC files it as an SUV
    },
    "mitsubishi": {
        "asx": "crossover", "grandis": "minivan", "chariot": "minivan", "strada": "pickup",
        "delica": "minivan", "l300": "van", "l200": "pickup", "triton": "pickup", "shogun": "suv",
        "pajero": "suv", "challenger": "suv", "canter": "truck", "fighter": "truck",
        "fuso": "truck", "rosa": "bus", "colt": "hatchback",
    },
    "suzuki": {
        "sj": "suv", "apv": "van", "jimny": "suv", "escudo": "suv", "supercarry": "van",
        "swift": "hatchback",
    },
    "daihatsu": {
        "sirion": "hatchback", "boon": "hatchback", "sportrak": "suv", "fourtrak": "suv",
        "terios": "suv", "rocky": "suv",
    },
    "honda": {
        "integra": "coupe", "stream": "minivan", "stepwagon": "minivan", "stepwgn": "minivan",
        "elysion": "minivan", "freed": "minivan", "jazz": "hatchback", "crx": "coupe",
        "nsx": "coupe",
    },
    "mazda": {
        "2": "hatchback", "b2200": "pickup", "b2500": "pickup", "b2600": "pickup",
        "bounty": "pickup", "roadster": "convertible", "miata": "convertible", "mx5": "convertible",
        "mx5miata": "convertible", "bongo": "van", "e2000": "van", "eseries": "van",
        "bt50": "pickup", "premacy": "minivan", "biante": "minivan", "demio": "hatchback",
    },
    "subaru": {"xv": "crossover", "outback": "wagon", "levorg": "wagon"},
    "isuzu": {
        "mu": "suv", "dmax": "pickup", "mux": "suv", "bighorn": "suv", "como": "van",
        "fargo": "van", "elf": "truck",
    },
    "hyundai": {
        "h1": "van", "iload": "van", "imax": "van", "i800": "minivan", "staria": "van",
        "i10": "hatchback", "i20": "hatchback", "i30": "hatchback",
    },
    "dodge": {"ram": "pickup", "ramvan": "van", "ramwagon": "van", "rampromaster": "van"},
    "ldv": {
        "g10": "van", "deliver": "van", "edeliver": "van", "cub": "van", "200series": "van",
        "400series": "van", "convoy": "van", "maxus": "van", "v80": "van", "deliver9": "van",
        "t60": "pickup",
    },
    "man": {"tge": "van"},
    "iveco": {"daily": "van"},
    "piaggio": {"ape": "auto-rickshaw", "porter": "van", "mp3": "scooter"},
    "landrover": {
        "rangerover": "suv", "defender": "suv", "discovery": "suv", "freelander": "suv",
        "88": "suv", "90": "suv", "109": "suv", "110": "suv", "127": "suv",
    },
    "rover": {"rangerover": "suv"},
    "ssangyong": {
        "actyon": "suv", "actyonsport": "pickup", "rodius": "minivan", "rexton": "suv",
        "korando": "suv", "musso": "pickup", "kyron": "suv",
    },
    "holden": {"barina": "hatchback", "colorado": "pickup", "rodeo": "pickup"},
    "dacia": {"duster": "suv"},
    "lada": {"niva": "suv"},
    "skoda": {"fabia": "hatchback"},
    "seat": {"ibiza": "hatchback", "leon": "hatchback", "alhambra": "minivan"},
    "kia": {
        "picanto": "hatchback", "ceed": "hatchback", "proceed": "hatchback", "carens": "minivan",
        "pregio": "van",
    },
    "mini": {"one": "hatchback", "cooper": "hatchback", "johncooperworks": "hatchback"},
    "morgan": {
        "44": "convertible", "plus4": "convertible", "plus8": "convertible", "aero8": "convertible",
    },
    "chrysler": {"towncountry": "minivan", "townandcountry": "minivan"},
    "plymouth": {"prowler": "convertible"},
    "talbot": {"express": "van"},
    "freightrover": {"sherpa": "van"},
    "maxus": {
        "deliver": "van", "edeliver": "van", "v80": "van", "v90": "van", "g10": "minivan",
        "mifa": "minivan", "t60": "pickup", "t90": "pickup",
    },
    "weststar": {"maxusv80": "van", "maxusg10": "minivan", "maxusmifa": "minivan"},
    "greatwall": {"steed": "pickup"},
    "fuso": {"canter": "truck", "fighter": "truck", "rosa": "bus"},
    "foton": {"tunland": "pickup"},
    "chevroletgmc": {"camaro": "coupe", "corvette": "coupe"},
    "lexus": {
        "sc430": "convertible", "rx": "suv", "nx": "suv", "lx": "suv", "gx": "suv", "ux": "suv",
    },
    "bmw": {
        "1series": "hatchback", "6series": "coupe", "8series": "coupe", "x1": "suv", "x2": "suv",
        "x3": "suv", "x4": "suv", "x5": "suv", "x6": "suv", "x7": "suv", "z3": "convertible",
        "z4": "convertible",
    },
    "mahindra": {"alfa": "auto-rickshaw", "treo": "auto-rickshaw", "pikup": "pickup"},
    "tvs": {"king": "auto-rickshaw"},
    "bajaj": {"re": "auto-rickshaw", "maxima": "auto-rickshaw"},
}  # fmt: skip

# --- makes --------------------------------------------------------------------------------------

BUS_MAKES: Final = frozenset(
    {"alexanderdennis", "wrightbus", "wright", "optare", "plaxton", "vanhool", "bluebird",
     "thomasbuilt", "thomasbuiltbuses", "gillig", "newflyer", "setra", "neoplan", "irizar",
     "yutong", "kinglong", "higer", "bci", "mci", "motorcoachindustries", "prevost", "temsa",
     "caetano", "mellor", "bova", "vdl", "irisbus", "sitcar", "indcar", "marcopolo",
     "zhongtong", "sunlong", "goldendragon", "ankai", "switch", "crrc", "volgren", "designline",
     "solaris", "ebusco", "evobus", "ayats", "beulas", "berkhof", "jonckheere", "noge"}
)  # fmt: skip
TRUCK_MAKES: Final = frozenset(
    {"freightliner", "kenworth", "peterbilt", "mack", "westernstar", "navistar",
     "sterlingtruck", "volvotruck", "volvotrucks", "scania", "daf", "daftrucks", "leylanddaf",
     "man", "hino", "ud", "udtrucks", "nissandiesel", "mitsubishifuso", "fuso", "foden", "erf",
     "seddonatkinson", "dennis", "denniseagle", "renaulttrucks", "isuzutrucks", "ashokleyland",
     "eicher", "bharatbenz", "sinotruk", "shacman", "howo", "terberg", "kamaz", "autocar",
     "oshkosh", "iveco", "ivecotrucks", "tatra", "camc", "beiben"}
)  # fmt: skip
SCOOTER_MAKES: Final = frozenset(
    {"vespa", "lambretta", "piaggio", "kymco", "sym", "niu", "gogoro", "vmoto", "lml", "italjet",
     "malaguti", "peugeotmotocycles", "znen", "baotian", "pgo", "adly", "taiwangoldenbee"}
)  # fmt: skip
RICKSHAW_MAKES: Final = frozenset({"atul", "atulauto"})
# Motorhome builders (coach-built on van chassis): drawn as a van.
MOTORHOME_MAKES: Final = frozenset(
    {"hymer", "knaus", "dethleffs", "burstner", "chausson", "pilote", "benimar", "trigano",
     "adria", "niesmannbischoff", "autotrail", "autosleepers", "elddis", "rapido", "bailey",
     "swiftgroup", "rollerteam", "carado", "sunlight", "mobilvetta"}
)  # fmt: skip

# --- name words ---------------------------------------------------------------------------------

# Ordered: the first style whose word occurs in the name wins (open body before coupe before
# wagon …, so `Golf Cabriolet Estate` would be a convertible). Phrases are space-separated words.
NAME_WORDS: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    ("auto-rickshaw", frozenset({"rickshaw", "autorickshaw", "tuk tuk", "tuktuk"})),
    ("scooter", frozenset({"scooter", "maxiscooter"})),
    ("convertible", frozenset(
        {"convertible", "cabriolet", "cabrio", "roadster", "spider", "spyder", "volante",
         "drophead", "speedster", "barchetta", "targa"}
    )),
    ("fastback", frozenset({"fastback", "sportback", "gran coupe", "grancoupe"})),
    ("coupe", frozenset({"coupe", "coupes"})),
    ("wagon", frozenset(
        {"wagon", "estate", "avant", "variant", "sportwagon", "sportswagon",
         "sportwagen", "sports tourer", "sportstourer", "shooting brake", "allroad"}
    )),
    ("hatchback", frozenset({"hatchback", "hatch", "liftback"})),
    ("sedan", frozenset({"sedan", "saloon", "limousine"})),
    ("pickup", frozenset(
        {"pickup", "pick up", "ute", "double cab", "doublecab", "crew cab", "crewcab",
         "dual cab", "king cab", "kingcab", "extra cab", "super cab", "supercab", "club cab",
         "space cab", "mega cab", "quad cab", "regular cab", "d cab", "dcab", "4x4 pickup"}
    )),
    ("minivan", frozenset({"minivan", "mpv", "people carrier"})),
    ("van", frozenset(
        {"van", "panel van", "caravan", "campervan", "camper", "motorhome", "motor home",
         "autotrail", "auto trail", "elddis", "hymer", "roller team", "autosleeper",
         "auto sleeper", "auto sleepers", "autosleepers", "minibus", "chausson", "dethleffs",
         "knaus", "burstner", "benimar", "pilote", "trigano", "carado", "itineo", "mobilvetta",
         "westfalia"}
    )),
    ("bus", frozenset({"bus", "coach", "omnibus", "midibus", "citybus", "schoolbus", "school bus",
                       "double decker", "doubledecker", "decker"})),
    ("truck", frozenset({"truck", "tipper", "dropside", "luton", "flatbed", "tanker", "lorry",
                         "chassis cab", "cab chassis", "chassis"})),
    ("suv", frozenset({"suv", "jeep", "4x4 suv"})),
    ("crossover", frozenset({"crossover", "cuv"})),
)  # fmt: skip
# Words that end in one of the van words but are something else (`caravan` is kept: a van).
_VAN_SUFFIX_EXCEPTIONS: Final = frozenset({"sylvan", "nirvan"})


def _phrases(words: tuple[str, ...]) -> set[str]:
    """Every single word and every run of two or three words, space-joined."""
    found = set(words)
    for size in (2, 3):
        for start in range(len(words) - size + 1):
            found.add(" ".join(words[start : start + size]))
    return found


def _style_from_words(words: tuple[str, ...], vehicle_type_id: int) -> str | None:
    """The body style named by a word of the model name, or None."""
    phrases = _phrases(words)
    for style, vocabulary in NAME_WORDS:
        if vehicle_type_id == MOTORCYCLE and style not in ("scooter", "auto-rickshaw"):
            continue
        if phrases & vocabulary:
            return style
    if vehicle_type_id != MOTORCYCLE and any(
        len(word) > 4 and word.endswith("van") and word not in _VAN_SUFFIX_EXCEPTIONS
        for word in words
    ):
        return "van"  # ASTRAVAN, CORSAVAN, ECONOVAN
    return None


def _known(make_key: str, words: tuple[str, ...], vehicle_type_id: int) -> tuple[str, bool] | None:
    """Known kei, scooter (motorcycles only) or hand-checked model, or None.

    The flag says whether the match is binding even against vPIC: kei and scooter matches
    always are; a `KNOWN_MODELS` entry only when it is the whole name (`Golf`, not
    `Golf Alltrack`, which vPIC knows as a wagon).
    """
    if vehicle_type_id == MOTORCYCLE:
        scooters = SCOOTER_MODELS.get(make_key)
        if scooters and _match(dict.fromkeys(scooters, "scooter"), words):
            return "scooter", True
        return None
    kei = KEI_MODELS.get(make_key)
    if kei and _match(dict.fromkeys(kei, "kei"), words):
        return "kei", True
    known = KNOWN_MODELS.get(make_key)
    entry = _match(known, words) if known else None
    if known is None or entry is None:
        return None
    return known[entry], entry == "".join(words)


def _style_from_make(make_key: str, vehicle_type_id: int) -> str | None:
    if make_key in RICKSHAW_MAKES:
        return "auto-rickshaw"
    if vehicle_type_id == MOTORCYCLE:
        return "scooter" if make_key in SCOOTER_MAKES else None
    if vehicle_type_id == OTHER_VEHICLE:
        return None
    if make_key in MOTORHOME_MAKES:
        return "van"
    if make_key in BUS_MAKES:
        return "bus"
    if make_key in TRUCK_MAKES:
        return "bus" if vehicle_type_id == BUS else "truck"
    return None


def _refine(base: str, words: tuple[str, ...], vehicle_type_id: int) -> str | None:
    """A body word that refines a passenger-car shape (`Golf Cabriolet`, `Astra Van`), or None.

    Only a passenger-car shape is refined, and only into another passenger-car shape, a van or
    a pickup; a van, pickup, SUV … from vPIC or the known table is never changed by a word
    (`Hiace Wagon` stays a van, `Land Cruiser Wagon` an SUV).
    """
    if base not in _CAR_SHAPES:
        return None
    by_name = _style_from_words(words, vehicle_type_id)
    if by_name is not None and by_name != base and by_name in _REFINEMENTS:
        return by_name
    return None


def _resolve(
    make_name: str, model_name: str, vehicle_type_id: int, vpic_class: str | None
) -> tuple[str, str]:
    make_key = _key(make_name)
    words = _words(model_name)
    known = _known(make_key, words, vehicle_type_id)
    from_vpic = body_style_from_vpic(vpic_class) if vpic_class else None
    if from_vpic is not None and not _vpic_fits(from_vpic, vehicle_type_id):
        from_vpic = None
    if known is not None and (known[1] or from_vpic is None):
        style = known[0]
        refined = _refine(style, words, vehicle_type_id)
        if refined is not None:
            return refined, SOURCE_NAME
        return style, SOURCE_VPIC if style == from_vpic else SOURCE_KNOWN
    if vehicle_type_id == AUTO_RICKSHAW:
        return "auto-rickshaw", SOURCE_TYPE
    if from_vpic is not None:
        refined = _refine(from_vpic, words, vehicle_type_id)
        return (refined, SOURCE_NAME) if refined else (from_vpic, SOURCE_VPIC)
    by_name = _style_from_words(words, vehicle_type_id)
    if by_name is not None:
        return by_name, SOURCE_NAME
    by_make = _style_from_make(make_key, vehicle_type_id)
    if by_make is not None:
        return by_make, SOURCE_MAKE
    return _TYPE_DEFAULTS.get(vehicle_type_id, "other"), SOURCE_TYPE


def _vpic_fits(style: str, vehicle_type_id: int) -> bool:
    """A motorcycle takes only two-wheeler (or other) classes; cars, trucks, buses none of those."""
    if vehicle_type_id == MOTORCYCLE:
        return style in _MOTORCYCLE_OK
    if vehicle_type_id == OTHER_VEHICLE:
        return True
    return style not in _TWO_WHEELERS


def body_style_from_rules(make_name: str, model_name: str, vehicle_type_id: int) -> tuple[str, str]:
    """Body style and source tag from the rules alone: `choose_body_style` without vPIC.

    Known models, then the Auto Rickshaw type, then name words, then one-kind makes, then the
    vehicle type's default. Never fails: an unknown vehicle type gives `other`.
    """
    return _resolve(make_name, model_name, vehicle_type_id, None)


def choose_body_style(
    make_name: str, model_name: str, vehicle_type_id: int, vpic_class: str | None
) -> tuple[str, str]:
    """The body style to render and its source tag (precedence in the module docstring).

    Known models (kei, scooters, hand-checked) and the Auto Rickshaw type beat vPIC, because
    they were checked by hand; vPIC beats the remaining rules, which only guess. A body word in
    the name refines a passenger-car shape from either (tagged ``rules:name``): `Golf
    Cabriolet` is a convertible although the Golf is a hatchback.
    """
    return _resolve(make_name, model_name, vehicle_type_id, vpic_class)
