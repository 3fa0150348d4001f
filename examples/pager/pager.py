#!/usr/bin/python3
"""Pager: a stack of pages; a swipe from the left edge slides the top page off with the finger (back).

The top page moves right exactly as far as the finger (ScreenMapping.movement); the page below shows
through, sliding in from a little to the left and brightening, as iOS's navigation stacks do. When the
finger lifts, the page goes off and is dropped if gestured says the edge swipe `committed` (past half
the screen, or flung: docs/gestures.md), else it springs back; both carry the release velocity. On the
last page a swipe back only stretches (rubber band) and springs back.

usage: examples/pager/pager.py [--socket PATH] [--size WxH] [--fullscreen]

Frame pacing (examples/common/motion.py): updates set a Follower's target; the display's frame clock
draws the predicted, lightly smoothed position; after release a Spring takes over from it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from exampleapp import Stage, point, rect, rgba, rounded, run  # noqa: E402
from motion import Follower, Spring, rubber_band  # noqa: E402

PARALLAX = 0.3      # the page below starts this fraction of the width to the left
DIM = 0.35          # and this much darker
# Bottom of the stack first. Adjacent pages differ in colour (make test-examples tells them apart).
PAGES = [("Settings", (88, 96, 110)), ("Network", (64, 110, 170)), ("Wi-Fi", (196, 120, 60)),
         ("Home network", (70, 150, 110)), ("Advanced", (150, 90, 170)), ("Details", (64, 110, 170))]


class Pager(Stage):
    def __init__(self):
        super().__init__()
        self.pages = list(PAGES)
        self.offset = Follower(0.0)     # how far the top page has moved right, in pixels
        self.spring = None
        self.dragging = None
        self.leaving = False            # the spring carries the top page off; drop it when it lands

    def gesture(self, event):
        if self.dragging is None and event.phase == "begin":
            if event.kind != "edge-swipe" or event.edge != "left" or self.leaving:
                return
            self.dragging, self.spring = event.id, None
            self.offset.jump(self.offset.shown)
        if event.id != self.dragging:
            return
        width = self.get_width()
        moved = max(0.0, self.mapping.movement(event.translation)[0])
        if len(self.pages) == 1:
            moved = rubber_band(moved, 0, 0, 0.1 * width)
        velocity = self.mapping.velocity(event)[0]
        self.offset.set(moved, velocity, self.now(), event.time)
        if event.phase == "end":
            self.leaving = bool(event.committed) and len(self.pages) > 1
            self.release(velocity)
        elif event.phase == "cancel":
            self.release(0.0)

    def release(self, velocity):
        self.dragging = None
        target = self.get_width() if self.leaving else 0.0
        self.spring = Spring(self.offset.shown, target, velocity)

    def lost(self):
        if self.dragging is not None:
            self.leaving = False
            self.release(0.0)

    def advance(self, now, dt):
        if self.spring:
            self.offset.jump(self.spring.step(dt))
            # A page flung off need not bounce back into view: it is gone once it reaches the edge.
            if self.spring.done or (self.leaving and self.offset.shown >= self.get_width()):
                self.spring = None
                if self.leaving:
                    self.pages.pop()
                    self.leaving = False
                    self.offset.jump(0.0)
            return True
        if self.dragging is not None:
            self.offset.step(now, dt)
            return True
        return False

    def draw_page(self, snapshot, page, x, width, height, dim):
        title, color = page
        snapshot.save()
        snapshot.translate(point(x, 0))
        snapshot.append_color(rgba(*color), rect(0, 0, width, height))
        heading = self.create_pango_layout(title)
        snapshot.save()
        snapshot.translate(point(24, 40))
        snapshot.scale(2, 2)
        snapshot.append_layout(heading, rgba(255, 255, 255))
        snapshot.restore()
        # Rows of "content" in the upper part; the lower part stays plain (make test-examples reads it).
        for row in range(5):
            rounded(snapshot, 24, 120 + row * 64, width - 48, 48, 10, rgba(255, 255, 255, 0.18))
        if len(self.pages) > 1 and page is self.pages[-1]:
            hint = self.create_pango_layout("Swipe from the left edge to go back")
            snapshot.save()
            snapshot.translate(point(24, 120 + 5 * 64 + 8))
            snapshot.append_layout(hint, rgba(255, 255, 255, 0.7))
            snapshot.restore()
        if dim > 0:
            snapshot.append_color(rgba(0, 0, 0, dim), rect(0, 0, width, height))
        snapshot.restore()

    def draw(self, snapshot, width, height):
        shown = max(0.0, self.offset.shown)
        if shown > 0 and len(self.pages) > 1:
            uncovered = min(shown / width, 1.0)
            self.draw_page(snapshot, self.pages[-2], -PARALLAX * width * (1 - uncovered), width, height,
                           DIM * (1 - uncovered))
            # The top page's shadow on the page below.
            snapshot.append_color(rgba(0, 0, 0, 0.25 * (1 - uncovered)), rect(shown - 8, 0, 8, height))
        else:
            snapshot.append_color(rgba(22, 28, 38), rect(0, 0, width, height))
        self.draw_page(snapshot, self.pages[-1], shown, width, height, 0)


if __name__ == "__main__":
    sys.exit(run("Pager", Pager, {"kinds": ["edge-swipe"], "edges": ["left"]}))
