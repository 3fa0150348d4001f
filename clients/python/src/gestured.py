"""A client for gestured's socket protocol (docs/protocol.md), standard library only.

    import gestured

    client = gestured.Client(kinds=["edge-swipe"], updates=False)   # path: socket_paths()
    for message in client.events():                                 # reconnects with backoff by itself
        if isinstance(message, gestured.GestureEvent) and message.phase == "end" and message.committed:
            print(message.kind, message.fingers, message.edge or message.direction)

`events()` blocks; `events(timeout=5)` raises `IdleTimeout` (a TimeoutError) when 5 seconds pass without a
message, so a quiet daemon is never mistaken for the end of the stream. A program with its own main loop (GLib, asyncio, selectors) instead watches
`client.fileno()`, calls `client.read()` when it is readable, and `client.connect()` again after
`client.retry_delay()` seconds when `read()` reported a `Disconnected`.

Forward compatibility (protocol.md, "Evolution"): unknown message types come back as `Unknown`, unknown
gesture kinds and phases as plain strings, and every key of a message, known or not, stays in its
`fields` dict; nothing here fails on a key it does not know.
"""

import errno
import json
import os
import selectors
import socket
import time
from collections import namedtuple

__all__ = [
    "PROTOCOL_VERSION", "KINDS", "DEFAULT_SOCKET", "ENVIRONMENT_VARIABLE", "socket_path", "socket_paths",
    "Client", "Point", "Device", "Hello", "GestureEvent", "DeviceAdded", "DeviceRemoved", "DeviceChanged", "Reply",
    "Unknown", "Connected", "Disconnected", "decode",
    "GesturedError", "ConnectError", "ProtocolError", "RequestError", "UnsupportedProtocol", "IdleTimeout",
]

#: This module's version, the daemon's release it belongs to (pyproject.toml reads it from here; a test
#: checks it is the daemon's, GestureProtocol's daemonVersion).
__version__ = "0.1.0"

PROTOCOL_VERSION = 1
#: The gesture kinds this release of gestured recognizes, in the order its docs list them (GestureKind.allCases
#: in the daemon; a test checks they are the same). A newer daemon may send others: `GestureEvent.kind` is
#: then that name.
KINDS = ("edge-swipe", "pan", "pinch", "tap", "hold")
DEFAULT_SOCKET = "/run/gestured/gestured.sock"
ENVIRONMENT_VARIABLE = "GESTURED_SOCKET"
#: The longest line accepted from the daemon. Its events are ~300 bytes and `hello` lists devices; a
#: line longer than this means the peer is not gestured.
MAX_LINE_BYTES = 4 * 1024 * 1024


def socket_paths(explicit=None):
    """Where to look, in order, as every client does: `explicit` if given, else $GESTURED_SOCKET if set,
    alone; otherwise $XDG_RUNTIME_DIR/gestured.sock (a daemon the user runs), then
    /run/gestured/gestured.sock (the system's). A client goes on to the next when nothing is at one or
    nothing listens there."""
    if explicit:
        return [explicit]
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return [os.environ[ENVIRONMENT_VARIABLE]]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    return ([os.path.join(runtime, "gestured.sock")] if runtime.startswith("/") else []) + [DEFAULT_SOCKET]


def socket_path(explicit=None):
    """The first of `socket_paths(explicit)`."""
    return socket_paths(explicit)[0]


# --- errors ---------------------------------------------------------------------------------------------

class GesturedError(Exception):
    """Base of this module's errors."""


