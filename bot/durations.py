"""Durations as people write them: `90` (seconds), `90s`, `15m`, `6h`, `7d`, `2w`."""

from __future__ import annotations

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str | float | int) -> float:
    """Seconds in `text`; ValueError naming the accepted forms when it is not a positive duration."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        seconds = float(text)
    else:
        raw = str(text).strip().lower()
        unit = raw[-1:] if raw[-1:] in UNITS else "s"
        number = raw[:-1] if raw[-1:] in UNITS else raw
        try:
            seconds = float(number) * UNITS[unit]
        except ValueError:
            raise ValueError(f"{text!r} is not a duration; write e.g. 90m, 24h, 7d or 2w") from None
    if not seconds > 0:
        raise ValueError(f"{text!r} is not a positive duration")
    return seconds


def describe(seconds: float) -> str:
    """A short human duration: 45 s, 12 min, 3.5 h, 2 d."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    return f"{seconds / 86400:.1f} d".replace(".0 d", " d")
