import Foundation
import Motion
import ResponderConfig
import ResponderCore
import ResponderTools
import SystemCalls
import Testing
import TouchScenes

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The traces under Tests/Fixtures/Motion (written by make-traces.py there).
private func fixture(_ name: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/Motion/\(name)").path
}

private func analyze(_ name: String, settings: ShakeSettings = ShakeSettings()) throws -> MotionAnalysis {
  let path = fixture(name)
  return MotionAnalysis(
    samples: try MotionTrace.parse(try readTextFile(path), file: path), settings: settings)
}

/// The JSON lines, decoded.
private func decoded(_ analysis: MotionAnalysis) throws -> [[String: Any]] {
  try analysis.jsonLines.map { line in
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }
}

private func temporaryFile(_ name: String, _ text: String) throws -> String {
  let path = NSTemporaryDirectory() + "responderd-motion-\(getpid())-\(name)"
  try text.write(toFile: path, atomically: true, encoding: .utf8)
  return path
}

@Suite("responderctl motion analyze")
struct MotionAnalyzeTests {
  let t0 = 5231.25  // the traces' first time (make-traces.py)

  @Test("Two shakes: began and ended for each, as JSON lines")
  func twoShakes() throws {
    let analysis = try analyze("two-shakes-50hz.csv")
    let objects = try decoded(analysis)
    #expect(objects.map { $0["phase"] as? String } == ["began", "ended", "began", "ended"])
    for object in objects {
      #expect(object["type"] as? String == "motion")
      #expect(object["subtype"] as? String == "motionShake")
      #expect(Set(object.keys) == ["t", "type", "phase", "subtype"])
    }
    let times = objects.compactMap { ($0["t"] as? NSNumber)?.doubleValue }
    let truth = [t0 + 1.0, t0 + 2.5, t0 + 4.5, t0 + 5.5]
    #expect(times.count == 4)
    for (time, expected) in zip(times, truth) {
      #expect(time > expected && time - expected <= 0.6, "\(time) vs \(expected)")
    }
    #expect(analysis.jsonLines.first?.hasPrefix("{\"t\": ") == true)
  }

