import DBus
import EventLoop
import Motion
import ResponderClient
import ResponderTools
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// `responderctl motion watch`: samples from the running responderd, live, through the motion API.
struct MotionWatchCommand {
  static var command: Command {
    Command(
      name: "watch",
      abstract: "Print accelerometer (or device-motion) samples from the running responderd, live.",
      discussion: """
        Asks responderd for a stream (org.responderd.Motion1) and prints a header line (# …), then \
        one line per sample: the timestamp (CLOCK_MONOTONIC seconds) and x y z in g, Core Motion's \
        axes and signs (lying face up reads 0 0 -1); with --units m/s2, in m/s² with the sensor's \
        signs (face up reads z = +9.8), as `motion record` writes them. With --device-motion, \
        gravity then user acceleration. Stops after --count samples, --seconds, or Ctrl-C.
        """,
      arguments: [
        .option("--interval", help: "Seconds between samples.", defaultValue: "0.1"),
        .option(
          "--units",
          help: "g with Core Motion's signs (face up: z = -1), or m/s2 with the sensor's (z = +9.8).",
          completion: .choices(Units.allCases.map(\.rawValue)), defaultValue: "g"),
        .flag(
          "--device-motion",
          help: "Device motion (gravity and user acceleration) instead of the raw accelerometer."),
        .flag("--json", help: "One JSON object per line."),
        .option("--count", help: "Stop after this many samples."),
        .option("--seconds", help: "Stop after this many seconds."),
      ]
    ) { arguments in
      let command = MotionWatchCommand(
        interval: try arguments.double("interval") ?? 0.1,
        units: try arguments.choice("units").flatMap(Units.init(rawValue:)) ?? .g,
        deviceMotion: arguments.flag("device-motion"), json: arguments.flag("json"),
        count: try arguments.int("count"), seconds: try arguments.double("seconds"))
      try command.validate()
      try command.run()
    }
  }

  /// What `--units` takes.
  enum Units: String, CaseIterable {
    case g
    case metresPerSecondSquared = "m/s2"
  }

  var interval: Double = 0.1
  var units: Units = .g
  var deviceMotion = false
  var json = false
  var count: Int?
  var seconds: Double?

  func validate() throws {
    if !(interval > 0) { throw ValidationError("--interval must be positive") }
    if let count, count <= 0 { throw ValidationError("--count must be positive") }
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
  }

  func run() throws {
    var received = 0
    // The sensor's m/s² are Core Motion's g times -9.80665 (its signs are the other way round).
    let scale = units == .g ? 1 : -standardGravity
    func number(_ value: Double) -> String { formatNumber(value * scale + 0, decimals: 6) }
    if !json {
      let kind = deviceMotion ? "t gravity(x y z) user(x y z)" : "t x y z"
      let what =
        units == .g
        ? "g with Core Motion's signs (lying face up reads z = -1); --units m/s2 for the sensor's, as motion record"
        : "m/s² with the sensor's signs (lying face up reads z = +9.8), as motion record writes"
      output("# \(kind) every \(formatNumber(interval, decimals: 4)) s: \(what)")
    }
    try readMotionStream(deviceMotion: deviceMotion, interval: interval, seconds: seconds) { sample in
      // Samples read together arrive together: none after the count.
      if let count, received >= count { return false }
      switch sample {
      case .deviceMotion(let data):
        let g = data.gravity
        let u = data.userAcceleration
        if json {
          output(
            JSON.object([
              ("timestamp", .raw(formatNumber(data.timestamp, decimals: 9))),
              ("gravity", .array([g.x, g.y, g.z].map { .raw(number($0)) })),
              ("userAcceleration", .array([u.x, u.y, u.z].map { .raw(number($0)) })),
            ]).text)
        } else {
          output(
            ([formatNumber(data.timestamp, decimals: 6)] + [g.x, g.y, g.z, u.x, u.y, u.z].map(number))
              .joined(separator: " "))
        }
      case .accelerometer(let data):
        let a = data.acceleration
        if json {
          output(
            JSON.object([
              ("timestamp", .raw(formatNumber(data.timestamp, decimals: 9))), ("x", .raw(number(a.x))),
              ("y", .raw(number(a.y))), ("z", .raw(number(a.z))),
            ]).text)
        } else {
          output(
            ([formatNumber(data.timestamp, decimals: 6)] + [a.x, a.y, a.z].map(number)).joined(separator: " ")
          )
        }
      }
      received += 1
      return count.map { received < $0 } ?? true
    }
  }
}