def _permission_hint(path, groups=None):
    """What to do when connecting to the socket at `path` was refused permission: join the group the socket
    file really has (socket_group, or gestured.socket's SocketGroup=, may name any), or, when its mode lets
    no group connect, have that changed. `groups` are the process's groups (os.getgroups() and the
    effective group by default)."""
    try:
        info = os.stat(path)
    except OSError:
        return ("a directory on the way to the socket is not open to you; its owner decides "
                "(the socket's own permissions are socket_mode and socket_group)")
    mode = info.st_mode & 0o777
    try:
        import grp
        name = grp.getgrgid(info.st_gid).gr_name
    except (ImportError, KeyError):
        name = None
    shown = f"'{name}'" if name else f"gid {info.st_gid}"
    if not mode & 0o020:
        return (f"the socket's mode is {mode:04o}, which lets no group connect: whoever runs gestured can set "
                'socket_mode = "0660" (or SocketMode=0660 in gestured.socket)')
    if groups is None:
        groups = [os.getegid()] + os.getgroups()
    if info.st_gid in groups:
        return f"you are in its group {shown} already and its mode is {mode:04o}; a directory on the way to it is not open to you"
    command = f'sudo usermod -aG {name} "$USER"' if name else f"the group with id {info.st_gid}"
    return (f"the socket is for members of its group {shown} (mode {mode:04o}): add your user to it ({command}), "
            "then log in again (if you were added already, logging in again is what is missing)")


class ConnectError(GesturedError):
    """The socket could not be reached. `errno` is the OS error number (ENOENT, ECONNREFUSED, EACCES...);
    `retry_in` the backoff before the next attempt, in seconds, when a Client raised it."""

    def __init__(self, path, error):
        self.path, self.errno, self.retry_in = path, error.errno, None
        hint = {
            errno.ENOENT: "is gestured running? (systemctl status gestured, or pass --socket / set GESTURED_SOCKET)",
            errno.ECONNREFUSED: "nothing accepts connections there; is gestured running?",
        }.get(error.errno, "")
        if error.errno in (errno.EACCES, errno.EPERM):
            hint = _permission_hint(path)
        super().__init__(f"cannot connect to {path}: {error.strerror or error} (errno {error.errno})"
                         + (f"; {hint}" if hint else ""))


class ProtocolError(GesturedError):
    """The daemon sent something this client cannot read (not JSON, not an object, a line too long)."""


class UnsupportedProtocol(GesturedError):
    """The daemon speaks a protocol version this module does not know; retrying will not help."""


class IdleTimeout(GesturedError, TimeoutError):
    """`events(timeout=...)` or `gestures(timeout=...)` waited `timeout` seconds and no message came. The
    client stays connected: iterate again to go on waiting. `seconds` is the timeout that passed."""

    def __init__(self, path, seconds):
        self.path, self.seconds = path, seconds
        super().__init__(f"no message from gestured at {path} in {seconds:g} s")


class RequestError(GesturedError):
    """The daemon answered a request with an error. `code` is the protocol's error code ("not-permitted":
    this client's user may not send it; "rate-limited"; "reload-failed", with the file's `problems`)."""

    def __init__(self, code, message, id=None, problems=None):
        self.code, self.message, self.id, self.problems = code, message, id, list(problems or [])
        super().__init__(f"gestured refused the request ({code}): {message}")


# --- typed messages -------------------------------------------------------------------------------------

Point = namedtuple("Point", "x y")


def _point(value):
    if isinstance(value, dict):
        x, y = value.get("x"), value.get("y")
        if _is_number(x) and _is_number(y):
            return Point(float(x), float(y))
    return None


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _typed(value, kind):
    """`value` when it has the type the protocol gives it, else None (a newer daemon may change nothing
    here, but a value of another type must not crash a client either)."""
    if kind is float:
        return float(value) if _is_number(value) else None
    if kind is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return value if isinstance(value, kind) else None


class _Message:
    """Every message keeps the whole JSON object in `fields`, known keys and unknown ones alike."""
    __slots__ = ("fields",)

    @property
    def type(self):
        return self.fields.get("type")

    def __repr__(self):
        return f"{type(self).__name__}({json.dumps(self.fields, separators=(',', ':'))})"

    def __eq__(self, other):
        return type(self) is type(other) and self.fields == other.fields

    __hash__ = None


