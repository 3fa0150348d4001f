#!/usr/bin/env python3
"""Differential checks of gestured's JSON code against Python's json and decimal.

1. Requests. Generates request lines (every request type, right and wrong fields, ids of every JSON type,
   escapes, Unicode, numbers written every way JSON allows) and mutates them byte by byte; conformance-dump
   (GestureProtocol, built by `swift build`) reads each one as the daemon reads a request line, and Python
   reads it with `json` (strict: UTF-8 only, no NaN or Infinity, control characters refused in strings,
   duplicate keys refused, as the daemon does), then applies the request rules docs/protocol.md states.
   Both must accept or refuse the same lines, give the same tree (numbers compared as their literal text,
   which the daemon keeps), decode the same request, or refuse it with the same error code and echoed id.
2. Numbers. JSONObjectWriter's fixed-point numbers (positions, velocities, scales in every event) over a
   sweep of doubles, halves and their neighbours, against decimal's exact rounding of the double's value
   (ROUND_HALF_UP: half away from zero); its integers and microsecond times against Python's int.

Where the daemon refuses what Python's json reads, by its own documented limits, the Python side applies
the same limit (docs/protocol.md, "Requests"): nesting deeper than 32 arrays and objects, a number literal
longer than 64 characters, and a string or key holding a lone surrogate escape (\\ud800 alone: no Unicode
text holds one, RFC 8259 section 8.2; Python's json keeps it). Keys and strings are compared by code point
(two keys that are canonically equivalent Unicode, "\u00e9" and "e\u0301", are two keys), except the device
names of a subscription, which the daemon matches as Unicode text (canonically equivalent names name the
same devices, and the set it echoes holds one of them): those are compared in NFD. Every disagreement is
printed and counts as a failure. `make test` runs a short check; run longer on demand:

    python3 tools/json-differential.py --dump .build/debug/conformance-dump --count 200000 --seed 7
"""
import argparse
import decimal
import json
import math
import random
import struct
import subprocess
import pathlib
import sys
import unicodedata

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import differential  # noqa: E402

KINDS = ["edge-swipe", "pan", "pinch", "tap", "hold"]
EDGES = ["left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right"]
ORIENTATIONS = [0, 90, 180, 270]
# Every request type and the keys it takes, from the daemon's one declaration of them (`conformance-dump
# declarations`, read in main()); python_request must know how to read each, or the check stops.
ALLOWED = {}
KNOWN_REQUESTS = {"subscribe", "unsubscribe", "devices", "ping", "orientation", "focus", "exclude", "reload"}
EXCLUSION_KEYS = {"edge", "from", "to", "device", "app"}
MAXIMUM_EXCLUSIONS = 16
MAXIMUM_DEPTH = 32
MAXIMUM_NUMBER_CHARACTERS = 64


# Requests: the Python side

class Refused(Exception):
    pass


def number(text):
    """A JSON number as ("number", its literal text)."""
    if len(text) > MAXIMUM_NUMBER_CHARACTERS:
        raise Refused("number longer than 64 characters")
    return ("number", text)


def refuse_constant(name):
    raise Refused(f"{name} is not JSON")


def pairs(members):
    keys = set()
    for key, _ in members:
        if key in keys:
            raise Refused(f"duplicate key {key!r}")
        keys.add(key)
    return ("object", members)


def check_text(value, depth=0):
    """Applies the daemon's limits the json module does not have: depth and lone surrogates."""
    if is_object(value):
        if depth + 1 > MAXIMUM_DEPTH:
            raise Refused("too deep")
        for key, member in value[1]:
            key.encode("utf-8")
            check_text(member, depth + 1)
    elif isinstance(value, list):
        if depth + 1 > MAXIMUM_DEPTH:
            raise Refused("too deep")
        for element in value:
            check_text(element, depth + 1)
    elif isinstance(value, str):
        value.encode("utf-8")


def python_parse(line: bytes):
    """The tree as ("object", [(key, value)]), lists, ("number", text), str, bool, None; or Refused."""
    try:
        text = line.decode("utf-8")
        value = json.loads(text, parse_int=number, parse_float=number, parse_constant=refuse_constant,
                           object_pairs_hook=pairs, strict=True)
        check_text(value)
        return value
    except (ValueError, UnicodeError, Refused, RecursionError):
        return Refused


