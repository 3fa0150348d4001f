"""What the three GTK examples share: options, the window, mapping the touchscreen to the window, the
frame-clock loop, and the connection to gestured (gesturedglib.GestureSource).

Each example is a `Stage`: a widget that draws itself with GTK 4 snapshots and implements
`gesture(event)` (a gesture message arrived), `advance(now, dt)` (one display frame: move things,
return True while anything still moves) and `draw(snapshot, width, height)`.
"""
import argparse
import os
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("Gsk", "4.0")
gi.require_version("Graphene", "1.0")
from gi.repository import Gdk, GLib, Graphene, Gsk, Gtk  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gesturedglib import GestureSource, gestured  # noqa: E402


def rgba(r, g, b, a=1.0):
    color = Gdk.RGBA()
    color.red, color.green, color.blue, color.alpha = r / 255, g / 255, b / 255, a
    return color


def rect(x, y, w, h):
    return Graphene.Rect().init(x, y, w, h)


def point(x, y):
    return Graphene.Point().init(x, y)


def rounded(snapshot, x, y, w, h, radius, color):
    """A filled rounded rectangle."""
    clip = Gsk.RoundedRect()
    clip.init_from_rect(rect(x, y, w, h), radius)
    snapshot.push_rounded_clip(clip)
    snapshot.append_color(color, rect(x, y, w, h))
    snapshot.pop()


class ScreenMapping:
    """From gestured's normalised touchscreen coordinates to this window's pixels.

    gestured reports positions as fractions of the touchscreen, and the touchscreen covers the monitor.
    A Wayland client cannot learn where its window is on the monitor (GTK 4 does not say on X11 either),
    so the examples map in two ways:
    - Movements (translation, velocity) at the monitor's scale: a translation of 0.1 in x is 0.1 x the
      monitor's width in pixels, wherever the window is. Content dragged by the finger moves exactly as
      far as the finger did, in a window of any size.
    - Positions (where a pinch is centred, whether a finger is on the panel) proportionally onto the
      window: exact when the window covers the monitor (full-screen, or the one maximised window of a
      phone shell); in a smaller window, the point at the same fraction of the window, which keeps the
      gesture's effect inside the window and in the right relation to the content.
    Velocities arrive in mm/s: the screen's size in mm comes from the events themselves
    (position_mm / position), so no configuration is needed.
    """

    def __init__(self, widget):
        self.widget = widget
        self.screen_mm = {}     # device id -> (width_mm, height_mm)

    def monitor_size(self):
        native = self.widget.get_native()
        surface = native.get_surface() if native else None
        if surface is not None:
            monitor = self.widget.get_display().get_monitor_at_surface(surface)
            if monitor is not None:
                geometry = monitor.get_geometry()
                return geometry.width, geometry.height
        return self.widget.get_width(), self.widget.get_height()

    def position(self, point):
        return point.x * self.widget.get_width(), point.y * self.widget.get_height()

    def movement(self, translation):
        width, height = self.monitor_size()
        return translation.x * width, translation.y * height

    def velocity(self, event):
        """The event's velocity in window pixels per second (0, 0 when it has none)."""
        if event.velocity_mm_s is None:
            return 0.0, 0.0
        if event.position and event.position_mm and min(event.position.x, event.position.y) > 0.05:
            self.screen_mm[event.device] = (event.position_mm.x / event.position.x, event.position_mm.y / event.position.y)
        size_mm = self.screen_mm.get(event.device)
        if size_mm is None:
            return 0.0, 0.0
        width, height = self.monitor_size()
        return event.velocity_mm_s.x * width / size_mm[0], event.velocity_mm_s.y * height / size_mm[1]