class Device(_Message):
    """A device in `hello`, a `devices` or `oriented` reply or a notification: id, name, vendor_product,
    path, source, slots, orientation (0, 90, 180 or 270; 0 from a daemon that does not send it), for a
    device in passthrough virtual_path (its virtual copy's node; None otherwise), output (the WL_OUTPUT
    udev property naming its output, "DSI-1"; None when unset), seat ("seat0" unless said), and, for a
    client that may see the seat's app touches (the seat's user, root), focused_app (the focused app the
    session companion said; None) and exclusions (the parts of the edges that are no edge zone now: dicts
    with edge, from, to and source, who keeps it; [] for others and when none)."""
    __slots__ = ("id", "name", "vendor_product", "path", "source", "slots", "orientation", "virtual_path", "output",
                 "seat", "focused_app", "exclusions")

    def __init__(self, fields):
        self.fields = fields
        self.id = _typed(fields.get("id"), str)
        self.name = _typed(fields.get("name"), str)
        self.vendor_product = _typed(fields.get("vendor_product"), str)
        self.path = _typed(fields.get("path"), str)
        self.source = _typed(fields.get("source"), str)
        self.slots = _typed(fields.get("slots"), int)
        self.orientation = _typed(fields.get("orientation"), int) or 0
        self.virtual_path = _typed(fields.get("virtual_path"), str)
        self.output = _typed(fields.get("output"), str)
        self.seat = _typed(fields.get("seat"), str) or "seat0"
        self.focused_app = _typed(fields.get("focused_app"), str)
        exclusions = fields.get("exclusions")
        self.exclusions = [e for e in exclusions if isinstance(e, dict)] if isinstance(exclusions, list) else []


def _devices(value):
    return [Device(d) for d in value if isinstance(d, dict)] if isinstance(value, list) else []


class AppTouchAccess(_Message):
    """Whether this client receives app touches (one-finger taps, holds and pans away from the edge zones:
    an app's own input, such as the keys of an on-screen keyboard), and why (protocol.md, "Who may set and see
    what"): `granted` (bool), `reason` ("root", "daemon-user", "seat-user", "configured-user",
    "configured-group"; "other-seat-user", "no-active-session", "no-seat-state", "unknown-peer", or a code a
    newer daemon adds), `seat` or `name` when the reason has one, and `message`, a sentence for people."""
    __slots__ = ("granted", "reason", "seat", "name", "message")

    def __init__(self, fields):
        self.fields = fields
        self.granted = _typed(fields.get("granted"), bool) is True
        self.reason = _typed(fields.get("reason"), str)
        self.seat = _typed(fields.get("seat"), str)
        self.name = _typed(fields.get("name"), str)
        self.message = _typed(fields.get("message"), str)


def _access(value):
    return AppTouchAccess(value) if isinstance(value, dict) else None


class Hello(_Message):
    """The daemon's greeting: protocol, version, max_line_bytes, devices, and app_touch_access (an
    AppTouchAccess; None from a daemon older than app touches)."""
    __slots__ = ("protocol", "version", "max_line_bytes", "devices", "app_touch_access")

    def __init__(self, fields):
        self.fields = fields
        self.protocol = _typed(fields.get("protocol"), int)
        self.version = _typed(fields.get("version"), str)
        self.max_line_bytes = _typed(fields.get("max_line_bytes"), int)
        self.devices = _devices(fields.get("devices"))
        self.app_touch_access = _access(fields.get("app_touch_access"))