def int_value(value):
    """A number with no fraction that fits in an Int, read the way the daemon reads counts and angles: the
    literal as a 64-bit integer, else as a double that is whole and below 9e15."""
    if not is_number(value):
        return None
    text = value[1]
    try:
        n = int(text)
        if -2**63 <= n < 2**63:
            return n
    except ValueError:
        pass
    d = float(text)
    if math.isfinite(d) and d == math.floor(d) and abs(d) < 9e15:
        return int(d)
    return None


def member(value, key):
    for k, v in value[1]:
        if k == key:
            return v
    return None


def has(value, key):
    return any(k == key for k, _ in value[1])


def is_object(value):
    return isinstance(value, tuple) and value[0] == "object"


def is_number(value):
    return isinstance(value, tuple) and value[0] == "number"


def python_request(value):
    """(code, id) for a refused request, or ("ok", request) with the request as the daemon encodes it."""
    if value is Refused:
        return ("invalid-json", None)
    if not is_object(value):
        return ("invalid-request", None)
    ident = member(value, "id") if has(value, "id") else None
    has_id = has(value, "id")
    if has_id and not (ident is None or isinstance(ident, str) or is_number(ident)):
        return ("invalid-request", None)
    echo = ("id", ident) if has_id else None
    if not has(value, "type"):
        return ("invalid-request", echo)
    kind = member(value, "type")
    if not isinstance(kind, str):
        return ("invalid-request", echo)
    if kind not in ALLOWED:
        return ("unknown-request", echo)
    if any(k not in ALLOWED[kind] for k, _ in value[1]):
        return ("invalid-request", echo)
    request = {"type": kind}
    if has_id:
        request["id"] = ident
    if kind == "subscribe":
        for key, names in (("kinds", KINDS), ("edges", EDGES)):
            if has(value, key):
                items = member(value, key)
                if not isinstance(items, list):
                    return ("invalid-request", echo)
                chosen = set()
                for item in items:
                    if not isinstance(item, str) or item not in names:
                        return ("invalid-request", echo)
                    chosen.add(item)
                request[key] = [n for n in names if n in chosen]
        if has(value, "fingers"):
            items = member(value, "fingers")
            if not isinstance(items, list):
                return ("invalid-request", echo)
            counts = set()
            for item in items:
                n = int_value(item)
                if n is None or not 1 <= n <= 20:
                    return ("invalid-request", echo)
                counts.add(n)
            request["fingers"] = [("number", str(n)) for n in sorted(counts)]
        if has(value, "devices"):
            items = member(value, "devices")
            if not isinstance(items, list):
                return ("invalid-request", echo)
            if any(not isinstance(item, str) for item in items):
                return ("invalid-request", echo)
            request["devices"] = sorted({unicodedata.normalize("NFD", item) for item in items})
        updates = True
        if has(value, "updates"):
            updates = member(value, "updates")
            if not isinstance(updates, bool):
                return ("invalid-request", echo)
        request["updates"] = updates
        for key in ("app_touches", "explanations"):
            if has(value, key):
                flag = member(value, key)
                if not isinstance(flag, bool):
                    return ("invalid-request", echo)
                if flag:
                    request[key] = True  # written only when asked for
    elif kind == "focus":
        if not has(value, "app_id"):
            return ("invalid-request", echo)
        app = member(value, "app_id")
        if app is None:
            request["app_id"] = None
        elif not isinstance(app, str) or app == "" or len(app.encode("utf-8")) > 512:
            return ("invalid-request", echo)
        else:
            request["app_id"] = app
    elif kind == "exclude":
        if not has(value, "exclusions"):
            return ("invalid-request", echo)
        items = member(value, "exclusions")
        if not isinstance(items, list) or len(items) > MAXIMUM_EXCLUSIONS:
            return ("invalid-request", echo)
        exclusions = []
        for item in items:
            exclusion = python_exclusion(item)
            if exclusion is None:
                return ("invalid-request", echo)
            exclusions.append(exclusion)
        request["exclusions"] = exclusions
    elif kind == "orientation":
        if not has(value, "orientation"):
            return ("invalid-request", echo)
        angle = int_value(member(value, "orientation"))
        if angle not in ORIENTATIONS:
            return ("invalid-request", echo)
        request["orientation"] = ("number", str(angle))
        if has(value, "device"):
            device = member(value, "device")
            if not isinstance(device, str) or device == "":
                return ("invalid-request", echo)
            request["device"] = device
    elif kind not in ("unsubscribe", "devices", "ping", "reload"):
        raise SystemExit(f"json-differential: the daemon declares a request {kind!r} this check does not know how to read; teach python_request")
    return ("ok", request)


