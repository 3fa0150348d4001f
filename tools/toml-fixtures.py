#!/usr/bin/env python3
"""The TOML corpus's expected trees, written by an independent parser: Python's tomllib.

For every Tests/Fixtures/toml/valid/NAME.toml this writes NAME.json, the document's tree in the tagged form
the Swift corpus test compares with (conformance-dump's TOMLTaggedJSON): tables are objects with their keys in
file order, arrays are arrays, and each scalar is {"type": T, "value": TEXT} with T one of string, integer,
float, bool, datetime, datetime-local, date-local, time-local. Dates and times are written the way the
daemon's parser gives them (and toml++ gave them): 'T' between date and time, 'Z' for a zero offset, the
fraction of a second without trailing zeros. It also checks that tomllib refuses every invalid/*.toml
(integers past 64 bits count as refused: TOML 1.0 lets a parser refuse what it cannot hold losslessly, and
tomllib keeps Python's unbounded integers).

Run it after adding or changing a fixture:  python3 tools/toml-fixtures.py
"""
import datetime
import json
import math
import pathlib
import sys
import tomllib

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "Tests" / "Fixtures" / "toml"


def time_text(t):
    text = f"{t.hour:02}:{t.minute:02}:{t.second:02}"
    if t.microsecond:
        text += ("." + f"{t.microsecond:06}").rstrip("0")
    return text


def tagged(value):
    if isinstance(value, dict):
        return {key: tagged(member) for key, member in value.items()}
    if isinstance(value, list):
        return [tagged(element) for element in value]
    if isinstance(value, bool):
        return {"type": "bool", "value": "true" if value else "false"}
    if isinstance(value, int):
        return {"type": "integer", "value": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            text = "nan"
        elif math.isinf(value):
            text = "inf" if value > 0 else "-inf"
        else:
            text = repr(value)
        return {"type": "float", "value": text}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, datetime.datetime):
        text = f"{value.year:04}-{value.month:02}-{value.day:02}T{time_text(value)}"
        if value.tzinfo is None:
            return {"type": "datetime-local", "value": text}
        offset = value.utcoffset()
        minutes = int(offset.total_seconds()) // 60
        if minutes == 0:
            text += "Z"
        else:
            sign = "-" if minutes < 0 else "+"
            text += f"{sign}{abs(minutes) // 60:02}:{abs(minutes) % 60:02}"
        return {"type": "datetime", "value": text}
    if isinstance(value, datetime.date):
        return {"type": "date-local", "value": f"{value.year:04}-{value.month:02}-{value.day:02}"}
    if isinstance(value, datetime.time):
        return {"type": "time-local", "value": time_text(value)}
    raise TypeError(f"unexpected value {value!r}")


def out_of_range_integer(value):
    """The first integer outside 64 bits in a tree. tomllib keeps any integer (Python's are unbounded); TOML
    1.0 says a parser must refuse one it cannot hold losslessly, and ours holds 64-bit signed integers."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for element in value:
            found = out_of_range_integer(element)
            if found is not None:
                return found
        return None
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return value
    return None


def load(data: bytes):
    """tomllib's tree of a document, with integers past 64 bits refused as TOML 1.0 allows."""
    tree = tomllib.loads(data.decode("utf-8"))
    big = out_of_range_integer(tree)
    if big is not None:
        raise tomllib.TOMLDecodeError(f"the integer {big} does not fit in 64 bits")
    return tree


def expected_json(data: bytes) -> str:
    """The tagged tree of a document tomllib accepts, as the fixture's JSON text."""
    return json.dumps(tagged(load(data)), indent=1, ensure_ascii=True) + "\n"


def main():
    problems = 0
    valid = sorted((CORPUS / "valid").glob("*.toml"))
    for path in valid:
        try:
            text = expected_json(path.read_bytes())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            print(f"{path}: tomllib refuses a valid fixture: {error}", file=sys.stderr)
            problems += 1
            continue
        path.with_suffix(".json").write_text(text)
    invalid = sorted((CORPUS / "invalid").glob("*.toml"))
    for path in invalid:
        try:
            load(path.read_bytes())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        print(f"{path}: tomllib accepts an invalid fixture", file=sys.stderr)
        problems += 1
    print(f"{len(valid)} valid fixtures written, {len(invalid)} invalid fixtures checked, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