class GestureEvent(_Message):
    """One gesture event (protocol.md, "Gesture events"). Keys the event does not carry are None.

    kind: one of KINDS ("edge-swipe", "pan", "pinch", "tap", "hold") or any kind a newer daemon adds;
    phase: "begin", "update", "end", "cancel"; edge and start_edge: "left"... or a corner ("top-left"...);
    direction: "up"... or a diagonal ("up-left"...) or None. Points are `Point(x, y)`.
    """
    __slots__ = ("kind", "phase", "id", "time", "fingers", "device", "edge", "start_edge", "edge_position",
                 "committed", "direction", "taps", "position", "position_mm", "translation", "translation_mm",
                 "velocity_mm_s", "progress", "scale", "rotation", "span_mm", "down_seconds")

    def __init__(self, fields):
        self.fields = fields
        get = fields.get
        self.kind = _typed(get("gesture"), str)
        self.phase = _typed(get("phase"), str)
        self.id = _typed(get("id"), int)
        self.time = _typed(get("time"), float)
        self.fingers = _typed(get("fingers"), int)
        self.device = _typed(get("device"), str)
        self.edge = _typed(get("edge"), str)
        self.start_edge = _typed(get("start_edge"), str)
        self.edge_position = _typed(get("edge_position"), float)
        self.committed = _typed(get("committed"), bool)
        self.direction = _typed(get("direction"), str)
        self.taps = _typed(get("taps"), int)
        self.position = _point(get("position"))
        self.position_mm = _point(get("position_mm"))
        self.translation = _point(get("translation"))
        self.translation_mm = _point(get("translation_mm"))
        self.velocity_mm_s = _point(get("velocity_mm_s"))
        self.progress = _typed(get("progress"), float)
        self.scale = _typed(get("scale"), float)
        self.rotation = _typed(get("rotation"), float)
        self.span_mm = _typed(get("span_mm"), float)
        self.down_seconds = _typed(get("down_seconds"), float)

    @property
    def finished(self):
        """True for the last event of a gesture (`end` or `cancel`)."""
        return self.phase in ("end", "cancel")


class DeviceAdded(_Message):
    __slots__ = ("device",)

    def __init__(self, fields):
        self.fields = fields
        self.device = Device(fields["device"]) if isinstance(fields.get("device"), dict) else None


class DeviceRemoved(DeviceAdded):
    __slots__ = ()


class DeviceChanged(_Message):
    """A device that stays open changed (its orientation was set); `device` is the whole device now.
    Not a DeviceAdded: code that counts devices by their `device-added` notifications is not misled."""
    __slots__ = ("device",)

    def __init__(self, fields):
        self.fields = fields
        self.device = Device(fields["device"]) if isinstance(fields.get("device"), dict) else None


class Reply(_Message):
    """A reply to a request (each request gets one, with its id): `subscribed` (filter, app_touch_access),
    `unsubscribed`, `devices` (devices), `pong`, `oriented` (devices, claimed_touches), `focused` (app_id),
    `excluded` (accepted, refused: lists of exclusion dicts, a refused one with reason and message),
    `reloaded` (path), a reply type a newer daemon adds, or `error` (code, message, retry_after, problems).
    `id` is the request's id as sent."""
    __slots__ = ("id", "filter", "app_touch_access", "devices", "claimed_touches", "app_id", "accepted", "refused",
                 "path", "code", "message", "retry_after", "problems")

    def __init__(self, fields):
        self.fields = fields
        self.id = fields.get("id")
        self.filter = fields.get("filter") if isinstance(fields.get("filter"), dict) else None
        self.app_touch_access = _access(fields.get("app_touch_access"))
        self.devices = _devices(fields.get("devices"))
        self.claimed_touches = _typed(fields.get("claimed_touches"), int)
        self.app_id = _typed(fields.get("app_id"), str)
        self.accepted = _dicts(fields.get("accepted"))
        self.refused = _dicts(fields.get("refused"))
        self.path = _typed(fields.get("path"), str)
        self.code = _typed(fields.get("code"), str)
        self.message = _typed(fields.get("message"), str)
        self.retry_after = _typed(fields.get("retry_after"), float)
        problems = fields.get("problems")
        self.problems = [p for p in problems if isinstance(p, str)] if isinstance(problems, list) else []


