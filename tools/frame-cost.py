#!/usr/bin/env python3
"""What one input frame costs the daemon: `make frame-cost` (docs/architecture.md, "What a frame costs").

Runs the release `gestured --no-udev --replay RECORDING --loop` under `valgrind --tool=callgrind` in three
set-ups: (a) one client subscribed to everything with updates, (b) one client subscribed with updates off
(begin, end and cancel only), (c) no client; and, asked for with --setups, (d) one client subscribed to
explanations only (each touch sequence explained, no gestures). Each set-up runs twice, stopped after 1 pass of the loop and
after 1 + PASSES passes; the difference of the two instruction counts, divided by the frames of PASSES
passes, is the cost of a frame with start-up (loading the recording included), the client's connection
and shutdown taken out. The same differencing gives the instructions per frame inside
`GestureEngine.process`, per gesture line inside the event encoder, the own instructions per frame of
every function, and, under `strace -c -f` (unless --no-strace), the system calls per frame.

With --baseline (another build of gestured, say main's from a second worktree) the same runs are made on
it in the same invocation, the table shows both and their ratio, and the clients of (a) and (b) must have
received the same gesture lines, byte for byte, from both, or the comparison fails (the greeting and the
replies may differ: a newer daemon's device objects can carry fields an older one's do not).

The recording plays at its own pace (--speed 1: a touchscreen's, one wake-up per frame); callgrind slows
the daemon about 50 times, which still keeps up at that pace (the client's gesture lines from 1 + PASSES
passes must be 1 + PASSES times those of 1 pass, or the run fails). Each pass starts with an empty frame
LEADIN seconds before the recording's first event: the replay starts with the daemon, and the client
subscribes in that time; the runs are stopped half-way through the next pass's lead-in.

The clients of (a) and (b) ask for app touches (`app_touches`) when the daemon's `hello` says it knows them
(`app_touch_access`): subscribed to everything, from both builds. --config FILE runs the daemon on that
configuration ([[exclusion]] sections, thresholds; its socket_group is left to the daemon) instead of the
defaults; --focus APP makes every set-up's client send a `focus` request for APP first (in (c) a client
connects only for that, and stays, since the daemon forgets a focus with its client).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RECORDING = os.path.join(ROOT, "Tests/Fixtures/recordings/dell_canvas_touch.evemu")
PASS_GAP = 1.0  # seconds of recording time between passes, as `--loop` leaves
SETUPS = [
    ("a", "one client, every update", '{"type":"subscribe","id":1}'),
    ("b", "one client, updates off", '{"type":"subscribe","id":1,"updates":false}'),
    ("c", "no client", None),
    # Not in the default set-ups: a daemon that does not know explanations refuses the request.
    ("d", "one client, explanations only", '{"type":"subscribe","id":1,"kinds":[],"updates":false,"explanations":true}'),
]
# Functions whose inclusive cost is reported, by a piece of their demangled name.
FUNCTIONS = {
    "engine": "GestureEngine.process(",
    "encode": "GestureEventJSON.encode",
}


def fail(message):
    sys.stderr.write("frame-cost: %s\n" % message)
    sys.exit(1)


# --- the recording -------------------------------------------------------------------------------------------

def parse_time(field):
    seconds, _, micro = field.partition(".")
    return int(seconds) * 1_000_000 + int(micro.ljust(6, "0")[:6])


def format_time(us):
    return "%d.%06d" % (us // 1_000_000, us % 1_000_000)


def loop_recording(source, leadin_us, path):
    """Writes `source` with an empty frame `leadin_us` before its first event, for `--loop`; returns (its
    frames, the loop's period in us: from one pass's empty frame to the next's)."""
    header, events = [], []
    with open(source, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("E:"):
                fields = line[2:].split(None, 1)
                events.append((parse_time(fields[0]), fields[1].rstrip("\n")))
            elif not events:
                header.append(line.rstrip("\n"))
    if not events:
        fail("%s has no E: lines" % source)
    first, last = events[0][0], events[-1][0]
    frames = sum(1 for _, rest in events if rest.split()[:2] == ["0000", "0000"])
    with open(path, "w", encoding="utf-8") as out:
        for line in header:
            out.write(line + "\n")
        # An empty frame at 0: the replay's clock starts here, the gestures LEADIN later.
        out.write("E: 0.000000 0000 0000 0000\n")
        for t, rest in events:
            out.write("E: %s %s\n" % (format_time(leadin_us + t - first), rest))
    return frames, leadin_us + last - first + int(PASS_GAP * 1_000_000)


# --- one run ---------------------------------------------------------------------------------------------

class Client(threading.Thread):
    """Connects, subscribes with `request` and keeps every byte the daemon sends until it closes."""

    def __init__(self, path, request, focus=None):
        super().__init__(daemon=True)
        deadline = time.monotonic() + 30
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                break
            except ConnectionRefusedError:  # bound, not yet listening
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        # The hello first: whether this daemon knows app touches, so that "everything" includes them.
        self.data = bytearray()
        while b"\n" not in self.data:
            chunk = self.sock.recv(65536)
            if not chunk:
                fail("the daemon closed the connection before its hello")
            self.data += chunk
        hello = bytes(self.data).split(b"\n")[0]
        lines = []
        if focus is not None:
            lines.append('{"type":"focus","id":0,"app_id":%s}' % json.dumps(focus))
        if request:
            if b'"app_touch_access"' in hello:
                request = request[:-1] + ',"app_touches":true}'
            lines.append(request)
        self.sock.sendall("".join(l + "\n" for l in lines).encode())
        self.answer = b'"type":"subscribed"' if request else b'"type":"focused"'
        self.subscribed = threading.Event()

    def run(self):
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.data += chunk
            if not self.subscribed.is_set() and self.answer in self.data:
                self.subscribed.set()
        self.sock.close()

    def gesture_lines(self):
        return [l for l in bytes(self.data).split(b"\n") if l.startswith(b'{"type":"gesture"')]


def gesture_lines(streams):
    """The gesture lines of each run's client stream, in order."""
    return [None if s is None else [l for l in s.split(b"\n") if l.startswith(b'{"type":"gesture"')] for s in streams]


def run_daemon(wrapper, gestured, recording, stop_us, request, speed, leadin_us, work, config_text="", focus=None):
    """Runs the daemon under `wrapper` looping `recording` and stops it `stop_us` of recording time after
    the replay started; returns what the client received (None without a subscribed client)."""
    sock = os.path.join(work, "gestured.sock")
    config = os.path.join(work, "gestured.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nsocket_group = ""\n' + config_text)
    log = open(os.path.join(work, "gestured.log"), "w")
    command = wrapper + [gestured, "--no-udev", "--config", config, "--socket", sock, "--replay", recording,
                         "--loop", "--speed", str(speed)]
    daemon = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(sock):
            if daemon.poll() is not None:
                fail("the daemon exited (status %s) before listening:\n%s" % (daemon.returncode, read(log.name)))
            if time.monotonic() > deadline:
                fail("the daemon did not listen within 120 s")
            time.sleep(0.02)
        started = time.monotonic()
        client = None
        if request or focus is not None:
            client = Client(sock, request, focus)
            client.start()
            if not client.subscribed.wait(60):
                fail("no %s reply within 60 s" % ("subscribed" if request else "focused"))
            late = time.monotonic() - started
            if late > 0.8 * leadin_us / 1e6 / speed:
                fail("the client subscribed %.1f s after the daemon listened, too close to the first gesture; "
                     "raise --leadin" % late)
        # The replay started as the daemon began to listen (within the polling above).
        time.sleep(max(0.0, started + stop_us / 1e6 / speed - time.monotonic()))
        if daemon.poll() is not None:
            fail("the daemon exited (status %s) during the replay:\n%s" % (daemon.returncode, read(log.name)))
        # valgrind runs the daemon in its own process; strace runs it as its child.
        with open("/proc/%d/task/%d/children" % (daemon.pid, daemon.pid)) as f:
            children = [int(c) for c in f.read().split()]
        os.kill(children[0] if children else daemon.pid, signal.SIGTERM)
        if daemon.wait(120) != 0:
            fail("the daemon exited with status %d:\n%s" % (daemon.returncode, read(log.name)))
        if client:
            client.join(30)
            return bytes(client.data) if request else None
        return None
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        log.close()


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def demangle(names, swift):
    """Swift names demangled (`swift demangle --simplified`), others as they are."""
    out = subprocess.run([swift, "demangle", "--simplified"], input="\n".join(names) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return dict(zip(names, out))


def annotate(out_file, inclusive):
    """{function: instructions} from callgrind_annotate; a function's entries under several source files
    (inlined code) are summed for own cost and the largest is taken for inclusive cost."""
    text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", "--inclusive=%s" %
                           ("yes" if inclusive else "no"), out_file], capture_output=True, text=True,
                          check=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+) \([^)]*\)\s+(.*?)(?: \[[^\]]*\])?\s*$", line)
        if not m or m.group(2) == "PROGRAM TOTALS":
            continue
        function = m.group(2).split(":", 1)[-1]  # after the source file (no colon in those paths)
        cost = int(m.group(1).replace(",", ""))
        costs[function] = max(costs.get(function, 0), cost) if inclusive else costs.get(function, 0) + cost
    return costs