  @Test("A 7 s shake: began, then cancelled after max-duration")
  func longShake() throws {
    let events = try analyze("long-shake-100hz.csv").events
    #expect(events.map(\.phase) == [.began, .cancelled])
    if events.count == 2 { #expect(abs(events[1].time - (t0 + 0.5 + 5)) < 0.1) }
  }

  @Test("Walking: no event")
  func walking() throws {
    #expect(try analyze("walking-50hz.csv").jsonLines.isEmpty)
  }

  @Test("A shake still going at the end of the file: time runs on and it ends")
  func shakeAtEndOfFile() throws {
    let analysis = try analyze("shake-at-end-100hz.csv")
    #expect(analysis.events.map(\.phase) == [.began, .ended])
    let last = try #require(analysis.dynamicMagnitudes.last).t
    if let end = analysis.events.last { #expect(end.time > last && end.time <= last + 0.6) }
  }

  @Test("Settings come from --config's [motion.shake]")
  func settingsFromConfig() throws {
    let path = try temporaryFile(
      "strict.toml",
      """
      [motion.shake]
      threshold = 2.5
      sustain-threshold = 2
      """)
    let config = try ResponderdConfig.load(path: path)
    #expect(config.motion.shake.threshold == 2.5)
    #expect(try analyze("two-shakes-50hz.csv", settings: config.motion.shake).events.isEmpty)
  }

  @Test("Bad lines are reported with their line number")
  func badLines() throws {
    let cases: [(String, String)] = [
      ("t,x,y,z\n0.00,0,0,9.8\n0.02,0,0\n", "bad.csv:3: expected 4 fields t,x,y,z, found 3"),
      ("# comment\n\n0.00,0,0,9.8\n0.02,0,zero,9.8\n", "bad.csv:4: y is not a number: 'zero'"),
      ("0.00,0,0,9.8\nt,x,y,z\n", "bad.csv:2: t is not a number: 't'"),
      ("0.00,0,0,nan\n", "bad.csv:1: z is not a number: 'nan'"),
    ]
    for (text, message) in cases {
      #expect(throws: ToolInputError.self) { try MotionTrace.parse(text, file: "bad.csv") }
      do {
        _ = try MotionTrace.parse(text, file: "bad.csv")
      } catch {
        #expect("\(error)" == message)
      }
    }
    // A header, comments, blank lines, spaces and CRLF are fine.
    let samples = try MotionTrace.parse("t, x, y, z\r\n# still\n\n 1.5 , 0.1, -0.2, 9.8\r\n", file: "ok.csv")
    #expect(samples == [MotionSample(t: 1.5, x: 0.1, y: -0.2, z: 9.8)])
  }

  @Test("Recorded lines read back as the same samples")
  func roundTrip() throws {
    let sample = MotionSample(t: 12345.678901, x: -0.1234, y: 9.8066, z: 0)
    let text = MotionTrace.header + "\n" + MotionTrace.line(for: sample) + "\n"
    #expect(MotionTrace.line(for: sample) == "12345.678901,-0.1234,9.8066,0")
    #expect(try MotionTrace.parse(text, file: "r.csv") == [sample])
  }
}

/// Reads an SVG with XMLParser, keeping what the tests look at.
private final class SVGReader: NSObject, XMLParserDelegate {
  var shakeRects: [[String: String]] = []
  var thresholdLines = 0
  var polylinePoints: [String] = []
  var texts: [String] = []
  /// Labels of shakes and of rejections: class, x, y and text.
  var labels: [(cls: String, x: Double, y: Double, text: String)] = []
  var rejectionRects: [[String: String]] = []
  private var label: (cls: String, x: Double, y: Double)?
  private var text = ""

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    let classes = (attributes["class"] ?? "").split(separator: " ")
    if name == "rect", classes.contains("shake") { shakeRects.append(attributes) }
    if name == "rect", classes.contains("rejection") { rejectionRects.append(attributes) }
    if name == "text", let cls = attributes["class"], cls.hasSuffix("-label") {
      label = (cls, Double(attributes["x"] ?? "") ?? .nan, Double(attributes["y"] ?? "") ?? .nan)
    }
    if name == "line", classes.contains("threshold") { thresholdLines += 1 }
    if name == "polyline" {
      polylinePoints = (attributes["points"] ?? "").split(separator: " ").map(String.init)
    }
    text = ""
  }
  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
  func parser(
    _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
  ) {
    if name == "text" {
      texts.append(text)
      if let label { labels.append((label.cls, label.x, label.y, text)) }
      label = nil
    }
  }

  static func read(_ svg: String) throws -> SVGReader {
    let reader = SVGReader()
    let parser = XMLParser(data: Data(svg.utf8))
    parser.delegate = reader
    #expect(parser.parse(), "the SVG does not parse: \(String(describing: parser.parserError))")
    return reader
  }
}

@Suite("responderctl motion analyze --plot")
struct MotionPlotTests {
  @Test(
    "One shaded region per shake, from began to ended",
    arguments: [
      ("two-shakes-50hz.csv", 2), ("long-shake-100hz.csv", 1), ("walking-50hz.csv", 0),
      ("shake-at-end-100hz.csv", 1),
    ])
  func shadedRegions(file: String, shakes: Int) throws {
    let analysis = try analyze(file)
    let svg = MotionPlot(analysis: analysis, title: "trace <\(file)> & more").svg()
    let reader = try SVGReader.read(svg)
    #expect(reader.shakeRects.count == shakes)
    #expect(reader.thresholdLines == 3)
    #expect(reader.texts.contains { $0.hasPrefix("threshold 1 g") })
    #expect(reader.texts.contains("time (s)"))
    #expect(reader.polylinePoints.count >= 100)
    // The regions are ordered in time and do not overlap, and they have a width.
    let xs = reader.shakeRects.compactMap { rect in
      Double(rect["x"] ?? "").flatMap { x in Double(rect["width"] ?? "").map { (x, x + $0) } }
    }
    #expect(xs.count == shakes)
    for (a, b) in zip(xs, xs.dropFirst()) { #expect(a.1 <= b.0) }
    for (start, end) in xs { #expect(end > start) }
  }

  @Test("A cancelled shake is marked as such")
  func cancelledShake() throws {
    let reader = try SVGReader.read(
      MotionPlot(analysis: try analyze("long-shake-100hz.csv"), title: "long").svg())
    #expect(reader.shakeRects.first?["class"] == "shake cancelled")
  }

  @Test("The shaded region spans began to ended on the time axis")
  func regionMatchesEvents() throws {
    let analysis = try analyze("two-shakes-50hz.csv")
    let plot = MotionPlot(analysis: analysis, title: "t")
    let reader = try SVGReader.read(plot.svg())
    // The plot maps the first sample to x = 70 and the last to width - 150.
    let first = analysis.dynamicMagnitudes.first!.t
    let last = analysis.dynamicMagnitudes.last!.t
    func x(_ t: Double) -> Double { 70 + (t - first) / (last - first) * (plot.width - 220) }
    let rect = try #require(reader.shakeRects.first)
    #expect(abs(Double(rect["x"]!)! - x(analysis.events[0].time)) < 0.2)
    #expect(abs(Double(rect["x"]!)! + Double(rect["width"]!)! - x(analysis.events[1].time)) < 0.3)
  }
}

extension MotionPlotTests {
  /// Three shakes 0.6 s apart in a minute of real walking (the GaitPy demo at the lower back).
  private func closeShakes() throws -> MotionAnalysis {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/Motion/real/gaitpy-lowerback-50hz.csv").path
    let samples = try MotionTrace.parse(try readTextFile(path), file: path).filter { $0.t >= 18 && $0.t < 78 }
    return MotionAnalysis(
      samples: samples.map { sample in
        var shaken = sample
        for start in [38.0, 40.2, 42.0] where sample.t >= start && sample.t < start + 1.2 {
          shaken.z += 2 * standardGravity * sin(2 * .pi * 3.5 * (sample.t - start))
        }
        return shaken
      })
  }

  @Test("Labels of shakes close together do not overlap")
  func closeShakeLabels() throws {
    let analysis = try closeShakes()
    #expect(analysis.shakes.count == 3)
    let reader = try SVGReader.read(MotionPlot(analysis: analysis, title: "close").svg())
    let labels = reader.labels.filter { $0.cls == "shake-label" }
    #expect(labels.count == 3, "\(labels)")
    // Text of 11 px: about 6.2 px a character, 13 px a row.
    for (i, a) in labels.enumerated() {
      for b in labels[(i + 1)...] where abs(a.y - b.y) < 12 {
        let aEnd = a.x + 6.2 * Double(a.text.count)
        let bEnd = b.x + 6.2 * Double(b.text.count)
        #expect(aEnd <= b.x || bEnd <= a.x, "\(a.text) and \(b.text) overlap")
      }
    }
  }

  @Test("The plot marks why vigorous motion was not a shake")
  func rejectionsMarked() throws {
    let analysis = try closeShakes()
    let reader = try SVGReader.read(MotionPlot(analysis: analysis, title: "walking").svg())
    #expect(!analysis.rejections.isEmpty)
    #expect(reader.rejectionRects.count == analysis.rejections.count)
    let reasons = Set(analysis.rejections.map(\.reason.rawValue))
    #expect(
      Set(reader.rejectionRects.compactMap { $0["class"]?.split(separator: " ").last.map(String.init) })
        == reasons)
    #expect(reader.texts.contains("not a shake:"))
    for reason in reasons { #expect(reader.texts.contains { $0.hasPrefix(reason) }, "legend: \(reason)") }
    // No mark inside a shake: what became a shake was not turned down.
    for note in analysis.rejections {
      #expect(!analysis.shakes.contains { note.time > $0.began && note.start < $0.end - 0.5 }, "\(note)")
    }
  }
}

@Suite("[motion] config section")
struct MotionConfigTests {
  @Test func defaults() throws {
    let config = try ResponderdConfig.parse("", file: "c.toml")
    #expect(config.motion == MotionSettings())
    #expect(config.motion.samplingRate == 50)
    #expect(config.motion.shake.maximumDuration == 5)
  }

  @Test func readsEveryKey() throws {
    let config = try ResponderdConfig.parse(
      """
      [motion]
      enabled = false
      sampling-rate = 100
      capture = "polled"
      rotation = "left"
      device = "bmc150_accel"

      [motion.shake]
      threshold = 1.5
      sustain-threshold = 1
      activity-threshold = 0.6
      gravity-time-constant = 0.5
      min-duration = 0.3
      min-swing = 0.05
      quiet-time = 0.5
      max-duration = 8
      """, file: "c.toml")
    let motion = config.motion
    #expect(!motion.enabled)
    #expect(motion.samplingRate == 100)
    #expect(motion.capture == .polled)
    #expect(motion.rotation == .left)
    #expect(motion.device == "bmc150_accel")
    #expect(motion.shake.threshold == 1.5)
    #expect(motion.shake.sustainThreshold == 1)
    #expect(motion.shake.activityThreshold == 0.6)
    #expect(motion.shake.gravityTimeConstant == 0.5)
    #expect(motion.shake.minimumDuration == 0.3)
    #expect(motion.shake.minimumSwing == 0.05)
    #expect(motion.shake.quietTime == 0.5)
    #expect(motion.shake.maximumDuration == 8)
  }

  @Test("Errors name the file, the line and the key")
  func errors() {
    let cases: [(String, String)] = [
      (
        "[motion]\nsampling-rat = 50\n",
        "c.toml:2: unknown key 'sampling-rat' in [motion] (did you mean 'sampling-rate'?)"
      ),
      (
        "[motion]\ncapture = \"buffer\"\n",
        "c.toml:2: 'motion.capture' must be one of 'auto', 'buffered', 'polled', not 'buffer' (did you mean 'buffered'?)"
      ),
      (
        "[motion.shake]\n\nmax-duraton = 3\n",
        "c.toml:3: unknown key 'max-duraton' in [motion.shake] (did you mean 'max-duration'?)"
      ),
      (
        "[motion.shake]\nactivity-threshold = 1.2\n",
        "c.toml:2: [motion.shake] activity-threshold must not be above threshold"
      ),
      (
        "[motion.shake]\nquiet-time = \"long\"\n",
        "c.toml:2: 'motion.shake.quiet-time' must be a number, not a string"
      ),
    ]
    for (text, message) in cases {
      do {
        _ = try ResponderdConfig.parse(text, file: "c.toml")
        Issue.record("accepted: \(text)")
      } catch {
        #expect("\(error)" == message)
      }
    }
  }
}

@Suite("[motion] in the shipped config")
struct ShippedMotionConfigTests {
  @Test func shippedConfigSpellsOutTheDefaults() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("config/config.toml").path
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.contains("[motion.shake]"))
    #expect(try ResponderdConfig.load(path: path).motion == MotionSettings())
  }
}

@Suite("responderctl motion record: stream samples as trace lines")
struct StreamTraceTests {
  /// Motion1 gives g with Core Motion's signs (face up: z = -1); the trace has m/s² as the sensor
  /// reads it (face up: z = +9.80665), as the direct recording and `motion analyze` have them.
  @Test func accelerometerSamplesBecomeTheTraceTheAnalyzerReads() throws {
    let line = MotionTrace.line(streamTime: 12.5, acceleration: Vector3(0.5, 0, -1))
    #expect(line == "12.5,-4.9033,0,9.8067")
    let samples = try MotionTrace.parse("\(MotionTrace.header)\n\(line)\n", file: "s.csv")
    #expect(samples == [MotionSample(t: 12.5, x: -4.9033, y: 0, z: 9.8067)])
  }

