"""Tests of the Python client against the real daemon replaying a recording (run by `make test`).

GESTURED_BIN names the directory holding gestured and gesturectl (the Makefile passes
`swift build --show-bin-path`). Run alone: GESTURED_BIN=.build/debug /usr/bin/python3 -m unittest
discover -s clients/python -v
"""
import errno
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import gestured  # installed (a wheel in a virtual environment, Debian's python3-gestured): that one
except ImportError:  # not installed: the module in this source tree
    sys.path.append(os.path.join(HERE, "src"))
    import gestured

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("GESTURED_BIN", os.path.join(ROOT, ".build", "debug"))
RECORDING = os.path.join(ROOT, "Tests", "Fixtures", "recordings", "dell_canvas_touch.evemu")
# Events of one gesture that differ between passes of a looped replay, and between replay and daemon.
PASS_DEPENDENT = ("id", "time", "device")


class Daemon:
    """gestured --no-udev replaying RECORDING in a loop on a private socket."""

    def __init__(self, directory, speed=10, loop=True):
        self.socket = os.path.join(directory, "g.sock")
        config = os.path.join(directory, "test.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nsocket_group = ""\n')
        command = [os.path.join(BIN, "gestured"), "--no-udev", "--config", config, "--socket", self.socket,
                   "--replay", RECORDING, "--speed", str(speed)] + (["--loop"] if loop else [])
        self.log = open(os.path.join(directory, "gestured.log"), "ab")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gestured did not create {self.socket}; see {self.log.name}")
            time.sleep(0.02)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.log.close()


def reference_gestures():
    """What `gesturectl replay` makes of RECORDING: a list of gestures, each a list of event objects."""
    output = subprocess.run([os.path.join(BIN, "gesturectl"), "replay", RECORDING], check=True,
                            capture_output=True, text=True).stdout
    gestures = {}
    for line in output.splitlines():
        event = json.loads(line)
        gestures.setdefault(event["id"], []).append(event)
    return list(gestures.values())


def comparable(fields):
    return {k: v for k, v in fields.items() if k not in PASS_DEPENDENT}


class Timeout(Exception):
    pass


def collect(client, until, seconds=30):
    """Messages from client.events() until `until(messages)` holds; fails after `seconds`."""
    messages = []
    deadline = time.monotonic() + seconds
    for message in client.events(timeout=5):
        messages.append(message)
        if until(messages):
            return messages
        if time.monotonic() > deadline:
            break
    raise Timeout(f"gave up after {len(messages)} messages: {messages[-5:]}")


def finished_gestures(messages):
    return sum(1 for m in messages if isinstance(m, gestured.GestureEvent) and m.finished)


class DecodingTests(unittest.TestCase):
    """Decoding needs no daemon; these pin forward compatibility."""

    def test_known_fields_become_attributes(self):
        line = ('{"type":"gesture","gesture":"edge-swipe","phase":"end","id":4,"time":5.25,"fingers":1,'
                '"device":"event5","edge":"left","committed":true,"position":{"x":0.12,"y":0.5},'
                '"translation":{"x":0.11,"y":0},"velocity_mm_s":{"x":310.5,"y":4},"progress":0.61}\n')
        event = gestured.decode(line)
        self.assertIsInstance(event, gestured.GestureEvent)
        self.assertEqual((event.kind, event.phase, event.id, event.time, event.fingers, event.device),
                         ("edge-swipe", "end", 4, 5.25, 1, "event5"))
        self.assertEqual((event.edge, event.committed, event.progress), ("left", True, 0.61))
        self.assertEqual(event.position, gestured.Point(0.12, 0.5))
        self.assertEqual(event.velocity_mm_s.x, 310.5)
        self.assertIsNone(event.scale)
        self.assertIsNone(event.direction)
        self.assertTrue(event.finished)

    def test_unknown_kinds_fields_and_values_are_kept_not_fatal(self):
        line = ('{"type":"gesture","gesture":"tap","phase":"end","id":9,"time":1,"fingers":2,"taps":2,'
                '"edge":"top-left","start_edge":"bottom-right","edge_position":0.25,"direction":"up-left",'
                '"committed":true,"future":{"nested":[1,2]},"position":{"x":0.5,"y":"later"}}')
        event = gestured.decode(line.encode())
        self.assertEqual((event.kind, event.taps, event.edge, event.start_edge, event.edge_position, event.direction),
                         ("tap", 2, "top-left", "bottom-right", 0.25, "up-left"))
        self.assertEqual(event.fields["future"], {"nested": [1, 2]})
        self.assertIsNone(event.position)  # a point of another shape is not a Point, and not an exception
        self.assertEqual(event.fields["position"], {"x": 0.5, "y": "later"})
        hold = gestured.decode('{"type":"gesture","gesture":"hold","phase":"begin","id":10,"time":2,"fingers":1}')
        self.assertEqual((hold.kind, hold.phase, hold.finished), ("hold", "begin", False))

    def test_unknown_message_types_and_device_fields(self):
        unknown = gestured.decode('{"type":"battery","level":3}')
        self.assertIsInstance(unknown, gestured.Unknown)
        self.assertEqual(unknown.fields, {"type": "battery", "level": 3})
        added = gestured.decode('{"type":"device-added","device":{"id":"event7","name":"Goodix","slots":10,'
                                '"vendor_product":"27c6:0111","path":"/dev/input/event7","source":"evdev","rotation":90}}')
        self.assertIsInstance(added, gestured.DeviceAdded)
        self.assertEqual((added.device.id, added.device.slots, added.device.fields["rotation"]), ("event7", 10, 90))
        self.assertIsNone(added.device.virtual_path)
        copied = gestured.decode('{"type":"device-added","device":{"id":"event8","name":"Goodix","slots":10,'
                                 '"path":"/dev/input/event8","source":"evdev","virtual_path":"/dev/input/event9"}}')
        self.assertEqual(copied.device.virtual_path, "/dev/input/event9")
        self.assertIsNone(copied.device.output)
        mapped = gestured.decode('{"type":"device-added","device":{"id":"event8","name":"Goodix","output":"DSI-1"}}')
        self.assertEqual(mapped.device.output, "DSI-1")
        self.assertIsInstance(gestured.decode('{"type":"device-removed","device":{"id":"event7"}}'), gestured.DeviceRemoved)
        self.assertEqual(added.device.orientation, 0)  # a daemon that does not send it never turned the device
        changed = gestured.decode('{"type":"device-changed","device":{"id":"event7","orientation":270}}')
        self.assertIsInstance(changed, gestured.DeviceChanged)
        self.assertNotIsInstance(changed, gestured.DeviceAdded)
        self.assertEqual(changed.device.orientation, 270)

    def test_app_touch_access_in_hello_subscribed_and_its_change(self):
        hello = gestured.decode('{"type":"hello","protocol":1,"devices":[],"app_touch_access":{"granted":false,'
                                '"reason":"other-seat-user","seat":"seat0","message":"no app touches: another user"}}')
        self.assertEqual((hello.app_touch_access.granted, hello.app_touch_access.reason, hello.app_touch_access.seat),
                         (False, "other-seat-user", "seat0"))
        self.assertIsNone(gestured.decode('{"type":"hello","protocol":1}').app_touch_access)
        reply = gestured.decode('{"type":"subscribed","id":1,"filter":{"updates":true,"app_touches":true},'
                                '"app_touch_access":{"granted":true,"reason":"configured-group","name":"kiosk","message":"m"}}')
        self.assertEqual((reply.app_touch_access.granted, reply.app_touch_access.name), (True, "kiosk"))
        changed = gestured.decode('{"type":"app-touch-access","app_touch_access":{"granted":true,"reason":"seat-user",'
                                  '"seat":"seat0","message":"m"}}')
        self.assertIsInstance(changed, gestured.AppTouchAccessChanged)
        self.assertEqual(changed.access.reason, "seat-user")

    def test_every_reply_is_a_reply_whatever_its_type(self):
        for line, kind in (('{"type":"focused","id":3,"app_id":"foot"}', "focused"),
                           ('{"type":"excluded","id":4,"accepted":[{"edge":"left","from":0,"to":0.5}],"refused":[]}', "excluded"),
                           ('{"type":"reloaded","id":5,"path":"/etc/gestured/gestured.toml"}', "reloaded"),
                           ('{"type":"paused","id":6,"until":12.5}', "paused")):
            message = gestured.decode(line)
            self.assertIsInstance(message, gestured.Reply, line)
            self.assertEqual((message.type, message.id), (kind, json.loads(line)["id"]))
        self.assertEqual(gestured.decode('{"type":"focused","id":3,"app_id":"foot"}').app_id, "foot")
        self.assertEqual(gestured.decode('{"type":"excluded","id":4,"accepted":[{"edge":"left"}],"refused":[]}').accepted,
                         [{"edge": "left"}])
        failed = gestured.decode('{"type":"error","id":7,"code":"reload-failed","message":"x","problems":["f:1:2: y"]}')
        self.assertEqual((failed.code, failed.problems), ("reload-failed", ["f:1:2: y"]))
        # A gesture event carries an id too (its gesture's): it stays a GestureEvent; a notification stays one.
        self.assertIsInstance(gestured.decode('{"type":"gesture","gesture":"tap","phase":"begin","id":1}'), gestured.GestureEvent)
        self.assertIsInstance(gestured.decode('{"type":"explanation","start":1,"end":2}'), gestured.Unknown)

    def test_lines_that_are_not_messages_are_protocol_errors(self):
        for line in ("hello?", "[1,2]", '{"no":"type"}', '{"type":3}', b"\xff\xfe"):
            with self.subTest(line=line):
                with self.assertRaises(gestured.ProtocolError):
                    gestured.decode(line)

    def test_filter_arguments_must_be_lists(self):
        with self.assertRaises(TypeError):
            gestured.Client("/nonexistent", kinds="pinch")

    def test_a_refused_connection_names_the_sockets_real_group(self):
        # Issue 28, item 6: the group the socket file has, not "gestured" whatever it is.
        import grp
        import socket
        import tempfile
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "g.sock")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            try:
                os.chmod(path, 0o660)
                name = grp.getgrgid(os.stat(path).st_gid).gr_name
                hint = gestured._permission_hint(path, groups=[])
                self.assertEqual(
                    hint,
                    f"the socket is for members of its group '{name}' (mode 0660): add your user to it "
                    f'(sudo usermod -aG {name} "$USER"), then log in again (if you were added already, '
                    "logging in again is what is missing)")
                error = gestured.ConnectError(path, OSError(errno.EACCES, "Permission denied"))
                self.assertIn(f"its group '{name}'", str(error))
                os.chmod(path, 0o600)
                self.assertIn("the socket's mode is 0600, which lets no group connect", gestured._permission_hint(path, groups=[]))
            finally:
                listener.close()

    def test_socket_path_order(self):
        saved = {name: os.environ.get(name) for name in ("GESTURED_SOCKET", "XDG_RUNTIME_DIR")}
        try:
            os.environ["GESTURED_SOCKET"] = "/tmp/from-env.sock"
            os.environ["XDG_RUNTIME_DIR"] = "/run/user/1000"
            self.assertEqual(gestured.socket_paths("/tmp/explicit.sock"), ["/tmp/explicit.sock"])
            self.assertEqual(gestured.socket_paths(), ["/tmp/from-env.sock"])
            del os.environ["GESTURED_SOCKET"]
            self.assertEqual(gestured.socket_paths(), ["/run/user/1000/gestured.sock", "/run/gestured/gestured.sock"])
            self.assertEqual(gestured.socket_path(), "/run/user/1000/gestured.sock")
            del os.environ["XDG_RUNTIME_DIR"]
            self.assertEqual(gestured.socket_paths(), ["/run/gestured/gestured.sock"])
        finally:
            for name, value in saved.items():
                if value is not None:
                    os.environ[name] = value
                else:
                    os.environ.pop(name, None)


