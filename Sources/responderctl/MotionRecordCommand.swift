import DBus
import EventLoop
import Logging
import Motion
import ResponderClient
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import SystemPackage
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// `responderctl motion record [--interval S] [--duration S] [--device-motion] [-o FILE]`: the
/// running responderd's samples (the stream `motion watch` prints) into a trace `motion analyze`
/// reads; `--direct` opens the sensor itself instead.
struct MotionRecordCommand {
  static var command: Command {
    Command(
      name: "record",
      abstract: "Record the running responderd's samples to a trace that `motion analyze` reads.",
      discussion: """
        Asks the running responderd for a stream (org.responderd.Motion1, as `motion watch` does) \
        and writes t,x,y,z lines: CLOCK_MONOTONIC seconds, m/s² in screen coordinates as the sensor \
        reads them (lying face up reads z = +9.8), the trace `motion analyze` reads. With \
        --device-motion the lines go on with the gravity estimate and the user's acceleration \
        (t,x,y,z,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z; x = gravity + user). Records \
        for --duration seconds or until Ctrl-C (SIGINT or SIGTERM end it cleanly: the file is \
        complete). With --direct, opens the accelerometer itself the way responderd does (the \
        [motion] settings of --config) instead of asking responderd.
        """,
      arguments: [
        .option("--interval", help: "Seconds between samples (through responderd).", defaultValue: "0.02"),
        .option("--duration", "--seconds", help: "Stop after this many seconds (default: until Ctrl-C)."),
        .flag(
          "--device-motion", help: "Device motion: also the gravity estimate and the user's acceleration."),
        .option(
          "-o", "--output", help: "Write the trace to this file instead of standard output.",
          completion: .file),
        .flag("--direct", help: "Open the accelerometer directly instead of asking the running responderd."),
        .option(
          "--config", help: "With --direct: a responderd config file whose [motion] settings to use.",
          completion: .file),
      ]
    ) { arguments in
      let command = MotionRecordCommand(
        interval: try arguments.double("interval") ?? 0.02, duration: try arguments.double("duration"),
        deviceMotion: arguments.flag("device-motion"), output: arguments.string("output"),
        direct: arguments.flag("direct"), config: arguments.string("config"))
      try command.validate()
      try command.run()
    }
  }

  var interval: Double = 0.02
  var duration: Double?
  var deviceMotion = false
  var output: String?
  var direct = false
  var config: String?

  func validate() throws {
    if !(interval > 0) { throw ValidationError("--interval must be positive") }
    if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
    if direct && deviceMotion { throw ValidationError("--device-motion needs responderd (not --direct)") }
    if !direct && config != nil { throw ValidationError("--config goes with --direct") }
  }

  func run() throws {
    let sink = try TraceSink(path: output)
    defer { sink.close() }
    if direct { return try recordDirectly(into: sink) }
    var count = 0
    var started = false
    let kind = deviceMotion ? "device motion" : "accelerometer"
    func header() {
      guard !started else { return }
      started = true
      sink.write(
        "# responderd stream (org.responderd.Motion1): \(kind) every \(formatNumber(interval, decimals: 4)) s, "
          + "m/s² with the sensor's signs (lying face up reads z = +9.8; `motion watch` prints g with "
          + "Core Motion's, z = -1, unless --units m/s2)\n"
          + (deviceMotion ? MotionTrace.deviceMotionHeader : MotionTrace.header) + "\n")
    }
    try readMotionStream(deviceMotion: deviceMotion, interval: interval, seconds: duration) { sample in
      header()
      switch sample {
      case .deviceMotion(let data):
        let g = data.gravity
        let u = data.userAcceleration
        sink.write(
          MotionTrace.line(
            streamTime: data.timestamp, gravity: Vector3(g.x, g.y, g.z),
            userAcceleration: Vector3(u.x, u.y, u.z)) + "\n")
      case .accelerometer(let data):
        let a = data.acceleration
        sink.write(MotionTrace.line(streamTime: data.timestamp, acceleration: Vector3(a.x, a.y, a.z)) + "\n")
      }
      count += 1
      return true
    }
    header()
    if let error = sink.error { throw failure("cannot write \(output ?? "the trace"): \(error)") }
    writeText("responderctl: \(count) samples recorded\n", to: .standardError)
  }

  /// The recording of old: the sensor opened here, through IIO, with the config's settings.
  private func recordDirectly(into sink: TraceSink) throws {
    let settings = try config.map { try ResponderdConfig.load(path: $0).motion } ?? MotionSettings()
    LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: .notice) }
    let loop = try EventLoop()
    let recorder = MotionRecorder(
      loop: loop, settings: settings.inputSettings, logger: Logger(label: "responderctl")
    ) {
      line in sink.write(line)
    }
    do {
      try recorder.run(seconds: duration)
    } catch {
      throw failure("\(error)")
    }
    if let error = sink.error { throw failure("cannot write \(output ?? "the trace"): \(error)") }
    writeText("responderctl: \(recorder.sampleCount) samples recorded\n", to: .standardError)
    if recorder.sensorLost { throw failure("the sensor went away") }
  }
}

/// Where a trace goes: a file (created, or emptied, at once) or standard output, written line by
/// line as samples come, so that whatever ends the recording leaves every sample received written.
private final class TraceSink {
  private let descriptor: FileDescriptor
  private let ownsDescriptor: Bool
  /// The first write error (later lines are dropped).
  private(set) var error: Errno?

  init(path: String?) throws {
    guard let path else {
      descriptor = .standardOutput
      ownsDescriptor = false
      return
    }
    do {
      descriptor = try FileDescriptor.open(
        FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec],
        permissions: [.ownerReadWrite, .groupRead, .otherRead])
    } catch {
      throw failure("cannot create \(path): \(error)", code: ExitCodes.cannotCreate.rawValue)
    }
    ownsDescriptor = true
  }

  func write(_ text: String) {
    guard error == nil else { return }
    do {
      try descriptor.writeAll(bytes: text.utf8)
    } catch {
      self.error = error
    }
  }

  func close() {
    if ownsDescriptor { try? descriptor.close() }
  }
}