  @Test func deviceMotionTracesCarryGravityAndUserAccelerationAfterTheTotal() throws {
    let line = MotionTrace.line(
      streamTime: 3, gravity: Vector3(0, 0, -1), userAcceleration: Vector3(0.25, 0, 0))
    #expect(line == "3,-2.4517,0,9.8067,0,0,9.8067,-2.4517,0,0")
    let text = "# device motion\n\(MotionTrace.deviceMotionHeader)\n\(line)\n\(line)\n"
    let samples = try MotionTrace.parse(text, file: "d.csv")
    #expect(samples.count == 2 && samples[0] == MotionSample(t: 3, x: -2.4517, y: 0, z: 9.8067))
    // Every line has the header's columns, all numbers.
    #expect(
      throws: ToolInputError(
        file: "d.csv", line: 3,
        message: "expected 10 fields t,x,y,z,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z, found 4")
    ) {
      try MotionTrace.parse("\(MotionTrace.deviceMotionHeader)\n\n1,2,3,4\n", file: "d.csv")
    }
    #expect(throws: ToolInputError(file: "d.csv", line: 2, message: "user_z is not a number: 'x'")) {
      try MotionTrace.parse("\(MotionTrace.deviceMotionHeader)\n1,2,3,4,5,6,7,8,9,x\n", file: "d.csv")
    }
    // A plain trace still needs four.
    #expect(throws: ToolInputError(file: "p.csv", line: 2, message: "expected 4 fields t,x,y,z, found 5")) {
      try MotionTrace.parse("t,x,y,z\n1,2,3,4,5\n", file: "p.csv")
    }
  }
}
