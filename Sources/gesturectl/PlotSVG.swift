// The SVG of `gesturectl plot`, written as text: the screen to scale with its edge zones, the fingers'
// paths, the gestures' begin and end, a time strip and a table of the gestures. Deterministic: the same
// recording and settings give the same bytes.
#if canImport(Glibc)
import Glibc
#endif
import GestureCore
import GestureProtocol
import GestureVocabulary
import PlainText

enum PlotSVG {
    /// One colour per finger, in landing order (repeating after ten): strong hues that stay apart from each
    /// other and from the zones' pale orange.
    static let fingerColours = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#0b3d91",
    ]
    static let pageColour = "#f2f2f2"
    static let screenColour = "#ffffff"
    /// An edge zone, and the square where two zones meet when corner swipes are on.
    static let zoneColour = "#fde3bd"
    static let cornerColour = "#f6b96b"
    static let zoneLineColour = "#d08a2c"
    /// The parts of the edges an [[exclusion]] section takes out of the zones: hatched in grey.
    static let excludedColour = "#8a8a8a"
    static let cancelColour = "#c00000"
    static let textColour = "#202020"

    /// A kind's colour, by its place among the kinds (KindCatalog; KindListTests plots every kind of
    /// GestureKind.allCases and checks each has its own); black for a kind gestured does not have.
    static func kindColour(_ kind: GestureKind) -> String { KindCatalog.colour(of: kind) }

    static func fingerColour(_ number: Int) -> String { fingerColours[(number - 1) % fingerColours.count] }

    // MARK: - Layout (pixels)

    static let margin = 20.0
    /// Room for the millimetre rulers' labels left of and above the screen.
    static let rulerSpace = 34.0
    static let lineHeight = 16.0
    /// The screen is drawn at most this wide and this high, keeping its proportions.
    static let screenMaximum = (width: 720.0, height: 540.0)
    /// The time strip and the text are at least this wide.
    static let minimumContentWidth = 700.0
    static let fingerLaneHeight = 10.0
    static let gestureLaneHeight = 14.0
    static let laneGap = 4.0

    static func render(_ plot: RecordingPlot) -> String {
        var svg = SVGWriter()
        let screen = plot.screenSizeMM
        let scale = min(screenMaximum.width / screen.width, screenMaximum.height / screen.height)
        let screenPx = (width: screen.width * scale, height: screen.height * scale)
        let left = margin + rulerSpace
        let contentWidth = max(screenPx.width, minimumContentWidth)
        let width = left + contentWidth + margin

        let textWidth = width - 2 * margin
        let header = headerLines(plot).enumerated().flatMap { i, line in
            wrap(line, width: textWidth, characterWidth: i == 0 ? 8.4 : 7.2).map { (line: $0, title: i == 0) }
        }
        let screenTop = margin + Double(header.count) * lineHeight + rulerSpace
        let stripTop = screenTop + screenPx.height + 3 * lineHeight
        // A device of the running daemon has no touches: no time strip and no table of gestures.
        let strip = plot.live == nil ? TimeStrip(plot: plot, left: left, width: contentWidth, top: stripTop + 2 * lineHeight, pageRight: width - 4) : nil
        let tableTop = (strip?.bottom ?? stripTop - 2 * lineHeight) + 2 * lineHeight
        let table = plot.live != nil ? [] : tableLines(plot).enumerated().flatMap { i, line in
            wrap(line, width: textWidth, characterWidth: i == 0 ? 7.2 : 6.7, indent: i == 0 ? "" : "    ").map { (line: $0, title: i == 0) }
        }
        let height = tableTop + Double(table.count) * lineHeight + margin

        svg.open(width: width, height: height)
        svg.rect(x: 0, y: 0, width: width, height: height, fill: pageColour)
        for (i, line) in header.enumerated() {
            svg.text(line.line, x: margin, y: margin + Double(i) * lineHeight + 12, size: line.title ? 14 : 12, bold: line.title)
        }

        // The screen, as the user sees it, in millimetres scaled to pixels.
        let map = ScreenMap(left: left, top: screenTop, scale: scale)
        let rulerLabels = drawRulers(&svg, map: map, screen: screen)
        svg.rect(id: "screen", x: left, y: screenTop, width: screenPx.width, height: screenPx.height, fill: screenColour)
        drawZones(&svg, plot: plot, map: map)
        svg.raw(
            "<clipPath id=\"screen-clip\"><rect x=\"\(n(left))\" y=\"\(n(screenTop))\" width=\"\(n(screenPx.width))\" "
                + "height=\"\(n(screenPx.height))\"/></clipPath>")
        drawLandings(&svg, plot: plot, map: map)
        // The labels of fingers and gestures go anywhere between the header and the time strip, on the page,
        // off the rulers' numbers and off each other; they are drawn last, over the paths.
        var labels = LabelLayout(
            area: Box(x0: 4, y0: margin + Double(header.count) * lineHeight, x1: width - 4, y1: stripTop), taken: rulerLabels)
        drawFingers(&svg, plot: plot, map: map, labels: &labels)
        drawGestures(&svg, plot: plot, map: map, labels: &labels)
        svg.rect(x: left, y: screenTop, width: screenPx.width, height: screenPx.height, fill: "none", stroke: "#404040", strokeWidth: 1)
        drawLabels(&svg, labels)

        if let strip {
            svg.text("Time (seconds from the first event): each finger down, then each gesture from begin to end", x: left, y: stripTop + 12, size: 12, bold: true)
            strip.draw(&svg)
        }

        for (i, line) in table.enumerated() {
            svg.text(line.line, x: margin, y: tableTop + Double(i) * lineHeight + 12, size: line.title ? 12 : 11, bold: line.title, monospace: !line.title)
        }
        svg.close()
        return svg.text
    }

    // MARK: - Text around the drawing

    static func headerLines(_ plot: RecordingPlot) -> [String] {
        let live = plot.live
        let s = plot.settings
        let es = s.edgeSwipe
        let screen = plot.screenSizeMM
        var geometry = "\(mm(screen.width)) × \(mm(screen.height)) mm (\(plot.sizeSource.rawValue))"
        if plot.geometry.rotation != .none { geometry += ", rotated \(plot.geometry.rotation.rawValue)°" }
        if plot.geometry.flipX { geometry += ", flipped in x" }
        if plot.geometry.flipY { geometry += ", flipped in y" }
        if plot.geometry.calibration != nil { geometry += ", calibrated" }
        let zones = Edge.sides.map { side -> String in
            let zone = s.edgeZones[side]
            return zone.enabled ? "\(side.rawValue) \(mm(zone.widthMM)) mm" : "\(side.rawValue) off"
        }
        var edgeSwipes = es.enabled ? "edge swipes of \(range(es.minFingers, es.maxFingers)) finger" : "edge swipes off"
        if es.enabled && es.maxFingers != 1 { edgeSwipes += "s" }
        if es.enabled { edgeSwipes += ", corners " + (es.corners ? "on" : "off") }
        // Parts of a side, 0...1, as the configuration writes them (0.25, not rounded to 0.3).
        let excluded = plot.exclusions.all.map { e in
            e.edge.isCorner ? e.edge.rawValue : "\(e.edge.rawValue) \(NumberText.setting(e.from))…\(NumberText.setting(e.to))"
        }
        if !excluded.isEmpty { edgeSwipes += "; excluded (hatched): " + excluded.joined(separator: ", ") }
        if let live {
            // The running daemon's device: its screen and zones now, no touches.
            var corners = "corner swipes " + (es.corners ? "on" : "off")
            if !excluded.isEmpty { corners += "; excluded (hatched): " + excluded.joined(separator: ", ") }
            return [
                "\(plot.deviceName): \(mm(screen.width)) × \(mm(screen.height)) mm as the user sees it (\(plot.sizeSource.rawValue)), \(live)",
                "Edge zones in force (tinted, to scale): \(zones.joined(separator: ", ")); \(corners).",
                "No recording: the screen as the daemon has it now (gesturectl plot RECORDING draws touches on it).",
            ]
        }
        return [
            "\(plot.deviceName): \(geometry)",
            "Edge zones (tinted, to scale): \(zones.joined(separator: ", ")); \(edgeSwipes). "
                + "Slop \(mm(s.slopMM)) mm (circle at each landing), angle tolerance \(mm(s.angleToleranceDegrees))° (lines from landings in a zone).",
            "Dots: one per frame. Gestures: ○ begin, ■ end committed, □ end not committed, ✕ cancelled; "
                + "\(plot.fingers.count) finger\(plot.fingers.count == 1 ? "" : "s"), \(plot.gestures.count) gesture\(plot.gestures.count == 1 ? "" : "s").",
        ]
    }

    static func tableLines(_ plot: RecordingPlot) -> [String] {
        var lines = ["Gestures (as gesturectl replay reports them) and warnings"]
        if plot.gestures.isEmpty { lines.append("no gestures") }
        for g in plot.gestures {
            let b = g.begin
            let e = g.last
            var line = "#\(b.id)  \(seconds(b.timeMicroseconds - plot.originMicroseconds))–\(seconds(e.timeMicroseconds - plot.originMicroseconds)) s  "
            line += "\(b.kind.rawValue), \(fingers(b.fingers))"
            line += startsAt(b)
            line += ", begin at (\(mm(b.positionMM.x)), \(mm(b.positionMM.y))) mm, " + outcome(e)
            line += ", moved (\(mm(e.translationMM.x)), \(mm(e.translationMM.y))) mm"
            if let p = e.progress { line += ", progress \(fixed(p, 2))" }
            if let scale = e.scale { line += ", scale \(fixed(scale, 2))" }
            if let r = e.rotationDegrees { line += ", rotation \(fixed(r, 1))°" }
            lines.append(line)
            // Why it ended as it did (not committed, no direction, cancelled), with the numbers.
            for x in plot.explanations {
                for reason in x.reasons where reason.gestureID == b.id { lines.append("    why: " + reason.text) }
            }
        }
        let nearMisses = plot.explanations.flatMap(\.nearMisses)
        if !nearMisses.isEmpty {
            lines.append("Near misses (touches that landed just outside an edge zone and moved inward)")
            for reason in nearMisses {
                lines.append("\(seconds(reason.timeMicroseconds - plot.originMicroseconds)) s  \(reason.description)")
            }
        }
        for w in plot.warnings { lines.append("warning: " + w.message) }
        return lines
    }

    /// ", left edge at 0.42", ", from bottom": where an event says the gesture started.
    static func startsAt(_ e: GestureEvent) -> String {
        var s = ""
        if let edge = e.edge {
            s += ", \(edge.rawValue) \(edge.isCorner ? "corner" : "edge")"
            if let p = e.edgePosition { s += " at \(fixed(p, 2))" }
        }
        if let start = e.startEdge { s += ", from \(start.rawValue)" }
        return s
    }

    /// "end: committed, up, 2 taps", "cancelled".
    static func outcome(_ e: GestureEvent) -> String {
        var s: String
        switch e.phase {
        case .end: s = (e.committed ?? false) ? "end: committed" : "end: not committed"
        case .cancel: s = "cancelled"
        case .begin, .update: s = "no end (\(e.phase.rawValue) last)"
        }
        if let d = e.direction { s += ", \(d.rawValue)" } else if e.phase == .end && e.kind == .pan { s += ", no direction" }
        if let taps = e.taps { s += ", \(taps) tap\(taps == 1 ? "" : "s")" }
        return s
    }

    // MARK: - The screen

    /// Screen millimetres to page pixels.
    struct ScreenMap {
        var left: Double
        var top: Double
        var scale: Double
        func x(_ mm: Double) -> Double { left + mm * scale }
        func y(_ mm: Double) -> Double { top + mm * scale }
        func length(_ mm: Double) -> Double { mm * scale }
    }

    /// Ticks every 5, 10, 20, 50 ... mm (at least 40 px apart) above and left of the screen. Returns the
    /// boxes of their numbers, which labels keep off.
    static func drawRulers(_ svg: inout SVGWriter, map: ScreenMap, screen: (width: Double, height: Double)) -> [Box] {
        let step = [1.0, 2, 5, 10, 20, 50, 100, 200, 500, 1000].first { $0 * map.scale >= 40 } ?? 1000
        var boxes: [Box] = []
        var mmValue = 0.0
        while mmValue <= screen.width + 1e-9 {
            let x = map.x(mmValue)
            let text = mmValue == 0 ? "0 mm" : mm(mmValue)
            svg.line(x1: x, y1: map.top - 6, x2: x, y2: map.top, stroke: "#606060", width: 1)
            svg.text(text, x: x, y: map.top - 9, size: 10, anchor: "middle", colour: "#505050")
            boxes.append(textBox(text, x: x, y: map.top - 9, size: 10, anchor: .middle, halo: false))
            mmValue += step
        }
        mmValue = step
        while mmValue <= screen.height + 1e-9 {
            let y = map.y(mmValue)
            svg.line(x1: map.left - 6, y1: y, x2: map.left, y2: y, stroke: "#606060", width: 1)
            svg.text(mm(mmValue), x: map.left - 8, y: y + 3.5, size: 10, anchor: "end", colour: "#505050")
            boxes.append(textBox(mm(mmValue), x: map.left - 8, y: y + 3.5, size: 10, anchor: .end, halo: false))
            mmValue += step
        }
        return boxes
    }

    /// The zone of each enabled side at its width, the corners where two zones meet (darker when corner
    /// swipes are on), and a dashed line at each zone's inner border.
    static func drawZones(_ svg: inout SVGWriter, plot: RecordingPlot, map: ScreenMap) {
        let s = plot.settings
        let es = s.edgeSwipe
        let w = plot.screenSizeMM.width
        let h = plot.screenSizeMM.height
        func width(_ side: Edge) -> Double? {
            let zone = s.edgeZones[side]
            return zone.enabled ? min(max(zone.widthMM, 0), side == .left || side == .right ? w : h) : nil
        }
        svg.raw("<g id=\"edge-zones\">")
        for side in Edge.sides {
            guard let z = width(side) else { continue }
            let (x, y, zw, zh): (Double, Double, Double, Double)
            switch side {
            case .left: (x, y, zw, zh) = (0, 0, z, h)
            case .right: (x, y, zw, zh) = (w - z, 0, z, h)
            case .top: (x, y, zw, zh) = (0, 0, w, z)
            default: (x, y, zw, zh) = (0, h - z, w, z)
            }
            svg.rect(x: map.x(x), y: map.y(y), width: map.length(zw), height: map.length(zh), fill: zoneColour)
        }
        if es.corners {
            for corner in Edge.corners {
                guard let (horizontal, vertical) = corner.sidesOfCorner, let zh = width(horizontal), let zv = width(vertical) else { continue }
                let x = vertical == .left ? 0 : w - zv
                let y = horizontal == .top ? 0 : h - zh
                svg.rect(x: map.x(x), y: map.y(y), width: map.length(zv), height: map.length(zh), fill: cornerColour)
            }
        }
        for side in Edge.sides {
            guard let z = width(side), z > 0 else { continue }
            let (x1, y1, x2, y2): (Double, Double, Double, Double)
            switch side {
            case .left: (x1, y1, x2, y2) = (z, 0, z, h)
            case .right: (x1, y1, x2, y2) = (w - z, 0, w - z, h)
            case .top: (x1, y1, x2, y2) = (0, z, w, z)
            default: (x1, y1, x2, y2) = (0, h - z, w, h - z)
            }
            svg.line(x1: map.x(x1), y1: map.y(y1), x2: map.x(x2), y2: map.y(y2), stroke: zoneLineColour, width: 1, dash: "4 3")
        }
        svg.raw("</g>")
        drawExclusions(&svg, plot: plot, map: map, zoneWidth: width)
    }

    /// The parts of the edges that are no edge zone (`--config`'s [[exclusion]] sections in force for
    /// `--focus`): each side's part of its zone, or a corner's square, on white, hatched.
    static func drawExclusions(_ svg: inout SVGWriter, plot: RecordingPlot, map: ScreenMap, zoneWidth: (Edge) -> Double?) {
        guard !plot.exclusions.isEmpty else { return }
        let w = plot.screenSizeMM.width
        let h = plot.screenSizeMM.height
        svg.raw(
            "<g id=\"exclusions\"><pattern id=\"excluded-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
                + "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"\(excludedColour)\" stroke-width=\"2\"/></pattern>")
        for e in plot.exclusions.all {
            let box: (x: Double, y: Double, width: Double, height: Double)
            switch e.edge {
            case .left, .right:
                guard let z = zoneWidth(e.edge) else { continue }
                box = (e.edge == .left ? 0 : w - z, e.from * h, z, (e.to - e.from) * h)
            case .top, .bottom:
                guard let z = zoneWidth(e.edge) else { continue }
                box = (e.from * w, e.edge == .top ? 0 : h - z, (e.to - e.from) * w, z)
            case .topLeft, .topRight, .bottomLeft, .bottomRight:
                guard let (horizontal, vertical) = e.edge.sidesOfCorner, let zh = zoneWidth(horizontal), let zv = zoneWidth(vertical) else { continue }
                box = (vertical == .left ? 0 : w - zv, horizontal == .top ? 0 : h - zh, zv, zh)
            }
            let (x, y, bw, bh) = (map.x(box.x), map.y(box.y), map.length(box.width), map.length(box.height))
            svg.rect(x: x, y: y, width: bw, height: bh, fill: screenColour)
            svg.rect(x: x, y: y, width: bw, height: bh, fill: "url(#excluded-hatch)", stroke: excludedColour, strokeWidth: 1)
        }
        svg.raw("</g>")
    }

    /// At each landing: the slop circle, and for a landing in an edge zone the two lines of the angle
    /// tolerance around that edge's inward direction (a stroke that leaves the circle between them is an
    /// edge swipe, if the finger count allows one).
    static func drawLandings(_ svg: inout SVGWriter, plot: RecordingPlot, map: ScreenMap) {
        let s = plot.settings
        let es = s.edgeSwipe
        let slop = map.length(s.slopMM)
        // Long enough to see on a 32-inch monitor's drawing: 4 slops, at least 12 mm and 48 pixels.
        let rayMM = max(4 * s.slopMM, 12, 48 / map.scale)
        let tolerance = s.angleToleranceDegrees * Double.pi / 180
        svg.raw("<g id=\"landings\">")
        for finger in plot.fingers {
            guard let p = finger.pathMM.first else { continue }
            let colour = fingerColour(finger.number)
            svg.circle(cx: map.x(p.x), cy: map.y(p.y), r: slop, fill: "none", stroke: colour, strokeWidth: 1.2)
            guard es.enabled else { continue }
            var rays = ""
            // The zones the landing is in, less the excluded parts: no edge swipe starts there.
            let inZones = s.edgeZones.zones(at: p, screenSizeMM: plot.screenSizeMM, excluding: plot.exclusions)
            for side in Edge.sides {
                let zone = s.edgeZones[side]
                guard zone.enabled, inZones.contains(side), distance(from: side, p, plot.screenSizeMM) <= zone.widthMM else { continue }
                let inward = inwardAngle(side)
                for a in [inward - tolerance, inward + tolerance] {
                    let end = Vector2(p.x + rayMM * cos(a), p.y + rayMM * sin(a))
                    rays += "<line x1=\"\(n(map.x(p.x)))\" y1=\"\(n(map.y(p.y)))\" x2=\"\(n(map.x(end.x)))\" y2=\"\(n(map.y(end.y)))\"/>"
                }
            }
            if !rays.isEmpty {
                svg.raw("<g stroke=\"\(colour)\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\" clip-path=\"url(#screen-clip)\">" + rays + "</g>")
            }
        }
        svg.raw("</g>")
    }

    static func distance(from side: Edge, _ p: Vector2, _ screen: (width: Double, height: Double)) -> Double {
        switch side {
        case .left: return p.x
        case .right: return screen.width - p.x
        case .top: return p.y
        default: return screen.height - p.y
        }
    }

    /// The direction into the screen from a side, radians, y down.
    static func inwardAngle(_ side: Edge) -> Double {
        switch side {
        case .left: return 0
        case .right: return Double.pi
        case .top: return Double.pi / 2
        default: return -Double.pi / 2
        }
    }

    /// Each finger: its path, a dot per frame, a bigger dot and its number where it landed (placed in
    /// `labels`, above and left of the landing where there is room), a cross where it lifted.
    static func drawFingers(_ svg: inout SVGWriter, plot: RecordingPlot, map: ScreenMap, labels: inout LabelLayout) {
        svg.raw("<g id=\"fingers\">")
        for finger in plot.fingers {
            let colour = fingerColour(finger.number)
            let points = finger.pathMM.map { "\(n(map.x($0.x))),\(n(map.y($0.y)))" }
            svg.raw("<g id=\"finger-\(finger.number)\" fill=\"\(colour)\">")
            if points.count > 1 {
                svg.raw(
                    "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" "
                        + "stroke-width=\"2\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>")
            }
            for p in finger.pathMM { svg.raw("<circle cx=\"\(n(map.x(p.x)))\" cy=\"\(n(map.y(p.y)))\" r=\"1.8\"/>") }
            svg.raw("</g>")
            guard let first = finger.pathMM.first, let last = finger.pathMM.last else { continue }
            svg.circle(cx: map.x(first.x), cy: map.y(first.y), r: 3.5, fill: colour, stroke: "none", strokeWidth: 0)
            labels.place(
                "f\(finger.number)", size: 11, colour: colour, marker: (map.x(first.x), map.y(first.y)), right: false, dx: 6,
                above: 6, below: 14, preferBelow: false)
            if finger.liftedMicroseconds != nil {
                let x = map.x(last.x)
                let y = map.y(last.y)
                svg.raw(
                    "<path d=\"M\(n(x - 4)) \(n(y - 4))L\(n(x + 4)) \(n(y + 4))M\(n(x - 4)) \(n(y + 4))L\(n(x + 4)) \(n(y - 4))\" "
                        + "stroke=\"\(colour)\" stroke-width=\"1.5\"/>")
            }
        }
        svg.raw("</g>")
    }

    /// Each gesture: its centroid's path when it has more than one finger, its begin (○) and its end (■
    /// committed, □ not, ✕ cancelled), each labelled (in `labels`: the begin's above its marker, the end's
    /// below, on the side of the screen's middle, where there is room).
    static func drawGestures(_ svg: inout SVGWriter, plot: RecordingPlot, map: ScreenMap, labels: inout LabelLayout) {
        svg.raw("<g id=\"gestures\">")
        for g in plot.gestures {
            let colour = kindColour(g.begin.kind)
            if g.begin.fingers > 1 && g.pathMM.count > 1 {
                let points = g.pathMM.map { "\(n(map.x($0.x))),\(n(map.y($0.y)))" }
                svg.raw(
                    "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" "
                        + "stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>")
            }
            let b = g.begin
            let bx = map.x(b.positionMM.x)
            let by = map.y(b.positionMM.y)
            svg.circle(cx: bx, cy: by, r: 5, fill: "#ffffff", stroke: colour, strokeWidth: 2)
            // Labels go right of their marker on the screen's left half, left of it on the right half.
            let rightHalf = map.left + map.length(plot.screenSizeMM.width / 2)
            labels.place(
                "#\(b.id) \(b.kind.rawValue), \(fingers(b.fingers))" + startsAt(b), size: 11, colour: colour, marker: (bx, by),
                right: bx < rightHalf, dx: 8, above: 7, below: 15, preferBelow: false)
            let e = g.last
            let ex = map.x(e.positionMM.x)
            let ey = map.y(e.positionMM.y)
            switch e.phase {
            case .cancel:
                svg.raw(
                    "<path d=\"M\(n(ex - 5)) \(n(ey - 5))L\(n(ex + 5)) \(n(ey + 5))M\(n(ex - 5)) \(n(ey + 5))L\(n(ex + 5)) \(n(ey - 5))\" "
                        + "stroke=\"\(cancelColour)\" stroke-width=\"2.5\"/>")
            case .end, .begin, .update:
                let committed = e.committed ?? false
                svg.rect(
                    x: ex - 5, y: ey - 5, width: 10, height: 10, fill: committed ? colour : "#ffffff", stroke: colour, strokeWidth: 2)
            }
            labels.place(
                "#\(e.id) " + outcome(e), size: 11, colour: e.phase == .cancel ? cancelColour : colour, marker: (ex, ey),
                right: ex < rightHalf, dx: 8, above: 9, below: 15, preferBelow: true)
        }
        svg.raw("</g>")
    }

    // MARK: - The time strip

    /// A time axis; a lane per group of fingers whose contacts do not overlap, a bar per finger down; then a
    /// lane per group of gestures, a bar per gesture from begin to end.
    struct TimeStrip {
        /// Where a bar's label goes: inside it, after its end, or before its start.
        enum LabelPlace { case inside, after, before }
        struct Bar {
            var lane: Int
            var x: Double
            var width: Double
            var label: String
            var place: LabelPlace
            var colour: String
            var filled: Bool
            var cancelled: Bool
        }
        var left: Double
        var width: Double
        var top: Double
        var durationMicroseconds: Int64
        var fingerBars: [Bar] = []
        var gestureBars: [Bar] = []
        var fingerLanes = 0
        var gestureLanes = 0

        init(plot: RecordingPlot, left: Double, width: Double, top: Double, pageRight: Double) {
            self.left = left
            self.width = width
            self.top = top
            durationMicroseconds = max(plot.endMicroseconds - plot.originMicroseconds, 1000)
            var lanes: [Double] = []
            for f in plot.fingers {
                let x0 = x(f.landedMicroseconds - plot.originMicroseconds)
                let x1 = max(x((f.liftedMicroseconds ?? plot.endMicroseconds) - plot.originMicroseconds), x0 + 1)
                var bar = Bar(lane: 0, x: x0, width: x1 - x0, label: "f\(f.number)", place: .inside, colour: fingerColour(f.number), filled: true, cancelled: false)
                bar.lane = Self.place(&bar, pageRight: pageRight, size: 10, lanes: &lanes)
                fingerBars.append(bar)
            }
            fingerLanes = lanes.count
            lanes = []
            for g in plot.gestures {
                let x0 = x(g.begin.timeMicroseconds - plot.originMicroseconds)
                let x1 = max(x(g.last.timeMicroseconds - plot.originMicroseconds), x0 + 2)
                var label = "#\(g.begin.id) \(g.begin.kind.rawValue) \(g.begin.fingers)"
                switch g.last.phase {
                case .end: label += (g.last.committed ?? false) ? " committed" : " not committed"
                case .cancel: label += " cancelled"
                case .begin, .update: break
                }
                var bar = Bar(
                    lane: 0, x: x0, width: x1 - x0, label: label, place: .inside, colour: kindColour(g.begin.kind),
                    filled: g.last.phase == .end && (g.last.committed ?? false), cancelled: g.last.phase == .cancel)
                bar.lane = Self.place(&bar, pageRight: pageRight, size: 11, lanes: &lanes)
                gestureBars.append(bar)
            }
            gestureLanes = lanes.count
        }

        /// Time since the first event to x.
        func x(_ microseconds: Int64) -> Double { left + Double(microseconds) / Double(durationMicroseconds) * width }

        /// Puts the bar's label inside it when it fits, else after it when that stays on the page, else
        /// before it; then returns the first lane free where bar and label begin (`lanes` holds the x where
        /// each lane becomes free), taking it up to where they end.
        static func place(_ bar: inout Bar, pageRight: Double, size: Double, lanes: inout [Double]) -> Int {
            let labelWidth = PlotSVG.textWidth(bar.label, size: size)
            var from = bar.x
            var to = bar.x + bar.width
            if labelWidth + 6 <= bar.width {
                bar.place = .inside
            } else if to + 3 + labelWidth <= pageRight {
                bar.place = .after
                to += 3 + labelWidth
            } else {
                bar.place = .before
                from -= 3 + labelWidth
            }
            to += 4
            if let i = lanes.firstIndex(where: { $0 <= from }) {
                lanes[i] = to
                return i
            }
            lanes.append(to)
            return lanes.count - 1
        }

        var fingersTop: Double { top + 10 }
        var gesturesTop: Double { fingersTop + Double(max(fingerLanes, 1)) * (fingerLaneHeight + laneGap) + 8 }
        var bottom: Double { gesturesTop + Double(max(gestureLanes, 1)) * (gestureLaneHeight + laneGap) }

        func draw(_ svg: inout SVGWriter) {
            // The axis: ticks at a round step, about ten of them.
            let seconds = Double(durationMicroseconds) / 1e6
            let steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600]
            let step = steps.first { seconds / $0 <= 12 } ?? 3600
            svg.raw(
                "<line id=\"time-axis\" x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(left + width))\" y2=\"\(n(top))\" "
                    + "stroke=\"#404040\" stroke-width=\"1\"/>")
            var k = 0
            while Double(k) * step <= seconds + 1e-9 {
                let t = Double(k) * step
                let tx = x(Int64((t * 1e6).rounded()))
                svg.line(x1: tx, y1: top - 4, x2: tx, y2: bottom, stroke: "#d8d8d8", width: 1)
                svg.line(x1: tx, y1: top - 4, x2: tx, y2: top, stroke: "#404040", width: 1)
                svg.text(fixed(t, 2), x: tx, y: top - 7, size: 10, anchor: "middle", colour: "#505050")
                k += 1
            }
            svg.text("fingers", x: left - 6, y: fingersTop + 9, size: 10, anchor: "end", colour: "#505050")
            svg.text("gestures", x: left - 6, y: gesturesTop + 11, size: 10, anchor: "end", colour: "#505050")
            for bar in fingerBars {
                let y = fingersTop + Double(bar.lane) * (fingerLaneHeight + laneGap)
                svg.rect(x: bar.x, y: y, width: bar.width, height: fingerLaneHeight, fill: bar.colour)
                label(&svg, bar, y: y + 8.5, size: 10)
            }
            for bar in gestureBars {
                let y = gesturesTop + Double(bar.lane) * (gestureLaneHeight + laneGap)
                let stroke = bar.cancelled ? cancelColour : bar.colour
                svg.rect(
                    x: bar.x, y: y, width: bar.width, height: gestureLaneHeight, fill: bar.filled ? bar.colour : "#ffffff",
                    stroke: stroke, strokeWidth: 1.5)
                label(&svg, bar, y: y + 11, size: 11)
            }
        }

        private func label(_ svg: inout SVGWriter, _ bar: Bar, y: Double, size: Double) {
            let colour = bar.cancelled ? cancelColour : bar.colour
            switch bar.place {
            case .inside:
                svg.text(bar.label, x: bar.x + 3, y: y, size: size, colour: bar.filled ? "#ffffff" : colour)
            case .after:
                svg.text(bar.label, x: bar.x + bar.width + 3, y: y, size: size, colour: colour)
            case .before:
                svg.text(bar.label, x: bar.x - 3, y: y, size: size, anchor: "end", colour: colour)
            }
        }
    }

    // MARK: - Numbers and words

    /// `text` broken at spaces into lines of at most `width` pixels, at a rough width per character;
    /// continuation lines start with `indent`. A word longer than a line stays whole.
    static func wrap(_ text: String, width: Double, characterWidth: Double, indent: String = "") -> [String] {
        let most = max(Int(width / characterWidth), 20)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty && line.count + 1 + word.count > most {
                lines.append(line)
                line = indent + word
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        lines.append(line)
        return lines
    }

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var s = ""
        JSONObjectWriter.appendFixed(v, decimals: decimals, to: &s)
        return s
    }

    /// Pixel coordinates: two decimals.
    static func n(_ v: Double) -> String { fixed(v, 2) }
    /// Millimetres: one decimal.
    static func mm(_ v: Double) -> String { fixed(v, 1) }
    /// Seconds from microseconds: three decimals.
    static func seconds(_ microseconds: Int64) -> String {
        let ms = (abs(microseconds) + 500) / 1000
        let fraction = String(ms % 1000)
        return (microseconds < 0 ? "-" : "") + "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
    static func fingers(_ count: Int) -> String { "\(count) finger\(count == 1 ? "" : "s")" }
    static func range(_ a: Int, _ b: Int) -> String { a == b ? "\(a)" : "\(a)–\(b)" }
}