def python_exclusion(item):
    """One exclusion of an exclude request as the daemon encodes it (a dict, numbers as floats), or None
    when the daemon refuses it."""
    if not is_object(item):
        return None
    if any(k not in EXCLUSION_KEYS for k, _ in item[1]):
        return None
    edge = member(item, "edge")
    if not isinstance(edge, str) or edge not in EDGES:
        return None
    bounds = {}
    for key, default in (("from", 0.0), ("to", 1.0)):
        if has(item, key):
            number = member(item, key)
            if not is_number(number):
                return None
            bounds[key] = float(number[1])
        else:
            bounds[key] = default
    if not (0 <= bounds["from"] < bounds["to"] <= 1):
        return None
    corner = "-" in edge
    if corner and (has(item, "from") or has(item, "to")):
        return None
    exclusion = {"edge": edge}
    if not corner:
        exclusion["from"], exclusion["to"] = bounds["from"], bounds["to"]
    for key in ("device", "app"):
        if has(item, key):
            text = member(item, key)
            if not isinstance(text, str) or text == "" or (key == "app" and len(text.encode("utf-8")) > 512):
                return None
            exclusion[key] = text
    return exclusion


# Requests: conformance-dump's side, read back into the same form

def read_dump_line(line):
    """conformance-dump's answer in python_parse's form (the daemon writes numbers back as their literal text)."""
    return json.loads(line, parse_int=lambda t: ("number", t), parse_float=lambda t: ("number", t),
                      object_pairs_hook=lambda m: ("object", m))


def comparable_request(value):
    """A decoded request from conformance-dump as a dict with sorted device names (sets have no order)."""
    request = {k: v for k, v in value[1]}
    if "exclusions" in request:
        request["exclusions"] = [{k: (float(v[1]) if is_number(v) else v) for k, v in item[1]} for item in request["exclusions"]]
    if "devices" in request:
        request["devices"] = sorted(unicodedata.normalize("NFD", name) for name in request["devices"])
    return request


def dump_result(answer):
    fields = dict(answer[1])
    tree = Refused if "json_error" in fields else fields["json"]
    if "request" in fields:
        return tree, ("ok", comparable_request(fields["request"]))
    return tree, (fields["code"], ("id", fields["id"]) if "id" in fields else None)


# Requests: lines to read

