"""The values of rule knobs: the :class:`Knob` record, and how each kind of value is parsed, formatted and
described (the table of knobs itself is :data:`simcli.rules.knobs.KNOBS`).

Parsing is strict: a value a knob does not accept raises :class:`RuleError` with one line naming the knob and
what it accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simcli.primitives.cards import RANK_NAMES, CardError, parse_rank


class RuleError(ValueError):
    """A bad rule set: unknown knob, wrong type, value out of range, or an impossible combination."""


CANASTA_TYPES = ("ANY", "NATURAL", "MIXED", "WILD", "SEVENS", "ACES", "CLEAN", "DIRTY")

#: Other names accepted in ``go_out_requirement`` (RULES.md §2.4 names the Spanish kinds *limpia*/*sucia*).
CANASTA_TYPE_ALIASES = {"LIMPIA": "CLEAN", "SUCIA": "DIRTY"}

#: Named initial-meld tables of §3.4: (lowest team score of the band, minimum). ``None`` is "below 0".
MELD_TABLES: dict[str, tuple[tuple[int | None, int], ...]] = {
    "CLASSIC": ((None, 15), (0, 50), (1500, 90), (3000, 120)),
    "AM_PAGAT": ((None, 15), (0, 50), (1500, 90), (3000, 120), (5000, 150)),
    "AM_MODERN_2020S": ((None, 125), (3000, 155), (5000, 180)),
    "PENNIES": ((None, 50), (500, 90), (1000, 120), (1500, 150)),
    "CLASSIC_6P": ((None, 15), (0, 50), (1500, 90), (3000, 120), (7500, 150)),  # RULES.md A-CL-4, two teams
    "HF_BY_DEAL": ((None, 50), (2, 90), (3, 120), (4, 150)),
    "BY_DEAL_NUMBER": ((None, 50), (2, 90), (3, 120), (4, 150)),  # RULES.md §1.8's name (HF, PIERSON)
}

#: The named tables keyed by deal number, the only ones ``initial_meld_basis=DEAL_NUMBER`` takes (A-X-6).
BY_DEAL_TABLES = ("HF_BY_DEAL", "BY_DEAL_NUMBER")


@dataclass(frozen=True, slots=True)
class Knob:
    """One rule knob: its name, kind, bounds and help text."""

    name: str
    kind: str  # int, float, bool, enum, ranks, enumset, table, requirement, range, intlist, modes
    help: str
    allowed: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    nullable: bool = False

    @property
    def field(self) -> str:
        """The attribute name on :class:`~simcli.rules.presets.RuleSet` (dots become underscores)."""
        return self.name.replace(".", "_")

    def describe_allowed(self) -> str:
        """A short phrase saying which values this knob accepts."""
        null = " or null" if self.nullable else ""
        if self.kind == "int" or self.kind == "float":
            lo = "-inf" if self.lo is None else f"{self.lo:g}"
            hi = "inf" if self.hi is None else f"{self.hi:g}"
            return f"{'an integer' if self.kind == 'int' else 'a number'} in [{lo}, {hi}]{null}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "enum":
            return "one of " + ", ".join(self.allowed)
        if self.kind == "enumset":
            return "a comma-separated subset of " + ", ".join(self.allowed)
        if self.kind == "ranks":
            return "a comma-separated list of ranks from " + " ".join(RANK_NAMES) + " (or 'none')"
        if self.kind == "table":
            return (
                "a table name (" + ", ".join(MELD_TABLES)
                + ") or bands like 'neg:15,0:50,1500:90,3000:120'"
            )
        if self.kind == "requirement":
            return "canasta counts like 'ANY:1' or 'NATURAL:1,MIXED:1' (types: " + ", ".join(
                CANASTA_TYPES
            ) + ")"
        if self.kind == "range":
            return f"'MIN-MAX' with {self.lo:g} <= MIN <= MAX{null}"
        if self.kind == "intlist":
            return "a comma-separated list of sizes from 1 to 20 (or 'none')"
        if self.kind == "modes":
            return "a comma-separated list of PLAYERSxTEAM_SIZE like '2x1,4x2,6x3'" + null
        if self.kind == "signs":
            return "three signs from -1, 0, 1 for 0, 1 and 2 or more canastas, like '-1,0,1'"
        return self.kind

    # ------------------------------------------------------------------ parsing
    def parse(self, raw: Any) -> Any:
        """Convert a TOML value or a command-line string into this knob's canonical value.

        Raises :class:`RuleError` with one line naming the knob and what it accepts.
        """
        try:
            return self._parse(raw)
        except (RuleError, CardError, ValueError, TypeError) as exc:
            detail = f" ({exc})" if isinstance(exc, CardError) else ""
            raise RuleError(
                f"bad value {raw!r} for rule knob '{self.name}'{detail}: "
                f"allowed is {self.describe_allowed()}"
            ) from None

    def _parse(self, raw: Any) -> Any:
        if self.nullable and (raw is None or (isinstance(raw, str) and raw.strip().lower() in
                                              ("null", "none", ""))):
            return None
        parser = _PARSERS.get(self.kind)
        if parser is None:
            raise TypeError(self.kind)
        return parser(self, raw)

    def check_bounds(self, value: float) -> None:
        """Raise ValueError if ``value`` is outside ``[lo, hi]`` (an open end where a bound is None)."""
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ValueError(value)

    # --------------------------------------------------------------- formatting
    def format(self, value: Any) -> str:
        """Format a canonical value the way it would be written on the command line."""
        if value is None:
            return "null"
        k = self.kind
        if k == "bool":
            return "true" if value else "false"
        if k == "enumset":
            return ",".join(value) if value else "none"
        if k == "ranks":
            return ",".join(RANK_NAMES[r] for r in value) if value else "none"
        if k == "table":
            for name, bands in MELD_TABLES.items():
                if bands == value:
                    return name
            return ",".join(f"{'neg' if t is None else t}:{v}" for t, v in value)
        if k == "requirement":
            return ",".join(f"{t}:{n}" for t, n in value)
        if k == "intlist":
            return ",".join(str(v) for v in value) if value else "none"
        if k == "signs":
            return ",".join(str(v) for v in value)
        if k == "modes":
            return ",".join(f"{p}x{t}" for p, t in value)
        if k == "range":
            return f"{value[0]}-{value[1]}"
        if k == "float":
            return f"{value:g}"
        return str(value)


def _split(raw: Any) -> list[str]:
    if isinstance(raw, (list, tuple)):
        return [str(x).strip() for x in raw if str(x).strip()]
    return [x.strip() for x in str(raw).split(",") if x.strip()]


def _parse_table(raw: Any) -> tuple[tuple[int | None, int], ...]:
    if isinstance(raw, str) and raw.strip().upper() in MELD_TABLES:
        return MELD_TABLES[raw.strip().upper()]
    if isinstance(raw, dict):
        items = [(str(k), v) for k, v in raw.items()]
    else:
        items = [tuple(p.split(":", 1)) for p in _split(raw)]  # type: ignore[misc]
    bands: list[tuple[int | None, int]] = []
    for key, val in items:
        threshold = None if key.strip().lower() in ("neg", "<0", "-inf") else int(key)
        minimum = int(val)
        if minimum < 0:
            raise ValueError(minimum)
        bands.append((threshold, minimum))
    if not bands:
        raise ValueError(raw)
    bands.sort(key=lambda b: -(10**12) if b[0] is None else b[0])
    return tuple(bands)


def _parse_requirement(raw: Any) -> tuple[tuple[str, int], ...]:
    items: list[tuple[str, int]] = []
    if isinstance(raw, dict):
        items = [(str(k), int(v)) for k, v in raw.items()]
    else:
        for part in _split(raw):
            name, _, times = part.partition(":")
            items.append((name, int(times or 1)))
    out: dict[str, int] = {}
    for name, count in items:
        up = name.strip().upper()
        up = CANASTA_TYPE_ALIASES.get(up, up)
        if up not in CANASTA_TYPES or count < 0:
            raise ValueError(raw)
        out[up] = out.get(up, 0) + count
    if not out:
        raise ValueError(raw)
    return tuple(sorted(out.items(), key=lambda kv: CANASTA_TYPES.index(kv[0])))


# ------------------------------------------------------------------ one parser per kind (Knob.parse dispatches)
def _parse_bool(knob: Knob, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ValueError(raw)


def _parse_int(knob: Knob, raw: Any) -> int:
    if isinstance(raw, bool):
        raise TypeError(raw)
    number = int(raw) if not isinstance(raw, str) else int(raw.strip())
    if isinstance(raw, float) and raw != number:
        raise ValueError(raw)
    knob.check_bounds(number)
    return number


def _parse_float(knob: Knob, raw: Any) -> float:
    if isinstance(raw, bool):
        raise TypeError(raw)
    real = float(raw)
    knob.check_bounds(real)
    return real


def _parse_enum(knob: Knob, raw: Any) -> str:
    text = str(raw).strip().upper()
    if text not in knob.allowed:
        raise ValueError(raw)
    return text


def _parse_enumset(knob: Knob, raw: Any) -> tuple[str, ...]:
    items = [i for i in _split(raw) if i.lower() != "none"]
    out = []
    for item in items:
        up = item.upper()
        if up not in knob.allowed:
            raise ValueError(raw)
        out.append(up)
    return tuple(sorted(set(out), key=knob.allowed.index))


def _parse_ranks(knob: Knob, raw: Any) -> tuple[int, ...]:
    items = [i for i in _split(raw) if i.lower() != "none"]
    return tuple(sorted({parse_rank(i) for i in items}))


def _parse_signs(knob: Knob, raw: Any) -> tuple[int, ...]:
    signs = tuple(int(x) for x in _split(raw))
    if len(signs) != 3 or any(v not in (-1, 0, 1) for v in signs):
        raise ValueError(raw)
    return signs


def _parse_intlist(knob: Knob, raw: Any) -> tuple[int, ...]:
    values = tuple(int(x) for x in _split(raw) if str(x).lower() != "none")
    if any(v < 1 or v > 20 for v in values):
        raise ValueError(raw)
    return values


def _parse_modes(knob: Knob, raw: Any) -> tuple[tuple[int, int], ...]:
    modes = []
    for item in _split(raw):
        players, _, size = item.lower().partition("x")
        modes.append((int(players), int(size)))
    if not modes or any(not (2 <= p <= 6 and 1 <= t <= 3) for p, t in modes):
        raise ValueError(raw)
    return tuple(sorted(set(modes)))


def _parse_range(knob: Knob, raw: Any) -> tuple[int, int]:
    if isinstance(raw, (list, tuple)):
        lo, hi = (int(x) for x in raw)
    else:
        lo_s, _, hi_s = str(raw).partition("-")
        lo, hi = int(lo_s), int(hi_s or lo_s)
    if knob.lo is not None and lo < knob.lo or lo > hi:
        raise ValueError(raw)
    return (lo, hi)


#: Knob kind -> its parser (``None`` and ``null`` are handled before, for a nullable knob).
_PARSERS: dict[str, Callable[[Knob, Any], Any]] = {
    "bool": _parse_bool,
    "int": _parse_int,
    "float": _parse_float,
    "enum": _parse_enum,
    "enumset": _parse_enumset,
    "ranks": _parse_ranks,
    "table": lambda knob, raw: _parse_table(raw),
    "signs": _parse_signs,
    "intlist": _parse_intlist,
    "requirement": lambda knob, raw: _parse_requirement(raw),
    "modes": _parse_modes,
    "range": _parse_range,
}