def _dicts(value):
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class AppTouchAccessChanged(_Message):
    """Whether this client receives app touches changed while it is subscribed with app_touches (another
    user's session became active on the seat): `access`, an AppTouchAccess."""
    __slots__ = ("access",)

    def __init__(self, fields):
        self.fields = fields
        self.access = _access(fields.get("app_touch_access"))


class Unknown(_Message):
    """A message type this module does not know (a newer daemon); ignore it or look at `fields`."""
    __slots__ = ()

    def __init__(self, fields):
        self.fields = fields


class Connected(_Message):
    """Not from the wire: the client (re)connected and its subscription is in force. `hello` is the greeting."""
    __slots__ = ("hello", "filter")

    def __init__(self, hello, filter):
        self.fields, self.hello, self.filter = {"type": "connected"}, hello, filter


class Disconnected(_Message):
    """Not from the wire: the connection was lost (or could not be made). Gestures in flight will not get
    their `end`: treat them as cancelled. `retry_in` is the backoff before the next attempt in seconds."""
    __slots__ = ("reason", "retry_in")

    def __init__(self, reason, retry_in):
        self.fields, self.reason, self.retry_in = {"type": "disconnected"}, reason, retry_in


_REPLIES = {"subscribed", "unsubscribed", "devices", "pong", "oriented", "focused", "excluded", "reloaded", "error"}
#: Messages that are no reply to a request (gesture events carry an `id` too: their gesture's).
_NOT_REPLIES = {"gesture", "hello", "device-added", "device-removed", "device-changed", "app-touch-access", "explanation"}


def decode(line):
    """One line from the daemon (bytes or str, with or without the newline) as a typed message.
    Raises ProtocolError for a line that is not a JSON object with a string `type`."""
    try:
        fields = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"the daemon sent a line that is not JSON ({error}): {line[:120]!r}") from None
    if not isinstance(fields, dict) or not isinstance(fields.get("type"), str):
        raise ProtocolError(f"the daemon sent a line that is not a message object: {line[:120]!r}")
    kind = fields["type"]
    if kind == "gesture":
        return GestureEvent(fields)
    if kind == "hello":
        return Hello(fields)
    if kind == "device-added":
        return DeviceAdded(fields)
    if kind == "device-removed":
        return DeviceRemoved(fields)
    if kind == "device-changed":
        return DeviceChanged(fields)
    if kind in _REPLIES or (kind not in _NOT_REPLIES and "id" in fields):
        # Every reply echoes its request's id, whatever its type: one a newer daemon adds is a Reply too.
        return Reply(fields)
    if kind == "app-touch-access":
        return AppTouchAccessChanged(fields)
    return Unknown(fields)


# --- the client -----------------------------------------------------------------------------------------