class Generator:
    def __init__(self, rng):
        self.rng = rng

    def string(self):
        r = self.rng
        parts = []
        for _ in range(r.randint(0, 6)):
            parts.append(r.choice(["a", "Z", " ", "\\t", "\\n", "\\\\", '\\"', "\\/", "\\u00e9", "\\ud83d\\ude00", "é", "☃",
                                   "e\\u0301", "\\u212a", "K", "\\u0000", "\\u001f", "\u007f", "\\ud800", "\\udc00x",
                                   "\\b", "\\f", "\\r", "'"]))
        return '"' + "".join(parts) + '"'

    def key(self):
        """A key, often one of a few that are alike: the same text escaped or not, and texts that are
        canonically equivalent in Unicode but different code points (distinct keys in JSON)."""
        r = self.rng
        if r.random() < 0.5:
            return self.string()
        return '"' + r.choice(["a", "\\u0061", "\u00e9", "\\u00e9", "e\u0301", "e\\u0301", "K", "\u212a", "\\u212a"]) + '"'

    def number(self):
        r = self.rng
        return r.choice([
            str(r.randint(-30, 30)), str(r.choice(ORIENTATIONS)), "-0", "0", "1.0", "2e0", "2E+0", "20.0", "0.5e1",
            "90.0", "90.00000000000001", "90.000000000000001", "9e15", "-9e15", "1e400", "-1e400", "1e-400",
            "9223372036854775807", "9223372036854775808", "-9223372036854775809", "4.5", "1" + "0" * 63, "1" + "0" * 64,
            "2.000000000000000000000000000000000000000000000000000000000000001", "180e-0", "27e1", "0.0000027e8",
            str(r.uniform(-100, 100)), str(r.randint(0, 2**70)),
        ])

    def value(self, depth=0):
        r = self.rng
        choice = r.random()
        if depth < 4 and choice < 0.12:
            return "[" + ", ".join(self.value(depth + 1) for _ in range(r.randint(0, 3))) + "]"
        if depth < 4 and choice < 0.2:
            return "{" + ", ".join(f"{self.key()}: {self.value(depth + 1)}" for _ in range(r.randint(0, 3))) + "}"
        if choice < 0.45:
            return self.number()
        if choice < 0.75:
            return self.string()
        return r.choice(["true", "false", "null"])

    def names(self, names):
        r = self.rng
        items = [r.choice(names) if r.random() < 0.93 else r.choice(["PAN", "swipe", "", "top_left", self.value(2)])
                 for _ in range(r.randint(0, 4))]
        return "[" + ", ".join(item if item.startswith(("[", "{", '"')) or item[:1].isdigit() or item[:1] == "-"
                               or item in ("true", "false", "null") else json.dumps(item) for item in items) + "]"

    def field(self, kind):
        r = self.rng
        fields = sorted(ALLOWED.get(kind, {"type", "id"}) - {"type", "id"})
        key = r.choice(fields) if fields and r.random() < 0.85 else r.choice(["bogus", "Kinds", "type", "id"])
        if key == "kinds":
            value = self.names(KINDS) if r.random() < 0.85 else self.value(1)
        elif key == "edges":
            value = self.names(EDGES) if r.random() < 0.85 else self.value(1)
        elif key == "fingers":
            value = "[" + ", ".join(self.number() for _ in range(r.randint(0, 4))) + "]" if r.random() < 0.85 \
                else self.value(1)
        elif key == "devices":
            value = "[" + ", ".join(self.key() for _ in range(r.randint(0, 3))) + "]" if r.random() < 0.85 \
                else self.value(1)
        elif key == "updates":
            value = r.choice(["true", "false"]) if r.random() < 0.8 else self.value(1)
        elif key == "orientation":
            value = self.number() if r.random() < 0.85 else self.value(1)
        elif key == "device":
            value = self.string() if r.random() < 0.85 else self.value(1)
        elif key in ("app_touches", "explanations"):
            value = r.choice(["true", "false"]) if r.random() < 0.8 else self.value(1)
        elif key == "app_id":
            value = r.choice([self.string(), "null", '"org.kde.krita"', '"' + "a" * r.choice([511, 512, 513]) + '"']) \
                if r.random() < 0.85 else self.value(1)
        elif key == "exclusions":
            value = "[" + ", ".join(self.exclusion() for _ in range(r.choice([0, 1, 2, 3, 16, 17]))) + "]" \
                if r.random() < 0.85 else self.value(1)
        else:
            value = self.value(1)
        return json.dumps(key), value

    def exclusion(self):
        r = self.rng
        if r.random() < 0.05:
            return self.value(2)
        members = []
        edge = r.choice(EDGES) if r.random() < 0.9 else r.choice(["Left", "middle", ""])
        members.append(('"edge"', json.dumps(edge) if r.random() < 0.95 else self.value(2)))
        for key in ("from", "to"):
            if r.random() < 0.6:
                members.append((json.dumps(key), r.choice(["0", "0.25", "0.5", "1", "1.0", "-0", "1.5", "-0.1", "2e-1", "1e400"])
                                if r.random() < 0.9 else self.value(2)))
        if r.random() < 0.3:
            members.append(('"device"', r.choice(['"event5"', '""', self.string()])))
        if r.random() < 0.3:
            members.append(('"app"', r.choice(['"org.sketch.*"', '""', self.string(), '"' + "b" * r.choice([512, 513]) + '"'])))
        if r.random() < 0.03:
            members.append(('"bogus"', "1"))
        r.shuffle(members)
        return "{" + ", ".join(f"{k}: {v}" for k, v in members) + "}"

    def request(self):
        r = self.rng
        if r.random() < 0.05:
            return self.value()
        if r.random() < 0.03:
            depth = r.choice([31, 32, 33])
            return "[" * depth + "1" + "]" * depth
        kind = r.choice(list(ALLOWED) + ["subscribe", "subscribe", "orientation", "exclude", "exclude", "focus", "bogus", "Ping"])
        members = []
        if r.random() < 0.92:
            members.append(('"type"', json.dumps(kind) if r.random() < 0.95 else self.value(1)))
        if r.random() < 0.5:
            members.append(('"id"', r.choice([self.number(), self.string(), "null", "true", "[1]", "{}"])))
        for _ in range(r.randint(0, 4)):
            members.append(self.field(kind))
        if r.random() < 0.03 and members:
            members.append(r.choice(members))
        r.shuffle(members)
        space = r.choice(["", " ", "\t", "\r\n"])
        body = ("," + space).join(f"{k}{space}:{space}{v}" for k, v in members)
        return r.choice(["", " ", "\t"]) + "{" + space + body + space + "}" + r.choice(["", " ", "\r", "\n"])