class Stage(Gtk.Widget):
    """Base of the examples' widgets: runs the frame clock only while something moves."""

    def __init__(self):
        super().__init__()
        self.set_hexpand(True)
        self.set_vexpand(True)
        self.mapping = ScreenMapping(self)
        self.status = "connecting to gestured…"
        self._tick = None
        self._last_frame = None
        self.touch = None           # where the fingers are (their centroid), drawn as a ring while down

    # -- what subclasses implement --------------------------------------------------------------------------
    def gesture(self, event):
        raise NotImplementedError

    def lost(self):
        """The connection dropped: gestures in flight are cancelled."""
        raise NotImplementedError

    def advance(self, now, dt):
        raise NotImplementedError

    def draw(self, snapshot, width, height):
        raise NotImplementedError

    # -- frame clock ----------------------------------------------------------------------------------------
    def animate(self):
        """Something moves: draw every display frame until `advance` says everything has settled."""
        if self._tick is None:
            self._last_frame = None
            self._tick = self.add_tick_callback(self._on_tick)

    @staticmethod
    def now():
        """Now, in seconds on the frame clock's time base (GLib's monotonic clock), for stamping the
        arrival of updates; frames are timed by the frame clock itself."""
        return GLib.get_monotonic_time() / 1e6

    def _on_tick(self, _widget, clock):
        now = clock.get_frame_time() / 1e6
        dt = 0.0 if self._last_frame is None else now - self._last_frame
        self._last_frame = now
        moving = self.advance(now, dt)
        self.queue_draw()
        if not moving:
            self._tick = None
            return GLib.SOURCE_REMOVE
        return GLib.SOURCE_CONTINUE

    def do_snapshot(self, snapshot):
        width, height = self.get_width(), self.get_height()
        self.draw(snapshot, width, height)
        if self.touch:
            x, y = self.touch
            ring = Gsk.RoundedRect()
            ring.init_from_rect(rect(x - 22, y - 22, 44, 44), 22)
            snapshot.append_border(ring, [3, 3, 3, 3], [rgba(90, 140, 255, 0.9)] * 4)
        if self.status:
            layout = self.create_pango_layout(self.status)
            snapshot.save()
            snapshot.translate(point(12, 8))
            snapshot.append_layout(layout, rgba(150, 160, 175))
            snapshot.restore()

    # -- messages from gestured -----------------------------------------------------------------------------
    def message(self, message):
        if isinstance(message, gestured.GestureEvent):
            self.gesture(message)
            # The touch ring shows where the fingers are, which a replayed recording cannot show otherwise.
            self.touch = None if message.finished or not message.position else self.mapping.position(message.position)
            self.animate()
        elif isinstance(message, gestured.Connected):
            devices = ", ".join(d.name or d.id for d in message.hello.devices) or "no touchscreen yet"
            self.status = None
            log(f"connected to gestured {message.hello.version}: {devices}")
            self.queue_draw()
        elif isinstance(message, gestured.Disconnected):
            self.status = f"waiting for gestured (retrying in {message.retry_in:.1f} s)"
            log(f"{message.reason}; retrying in {message.retry_in:.1f} s")
            self.lost()
            self.touch = None
            self.animate()


def log(text):
    print(f"{os.path.basename(sys.argv[0])}: {text}", flush=True)


def run(title, make_stage, filter, argv=None):
    """Parses the common options, opens the window and connects; returns the exit status."""
    parser = argparse.ArgumentParser(description=title)
    parser.add_argument("--socket", help="gestured's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock, else /run/gestured/gestured.sock)")
    parser.add_argument("--size", default="540x960", help="window size WxH in pixels (default 540x960, a phone)")
    parser.add_argument("--fullscreen", action="store_true", help="cover the monitor (exact touch mapping)")
    args = parser.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size}: give WIDTHxHEIGHT in pixels, e.g. 540x960")
    if not Gtk.init_check():
        print(f"{parser.prog}: cannot open a display (DISPLAY/WAYLAND_DISPLAY unset or unreachable); "
              "run it in a graphical session, or under xvfb-run", file=sys.stderr)
        return 1

    app = Gtk.Application(application_id=None)

    def activate(application):
        window = Gtk.ApplicationWindow(application=application, title=title)
        window.set_default_size(width, height)
        stage = make_stage()
        window.set_child(stage)
        if args.fullscreen:
            window.set_decorated(False)
            window.fullscreen()
        window.present()
        source = GestureSource(gestured.Client(args.socket, **filter), stage.message)
        window.connect("close-request", lambda _w: source.stop() or False)
        source.start()

    app.connect("activate", activate)
    # Ctrl-C and SIGTERM close the window like the close button does (Python's own SIGINT handling would
    # wait for the main loop to return to Python first).
    for number in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: app.quit() or GLib.SOURCE_CONTINUE)
    return app.run([sys.argv[0]])
