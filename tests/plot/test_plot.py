"""`gesturectl plot` checked on the pixels a real SVG renderer draws (run by `make test`).

Each test writes a synthetic recording with a known stroke on a panel of known size (100 x 60 mm), plots
it, renders the SVG with rsvg-convert (Debian's librsvg2-bin, which `make deps` installs) and reads the
PNG: the finger's colour where its path must be, the zone tint along each edge to the configured width,
the screen's white beyond, the time strip's bars at the recording's times.

GESTURED_BIN names the directory holding gesturectl (the Makefile passes `swift build --show-bin-path`).
Run alone: GESTURED_BIN=.build/debug /usr/bin/python3 -m unittest discover -s tests/plot -v
"""
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("GESTURED_BIN", os.path.join(ROOT, ".build", "debug"))
GESTURECTL = os.path.join(BIN, "gesturectl")
RECORDINGS = os.path.join(ROOT, "Tests", "Fixtures", "recordings")

# The colours PlotSVG draws with (Sources/gesturectl/PlotSVG.swift).
FINGER_1 = (0x1F, 0x77, 0xB4)
FINGER_COLOURS = [(0x1F, 0x77, 0xB4), (0xD6, 0x27, 0x28), (0x2C, 0xA0, 0x2C), (0x94, 0x67, 0xBD),
                  (0x8C, 0x56, 0x4B), (0xE3, 0x77, 0xC2), (0x17, 0xBE, 0xCF), (0x7F, 0x7F, 0x7F),
                  (0xBC, 0xBD, 0x22), (0x0B, 0x3D, 0x91)]
ZONE = (0xFD, 0xE3, 0xBD)
CORNER = (0xF6, 0xB9, 0x6B)
SCREEN = (0xFF, 0xFF, 0xFF)
EDGE_SWIPE = (0xE6, 0x55, 0x0D)


def panel_description(name, product, size_mm):
    """An evemu description of a direct-touch panel of `size_mm`: 10 units per millimetre, 10 slots."""
    return ("N: %s\nI: 0018 1234 %04x 0001\nP: 02 00 00 00 00 00 00 00\nA: 2f 0 9 0 0 0\n"
            "A: 35 0 %d 0 0 10\nA: 36 0 %d 0 0 10\nA: 39 0 65535 0 0 0\n"
            % (name, product, round(size_mm[0] * 10), round(size_mm[1] * 10)))


# A 100 x 60 mm panel.
PANEL_MM = (100.0, 60.0)
DESCRIPTION = panel_description("Plot Test Panel", 0x5678, PANEL_MM)
# A phone held upright: 68 x 136 mm.
PHONE_MM = (68.0, 136.0)
PHONE = panel_description("Plot Test Phone", 0x5679, PHONE_MM)


def stroke_events(start_mm, end_mm, land_s=0.5, steps=20, step_s=0.01):
    """evemu events: an empty frame at 0 s, one finger landing at start_mm at land_s, dragged in a
    straight line to end_mm over `steps` frames `step_s` apart, lifted one frame later."""
    return strokes_events([(start_mm, end_mm)], land_s, steps, step_s)


def strokes_events(strokes, land_s=0.5, steps=20, step_s=0.01, apart_s=0.8):
    """evemu events: an empty frame at 0 s, then one finger stroke after another, `apart_s` seconds apart:
    each lands at its start (millimetres, 10 units each), is dragged in a straight line to its end over
    `steps` frames `step_s` apart and lifted one frame later. Returns the events and the last lift's time."""
    lines = ["E: 0.000000 0000 0000 0"]

    def frame(t, x_mm, y_mm, tracking_id=None):
        if tracking_id is not None:
            lines.append("E: %.6f 0003 002f 0" % t)
            lines.append("E: %.6f 0003 0039 %d" % (t, tracking_id))
        lines.append("E: %.6f 0003 0035 %d" % (t, round(x_mm * 10)))
        lines.append("E: %.6f 0003 0036 %d" % (t, round(y_mm * 10)))
        lines.append("E: %.6f 0000 0000 0" % t)

    t = land_s
    for number, (start_mm, end_mm) in enumerate(strokes):
        t = land_s + number * apart_s
        for i in range(steps + 1):
            f = i / steps
            frame(t, start_mm[0] + f * (end_mm[0] - start_mm[0]), start_mm[1] + f * (end_mm[1] - start_mm[1]),
                  7 + number if i == 0 else None)
            t += step_s
        lines.append("E: %.6f 0003 0039 -1" % t)
        lines.append("E: %.6f 0000 0000 0" % t)
    return "\n".join(lines) + "\n", t


