#!/usr/bin/env python3
"""Differential check of gestured's TOML parser against Python's tomllib.

Generates random TOML documents (and takes the corpus's valid ones), mutates them byte by byte, and has
both parsers read every one: conformance-dump (GestureConfig's parser, built by `swift build`) and tomllib. Both
must accept or both refuse, and accepted documents must give the same tree. Every disagreement is printed
with the document and counts as a failure. `make test` runs a short check; run longer on demand:

    python3 tools/toml-differential.py --dump .build/debug/conformance-dump --count 200000 --seed 7

Known differences that are not bugs and are left out of the comparison: tomllib keeps integers past 64 bits
(TOML 1.0 lets a parser refuse them; ours does, so they count as refused), it refuses the year 0000 (RFC
3339 allows it; the generator never writes it), and it keeps fractions of a second to microseconds where
ours keeps nanoseconds (fractions are compared to six digits).
"""
import argparse
import json
import math
import pathlib
import random
import re
import subprocess
import sys
import tomllib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import differential  # noqa: E402
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("toml_fixtures", pathlib.Path(__file__).resolve().parent / "toml-fixtures.py")
toml_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(toml_fixtures)

CORPUS = toml_fixtures.CORPUS


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def bare(self):
        r = self.rng
        return "".join(r.choice("abcxyzAZ019_-") for _ in range(r.randint(1, 6)))

    def key_segment(self):
        r = self.rng.random()
        if r < 0.7:
            return self.bare()
        if r < 0.85:
            return '"' + self.string_body() + '"'
        return "'" + self.bare() + " " + self.bare() + "'"

    def key(self):
        return " . ".join(self.key_segment() for _ in range(self.rng.choice([1, 1, 1, 2, 3])))

    def string_body(self):
        r = self.rng
        parts = []
        for _ in range(r.randint(0, 5)):
            parts.append(r.choice(["a", "Z", " ", "\\t", "\\n", "\\\\", '\\"', "\\u00e9", "\\U0001F600", "é", "☃", "#", "'", "\t"]))
        return "".join(parts)

    def integer(self):
        r = self.rng
        choice = r.random()
        if choice < 0.4:
            return str(r.randint(-10**6, 10**6))
        if choice < 0.55:
            return r.choice(["+", "-", ""]) + "1_000"
        if choice < 0.7:
            return "0x" + r.choice(["DEAD_beef", "0", "7fffffffffffffff", "ff"])
        if choice < 0.8:
            return "0o" + r.choice(["755", "0", "1_7"])
        if choice < 0.9:
            return "0b" + r.choice(["1010", "0", "1_1"])
        return str(r.choice([2**63 - 1, -(2**63), 0, -0]))

    def float(self):
        r = self.rng
        return r.choice(["1.5", "-0.0", "+3.25", "6.02e23", "1e-7", "2E+2", "1_0.0_1", "inf", "-inf", "+inf", "nan", "-nan",
                         "0.1", "5e+22", "1.7976931348623157e308", str(r.uniform(-1e6, 1e6))])

    def date_time(self):
        r = self.rng
        date = f"{r.randint(1, 9999):04}-{r.randint(1, 12):02}-{r.randint(1, 28):02}"
        time = f"{r.randint(0, 23):02}:{r.randint(0, 59):02}:{r.randint(0, 59):02}"
        if r.random() < 0.3:
            time += "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 6)))
        offset = r.choice(["", "Z", "z", "+05:30", "-07:00", "+00:00"])
        return r.choice([date, time, date + "T" + time + offset, date + " " + time + offset, date + "t" + time])

    def value(self, depth=0):
        r = self.rng
        choice = r.random()
        if depth < 3 and choice < 0.12:
            return "[" + ", ".join(self.value(depth + 1) for _ in range(r.randint(0, 3))) + r.choice(["", ",", " "]) + "]"
        if depth < 3 and choice < 0.22:
            keys = {}
            for _ in range(r.randint(0, 3)):
                keys[self.bare()] = self.value(depth + 1)
            return "{" + ", ".join(f"{k} = {v}" for k, v in keys.items()) + "}"
        if choice < 0.4:
            return self.integer()
        if choice < 0.55:
            return self.float()
        if choice < 0.65:
            return r.choice(["true", "false"])
        if choice < 0.75:
            return self.date_time()
        if choice < 0.85:
            return '"' + self.string_body() + '"'
        if choice < 0.9:
            return "'" + self.bare() + " \\ " + "'"
        if choice < 0.95:
            return '"""\n' + self.string_body() + "\\\n  " + self.string_body() + '"""'
        return "'''\n" + self.bare() + "\n'" + "'''"

    def document(self):
        r = self.rng
        lines = []
        for _ in range(r.randint(1, 12)):
            choice = r.random()
            if choice < 0.15:
                lines.append("[" + self.key() + "]")
            elif choice < 0.25:
                lines.append("[[" + self.key() + "]]")
            elif choice < 0.3:
                lines.append("# " + self.string_body())
            else:
                lines.append(self.key() + " = " + self.value() + r.choice(["", "", " # c"]))
        return ("\r\n" if r.random() < 0.1 else "\n").join(lines) + r.choice(["\n", ""])