INTERESTING = list(b'[]{}:,"\\ \t\r\n0123456789-+.eEtfnul/') + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xA9,
                                                                0xE2, 0xED, 0xA0, 0xEF, 0xBB, 0xF0, 0xF4, 0xF5, 0xFF]



def mutate(rng, data: bytes) -> bytes:
    return differential.mutate(rng, data, INTERESTING)


def run(dump, mode, payload):
    result = subprocess.run([dump, mode], input=payload, stdout=subprocess.PIPE, check=True)
    return result.stdout.decode("utf-8").split("\n")[:-1]


def check_requests(dump, rng, count):
    generator = Generator(rng)
    lines = []
    while len(lines) < count:
        line = generator.request().encode("utf-8")
        lines.append(line if rng.random() < 0.45 else mutate(rng, line))
    disagreements = accepted = refused = 0
    accepted_by_type = {}
    for start in range(0, len(lines), 2000):
        batch = lines[start:start + 2000]
        answers = run(dump, "requests", b"".join(str(len(line)).encode() + b"\n" + line for line in batch))
        if len(answers) != len(batch):
            raise SystemExit(f"conformance-dump answered {len(answers)} lines of {len(batch)}")
        for line, answer in zip(batch, answers):
            our_tree, our_request = dump_result(read_dump_line(answer))
            their_tree = python_parse(line)
            their_request = python_request(their_tree)
            same = (our_tree is Refused) == (their_tree is Refused) and (our_tree is Refused or our_tree == their_tree) \
                and our_request == their_request
            if same:
                if our_request[0] == "ok":
                    accepted += 1
                    kind = our_request[1]["type"]
                    accepted_by_type[kind] = accepted_by_type.get(kind, 0) + 1
                else:
                    refused += 1
                continue
            disagreements += 1
            if disagreements <= 20:
                print("--- requests disagree")
                print(f"line:   {line!r}")
                print(f"ours:   {answer[:400]}")
                print(f"python: {'refused' if their_tree is Refused else repr(their_tree)[:300]} -> {their_request!r:.300}")
    print(f"json-differential: {len(lines)} request lines, {accepted} decoded alike, {refused} refused alike "
          f"(same code and id), {disagreements} disagreements")
    never = sorted(set(ALLOWED) - set(accepted_by_type))
    if never and len(lines) >= 5000:
        print(f"json-differential: no line of type {never} was decoded: the generator does not reach it")
        return disagreements + 1
    print("json-differential: decoded alike by type: " + ", ".join(f"{k} {v}" for k, v in sorted(accepted_by_type.items())))
    return disagreements


# Numbers

def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def expected_fixed(x, decimals):
    """The text the writer must give: NaN and infinities as null; |x| x 10^places below 2^64 rounded exactly
    (half away from zero) and written without exponent or trailing zeros; larger, any text that reads back
    as x (checked by the caller)."""
    if not math.isfinite(x):
        return "null"
    places = min(max(decimals, 0), 7)
    if abs(x) * float(10 ** places) >= 2.0 ** 64:
        return None
    with decimal.localcontext() as context:
        context.prec = 60
        q = decimal.Decimal(x).quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
    if q == 0:
        return "0"
    text = format(q, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def sweep(rng, count):
    """(x, decimals) pairs: halves between two outputs and the doubles either side of them, values of every
    magnitude, the fixed-point limit, and the special values."""
    cases = []
    specials = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                math.inf, -math.inf, math.nan, 0.5, 1.5, 2.5, -2.5, 0.125, 0.995, 1.005, 2.675, 9e15, 2.0 ** 52,
                2.0 ** 53, 2.0 ** 63, 2.0 ** 64, 1e20]
    for x in specials:
        for d in range(-1, 10):
            cases.append((x, d))
            if math.isfinite(x) and x != 0:
                cases.append((math.nextafter(x, math.inf), d))
                cases.append((math.nextafter(x, -math.inf), d))
    for d in range(0, 8):
        limit = 2.0 ** 64 / 10 ** d
        for x in (limit, math.nextafter(limit, 0), 2.0 ** 52 / 10 ** d, 2.0 ** 53 / 10 ** d, 9e15 / 10 ** d):
            for y in (x, math.nextafter(x, 0), math.nextafter(x, math.inf)):
                cases += [(y, d), (-y, d)]
    deterministic = len(cases)
    while len(cases) < count:
        d = rng.randint(0, 7)
        choice = rng.random()
        if choice < 0.5:
            # A half between two outputs, at some magnitude, and its neighbours.
            digits = rng.randint(1, 19)
            k = rng.randint(0, 10 ** digits)
            half = float(decimal.Decimal(2 * k + 1) / decimal.Decimal(2 * 10 ** d))
            sign = rng.choice([1, -1])
            for y in (half, math.nextafter(half, 0), math.nextafter(half, math.inf)):
                cases.append((sign * y, d))
        elif choice < 0.9:
            x = rng.uniform(1, 10) * 10.0 ** rng.randint(-12, 20)
            cases.append((rng.choice([1, -1]) * x, d))
        else:
            cases.append((struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0], rng.randint(-2, 9)))
    return cases[:max(count, deterministic)]