def callgrind_costs(out_file, swift):
    """Total instructions, the inclusive instructions of FUNCTIONS, and every function's own."""
    total = None
    for line in read(out_file).splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            total = int(line.split()[1])
    inclusive, own = annotate(out_file, True), annotate(out_file, False)
    names = demangle(sorted(set(inclusive) | set(own)), swift)
    picked = {}
    for key, piece in FUNCTIONS.items():
        matches = [cost for name, cost in inclusive.items() if piece in names[name]]
        picked[key] = max(matches) if matches else 0
    readable = {}
    for name, cost in own.items():
        plain = names[name].replace("specialized ", "").replace("merged ", "")
        readable[plain] = readable.get(plain, 0) + cost
    return total, picked, readable


def strace_counts(out_file):
    counts = {}
    for line in read(out_file).splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[-1].replace("_", "").isalnum() and fields[0][0].isdigit() \
                and fields[-1] != "total":
            counts[fields[-1]] = int(fields[3])
    return counts


# --- the comparison ----------------------------------------------------------------------------------------

def measure(binary, label, args, work):
    """Every set-up on one binary: instructions and calls per frame, and what the clients received."""
    result = {}
    frames = args.frames * args.passes
    for key, title, request in SETUPS:
        if key not in args.setups:
            continue
        costs, streams, gestures, calls = [], [], [], []
        for passes in (1, 1 + args.passes):
            # Stopped half-way through the lead-in of the pass after the last one measured.
            stop = passes * args.period + args.leadin_us // 2
            run_dir = tempfile.mkdtemp(prefix="%s-%s-%d-" % (label, key, passes), dir=work)
            out_file = os.path.join(run_dir, "callgrind.out")
            print("frame-cost: %s, (%s) %s, %d pass%s under callgrind%s" % (
                label, key, title, passes, "" if passes == 1 else "es", " and strace" if args.strace else ""),
                file=sys.stderr, flush=True)
            stream = run_daemon(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file],
                                binary, args.loop_recording, stop, request, args.speed, args.leadin_us, run_dir,
                                args.config_text, args.focus)
            costs.append(callgrind_costs(out_file, args.swift))
            streams.append(stream)
            if stream is not None:
                gestures.append(sum(1 for l in stream.split(b"\n") if l.startswith(b'{"type":"gesture"')))
            if args.strace:
                trace = os.path.join(run_dir, "strace.txt")
                run_daemon(["strace", "-c", "-f", "-o", trace], binary, args.loop_recording, stop, request,
                           args.speed, args.leadin_us, run_dir, args.config_text, args.focus)
                calls.append(strace_counts(trace))
        if gestures and gestures[1] != gestures[0] * (1 + args.passes):
            fail("%s (%s): the client received %d gesture lines from 1 pass but %d from %d: the daemon fell "
                 "behind the replay (lower --speed)" % (label, key, gestures[0], gestures[1], 1 + args.passes))
        (t1, f1, s1), (t2, f2, s2) = costs
        entry = {
            "ir": (t2 - t1) / frames,
            "engine": (f2["engine"] - f1["engine"]) / frames,
            "self": {n: (s2.get(n, 0) - s1.get(n, 0)) / frames for n in set(s1) | set(s2)},
            "streams": streams,
        }
        if gestures:
            lines = gestures[1] - gestures[0]
            entry["lines"] = lines / args.passes
            entry["encode"] = (f2["encode"] - f1["encode"]) / lines if lines else 0
        if calls:
            names = set(calls[0]) | set(calls[1])
            entry["calls"] = {n: (calls[1].get(n, 0) - calls[0].get(n, 0)) / frames for n in names}
        result[key] = entry
    return result