def read_png(path, alpha=False):
    """(width, height, rows of (r, g, b), or (r, g, b, a) with `alpha`) of an 8-bit RGB or RGBA,
    non-interlaced PNG (alpha 255 for RGB)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format"
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + a) & 0xFF
            elif filter_type == 2:
                line[i] = (line[i] + b) & 0xFF
            elif filter_type == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif filter_type == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        if alpha:
            rows.append([tuple(line[x * channels:x * channels + 4]) if channels == 4
                         else tuple(line[x * channels:x * channels + 3]) + (255,) for x in range(width)])
        else:
            rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def close(a, b, tolerance=12):
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


class Plot:
    """One `gesturectl plot` run, rendered: the SVG text, the PNG's pixels, the screen's place in it."""

    def __init__(self, test, directory, events, config=None, name="plot", description=DESCRIPTION):
        self.directory = directory
        desc = os.path.join(directory, "panel.desc")
        with open(desc, "w") as f:
            f.write(description)
        recording = os.path.join(directory, name + ".events")
        with open(recording, "w") as f:
            f.write(events)
        svg = os.path.join(directory, name + ".svg")
        command = [GESTURECTL, "plot", "--device", desc, recording, "-o", svg]
        if config is not None:
            path = os.path.join(directory, name + ".toml")
            with open(path, "w") as f:
                f.write(config)
            command[2:2] = ["--config", path]
        result = subprocess.run(command, capture_output=True, text=True)
        test.assertEqual(result.returncode, 0, result.stderr)
        self.load(test, svg)

    def load(self, test, svg):
        """Reads the SVG at `svg` and renders it beside it."""
        with open(svg) as f:
            self.svg = f.read()
        png = svg[:-len(".svg")] + ".png"
        rendered = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
        test.assertEqual(rendered.returncode, 0, rendered.stderr)
        self.width, self.height, self.rows = read_png(png)
        m = re.search(r'<rect id="screen" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', self.svg)
        test.assertIsNotNone(m, "the SVG has no screen rectangle")
        self.left, self.top, self.screen_width, self.screen_height = map(float, m.groups())
        m = re.search(r'<line id="time-axis" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)"', self.svg)
        test.assertIsNotNone(m, "the SVG has no time axis")
        self.axis_left, self.axis_y, self.axis_right = map(float, m.groups())

    def at_mm(self, x_mm, y_mm, screen_mm):
        """The pixel (x, y) of a point on the screen, millimetres from its top-left corner."""
        return (int(self.left + x_mm / screen_mm[0] * self.screen_width),
                int(self.top + y_mm / screen_mm[1] * self.screen_height))

    def pixel(self, x, y):
        return self.rows[y][x]

    def near(self, x, y, colour, radius=2):
        """Whether a pixel within `radius` of (x, y) has `colour`."""
        return any(close(self.rows[j][i], colour)
                   for j in range(max(0, y - radius), min(self.height, y + radius + 1))
                   for i in range(max(0, x - radius), min(self.width, x + radius + 1)))

    def column_has(self, x, y0, y1, colour):
        return any(close(self.rows[y][x], colour) for y in range(y0, min(y1, self.height)))

    def text_boxes(self):
        """(text, (x0, y0, x1, y1)) of every text element as rsvg-convert draws it, halo included: each text
        rendered alone on a transparent canvas around where it is, so a box reaching off the page is seen
        whole; page coordinates."""
        root = re.search(r"<svg [^>]*>", self.svg).group(0)
        font = re.search(r'font-family="([^"]*)"', root).group(1)
        boxes = []
        for index, m in enumerate(re.finditer(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)"[^>]*>(.*?)</text>', self.svg)):
            x, y, size = float(m.group(1)), float(m.group(2)), float(m.group(3))
            reach = len(m.group(4)) * size + 20
            left, top, width, height = x - reach, y - 2 * size, 2 * reach, 3 * size
            alone = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="%f %f %d %d" '
                     'font-family="%s">%s</svg>' % (width, height, left, top, width, height, font, m.group(0)))
            svg = os.path.join(self.directory, "text%d.svg" % index)
            png = os.path.join(self.directory, "text%d.png" % index)
            with open(svg, "w") as f:
                f.write(alone)
            subprocess.run(["rsvg-convert", "-o", png, svg], check=True)
            w, h, rows = read_png(png, alpha=True)
            inked = [(i, j) for j in range(h) for i in range(w) if rows[j][i][3] > 40]
            if not inked:
                continue
            xs = [i for i, _ in inked]
            ys = [j for _, j in inked]
            boxes.append((m.group(4), (left + min(xs), top + min(ys), left + max(xs) + 1, top + max(ys) + 1)))
        return boxes


class RenderedFile(Plot):
    """A plot already written to `svg`, rendered."""

    def __init__(self, test, directory, svg):
        self.directory = directory
        self.load(test, svg)


class PlotTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("rsvg-convert") is None:
            raise AssertionError("rsvg-convert is missing: `make deps` installs Debian's librsvg2-bin")
        if not os.access(GESTURECTL, os.X_OK):
            raise AssertionError("no gesturectl at %s: build it (swift build) or set GESTURED_BIN" % GESTURECTL)

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="gesturectl-plot-")
        self.addCleanup(shutil.rmtree, self.directory)

    def test_edge_swipe_stroke_zones_slop_and_time_strip(self):
        # Lands 4 mm from the left edge, inside the 10 mm zone configured for it, and moves right 60 mm.
        events, lift_s = stroke_events((4, 30), (64, 30))
        plot = Plot(self, self.directory, events, config="[recognizer.edge_swipe.left]\nzone_mm = 10\n")
        at = lambda x, y: plot.at_mm(x, y, PANEL_MM)  # noqa: E731

        # Drawn to the panel's physical proportions.
        self.assertAlmostEqual(plot.screen_width / plot.screen_height, 100 / 60, places=2)
        # What the recognizer made of it, labelled.
        self.assertIn("#1 edge-swipe, 1 finger, left edge at 0.5", plot.svg)
        self.assertIn("#1 end: committed", plot.svg)

        # The path, in finger 1's colour, half way along the stroke; nothing of it off the stroke.
        self.assertTrue(plot.near(*at(40, 30), FINGER_1), "no path at (40, 30) mm")
        self.assertTrue(plot.near(*at(20, 30), FINGER_1), "no path at (20, 30) mm")
        self.assertFalse(plot.near(*at(40, 45), FINGER_1, radius=4), "path colour where no finger went")
        # The slop circle (3 mm) around the landing: its top, above the path.
        self.assertTrue(plot.near(*at(4, 27), FINGER_1), "no slop circle 3 mm above the landing")
        self.assertTrue(close(plot.pixel(*at(4, 25)), ZONE), "slop circle larger than 3 mm")

        # The left zone to its configured 10 mm, the others to the default 5 mm, white beyond.
        for y in (10, 20, 45):
            self.assertTrue(close(plot.pixel(*at(1, y)), ZONE), "left zone missing at 1 mm, y %d" % y)
            self.assertTrue(close(plot.pixel(*at(9, y)), ZONE), "left zone narrower than 10 mm at y %d" % y)
            self.assertTrue(close(plot.pixel(*at(11, y)), SCREEN), "left zone wider than 10 mm at y %d" % y)
            self.assertTrue(close(plot.pixel(*at(96, y)), ZONE), "right zone missing at y %d" % y)
            self.assertTrue(close(plot.pixel(*at(94, y)), SCREEN), "right zone wider than 5 mm at y %d" % y)
        for x in (30, 50, 80):
            self.assertTrue(close(plot.pixel(*at(x, 4)), ZONE), "top zone missing at x %d" % x)
            self.assertTrue(close(plot.pixel(*at(x, 6)), SCREEN), "top zone wider than 5 mm at x %d" % x)
            self.assertTrue(close(plot.pixel(*at(x, 56)), ZONE), "bottom zone missing at x %d" % x)
            self.assertTrue(close(plot.pixel(*at(x, 54)), SCREEN), "bottom zone wider than 5 mm at x %d" % x)
        self.assertTrue(close(plot.pixel(*at(70, 45)), SCREEN))
        # Corner swipes are on by default: where the left (10 mm) and top (5 mm) zones meet is darker.
        self.assertTrue(close(plot.pixel(*at(8, 3)), CORNER), "no corner at (8, 3) mm")
        self.assertTrue(close(plot.pixel(*at(8, 7)), ZONE), "corner taller than the top zone")
        self.assertTrue(close(plot.pixel(*at(97, 57)), CORNER), "no bottom-right corner")

        # The time strip: time 0 is the first event (0 s), its end the lift; the finger is down and the edge
        # swipe runs half way through the stroke, and nothing is down at 0.25 s.
        def column(t):
            return int(plot.axis_left + t / lift_s * (plot.axis_right - plot.axis_left))
        y0, y1 = int(plot.axis_y) + 2, int(plot.axis_y) + 60
        self.assertTrue(plot.column_has(column(0.6), y0, y1, FINGER_1), "no finger bar at 0.6 s")
        self.assertTrue(plot.column_has(column(0.6), y0, y1, EDGE_SWIPE), "no edge swipe bar at 0.6 s")
        self.assertFalse(plot.column_has(column(0.25), y0, y1, FINGER_1), "a finger bar at 0.25 s")
        self.assertFalse(plot.column_has(column(0.25), y0, y1, EDGE_SWIPE), "a gesture bar at 0.25 s")

    def test_stroke_outside_the_zone_is_a_pan_and_corners_off_are_plain_zone(self):
        # Lands 7 mm from the left edge, outside the default 5 mm zone: a pan, not an edge swipe.
        events, _ = stroke_events((7, 30), (67, 30))
        plot = Plot(self, self.directory, events, config="[recognizer.edge_swipe]\ncorners = false\n")
        at = lambda x, y: plot.at_mm(x, y, PANEL_MM)  # noqa: E731
        self.assertIn("#1 pan, 1 finger", plot.svg)
        self.assertNotIn("edge-swipe,", plot.svg)
        self.assertTrue(plot.near(*at(40, 30), FINGER_1))
        self.assertTrue(close(plot.pixel(*at(2, 2)), ZONE), "a corner drawn with corner swipes off")
        self.assertTrue(close(plot.pixel(*at(6, 10)), SCREEN))

    def test_rotation_draws_the_screen_as_the_user_sees_it(self):
        # Rotated 90° clockwise the panel is 60 mm wide and 100 mm tall; its x axis runs down the screen,
        # so a stroke along the panel's x from 4 mm is a swipe down from the top edge, 30 mm from the left.
        events, _ = stroke_events((4, 30), (64, 30))
        config = '[[device]]\nmatch_name = "Plot Test Panel"\nrotation = 90\n'
        plot = Plot(self, self.directory, events, config=config)
        screen = (PANEL_MM[1], PANEL_MM[0])
        at = lambda x, y: plot.at_mm(x, y, screen)  # noqa: E731
        self.assertAlmostEqual(plot.screen_width / plot.screen_height, 60 / 100, places=2)
        self.assertIn("#1 edge-swipe, 1 finger, top edge at 0.5", plot.svg)
        self.assertTrue(plot.near(*at(30, 40), FINGER_1), "no path at (30, 40) mm of the rotated screen")
        self.assertFalse(plot.near(*at(40, 30), FINGER_1, radius=4))
        self.assertTrue(close(plot.pixel(*at(45, 2)), ZONE))
        self.assertTrue(close(plot.pixel(*at(30, 90)), SCREEN))

    def test_every_finger_of_a_real_recording_is_drawn_and_output_is_deterministic(self):
        recording = os.path.join(RECORDINGS, "dell_canvas_touch.evemu")
        first = os.path.join(self.directory, "a.svg")
        second = subprocess.run([GESTURECTL, "plot", "-o", "-", recording], capture_output=True)
        self.assertEqual(second.returncode, 0, second.stderr)
        result = subprocess.run([GESTURECTL, "plot", recording, "-o", first], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(first, "rb") as f:
            self.assertEqual(f.read(), second.stdout, "two runs, or file and standard output, differ")
        png = os.path.join(self.directory, "a.png")
        self.assertEqual(subprocess.run(["rsvg-convert", "-o", png, first]).returncode, 0)
        width, height, rows = read_png(png)
        fingers = len(re.findall(r'<g id="finger-\d+"', second.stdout.decode()))
        self.assertEqual(fingers, 12)
        seen = set(pixel for row in rows for pixel in row)
        for colour in FINGER_COLOURS:
            self.assertIn(colour, seen, "finger colour %s not drawn" % (colour,))

    def assert_labels_on_the_page_and_apart(self, plot):
        """Every text's drawn box inside the page, and no two boxes overlapping."""
        boxes = plot.text_boxes()
        self.assertTrue(boxes)
        for text, (x0, y0, x1, y1) in boxes:
            self.assertTrue(0 <= x0 and x1 <= plot.width and 0 <= y0 and y1 <= plot.height,
                            "%r is drawn at (%g, %g)-(%g, %g), off the %d x %d page" % (text, x0, y0, x1, y1, plot.width, plot.height))
        for i, (a, (ax0, ay0, ax1, ay1)) in enumerate(boxes):
            for b, (bx0, by0, bx1, by1) in boxes[i + 1:]:
                self.assertFalse(ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1,
                                 "%r (%g, %g)-(%g, %g) and %r (%g, %g)-(%g, %g) overlap"
                                 % (a, ax0, ay0, ax1, ay1, b, bx0, by0, bx1, by1))

    def test_labels_stay_on_the_page_and_apart_on_a_portrait_panel(self):
        # A phone upright: swipes down from the top edge and up from the bottom edge, on the left, in the
        # middle and on the right, ending close together mid-screen, and a pan across the middle.
        strokes = [((34, 2), (34, 70)), ((30, 134), (30, 66)), ((62, 2), (62, 64)), ((8, 134), (10, 62)),
                   ((20, 60), (50, 66))]
        events, _ = strokes_events(strokes)
        plot = Plot(self, self.directory, events, description=PHONE)
        self.assertAlmostEqual(plot.screen_width / plot.screen_height, 68 / 136, places=2)
        self.assertEqual(len(re.findall(r">#\d+ edge-swipe, 1 finger, top edge at", plot.svg)), 2, "not two swipes from the top")
        self.assertEqual(len(re.findall(r">#\d+ edge-swipe, 1 finger, bottom edge at", plot.svg)), 2, "not two from the bottom")
        self.assert_labels_on_the_page_and_apart(plot)

    def test_labels_stay_on_the_page_and_apart_on_a_real_recording(self):
        recording = os.path.join(RECORDINGS, "dell_canvas_touch.evemu")
        svg = os.path.join(self.directory, "dell.svg")
        result = subprocess.run([GESTURECTL, "plot", recording, "-o", svg], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        plot = RenderedFile(self, self.directory, svg)
        self.assert_labels_on_the_page_and_apart(plot)


if __name__ == "__main__":
    unittest.main()
