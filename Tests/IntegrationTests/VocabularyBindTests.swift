// gesturectl bind and gesturectl lisgd on the vocabulary of issue 8, through the daemon: taps and double
// taps, holds, pans along an edge (start_edge) and the diagonals of `[recognizer.pan] directions = 8`.
import Glibc
import Testing

@Suite("bind and lisgd on taps, holds, start_edge and diagonals")
struct VocabularyBindTests {
    @Test func tapsHoldsAlongEdgeAndDiagonalBindings() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        func line(_ name: String) -> String {
            "shell = \"echo \(name) $GESTURE_KIND $GESTURE_FINGERS ${GESTURE_TAPS:--} ${GESTURE_START_EDGE:--} ${GESTURE_DIRECTION:--} >> \(out)\""
        }
        let config = directory.write("eight.toml", "[daemon]\nsocket_group = \"\"\n[recognizer.pan]\ndirections = 8\n")
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "double-tap"
            taps = 2
            \(line("double-tap"))

            [[binding]]
            name = "single-tap"
            taps = 1
            \(line("single-tap"))

            [[binding]]
            name = "hold"
            gesture = "hold"
            on = "begin"
            \(line("hold"))

            [[binding]]
            name = "along-bottom"
            start_edge = "bottom"
            direction = "right"
            \(line("along-bottom"))

            [[binding]]
            name = "diagonal"
            gesture = "pan"
            direction = "up-right"
            \(line("diagonal"))
            """)
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.stroke(seconds: 0.05) { _ in [(36, 64)] }  // a single tap
        r.wait(0.8)
        r.stroke(seconds: 0.05) { _ in [(36, 64)] }  // a double tap
        r.wait(0.1)
        r.stroke(seconds: 0.05) { _ in [(37, 64)] }
        r.wait(0.8)
        r.stroke(seconds: 0.9) { _ in [(36, 64)] }  // a hold
        r.wait(0.5)
        r.swipe(from: (10, 126), by: 50, 0)  // along the bottom edge
        r.wait(0.5)
        r.swipe(from: (20, 90), by: 30, -30)  // up-right
        r.wait(0.5)
        let recording = directory.write("vocabulary.evemu", r.text)
        let daemon = try Daemon(["--config", config, "--replay", recording])
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        let expected = [
            "single-tap tap 1 1 - -", "double-tap tap 1 2 - -", "hold hold 1 - - -", "along-bottom pan 1 - bottom right",
            "diagonal pan 1 - - up-right",
        ]
        let context = { "bind's log:\n\(bind.output)\n\(replayed(recording, in: directory))" }
        try waitForLines(out, expected.count, context: context)
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection")
        try bind.stop()
        #expect(lines(out) == expected, "\(context())")
    }
}