class PackageTests(unittest.TestCase):
    """The module as a package: its version is the daemon's, and the installed copy is the one imported."""

    def test_the_module_is_the_daemons_version(self):
        with open(os.path.join(ROOT, "Sources", "GestureProtocol", "Protocol.swift")) as f:
            match = re.search(r'public static let daemonVersion = "([^"]+)"', f.read())
        self.assertEqual(gestured.__version__, match.group(1))
        with open(os.path.join(HERE, "pyproject.toml")) as f:
            self.assertIn('version = { attr = "gestured.__version__" }', f.read())

    def test_the_installed_module_is_imported(self):
        # make test runs these tests a second time with a virtual environment's python, where the wheel is
        # installed, and names that environment in GESTURED_EXPECT_INSTALLED.
        prefix = os.environ.get("GESTURED_EXPECT_INSTALLED")
        if not prefix:
            self.skipTest("run by make test in a virtual environment with the wheel installed")
        self.assertTrue(os.path.abspath(gestured.__file__).startswith(os.path.abspath(prefix) + os.sep), gestured.__file__)
        self.assertNotIn(os.path.abspath(HERE), os.path.abspath(gestured.__file__))


class DaemonTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory(prefix="gestured-python-")
        self.daemons = []

    def tearDown(self):
        for daemon in self.daemons:
            daemon.stop()
        self.directory.cleanup()

    def start(self, **options):
        daemon = Daemon(self.directory.name, **options)
        self.daemons.append(daemon)
        return daemon

    def test_events_are_what_gesturectl_replay_makes_of_the_recording(self):
        reference = reference_gestures()
        # The Dell recording holds 4 gestures since one hand landing is one gesture (issue 8): no begin and
        # cancel while the fingers were still landing.
        self.assertGreaterEqual(len(reference), 4)
        daemon = self.start()
        # Root may see app touches (the recording's one-finger pan): asked for, they come.
        with gestured.Client(daemon.socket, app_touches=True) as client:
            # Two passes of the loop: at least one whole pass after the first gesture the client receives.
            messages = collect(client, lambda ms: finished_gestures(ms) >= 2 * len(reference))
            self.assertEqual((client.app_touch_access.granted, client.app_touch_access.reason), (True, "root"))
        self.assertIsInstance(messages[0], gestured.Connected)
        self.assertEqual(messages[0].filter, {"updates": True, "app_touches": True})
        self.assertEqual([d.id for d in messages[0].hello.devices], ["replay1"])
        events = [m for m in messages if isinstance(m, gestured.GestureEvent)]
        self.assertTrue(all(e.device == "replay1" for e in events))
        received = {}
        for event in events:
            received.setdefault(event.id, []).append(event)
        received = list(received.values())
        # Whole gestures only, in the recording's order from wherever the client joined the loop.
        first = next(i for i, g in enumerate(reference) if comparable(g[0]) == comparable(received[0][0].fields))
        for n, gesture in enumerate(received):
            expected = reference[(first + n) % len(reference)]
            self.assertEqual([comparable(e.fields) for e in gesture], [comparable(e) for e in expected],
                             f"received gesture {n} differs from the recording's gesture {(first + n) % len(reference)}")
        times = [e.time for e in events]
        self.assertEqual(times, sorted(times))

    def test_filter_kinds_and_no_updates(self):
        daemon = self.start()
        pinches = sum(1 for g in reference_gestures() if g[0]["gesture"] == "pinch")
        self.assertGreater(pinches, 0)
        with gestured.Client(daemon.socket, kinds=["pinch"], updates=False) as client:
            messages = collect(client, lambda ms: finished_gestures(ms) >= 2 * pinches)
        self.assertEqual(messages[0].filter, {"kinds": ["pinch"], "updates": False})
        events = [m for m in messages if isinstance(m, gestured.GestureEvent)]
        self.assertEqual({e.kind for e in events}, {"pinch"})
        self.assertNotIn("update", {e.phase for e in events})
        self.assertIn("begin", {e.phase for e in events})

    def test_requests_get_replies_and_errors_raise(self):
        daemon = self.start()
        with gestured.Client(daemon.socket, kinds=["pinch"], updates=False) as client:
            collect(client, lambda ms: isinstance(ms[-1], gestured.Connected))
            self.assertEqual([d.name for d in client.devices()], ["Advanced Silicon S.A. CoolTouch® System"])
            client.ping()
            reply = client.request("subscribe", kinds=["pan"], fingers=[4])
            self.assertEqual(reply.filter, {"kinds": ["pan"], "fingers": [4], "updates": True})
            with self.assertRaises(gestured.RequestError) as refused:
                client.request("subscribe", fingers=[0])
            self.assertEqual(refused.exception.code, "invalid-request")
            self.assertIn("fingers", refused.exception.message)
            with self.assertRaises(gestured.RequestError) as unknown:
                client.request("launch-rockets")
            self.assertEqual(unknown.exception.code, "unknown-request")
            # The connection survives errors: the narrowed subscription delivers four-finger pans.
            messages = collect(client, lambda ms: finished_gestures(ms) >= 1)
            gestures = [m for m in messages if isinstance(m, gestured.GestureEvent)]
            self.assertEqual({(g.kind, g.fingers) for g in gestures}, {("pan", 4)})

    def test_orientation_turns_devices_and_is_announced(self):
        daemon = self.start()
        with gestured.Client(daemon.socket, kinds=["pinch"], updates=False) as client:
            collect(client, lambda ms: isinstance(ms[-1], gestured.Connected))
            self.assertEqual([d.orientation for d in client.devices()], [0])
            turned = client.orientation(90, device="replay1")
            self.assertEqual([(d.id, d.orientation) for d in turned], [("replay1", 90)])
            messages = collect(client, lambda ms: isinstance(ms[-1], gestured.DeviceChanged))
            self.assertEqual((messages[-1].device.id, messages[-1].device.orientation), ("replay1", 90))
            self.assertEqual([d.orientation for d in client.orientation(180)], [180])
            with self.assertRaises(gestured.RequestError) as unknown:
                client.orientation(90, device="event99")
            self.assertEqual(unknown.exception.code, "unknown-device")
            with self.assertRaises(gestured.RequestError) as bad:
                client.orientation(45)
            self.assertEqual(bad.exception.code, "invalid-request")
            self.assertIn("0, 90, 180 or 270", bad.exception.message)
            self.assertEqual([d.orientation for d in client.devices()], [180])

    def test_a_refused_subscription_raises(self):
        daemon = self.start()
        client = gestured.Client(daemon.socket, fingers=[0])
        with self.assertRaises(gestured.RequestError) as refused:
            collect(client, lambda ms: False, seconds=5)
        self.assertEqual(refused.exception.code, "invalid-request")
        self.assertFalse(client.connected)

    def test_reconnects_when_the_daemon_restarts(self):
        daemon = self.start()
        client = gestured.Client(daemon.socket, updates=False, backoff_initial=0.05, backoff_max=0.4)
        stream = client.events(timeout=10)
        self.assertIsInstance(next(stream), gestured.Connected)
        daemon.stop()
        after_stop = []
        for message in stream:
            after_stop.append(message)
            if isinstance(message, gestured.Disconnected):
                break
        self.assertEqual(after_stop[-1].retry_in, 0.05)
        # SIGTERM cancels gestures in flight before closing: no gesture is left without its last event.
        self.assertTrue(all(m.phase == "cancel" for m in after_stop if isinstance(m, gestured.GestureEvent)
                            and m.phase not in ("begin", "end")))
        # While nothing listens, attempts fail with a growing backoff, capped.
        delays = []
        for message in stream:
            self.assertIsInstance(message, gestured.Disconnected)
            self.assertIn("errno", message.reason)
            delays.append(message.retry_in)
            if len(delays) == 5:
                break
        self.assertEqual(delays, [0.1, 0.2, 0.4, 0.4, 0.4])
        self.start()
        messages = []
        for message in stream:
            messages.append(message)
            if isinstance(message, gestured.GestureEvent) and message.finished:
                break
        connected = [m for m in messages if isinstance(m, gestured.Connected)]
        self.assertEqual(len(connected), 1)
        self.assertEqual(connected[0].filter, {"updates": False})
        self.assertIsInstance(messages[-1], gestured.GestureEvent)
        self.assertEqual(client.retry_delay(), 0.05)  # a working connection resets the backoff
        client.close()

    def test_exclusions_focus_and_reload_are_answered_and_kept_across_a_restart(self):
        daemon = self.start()
        client = gestured.Client(daemon.socket, kinds=[], backoff_initial=0.05, backoff_max=0.2)
        stream = client.events(timeout=10)
        self.assertIsInstance(next(stream), gestured.Connected)
        # Each request gets its reply (before, `exclude` and `focus` timed out: their replies were Unknown).
        # On the 27-inch panel (334 mm high): 16.7 mm of the left edge, 10 mm of the right one for an app, and
        # the whole top edge, over the 32 mm cap.
        reply = client.exclude([{"edge": "left", "from": 0.25, "to": 0.3}, {"edge": "right", "from": 0.5, "to": 0.53, "app": "org.example.Sketch"},
                                {"edge": "top"}])
        self.assertEqual(reply.type, "excluded")
        self.assertEqual([e["edge"] for e in reply.accepted], ["left", "right"])
        self.assertEqual([(e["edge"], e["reason"]) for e in reply.refused], [("top", "over-cap")])
        self.assertEqual(client.exclusions, reply.accepted)
        self.assertEqual(client.focus("org.example.Sketch").app_id, "org.example.Sketch")
        self.assertEqual(client.reload().path, os.path.join(self.directory.name, "test.toml"))
        device = client.devices()[0]
        self.assertEqual(device.focused_app, "org.example.Sketch")
        self.assertEqual(sorted(e["edge"] for e in device.exclusions), ["left", "right"])
        # The daemon restarts: the client reconnects and sets its exclusions and focus again.
        daemon.stop()
        for message in stream:
            if isinstance(message, gestured.Disconnected):
                break
        self.start()
        for message in stream:
            if isinstance(message, gestured.Connected):
                break
        deadline = time.monotonic() + 10
        while True:
            client.read()
            device = client.devices()[0]
            if len(device.exclusions) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(sorted(e["edge"] for e in device.exclusions), ["left", "right"])
        self.assertEqual(device.focused_app, "org.example.Sketch")
        self.assertTrue(all("uid" in e["source"] for e in device.exclusions))
        client.clear_exclusions()
        self.assertEqual(client.exclusions, [])
        self.assertEqual(client.devices()[0].exclusions, [])
        client.close()

    def test_without_reconnect_a_missing_socket_raises_with_errno(self):
        client = gestured.Client(os.path.join(self.directory.name, "absent.sock"), reconnect=False)
        with self.assertRaises(gestured.ConnectError) as failed:
            next(client.events())
        self.assertEqual(failed.exception.errno, errno.ENOENT)
        self.assertIn("is gestured running", str(failed.exception))

    def test_an_idle_stream_raises_idle_timeout_and_goes_on(self):
        # One pass of the recording: once its gestures are over, nothing more comes. events(timeout=...)
        # says so with IdleTimeout (the stream has not ended), and the client, still connected, can wait again.
        daemon = self.start(loop=False, speed=20)
        client = gestured.Client(daemon.socket, updates=False)
        messages = []
        with self.assertRaises(gestured.IdleTimeout) as idle:
            for message in client.events(timeout=1):
                messages.append(message)
        self.assertIsInstance(idle.exception, TimeoutError)
        self.assertEqual((idle.exception.path, idle.exception.seconds), (daemon.socket, 1))
        self.assertIn(f"no message from gestured at {daemon.socket} in 1 s", str(idle.exception))
        self.assertIsInstance(messages[0], gestured.Connected)
        self.assertTrue(client.connected)
        with self.assertRaises(gestured.IdleTimeout):
            next(client.gestures(timeout=0.2))
        self.assertEqual(client.ping(), None)
        client.close()

    def test_the_example_prints_committed_gestures(self):
        daemon = self.start()
        committed = [g[-1] for g in reference_gestures() if g[-1]["phase"] == "end" and g[-1]["committed"]]
        self.assertGreaterEqual(len(committed), 2)
        result = subprocess.run([sys.executable, os.path.join(HERE, "print_committed.py"), "--socket", daemon.socket,
                                 "--count", str(len(committed))], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        version = subprocess.run([os.path.join(BIN, "gestured"), "--version"], capture_output=True, text=True,
                                 check=True).stdout.split()[1]
        self.assertEqual(lines[0], f"connected to gestured {version}: replay1 (Advanced Silicon S.A. CoolTouch® System)")
        sys.path.insert(0, HERE)
        import print_committed
        expected = [print_committed.describe(gestured.GestureEvent({**e, "device": "replay1"})) for e in committed]
        # The script joins the loop anywhere: its lines are the committed gestures in order, from some start.
        start = expected.index(lines[1])
        self.assertEqual(lines[1:], [expected[(start + n) % len(expected)] for n in range(len(lines) - 1)])
        self.assertEqual(len(lines) - 1, len(committed))


if __name__ == "__main__":
    unittest.main()
