#!/usr/bin/env python3
"""What explaining a long touch sequence costs (issue 36): a finger resting while another taps N times
(tools/resting-taps.py) is one touch sequence, so one explanation.

    tools/explain-bench.py --bin DIR [--baseline-bin DIR] [--taps 2500,10000,20000] [--daemon-taps 20000]
                           [--speed 1000] [--repeat 3] [--skip-offline] [--skip-daemon]

DIR holds a release build's gestured and gesturectl (`swift build -c release --show-bin-path`); the
baseline's (say main's) are measured in the same run, alternately, and each figure is given as a ratio.

1. Offline: the wall time of `gesturectl explain RECORDING` (text) and `--json` for each count of taps,
   and of `gesturectl replay` for comparison (the recognizer alone), the median of --repeat runs.
2. The daemon: `gestured --replay RECORDING --speed X --wait-for-explanations` explains the recording for
   one client while another client sends `ping` every 10 ms. The daemon runs under `strace -e
   trace=epoll_wait` (seccomp-filtered: no other call is stopped), and a loop turn is the time from one
   epoll_wait's return to the next one's call. Reported: the longest turn, the ping round trips (median,
   99th percentile, longest), how many bytes the explanation line had and whether the explaining client
   got it or was dropped.

Nothing is asserted: this is a benchmark (docs/testing.md, "Explanations' cost").
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def write_recording(taps, path):
    subprocess.run([sys.executable, os.path.join(HERE, "resting-taps.py"), str(taps), path], check=True)


def timed(cmd, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.monotonic() - start)
    return statistics.median(times)


def offline(builds, counts, directory, repeat):
    print(f"== offline: gesturectl explain of one finger resting while another taps (median of {repeat}, seconds)")
    rows = []
    for n in counts:
        path = os.path.join(directory, f"resting-taps-{n}.evemu")
        write_recording(n, path)
        row = {"taps": n}
        for name, bin_dir in builds:
            ctl = os.path.join(bin_dir, "gesturectl")
            row[name] = {
                "text": timed([ctl, "explain", path], repeat),
                "json": timed([ctl, "explain", "--json", path], repeat),
                "replay": timed([ctl, "replay", "--no-updates", path], repeat),
            }
        rows.append(row)
    names = [n for n, _ in builds]
    header = "taps".rjust(6) + "".join(f"  {n} text".rjust(14) + f"  {n} json".rjust(14) + f"  {n} replay".rjust(16) for n in names)
    if len(names) == 2:
        header += "   text ratio   json ratio"
    print(header)
    for row in rows:
        line = str(row["taps"]).rjust(6)
        for n in names:
            line += f"{row[n]['text']:14.3f}{row[n]['json']:14.3f}{row[n]['replay']:16.3f}"
        if len(names) == 2:
            a, b = row[names[0]], row[names[1]]
            line += f"{a['text'] / b['text']:13.3g}{a['json'] / b['json']:13.3g}"
        print(line)
    if len(names) == 2:
        print(f"(ratios: {names[0]} / {names[1]})")
    sys.stdout.flush()


class LineClient:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""

    def send(self, text):
        self.sock.sendall(text.encode() + b"\n")

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def daemon(name, bin_dir, recording, speed, directory):
    sock = os.path.join(directory, f"{name}.sock")
    config = os.path.join(directory, "bench.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nsocket_group = ""\n')
    trace = os.path.join(directory, f"{name}.strace")
    log = open(os.path.join(directory, f"{name}.log"), "w")
    proc = subprocess.Popen(
        ["strace", "-f", "--seccomp-bpf", "-ttt", "-T", "-e", "trace=epoll_wait", "-o", trace,
         os.path.join(bin_dir, "gestured"), "--no-udev", "--config", config, "--socket", sock,
         "--replay", recording, "--speed", str(speed), "--wait-for-explanations"],
        stderr=log)
    for _ in range(300):
        if os.path.exists(sock):
            try:
                probe = LineClient(sock)
                probe.line()
                probe.sock.close()
                break
            except OSError:
                pass
        time.sleep(0.05)
    pings = []
    stop = threading.Event()

    def pinger():
        client = LineClient(sock)
        client.line()  # hello
        i = 0
        while not stop.is_set():
            i += 1
            start = time.monotonic()
            client.send(f'{{"type":"ping","id":{i}}}')
            while True:
                line = client.line()
                if line is None:
                    return
                if b'"pong"' in line:
                    break
            pings.append(time.monotonic() - start)
            time.sleep(0.01)

    explained = {"bytes": 0, "received": False, "dropped": False}

    def explainer():
        client = LineClient(sock)
        client.line()
        client.send('{"type":"subscribe","kinds":[],"updates":false,"explanations":true}')
        while True:
            line = client.line()
            if line is None:
                explained["dropped"] = not explained["received"]
                return
            if b'"type":"explanation"' in line:
                explained["bytes"] = len(line)
                explained["received"] = True
                return

    ping_thread = threading.Thread(target=pinger, daemon=True)
    ping_thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    explain_thread = threading.Thread(target=explainer, daemon=True)
    explain_thread.start()
    explain_thread.join(timeout=900)
    elapsed = time.monotonic() - started
    time.sleep(0.2)
    stop.set()
    ping_thread.join(timeout=5)
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()
    turns = loop_turns(trace)
    return {
        "elapsed": elapsed, "longest_turn": max(turns) if turns else float("nan"), "turns": len(turns),
        "ping_median": statistics.median(pings) if pings else float("nan"),
        "ping_p99": sorted(pings)[int(len(pings) * 0.99) - 1] if len(pings) >= 100 else (max(pings) if pings else float("nan")),
        "ping_max": max(pings) if pings else float("nan"), "pings": len(pings), **explained,
    }


def loop_turns(trace):
    """Seconds from each epoll_wait's return to the next epoll_wait's call, from strace -ttt -T."""
    calls = []
    with open(trace) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or "epoll_wait(" not in line:
                continue
            # "PID 1712345678.123456 epoll_wait(...) = 1 <0.000012>", or resumed/unfinished halves.
            try:
                t = float(parts[1])
            except ValueError:
                continue
            if "<unfinished" in line:
                calls.append((t, None))
            elif "resumed>" in line:
                duration = float(line.rsplit("<", 1)[1].rstrip(">\n"))
                if calls and calls[-1][1] is None:
                    calls[-1] = (calls[-1][0], duration)
            elif line.rstrip().endswith(">"):
                calls.append((t, float(line.rsplit("<", 1)[1].rstrip(">\n"))))
    turns = []
    for (t0, d0), (t1, _) in zip(calls, calls[1:]):
        if d0 is not None:
            turns.append(t1 - (t0 + d0))
    return turns


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--baseline-bin")
    parser.add_argument("--taps", default="2500,10000,20000")
    parser.add_argument("--daemon-taps", type=int, default=20000)
    parser.add_argument("--speed", type=float, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each offline command (the median is given)")
    parser.add_argument("--skip-offline", action="store_true")
    parser.add_argument("--skip-daemon", action="store_true")
    args = parser.parse_args()
    if not args.skip_daemon and not shutil.which("strace"):
        sys.exit("explain-bench: strace is needed for the loop turns (apt-get install strace)")
    builds = [("this", args.bin)] + ([("baseline", args.baseline_bin)] if args.baseline_bin else [])
    directory = tempfile.mkdtemp(prefix="explain-bench-")
    try:
        if not args.skip_offline:
            offline(builds, [int(n) for n in args.taps.split(",")], directory, args.repeat)
        if not args.skip_daemon:
            recording = os.path.join(directory, f"daemon-{args.daemon_taps}.evemu")
            write_recording(args.daemon_taps, recording)
            print(f"\n== the daemon explaining {args.daemon_taps} taps beside a resting finger (--speed {args.speed:g}), "
                  "another client pinging every 10 ms")
            results = {}
            for name, bin_dir in builds:
                r = daemon(name, bin_dir, recording, args.speed, directory)
                results[name] = r
                got = (f"received ({r['bytes']} bytes)" if r["received"]
                       else "dropped by the daemon" if r["dropped"] else "not received in time")
                print(f"{name}: {r['elapsed']:.2f} s to the explanation, which the client {got}; longest loop turn "
                      f"{r['longest_turn'] * 1000:.3f} ms of {r['turns']}; ping round trip median "
                      f"{r['ping_median'] * 1000:.3f} ms, p99 {r['ping_p99'] * 1000:.3f} ms, longest "
                      f"{r['ping_max'] * 1000:.3f} ms ({r['pings']} pings)")
                sys.stdout.flush()
            if len(results) == 2:
                a, b = results["this"], results["baseline"]
                print(f"ratios this / baseline: longest loop turn {a['longest_turn'] / b['longest_turn']:.3g}, "
                      f"longest ping {a['ping_max'] / b['ping_max']:.3g}, median ping {a['ping_median'] / b['ping_median']:.3g}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