INTERESTING = list(b"[]{}=.,\"'#\n\r\t \\_-+:0123456789eExobTZ") + [0x00, 0x7F, 0xC3, 0xA9, 0xFF]



def mutate(rng, data: bytes) -> bytes:
    return differential.mutate(rng, data, INTERESTING)


def tomllib_result(data: bytes):
    """("ok", tagged tree) or ("error", message)."""
    try:
        return "ok", toml_fixtures.tagged(toml_fixtures.load(data))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as error:
        return "error", str(error)


def comparable(value):
    """The tagged tree with floats as numbers (nan as a marker) and fractions of seconds cut to six digits."""
    if isinstance(value, dict):
        if set(value) == {"type", "value"} and isinstance(value["value"], str):
            kind, text = value["type"], value["value"]
            if kind == "float":
                number = float(text)
                return ("float", "nan" if math.isnan(number) else number)
            if kind in ("datetime", "datetime-local", "time-local"):
                text = re.sub(r"\.(\d{1,6})\d*", lambda m: "." + m.group(1), text)
                text = re.sub(r"\.(\d*?)0+(?=$|Z|[+-])", lambda m: ("." + m.group(1)) if m.group(1) else "", text)
            return (kind, text)
        return {k: comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def run(dump, documents):
    payload = b"".join(str(len(d)).encode() + b"\n" + d for d in documents)
    result = subprocess.run([dump, "toml"], input=payload, stdout=subprocess.PIPE, check=True)
    lines = result.stdout.decode("utf-8").split("\n")[:-1]
    if len(lines) != len(documents):
        raise SystemExit(f"conformance-dump answered {len(lines)} documents of {len(documents)}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", required=True, help="the conformance-dump executable")
    parser.add_argument("--count", type=int, default=4000, help="documents to compare (default 4000)")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()

    rng = random.Random(arguments.seed)
    generator = Generator(rng)
    seeds = [p.read_bytes() for p in sorted((CORPUS / "valid").glob("*.toml"))]
    documents = []
    while len(documents) < arguments.count:
        choice = rng.random()
        if choice < 0.3:
            documents.append(generator.document().encode("utf-8"))
        elif choice < 0.65:
            documents.append(mutate(rng, generator.document().encode("utf-8")))
        else:
            documents.append(mutate(rng, rng.choice(seeds)))

    disagreements = 0
    accepted = 0
    refused = 0
    for start in range(0, len(documents), 2000):
        batch = documents[start:start + 2000]
        for document, line in zip(batch, run(arguments.dump, batch)):
            ours = ("error", line) if line.startswith("error ") else ("ok", json.loads(line))
            theirs = tomllib_result(document)
            if theirs[0] == "error" and ours[0] == "ok" and re.search(rb"(?<![0-9])0000-\d\d-\d\d", document):
                continue  # the year 0000: RFC 3339 has it, Python's datetime does not
            same = ours[0] == theirs[0] and (ours[0] == "error" or comparable(ours[1]) == comparable(theirs[1]))
            if same and ours[0] == "ok":
                accepted += 1
            if same and ours[0] == "error":
                refused += 1
            if not same:
                disagreements += 1
                if disagreements <= 20:
                    print(f"--- disagreement: ours {ours[0]}, tomllib {theirs[0]}")
                    print(f"document: {document!r}")
                    print(f"ours:    {ours[1] if ours[0] == 'error' else json.dumps(ours[1])[:400]}")
                    print(f"tomllib: {theirs[1] if theirs[0] == 'error' else json.dumps(theirs[1])[:400]}")
    print(f"toml-differential: {len(documents)} documents (seed {arguments.seed}), {accepted} accepted by both, "
          f"{refused} refused by both, {disagreements} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