def main():
    parser = argparse.ArgumentParser(description="Instructions and system calls per input frame of gestured.")
    parser.add_argument("--gestured", required=True, help="the release gestured to measure")
    parser.add_argument("--baseline", help="another gestured to compare with, measured in the same run")
    parser.add_argument("--recording", default=DEFAULT_RECORDING, help="an evemu recording with its header")
    parser.add_argument("--passes", type=int, default=2, help="passes the two runs differ by (default 2)")
    parser.add_argument("--speed", type=float, default=1.0, help="replay speed (default 1, real time)")
    parser.add_argument("--leadin", type=float, default=4.0, help="seconds before the first gesture (default 4)")
    parser.add_argument("--no-strace", dest="strace", action="store_false", help="skip the system call counts")
    parser.add_argument("--top", type=int, default=12, help="functions listed by own cost (default 12)")
    parser.add_argument("--setups", default="abc", help="which set-ups to run (default abc; d: an explanations subscriber)")
    parser.add_argument("--keep", help="keep the runs' files (callgrind.out, strace, logs) in this directory")
    parser.add_argument("--config", help="a gestured.toml to run the daemon on (its [daemon] table left out: "
                                         "the tool sets the socket)")
    parser.add_argument("--focus", help="the focused app every set-up's client tells the daemon first")
    args = parser.parse_args()
    if not args.setups or not set(args.setups) <= {key for key, _, _ in SETUPS}:
        fail("--setups takes letters among a, b, c and d, not '%s'" % args.setups)
    args.swift = os.environ.get("SWIFT", "swift")
    args.config_text = ""
    if args.config:
        args.config_text = "\n" + read(args.config)
        if re.search(r"^\s*\[daemon\]", args.config_text, re.M):
            fail("--config: leave [daemon] out of %s (the tool writes the daemon's table)" % args.config)
    args.leadin_us = int(args.leadin * 1_000_000)
    for tool in ["valgrind", "callgrind_annotate"] + (["strace"] if args.strace else []):
        if not shutil.which(tool):
            fail("%s is not installed (make frame-cost installs it)" % tool)
    binaries = [("this", os.path.abspath(args.gestured))]
    if args.baseline:
        binaries.insert(0, ("baseline", os.path.abspath(args.baseline)))
    for _, b in binaries:
        if not os.access(b, os.X_OK):
            fail("%s is not an executable" % b)

    work = args.keep or tempfile.mkdtemp(prefix="gestured-frame-cost-")
    os.makedirs(work, exist_ok=True)
    try:
        args.loop_recording = os.path.join(work, "recording.evemu")
        args.frames, args.period = loop_recording(args.recording, args.leadin_us, args.loop_recording)
        results = {label: measure(b, label, args, work) for label, b in binaries}
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    if args.baseline:
        for key, title, request in SETUPS:
            if request and key in args.setups and key != "d" and gesture_lines(results["baseline"][key]["streams"]) != gesture_lines(
                    results["this"][key]["streams"]):
                fail("(%s) %s: the client received different gesture lines from the two binaries" % (key, title))
    report(args, results)


