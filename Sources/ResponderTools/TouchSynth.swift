import ResponderCore
import TouchScenes

/// `responderctl touch synth STROKES.json`: an evemu recording made from timed finger strokes, so
/// that a scene can be tried with `touch replay` without a touchscreen.
///
/// ```
/// {"screen":{"width":540,"height":1170}, "hz":60,
///  "strokes":[{"slot":0,"points":[[1.0,100,200],[1.2,300,200]]}, …]}
/// ```
/// Each stroke is one finger in a multitouch slot (0…9): down at its first point, lifted at its
/// last, moving in a straight line between consecutive points (`[t, x, y]`: seconds, screen
/// points), sampled `hz` times a second (60 by default). A slot may carry several strokes, one
/// after the other. The recording's panel has 2 units a point over the screen, so that
/// `touch replay` with a scene of the same screen puts each finger where its stroke says.
public enum TouchSynth {
  /// One point of a stroke: when, and where in screen points.
  public struct Point: Equatable {
    public var t: Double
    public var x: Double
    public var y: Double
  }

  /// One finger, from touch-down to lift.
  public struct Stroke: Equatable {
    public var slot: Int
    public var points: [Point]
  }

  /// The strokes and how to sample them.
  public struct Strokes: Equatable {
    public var width: Double
    public var height: Double
    public var hz: Double
    public var strokes: [Stroke]
  }

  /// Device units per screen point.
  static let unitsPerPoint = 2.0
  /// The slots of the recorded panel.
  static let slotCount = 10

  /// Reads STROKES.json; errors name the file, the line and column, and the problem.
  public static func parse(_ text: String, file: String) throws -> Strokes {
    var reader = try SceneObjectReader(parsing: text, file: file)
    guard let screenNode = reader.take("screen") else { throw reader.error("missing key 'screen'") }
    var screen = try SceneObjectReader(node: screenNode, path: "screen", file: file)
    let width = try screen.requiredNumber("width", positive: true)
    let height = try screen.requiredNumber("height", positive: true)
    try screen.finish()
    let hz = try reader.number("hz", default: 60)
    guard hz > 0 else { throw reader.error("hz: must be above 0") }
    let strokeNodes = try reader.array("strokes")
    guard !strokeNodes.isEmpty else { throw reader.error("strokes: expected at least one stroke") }
    try reader.finish()

    var strokes: [Stroke] = []
    for (index, node) in strokeNodes.enumerated() {
      var stroke = try SceneObjectReader(node: node, path: "strokes[\(index)]", file: file)
      guard let slot = try stroke.optionalCount("slot", minimum: 0) else {
        throw stroke.error("missing key 'slot'")
      }
      guard slot < slotCount else { throw stroke.error("slot: must be below \(slotCount)") }
      let pointNodes = try stroke.array("points")
      guard pointNodes.count >= 2 else {
        throw stroke.error("points: a stroke needs two points at least (where it goes down, where it lifts)")
      }
      var points: [Point] = []
      for pointNode in pointNodes {
        guard case .array(let items) = pointNode.value, items.count == 3,
          case .number(let t) = items[0].value, case .number(let x) = items[1].value,
          case .number(let y) = items[2].value
        else { throw stroke.error(at: pointNode, "points: expected [t, x, y] (three numbers)") }
        guard x >= 0, x < width, y >= 0, y < height else {
          throw stroke.error(at: pointNode, "points: (\(x), \(y)) is off the \(width) × \(height) screen")
        }
        if let last = points.last, t <= last.t {
          throw stroke.error(at: pointNode, "points: times must grow (\(t) after \(last.t))")
        }
        points.append(Point(t: t, x: x, y: y))
      }
      try stroke.finish()
      if let earlier = strokes.last(where: { $0.slot == slot }), earlier.points.last!.t >= points[0].t {
        throw stroke.error(
          "slot \(slot) is still down (its earlier stroke lifts at \(earlier.points.last!.t))")
      }
      strokes.append(Stroke(slot: slot, points: points))
    }
    return Strokes(width: width, height: height, hz: hz, strokes: strokes)
  }

