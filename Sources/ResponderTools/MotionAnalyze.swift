import EventTime
import Motion
import ResponderCore
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// A recorded accelerometer trace: `t,x,y,z` lines (seconds, m/s² in screen coordinates, gravity
/// included), the format `responderctl motion record` writes and `motion analyze` reads.
public enum MotionTrace {
  /// The header line written at the top of a trace.
  public static let header = "t,x,y,z"

  /// The header of a device-motion trace (`responderctl motion record --device-motion`): t,x,y,z
  /// as in any trace (x = gravity + user acceleration), then the gravity estimate and the user's
  /// acceleration, in the same units and signs.
  public static let deviceMotionHeader = "t,x,y,z,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z"

  /// Parses a trace. Blank lines and lines starting with `#` are skipped; the first other line
  /// may be a header (`t,x,y,z`, or more columns after those: every line then has as many); every
  /// other line needs four numbers (t, x, y, z are read; further columns must be numbers too).
  public static func parse(_ text: String, file: String) throws -> [MotionSample] {
    var samples: [MotionSample] = []
    var lineNumber = 0
    var sawData = false
    var names = ["t", "x", "y", "z"]
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      lineNumber += 1
      let line = rawLine.trimmingWhitespace
      if line.isEmpty || line.hasPrefix("#") { continue }
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingWhitespace)
      let numbers = fields.map { Double(String($0)) }
      if !sawData, fields.count >= 4, numbers.allSatisfy({ $0 == nil }) {
        sawData = true  // A header.
        names = fields.enumerated().map { $0 < 4 ? names[$0] : String($1) }
        continue
      }
      sawData = true
      guard fields.count == names.count else {
        throw ToolInputError(
          file: file, line: lineNumber,
          message: "expected \(names.count) fields \(names.joined(separator: ",")), found \(fields.count)")
      }
      for (index, name) in names.enumerated() {
        guard let value = numbers[index], value.isFinite else {
          throw ToolInputError(
            file: file, line: lineNumber, message: "\(name) is not a number: '\(fields[index])'")
        }
      }
      samples.append(MotionSample(t: numbers[0]!, x: numbers[1]!, y: numbers[2]!, z: numbers[3]!))
    }
    return samples
  }

  /// One line of a trace for a sample.
  public static func line(for sample: MotionSample) -> String {
    "\(formatNumber(sample.t, decimals: 6)),\(formatNumber(sample.x, decimals: 4)),"
      + "\(formatNumber(sample.y, decimals: 4)),\(formatNumber(sample.z, decimals: 4))"
  }

  /// One line of a trace for a sample of a `Motion1` accelerometer stream: `acceleration` in g
  /// with Core Motion's signs (face up reads z = -1), written in m/s² as the sensor reads it (face
  /// up reads z = +9.8), as `motion record --direct` and `motion analyze` have it.
  public static func line(streamTime t: Seconds, acceleration: Vector3) -> String {
    line(for: MotionSample(t: t, acceleration: acceleration * -standardGravity + .zero))
  }

  /// One line of a device-motion trace (`deviceMotionHeader`) for a sample of a `Motion1`
  /// device-motion stream (gravity and user acceleration in g, Core Motion's signs).
  public static func line(streamTime t: Seconds, gravity: Vector3, userAcceleration: Vector3) -> String {
    let g = gravity * -standardGravity + .zero
    let u = userAcceleration * -standardGravity + .zero
    let values = [g.x, g.y, g.z, u.x, u.y, u.z].map { formatNumber($0, decimals: 4) }
    return ([line(for: MotionSample(t: t, acceleration: g + u + .zero))] + values).joined(separator: ",")
  }
}

/// What the shake detector made of a trace.
public struct MotionAnalysis {
  /// The decisions, in order.
  public var events: [ShakeEvent] = []
  /// For each sample: its time and the magnitude of its dynamic acceleration (the detector's
  /// gravity estimate removed), in m/s². Each sample's own, also where the detector averages a fast
  /// sensor's samples.
  public var dynamicMagnitudes: [(t: Seconds, magnitude: Double)] = []
  /// The stretches of vigorous motion the detector turned down, and why.
  public var rejections: [ShakeRejectionNote] = []
  /// The settings used.
  public var settings: ShakeSettings

  /// Runs the daemon's detector over `samples` on virtual time: the clock moves to each sample's
  /// time before it is fed, and after the last one time runs on until every pending decision is
  /// made.
  public init(samples: [MotionSample], settings: ShakeSettings = ShakeSettings()) {
    self.settings = settings
    let scheduler = VirtualScheduler(now: samples.first?.t ?? 0)
    var events: [ShakeEvent] = []
    let detector = ShakeDetector(settings: settings, scheduler: scheduler) { events.append($0) }
    var rejections: [ShakeRejectionNote] = []
    detector.onRejection = { rejections.append($0) }
    dynamicMagnitudes.reserveCapacity(samples.count)
    for sample in samples {
      scheduler.advance(to: sample.t)
      detector.process(sample)
      dynamicMagnitudes.append((sample.t, (sample.acceleration - detector.gravity).length))
    }
    scheduler.runUntilIdle()
    self.events = events
    self.rejections = rejections
  }

  /// The shakes as intervals: from began to ended or cancelled.
  public var shakes: [(began: Seconds, end: Seconds, cancelled: Bool)] {
    var result: [(Seconds, Seconds, Bool)] = []
    var began: Seconds?
    for event in events {
      switch event.phase {
      case .began: began = event.time
      case .ended, .cancelled:
        if let start = began { result.append((start, event.time, event.phase == .cancelled)) }
        began = nil
      }
    }
    return result
  }

  /// One JSON object per event, one per line:
  /// `{"t": 2.4, "type": "motion", "phase": "began", "subtype": "motionShake"}`.
  public var jsonLines: [String] {
    events.map { event in
      JSON.object([
        ("t", .raw(formatNumber(event.time, decimals: 6))), ("type", .string(EventType.motion.name)),
        ("phase", .string(event.phase.rawValue)), ("subtype", .string(EventSubtype.motionShake.name)),
      ]).text
    }
  }
}

extension StringProtocol {
  var trimmingWhitespace: Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    let text = Substring(self)
    guard let first = text.firstIndex(where: { !isSpace($0) }),
      let last = text.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return text[first...last]
  }
}