/// SVG text, element by element; every attribute value and text is escaped here.
struct SVGWriter {
    private(set) var text = ""

    mutating func open(width: Double, height: Double) {
        let w = PlotSVG.n(width)
        let h = PlotSVG.n(height)
        text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" "
        text += "font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
    }

    mutating func close() { text += "</svg>\n" }

    mutating func raw(_ element: String) { text += element + "\n" }

    mutating func rect(
        id: String? = nil, x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil,
        strokeWidth: Double = 0
    ) {
        text += "<rect"
        if let id { text += " id=\"\(id)\"" }
        text += " x=\"\(PlotSVG.n(x))\" y=\"\(PlotSVG.n(y))\" width=\"\(PlotSVG.n(max(width, 0)))\" height=\"\(PlotSVG.n(max(height, 0)))\" fill=\"\(fill)\""
        if let stroke { text += " stroke=\"\(stroke)\" stroke-width=\"\(PlotSVG.n(strokeWidth))\"" }
        text += "/>\n"
    }

    mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String, strokeWidth: Double) {
        text += "<circle cx=\"\(PlotSVG.n(cx))\" cy=\"\(PlotSVG.n(cy))\" r=\"\(PlotSVG.n(r))\" fill=\"\(fill)\""
        if stroke != "none" { text += " stroke=\"\(stroke)\" stroke-width=\"\(PlotSVG.n(strokeWidth))\"" }
        text += "/>\n"
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double, dash: String? = nil) {
        text += "<line x1=\"\(PlotSVG.n(x1))\" y1=\"\(PlotSVG.n(y1))\" x2=\"\(PlotSVG.n(x2))\" y2=\"\(PlotSVG.n(y2))\" "
        text += "stroke=\"\(stroke)\" stroke-width=\"\(PlotSVG.n(width))\""
        if let dash { text += " stroke-dasharray=\"\(dash)\"" }
        text += "/>\n"
    }

    /// Text at (x, y) (the baseline); `halo` draws a white outline under it, readable over paths.
    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, anchor: String = "start", bold: Bool = false,
        monospace: Bool = false, colour: String = PlotSVG.textColour, halo: Bool = false
    ) {
        text += "<text x=\"\(PlotSVG.n(x))\" y=\"\(PlotSVG.n(y))\" font-size=\"\(PlotSVG.n(size))\" fill=\"\(colour)\""
        if anchor != "start" { text += " text-anchor=\"\(anchor)\"" }
        if bold { text += " font-weight=\"bold\"" }
        if monospace { text += " font-family=\"DejaVu Sans Mono, monospace\"" }
        if halo { text += " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"" }
        text += ">" + SVGWriter.escaped(content) + "</text>\n"
    }

    /// XML text: &, <, >, quotes escaped; control characters (not allowed in XML) written as \u{..}.
    static func escaped(_ s: String) -> String {
        var out = ""
        for scalar in escapingControlCharacters(s).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