  /// The evemu recording of `strokes`.
  public static func recording(_ strokes: Strokes) -> String {
    let maxX = Int((strokes.width * unitsPerPoint).rounded()) - 1
    let maxY = Int((strokes.height * unitsPerPoint).rounded()) - 1
    var lines = [
      "# EVEMU 1.3", "# Input device name: \"responderctl touch synth\"", "N: responderctl touch synth",
      "I: 0018 0000 0000 0100", "P: 02 00 00 00 00 00 00 00", "A: 00 0 \(maxX) 0 0 0",
      "A: 01 0 \(maxY) 0 0 0", "A: 2f 0 \(slotCount - 1) 0 0 0", "A: 30 0 255 0 0 0",
      "A: 35 0 \(maxX) 0 0 0", "A: 36 0 \(maxY) 0 0 0", "A: 39 0 65535 0 0 0", "A: 3a 0 255 0 0 0",
    ]
    // Each frame: its time in microseconds, and what each slot does in it. Lifts come in a frame
    // of their own after the last move (in the same frame, the finger would lift where it was).
    enum Change {
      case down(id: Int, x: Int, y: Int)
      case move(x: Int, y: Int)
      case up
    }
    var frames: [FrameKey: [(slot: Int, change: Change)]] = [:]
    var nextID = 100
    for stroke in strokes.strokes {
      var last: (x: Int, y: Int)?
      for (time, point, isFirst, isLast) in samples(of: stroke, hz: strokes.hz) {
        let x = min(max(Int((point.x * unitsPerPoint).rounded()), 0), maxX)
        let y = min(max(Int((point.y * unitsPerPoint).rounded()), 0), maxY)
        let key = FrameKey(microseconds: Int((time * 1e6).rounded()), lifts: false)
        if isFirst {
          frames[key, default: []].append((stroke.slot, .down(id: nextID, x: x, y: y)))
          nextID += 1
        } else if let previous = last, previous != (x, y) {
          frames[key, default: []].append((stroke.slot, .move(x: x, y: y)))
        }
        if isLast {
          frames[FrameKey(microseconds: key.microseconds, lifts: true), default: []].append(
            (stroke.slot, .up))
        }
        last = (x, y)
      }
    }
    var slot = 0
    for key in frames.keys.sorted() {
      let stamp =
        "\(key.microseconds / 1_000_000).\(String(key.microseconds % 1_000_000).leftPadded(to: 6))"
      func event(_ type: Int, _ code: Int, _ value: Int, _ note: String = "") {
        lines.append(
          "E: \(stamp) \(hex(type)) \(hex(code)) \(value)" + (note.isEmpty ? "" : "\t# \(note)"))
      }
      for (changeSlot, change) in frames[key]!.sorted(by: { $0.slot < $1.slot }) {
        if changeSlot != slot {
          event(3, 0x2f, changeSlot)
          slot = changeSlot
        }
        switch change {
        case .down(let id, let x, let y):
          event(3, 0x39, id, "finger \(changeSlot) down")
          event(3, 0x35, x)
          event(3, 0x36, y)
          event(3, 0x30, 20)
          event(3, 0x3a, 60)
        case .move(let x, let y):
          event(3, 0x35, x)
          event(3, 0x36, y)
        case .up:
          event(3, 0x39, -1, "finger \(changeSlot) up")
        }
      }
      event(0, 0, 0)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A frame of the recording: when, and whether it is the frame of lifts at that time.
  struct FrameKey: Hashable, Comparable {
    var microseconds: Int
    var lifts: Bool
    static func < (a: FrameKey, b: FrameKey) -> Bool {
      (a.microseconds, a.lifts ? 1 : 0) < (b.microseconds, b.lifts ? 1 : 0)
    }
  }

  /// The frames of a stroke: its points' times and every 1/hz between its first and its last, with
  /// where the finger is then (on the straight line between the points around it).
  static func samples(of stroke: Stroke, hz: Double) -> [(Double, Point, Bool, Bool)] {
    let points = stroke.points
    let start = points[0].t
    let end = points[points.count - 1].t
    var times = points.map(\.t)
    var k = 1
    while start + Double(k) / hz < end {
      times.append(start + Double(k) / hz)
      k += 1
    }
    times.sort()
    // One frame per microsecond at most (the recording's resolution), the last one the lift.
    var unique: [Double] = []
    for time in times {
      if let previous = unique.last, time - previous < 1e-6 {
        unique[unique.count - 1] = max(previous, time)
      } else {
        unique.append(time)
      }
    }
    var result: [(Double, Point, Bool, Bool)] = []
    var segment = 0
    for (index, time) in unique.enumerated() {
      while segment < points.count - 2 && points[segment + 1].t <= time { segment += 1 }
      let a = points[segment]
      let b = points[segment + 1]
      let f = min(max((time - a.t) / (b.t - a.t), 0), 1)
      let point = Point(t: time, x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f)
      result.append((time, point, index == 0, index == unique.count - 1))
    }
    return result
  }

  private static func hex(_ value: Int) -> String {
    String(String(value, radix: 16).leftPadded(to: 4))
  }
}

extension String {
  /// The string with zeros in front, to `width` characters.
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