def report(args, results):
    labels = [l for l in ("baseline", "this") if l in results]
    setups = [(key, title) for key, title, _ in SETUPS if key in args.setups]
    this = results["this"]
    lines = ", ".join("(%s) %d" % (key, this[key]["lines"]) for key, _ in setups if "lines" in this[key])
    print("frame-cost: %s, %d frames a pass, %d passes differenced, speed %g%s" % (
        os.path.basename(args.recording), args.frames, args.passes, args.speed,
        "; gesture lines a pass: " + lines if lines else ""))
    print("%-46s" % "" + "".join("%12s" % l for l in labels) + ("%8s" % "ratio" if len(labels) == 2 else ""))

    def row(title, values, fmt="%12.0f"):
        line = "%-46s" % title + "".join(fmt % v for v in values)
        if len(values) == 2 and values[0]:
            line += "%8.2f" % (values[1] / values[0])
        print(line)

    summary = []
    for key, title in setups:
        row("(%s) instructions/frame, %s" % (key, title), [results[l][key]["ir"] for l in labels])
        summary += ["%s_%s_ir_per_frame=%.0f" % (l, key, results[l][key]["ir"]) for l in labels]
    first = setups[0][0]
    row("GestureEngine.process instructions/frame", [results[l][first]["engine"] for l in labels])
    summary += ["%s_engine_ir_per_frame=%.0f" % (l, results[l][first]["engine"]) for l in labels]
    if "a" in args.setups:
        row("event encoding instructions/gesture line (a)", [results[l]["a"]["encode"] for l in labels])
        summary += ["%s_encode_ir_per_line=%.0f" % (l, results[l]["a"]["encode"]) for l in labels]
    if args.strace:
        for key, title in setups:
            row("(%s) system calls/frame" % key, [sum(results[l][key]["calls"].values()) for l in labels], "%12.2f")
            summary += ["%s_%s_syscalls_per_frame=%.2f" % (l, key, sum(results[l][key]["calls"].values()))
                        for l in labels]
        names = sorted(set().union(*(results[l][first]["calls"] for l in labels)),
                       key=lambda n: -this[first]["calls"].get(n, 0))
        for n in names:
            values = [results[l][first]["calls"].get(n, 0) for l in labels]
            if any(abs(v) >= 0.005 for v in values):
                row("    (%s) %s/frame" % (first, n), values, "%12.2f")
    for key, title in setups:
        for l in labels:
            own = results[l][key]["self"]
            print("\nfunctions by own instructions per frame, (%s) %s, %s:" % (key, title, l))
            for name, cost in sorted(own.items(), key=lambda kv: -kv[1])[: args.top]:
                print("%10.0f  %s" % (cost, name[:150]))
    print("\nframe-cost: " + " ".join(summary))


if __name__ == "__main__":
    main()