def check_numbers(dump, rng, count):
    cases = sweep(rng, count)
    integers = [0, 1, -1, 9, 10, 99, 100, 2**31, -2**31, 2**53 + 1, 2**63 - 1, -2**63, 10**18, -10**18]
    integers += [rng.randint(-2**63, 2**63 - 1) for _ in range(2000)] + [rng.randint(-10**6, 10**6) for _ in range(2000)]
    unsigned = [0, 1, 10**19, 2**64 - 1, 2**63] + [rng.randint(0, 2**64 - 1) for _ in range(2000)]
    times = [0, 1, -1, 999999, 1000000, -1000000, -1500000, 2**63 - 1, -2**63 + 1] + \
        [rng.randint(-2**62, 2**62) for _ in range(2000)]
    lines = [f"fixed {bits(x):016x} {d}" for x, d in cases] + [f"int {n}" for n in integers] + \
        [f"uint {n}" for n in unsigned] + [f"seconds {n}" for n in times]
    answers = run(dump, "numbers", ("\n".join(lines) + "\n").encode())
    if len(answers) != len(lines):
        raise SystemExit(f"conformance-dump answered {len(answers)} numbers of {len(lines)}")
    disagreements = 0
    exact = 0

    def report(what, got, want):
        nonlocal disagreements
        disagreements += 1
        if disagreements <= 20:
            print(f"--- numbers disagree: {what}: wrote {got}, expected {want}")

    for (x, d), got in zip(cases, answers):
        want = expected_fixed(x, d)
        if want is None:
            # Past 2^64 units: Swift's shortest form, which must be a JSON number that reads back as x.
            try:
                ok = json.loads(got, parse_constant=refuse_constant) == x and isinstance(json.loads(got), float)
            except (ValueError, Refused):
                ok = False
            if not ok:
                report(f"{x!r} with {d} decimals", got, "a JSON number that reads back as the value")
        elif got != want:
            report(f"{x!r} ({bits(x):016x}) with {d} decimals", got, want)
        else:
            exact += 1
    answers = answers[len(cases):]
    for n, got in zip(integers + unsigned, answers):
        if got != str(n):
            report(f"integer {n}", got, str(n))
    for n, got in zip(times, answers[len(integers) + len(unsigned):]):
        sign = "-" if n < 0 else ""
        want = f"{sign}{abs(n) // 1000000}.{abs(n) % 1000000:06}"
        if got != want:
            report(f"{n} microseconds", got, want)
    print(f"json-differential: {len(cases)} fixed-point numbers ({exact} checked exactly against decimal), "
          f"{len(integers) + len(unsigned)} integers, {len(times)} times, {disagreements} disagreements")
    return disagreements


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", required=True, help="the conformance-dump executable")
    parser.add_argument("--count", type=int, default=6000, help="request lines and numbers to compare (default 6000)")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    declarations = json.loads(run(arguments.dump, "declarations", b"")[0])
    unknown = set(declarations) - KNOWN_REQUESTS
    if unknown:
        raise SystemExit(f"json-differential: the daemon declares requests {sorted(unknown)} this check does not know; teach python_request")
    ALLOWED.update({kind: {"type", "id", *d["fields"]} for kind, d in declarations.items()})
    failures = check_requests(arguments.dump, rng, arguments.count)
    failures += check_numbers(arguments.dump, rng, arguments.count)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
