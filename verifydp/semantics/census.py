"""The 2020 Census redistricting budget (Kifer et al. §8.1, Tables 3–5; claim `kifer/scenarios`).

ρ* of a query at a geographic level = base ρ (Table 3) × level proportion (Table 4) ×
query proportion (Table 5; housing units have the single OCCUPANCY query, proportion 1).
The ρ of a scenario is the sum of ρ* over the queries it declares affected (zCDP composes
additively).  All numbers are exact Fractions, transcribed from the printed tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction as F

LEVELS = ("US", "State", "County", "Tract", "CBG", "Block")
PERSON_BASE, HOUSING_BASE = F(256, 100), F(7, 100)  # Table 3

GEO_PERSON = dict(zip(LEVELS, (F(104, 4099), F(1440, 4099), F(447, 4099), F(687, 4099),
                               F(1256, 4099), F(165, 4099)), strict=True))  # Table 4
GEO_HOUSING = dict(zip(LEVELS, (F(1, 205), F(1, 205), F(7, 82), F(364, 1025),
                                F(1759, 4100), F(99, 820)), strict=True))  # Table 4

_SMALL = (F(26, 4097), F(6, 4097), F(10, 4097), F(5, 4102), F(3, 4099), F(5, 4097))
QUERIES: dict[str, tuple[F, ...]] = {  # Table 5, columns US … Block
    "TOTAL": (F(0), F(3773, 4097), F(3126, 4097), F(1567, 4102), F(1705, 4099), F(5, 4097)),
    "CENRACE": (F(52, 4097), F(6, 4097), F(10, 4097), F(4, 2051), F(3, 4099), F(9, 4097)),
    "HISPANIC": _SMALL,
    "VOTINGAGE": _SMALL,
    "HHINSTLEVELS": _SMALL,
    "HHGQ": _SMALL,
    "HISPANIC×CENRACE": (F(130, 4097), F(12, 4097), F(28, 4097), F(1933, 4102),
                         F(1055, 4099), F(21, 4097)),
    "VOTINGAGE×CENRACE": (F(130, 4097), F(12, 4097), F(28, 4097), F(10, 2051), F(9, 4099),
                          F(21, 4097)),
    "VOTINGAGE×HISPANIC": _SMALL,
    "VOTINGAGE×HISPANIC×CENRACE": (F(26, 241), F(2, 241), F(101, 4097), F(67, 4102),
                                   F(24, 4099), F(71, 4097)),
    "HHGQ×VOTINGAGE×HISPANIC×CENRACE": (F(189, 241), F(230, 4097), F(754, 4097),
                                        F(241, 2051), F(1288, 4099), F(3945, 4097)),
}


def person_rho(query: str, level: str) -> F:
    """ρ* of a person query at a level (e.g. VOTINGAGE×CENRACE, State: 2.56·1440/4099·12/4097)."""
    return PERSON_BASE * GEO_PERSON[level] * QUERIES[query][LEVELS.index(level)]


def housing_rho(level: str) -> F:
    """ρ* of the OCCUPANCY STATUS query at a level (e.g. County: 0.07·7/82)."""
    return HOUSING_BASE * GEO_HOUSING[level]


@dataclass(frozen=True)
class Scenario:
    """A §8.2 scenario: which person queries and which housing levels it counts."""

    name: str
    text: str
    person: Callable[[str, str], bool]
    housing: Callable[[str], bool]

    def rho(self) -> F:
        r = sum((person_rho(q, lv) for q in QUERIES for lv in LEVELS if self.person(q, lv)),
                F(0))
        return r + sum((housing_rho(lv) for lv in LEVELS if self.housing(lv)), F(0))


def _race(q: str) -> bool:
    return "CENRACE" in q


def _eth(q: str) -> bool:
    return "HISPANIC" in q


def _va(q: str) -> bool:
    return "VOTINGAGE" in q


_LOW = ("CBG", "Block")
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("A", "block-level queries (persons and housing units)",
             lambda q, lv: lv == "Block", lambda lv: lv == "Block"),
    Scenario("B", "block and custom-block-group queries",
             lambda q, lv: lv in _LOW, lambda lv: lv in _LOW),
    Scenario("C", "person queries involving race (CENRACE), all levels",
             lambda q, lv: _race(q), lambda lv: False),
    Scenario("D", "person queries involving ethnicity (HISPANIC), all levels",
             lambda q, lv: _eth(q), lambda lv: False),
    Scenario("E", "all CBG and block queries, plus race queries at tract and above",
             lambda q, lv: lv in _LOW or _race(q), lambda lv: lv in _LOW),
    Scenario("F", "all block queries, plus voting-age queries at CBG and above",
             lambda q, lv: lv == "Block" or _va(q), lambda lv: lv == "Block"),
    Scenario("G", "all block queries, plus voting-age or race queries at CBG and above",
             lambda q, lv: lv == "Block" or _va(q) or _race(q), lambda lv: lv == "Block"),
    Scenario("H", "all block queries, plus voting-age or ethnicity queries at CBG and above",
             lambda q, lv: lv == "Block" or _va(q) or _eth(q), lambda lv: lv == "Block"),
)


def total_rho() -> F:
    """ρ of the whole release: every query at every level (§8.1: 2.56 + 0.07 = 2.63)."""
    return Scenario("all", "", lambda q, lv: True, lambda lv: True).rho()
