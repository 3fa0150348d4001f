// Where `gesturectl plot` puts the labels of its drawing of the screen: by their marker when there is room,
// else moved away from it (a thin line joins them), never off the page, onto the rulers or onto another
// label. A narrow portrait screen, or gestures ending close together, leave little room by the markers.

extension PlotSVG {
    /// A rectangle on the page, in pixels.
    struct Box: Equatable {
        var x0: Double
        var y0: Double
        var x1: Double
        var y1: Double

        func overlaps(_ other: Box) -> Bool { x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1 }
        func isInside(_ area: Box) -> Bool { x0 >= area.x0 && x1 <= area.x1 && y0 >= area.y0 && y1 <= area.y1 }
        func expanded(by d: Double) -> Box { Box(x0: x0 - d, y0: y0 - d, x1: x1 + d, y1: y1 + d) }
        func moved(dx: Double, dy: Double) -> Box { Box(x0: x0 + dx, y0: y0 + dy, x1: x1 + dx, y1: y1 + dy) }

        /// The point of the box nearest to (x, y).
        func nearest(to x: Double, _ y: Double) -> (x: Double, y: Double) { (min(max(x, x0), x1), min(max(y, y0), y1)) }
    }

    enum TextAnchor: String { case start, middle, end }

    /// Advance widths of DejaVu Sans, the drawing's font, in ems, for the characters labels are made of.
    /// Others (capitals, symbols) count as 0.75 em, wider than most, so an estimate errs wide.
    private static let advance: [Character: Double] = {
        var table: [Character: Double] = [
            " ": 0.318, "#": 0.838, ",": 0.318, ".": 0.318, ":": 0.337, "(": 0.390, ")": 0.390, "-": 0.361,
            "–": 0.5, "°": 0.5, "×": 0.838, "/": 0.337, "%": 0.95,
            "a": 0.613, "b": 0.635, "c": 0.550, "d": 0.635, "e": 0.615, "f": 0.352, "g": 0.635, "h": 0.634,
            "i": 0.278, "j": 0.278, "k": 0.579, "l": 0.278, "m": 0.974, "n": 0.634, "o": 0.612, "p": 0.635,
            "q": 0.635, "r": 0.411, "s": 0.521, "t": 0.392, "u": 0.634, "v": 0.592, "w": 0.818, "x": 0.592,
            "y": 0.592, "z": 0.525,
        ]
        for digit in "0123456789" { table[digit] = 0.636 }
        return table
    }()

    /// How wide `text` is drawn at `size` pixels, estimated from the font's advances.
    static func textWidth(_ text: String, size: Double) -> Double {
        text.reduce(0) { $0 + (advance[$1] ?? 0.75) } * size
    }

    /// The box `text` covers with its baseline at (x, y): the font's ascent above, its descent below, and
    /// the 1.5 px of a halo around.
    static func textBox(_ text: String, x: Double, y: Double, size: Double, anchor: TextAnchor, halo: Bool) -> Box {
        let width = textWidth(text, size: size)
        let left: Double
        switch anchor {
        case .start: left = x
        case .middle: left = x - width / 2
        case .end: left = x - width
        }
        return Box(x0: left, y0: y - 0.93 * size, x1: left + width, y1: y + 0.24 * size).expanded(by: halo ? 1.5 : 0)
    }

    /// A label where it is drawn: its baseline point and anchor, and, when it had to move away from its
    /// marker, the marker, which a thin line joins to it.
    struct Label {
        var text: String
        var x: Double
        var y: Double
        var size: Double
        var anchor: TextAnchor
        var colour: String
        var leaderFrom: (x: Double, y: Double)?
        var box: Box
    }

    /// Labels placed one after another, each where it covers no box already taken (the rulers' numbers, the
    /// labels placed before it) and stays inside `area`, the page between the header and the time strip.
    struct LabelLayout {
        let area: Box
        private(set) var taken: [Box]
        private(set) var labels: [Label] = []
        /// Room kept between two labels.
        static let gap = 2.0
        /// How far a label may move from its marker, in steps of its own height each way.
        static let maximumSteps = 120

        init(area: Box, taken: [Box]) {
            self.area = area
            self.taken = taken
        }

        /// Places `text` by the marker at (x, y): beside it, `dx` to its right or left (`right` first), with
        /// its baseline `above` pixels above the marker or `below` pixels below it (`preferBelow` first).
        /// Where that is taken or off the page, the other side and the other height are tried, then heights
        /// a step further from the marker each time; a label that would leave the page sideways is moved
        /// back onto it. With no room anywhere (a page crowded beyond reason), the first place, kept on the
        /// page.
        mutating func place(
            _ text: String, size: Double, colour: String, marker: (x: Double, y: Double), right: Bool, dx: Double,
            above: Double, below: Double, preferBelow: Bool
        ) {
            let step = size + 3
            var first: Label?
            for shift in 0...Self.maximumSteps {
                for downward in [preferBelow, !preferBelow] {
                    let y = downward ? marker.y + below + Double(shift) * step : marker.y - above - Double(shift) * step
                    for toRight in [right, !right] {
                        var label = candidate(text, size: size, colour: colour, x: toRight ? marker.x + dx : marker.x - dx, y: y,
                                              anchor: toRight ? .start : .end)
                        let moved = shift > 0 || abs(label.x - (toRight ? marker.x + dx : marker.x - dx)) > 2
                        if moved { label.leaderFrom = marker }
                        if first == nil { first = label }
                        if label.box.isInside(area) && !taken.contains(where: { $0.overlaps(label.box.expanded(by: Self.gap)) }) {
                            take(label)
                            return
                        }
                    }
                }
            }
            // Nowhere free: the first place, moved onto the page.
            var label = first!
            var dy = 0.0
            if label.box.y0 < area.y0 { dy = area.y0 - label.box.y0 } else if label.box.y1 > area.y1 { dy = area.y1 - label.box.y1 }
            label.y += dy
            label.box = label.box.moved(dx: 0, dy: dy)
            take(label)
        }

        /// A label at (x, y), moved sideways onto the page when it reaches off it.
        private func candidate(_ text: String, size: Double, colour: String, x: Double, y: Double, anchor: TextAnchor) -> Label {
            var box = PlotSVG.textBox(text, x: x, y: y, size: size, anchor: anchor, halo: true)
            var dx = 0.0
            if box.x0 < area.x0 { dx = area.x0 - box.x0 } else if box.x1 > area.x1 { dx = area.x1 - box.x1 }
            box = box.moved(dx: dx, dy: 0)
            return Label(text: text, x: x + dx, y: y, size: size, anchor: anchor, colour: colour, leaderFrom: nil, box: box)
        }

        private mutating func take(_ label: Label) {
            taken.append(label.box)
            labels.append(label)
        }
    }

    /// The placed labels: first a thin line from each moved label's marker to the label, then the texts on
    /// top, each with its white halo.
    static func drawLabels(_ svg: inout SVGWriter, _ layout: LabelLayout) {
        svg.raw("<g id=\"labels\">")
        for label in layout.labels {
            guard let from = label.leaderFrom else { continue }
            let to = label.box.nearest(to: from.x, from.y)
            svg.line(x1: from.x, y1: from.y, x2: to.x, y2: to.y, stroke: label.colour, width: 0.8, dash: "2 2")
        }
        for label in layout.labels {
            svg.text(label.text, x: label.x, y: label.y, size: label.size, anchor: label.anchor.rawValue, colour: label.colour, halo: true)
        }
        svg.raw("</g>")
    }
}
