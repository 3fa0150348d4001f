#!/usr/bin/python3
"""Prints every committed gesture, one line each, and keeps doing so across daemon restarts.

usage: print_committed.py [--socket PATH] [--kinds KIND,KIND...] [--count N]

    $ python3 clients/python/print_committed.py --socket /tmp/g.sock
    connected to gestured 0.1.0: replay1 (Advanced Silicon S.A. CoolTouch® System)
    pinch 2 fingers  scale 1.52 rotation 3.1°  [replay1]
    edge-swipe 1 finger  from the left  [replay1]
    pan 3 fingers  down  [replay1]
"""
import argparse
import os
import sys

try:
    import gestured  # installed: pip install ./clients/python, or Debian's python3-gestured
except ImportError:  # not installed: the module in this source tree
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
    import gestured


def describe(event):
    """One readable line; fields this script does not know (a newer daemon's) are left out, not fatal."""
    words = [event.kind, f"{event.fingers} finger{'s' if event.fingers != 1 else ''}"]
    if event.edge:
        words.append(f"from the {event.edge}")
    if event.direction:
        words.append(event.direction)
    if event.scale is not None:
        words.append(f"scale {event.scale:.2f} rotation {event.rotation:.1f}°")
    if event.taps is not None:
        words.append(f"{event.taps} tap{'s' if event.taps != 1 else ''}")
    return "  ".join(words) + f"  [{event.device}]"


def main():
    parser = argparse.ArgumentParser(description="Print committed gestures from gestured.")
    parser.add_argument("--socket", help="the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock, "
                                           "else /run/gestured/gestured.sock)")
    parser.add_argument("--kinds", help="comma-separated gesture kinds (default: all)")
    parser.add_argument("--count", type=int, help="stop after this many gestures")
    args = parser.parse_args()

    # updates=False: the daemon sends only begin/end/cancel, which is all a "did it happen" client needs.
    # app_touches=True: one-finger taps, holds and pans away from the edges too, where this user may see them.
    client = gestured.Client(args.socket, kinds=args.kinds.split(",") if args.kinds else None, updates=False,
                             app_touches=True)
    printed = 0
    try:
        for message in client.events():
            if isinstance(message, gestured.Connected):
                devices = ", ".join(f"{d.id} ({d.name})" for d in message.hello.devices) or "no devices yet"
                print(f"connected to gestured {message.hello.version}: {devices}", flush=True)
                if client.app_touch_access is not None and not client.app_touch_access.granted:
                    print(f"print_committed: {client.app_touch_access.message}", file=sys.stderr, flush=True)
            elif isinstance(message, gestured.Disconnected):
                print(f"{message.reason}; retrying in {message.retry_in:.1f} s", file=sys.stderr, flush=True)
            elif isinstance(message, gestured.GestureEvent) and message.phase == "end" and message.committed:
                print(describe(message), flush=True)
                printed += 1
                if args.count and printed >= args.count:
                    return 0
    except gestured.GesturedError as error:
        print(f"print_committed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