class Client:
    """A subscription to gestured that survives daemon restarts.

    The filter arguments are the `subscribe` request's (docs/protocol.md): None means "all", a list
    narrows it, `updates=False` drops `update` events, `app_touches=True` asks for app touches (which come
    only where this user may see them: `app_touch_access` says whether and why). The client subscribes on
    every (re)connection.

    Blocking use: iterate `events()` (or `gestures()`). Main-loop use: `connect()` once, watch `fileno()`
    for input, call `read()` for the messages that arrived; after a `Disconnected`, call `connect()`
    again in `retry_delay()` seconds. Backoff doubles from `backoff_initial` to `backoff_max` seconds
    and starts over after a connection that delivered a subscription.
    """

    def __init__(self, path=None, *, kinds=None, edges=None, fingers=None, devices=None, updates=True,
                 app_touches=False, reconnect=True, backoff_initial=0.1, backoff_max=5.0, timeout=5.0):
        self.paths = socket_paths(path)
        self.path = self.paths[0]     # the one connected to, once connected
        self.filter = {}
        for key, value in (("kinds", kinds), ("edges", edges), ("fingers", fingers), ("devices", devices)):
            if value is not None:
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise TypeError(f"{key} must be a list (or None for all), not {value!r}")
                self.filter[key] = list(value)
        self.filter["updates"] = bool(updates)
        if app_touches:
            self.filter["app_touches"] = True
        self.reconnect = reconnect
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.timeout = timeout
        self.hello = None           # the last Hello
        self.subscribed = None      # the filter in force (from the `subscribed` reply) while connected
        self.app_touch_access = None  # whether app touches come, and why, as the daemon last said
        self._sock = None
        self._buffer = b""
        self._pending = []          # messages read while waiting for a reply, handed out first
        self._next_id = 0
        self._awaiting = None       # id of the subscribe request sent on connecting
        self._backoff = backoff_initial
        self._last_delay = backoff_initial
        self._refusal = None        # an error the daemon sent instead of `hello` (too-many-clients)
        self.exclusions = []        # the exclusions this client keeps (`exclude`), asked for again on every connection
        self._focus = None          # the focus this client said (`focus`), said again on every connection
        self._restoring = {}        # id -> request type, of the requests that restore them after a reconnection

    # -- connection ---------------------------------------------------------------------------------------

    def fileno(self):
        """The socket's descriptor while connected, else -1."""
        return self._sock.fileno() if self._sock else -1

    @property
    def connected(self):
        return self._sock is not None

    def connect(self):
        """Connects and sends the subscription, without waiting for replies (they arrive through `read`,
        which reports `Connected` once the daemon has confirmed the subscription). Raises ConnectError
        when the socket cannot be reached; the next `retry_delay()` has then grown."""
        self.close()
        for index, path in enumerate(self.paths):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            sock.settimeout(self.timeout)
            try:
                sock.connect(path)
                self.path = path
                break
            except OSError as error:
                sock.close()
                if index < len(self.paths) - 1 and error.errno in (errno.ENOENT, errno.ECONNREFUSED):
                    continue   # nothing there, or a stale socket: the next place
                self._grow_backoff()
                failure = ConnectError(path, error)
                failure.retry_in = self._last_delay
                raise failure from None
        sock.setblocking(False)
        self._sock, self._buffer, self.hello, self.subscribed, self._refusal = sock, b"", None, None, None
        self._awaiting = self._send("subscribe", **self.filter)
        # What this client set goes with a connection (docs/protocol.md): a new one sets it again.
        self._restoring = {}
        if self.exclusions:
            self._restoring[self._send("exclude", exclusions=self.exclusions)] = "exclude"
        if self._focus is not None:
            self._restoring[self._send("focus", app_id=self._focus[0])] = "focus"

    def close(self):
        if self._sock:
            self._sock.close()
        self._sock, self._buffer, self.subscribed, self._awaiting = None, b"", None, None
        self._pending.clear()

    def retry_delay(self):
        """Seconds to wait before the next `connect()` after a failure or a lost connection."""
        return self._backoff

    def _grow_backoff(self):
        self._last_delay = self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_max)

    # -- reading ------------------------------------------------------------------------------------------

    def read(self):
        """Every message that has arrived, without blocking: typed messages from the wire, `Connected` when
        the subscription is confirmed, and a final `Disconnected` when the daemon closed the connection
        (then the client is closed; `connect()` again after `retry_delay()`). Raises RequestError when the
        daemon refused the subscription and UnsupportedProtocol for an unknown protocol version."""
        messages = self._pending
        self._pending = []
        if not self._sock:
            return messages
        lost = None
        while True:
            try:
                chunk = self._sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as error:
                lost = f"{error.strerror} (errno {error.errno})"
                break
            if not chunk:
                lost = "the daemon closed the connection"
                break
            self._buffer += chunk
            if len(chunk) < 65536:
                break
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > MAX_LINE_BYTES:
            self.close()
            raise ProtocolError(f"the daemon sent a line longer than {MAX_LINE_BYTES} bytes; is {self.path} gestured's socket?")
        for line in lines:
            if line.strip():
                messages.extend(self._take(decode(line)))
        if lost:
            if self._refusal:
                lost, self._refusal = f"the daemon refused the connection ({self._refusal})", None
            self.close()
            self._grow_backoff()
            messages.append(Disconnected(lost, self._last_delay))
        return messages

    def _take(self, message):
        """Handles protocol bookkeeping; returns what the caller should see."""
        if isinstance(message, Reply) and message.type == "error" and self.hello is None and message.id is None:
            self._refusal = f"{message.code}: {message.message}"
            return []
        if isinstance(message, Hello):
            if message.protocol != PROTOCOL_VERSION:
                self.close()
                raise UnsupportedProtocol(
                    f"gestured at {self.path} speaks protocol {message.protocol}; this client knows {PROTOCOL_VERSION}: update it")
            self.hello = message
            self.app_touch_access = message.app_touch_access
            return []
        if isinstance(message, Reply) and self._awaiting is not None and message.id == self._awaiting:
            self._awaiting = None
            if message.type == "error":
                self.close()
                raise RequestError(message.code, message.message, message.id)
            self.subscribed = message.filter
            self.app_touch_access = message.app_touch_access or self.app_touch_access
            self._backoff = self.backoff_initial
            return [Connected(self.hello, message.filter)]
        if isinstance(message, Reply) and message.id in self._restoring:
            # The reply to setting the exclusions (or the focus) again after a reconnection: the daemon may
            # take fewer (the cap on a panel that came meanwhile), or refuse them (another user has the seat).
            kind = self._restoring.pop(message.id)
            if kind == "exclude":
                self.exclusions = message.accepted if message.type == "excluded" else []
            return [message] if message.type == "error" or message.refused else []
        if isinstance(message, AppTouchAccessChanged) and message.access is not None:
            self.app_touch_access = message.access
        return [message]

    def _send(self, request_type, **fields):
        self._next_id += 1
        request = {"type": request_type, "id": self._next_id, **fields}
        data = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        self._sock.setblocking(True)
        self._sock.settimeout(self.timeout)
        try:
            self._sock.sendall(data)
        finally:
            self._sock.setblocking(False)
        return self._next_id

    def _wait(self, timeout):
        """Waits until the socket is readable or `timeout` seconds pass (None: forever)."""
        with selectors.DefaultSelector() as selector:
            selector.register(self._sock, selectors.EVENT_READ)
            return bool(selector.select(timeout))

    # -- blocking use -------------------------------------------------------------------------------------

    def request(self, request_type, timeout=None, **fields):
        """Sends a request (any type the protocol has: `devices`, `ping`, `unsubscribe`, `subscribe` with new
        filter fields, `orientation`, `focus`, `exclude`, `reload`; `exclude` and `focus` have helpers that
        also keep them across reconnections) and returns its Reply, matched by its id; other messages that
        arrive meanwhile are kept for `read`/`events`. Raises RequestError for an error reply and
        TimeoutError when no reply comes in `timeout` seconds."""
        if not self._sock:
            self.connect()
        request_id = self._send(request_type, **fields)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        held = []
        try:
            while True:
                for message in self.read():
                    if isinstance(message, Reply) and message.id == request_id:
                        if message.type == "error":
                            raise RequestError(message.code, message.message, message.id, message.problems)
                        if request_type == "subscribe":
                            self.subscribed = message.filter
                        return message
                    held.append(message)
                    if isinstance(message, Disconnected):
                        raise ConnectionError(f"lost the connection to {self.path} waiting for the {request_type} reply: {message.reason}")
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._wait(remaining):
                    raise TimeoutError(f"gestured at {self.path} did not answer the {request_type} request in time")
        finally:
            self._pending = held + self._pending

    def devices(self, timeout=None):
        """The daemon's devices now."""
        return self.request("devices", timeout).devices

    def ping(self, timeout=None):
        self.request("ping", timeout)

    def orientation(self, degrees, device=None, timeout=None):
        """Tells the daemon the screen is turned `degrees` (0, 90, 180, 270) clockwise, for the devices
        `device` names (id, name or "vvvv:pppp") or every device; returns those devices as they are now.
        An unknown device raises RequestError with code "unknown-device"."""
        fields = {"orientation": degrees}
        if device is not None:
            fields["device"] = device
        return self.request("orientation", timeout, **fields).devices

    def exclude(self, exclusions, timeout=None):
        """Keeps parts of the edges for this client's app (docs/protocol.md, `exclude`): no edge swipe starts
        there and, with passthrough, touches landing there reach the app at once. `exclusions` is a list of
        dicts: `edge` ("left", "right", "top", "bottom" or a corner), `from` and `to` (the part of a side,
        0 <= from < to <= 1 from the top along left and right, from the left along top and bottom; the whole
        side without them; a corner is excluded whole), `device` (an id, a name or "vvvv:pppp"; every
        device without it) and `app` (an app_id or glob: only while that app has the focus; always
        without it). Replaces what this client kept; [] clears. Returns the Reply: `accepted` (kept, and
        asked for again after each reconnection) and `refused` (each with `reason`, "over-cap" or
        "unknown-device", and `message`). The seat's clients may take at most 32 mm of each edge together;
        only the seat's user, root and the daemon's own user may exclude (RequestError "not-permitted")."""
        reply = self.request("exclude", timeout, exclusions=list(exclusions))
        self.exclusions = reply.accepted
        return reply

    def clear_exclusions(self, timeout=None):
        """Gives back every part of an edge this client kept."""
        return self.exclude([], timeout)

    def focus(self, app_id, timeout=None):
        """Tells the daemon which app is focused (its app_id; None for none), as a session companion does:
        the [[exclusion]] sections and the exclusions clients keep for that app apply while it is. It holds
        while this client is connected (and is said again after each reconnection); only the seat's user,
        root and the daemon's own user may."""
        reply = self.request("focus", timeout, app_id=app_id)
        self._focus = (app_id,) if app_id is not None else None
        return reply

    def reload(self, timeout=10.0):
        """Asks the daemon to read its configuration again; returns once it is in force (`path`: the file).
        A file that does not load raises RequestError "reload-failed" whose `problems` says where. Only root
        and the daemon's own user may."""
        return self.request("reload", timeout)

    def events(self, timeout=None):
        """Yields every message: GestureEvent, DeviceAdded, DeviceRemoved, DeviceChanged, Unknown, Reply to requests sent
        with `request`, and Connected / Disconnected as the connection comes and goes. With
        `reconnect=False` a lost or refused connection raises instead. With `timeout`, raises IdleTimeout
        when that many seconds pass without a message (None: waits for ever); the stream itself never
        ends while the client reconnects."""
        while True:
            if not self._sock:
                try:
                    self.connect()
                except ConnectError as error:
                    if not self.reconnect:
                        raise
                    yield Disconnected(str(error), error.retry_in)
                    time.sleep(error.retry_in)
                    continue
            messages = self.read()
            for message in messages:
                if isinstance(message, Disconnected):
                    if not self.reconnect:
                        raise ConnectionError(f"gestured at {self.path}: {message.reason}")
                    yield message
                    time.sleep(message.retry_in)
                else:
                    yield message
            if not messages and self._sock and not self._wait(timeout):
                raise IdleTimeout(self.path, timeout)

    def gestures(self, timeout=None):
        """Yields only the gesture events (reconnecting as `events` does; IdleTimeout after `timeout` seconds
        without any message)."""
        for message in self.events(timeout):
            if isinstance(message, GestureEvent):
                yield message

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
