import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A real PulseAudio of the test's own (`pulseaudio -n --daemonize=no -F script`) in a temporary
/// runtime directory, with null sinks and the native protocol's socket: the test talks to it
/// through libpulse and reads the volumes back with `pactl`. Stopped on `deinit`.
public final class SoundServerFixture {
  /// A null sink: its name and the properties it carries (`alsa.card`, `sysfs.path`, …).
  public struct NullSink: Sendable {
    public var name: String
    public var properties: [String: String]
    public init(_ name: String, properties: [String: String] = [:]) {
      self.name = name
      self.properties = properties
    }

    var loadArguments: String {
      var text = "sink_name=\(name)"
      if !properties.isEmpty {
        let list = properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
          separator: " ")
        text += " sink_properties=\"\(list)\""
      }
      return text
    }
  }

  /// The temporary directory: `run` (XDG_RUNTIME_DIR), `home`, the start script and the log.
  public let directory: String
  public var runtimeDirectory: String { directory + "/run" }
  /// The server's socket.
  public var socketPath: String { runtimeDirectory + "/pulse/native" }
  /// The address libpulse takes (`unix:/…/pulse/native`).
  public var address: String { "unix:" + socketPath }
  /// What `pactl` and the server need: this server's runtime directory and a home of its own.
  public var environment: [String: String] {
    [
      "XDG_RUNTIME_DIR": runtimeDirectory, "HOME": directory + "/home", "PULSE_SERVER": address,
      // The umockdev wrapper's preload is not for the sound server.
      "LD_PRELOAD": "", "DBUS_SESSION_BUS_ADDRESS": "disabled:",
      "PULSE_RUNTIME_PATH": runtimeDirectory + "/pulse",
    ]
  }
  private let loop: EventLoop
  private var process: ChildProcess?

  /// Writes the start script (`sinks`, the first one the default). `start()` starts the server.
  public init(sinks: [NullSink], loop: EventLoop) throws {
    self.loop = loop
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/responderd-sound-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw TestSupportError("mkdtemp failed (errno \(errno))") }
    directory = String(cString: made)
    for sub in ["/run", "/home"] { mkdir(directory + sub, 0o700) }
    var script = [
      "load-module module-native-protocol-unix auth-anonymous=1"
    ]
    for sink in sinks { script.append("load-module module-null-sink \(sink.loadArguments)") }
    if let first = sinks.first { script.append("set-default-sink \(first.name)") }
    try writeTextFile(directory + "/start.pa", script.joined(separator: "\n") + "\n")
  }

  deinit {
    stop()
    _ = try? ChildProcess.runSeparately(["rm", "-rf", directory], timeout: 10)
  }

  /// Starts the server and waits until `pactl info` answers (bounded: `timeout` seconds).
  public func start(timeout: Double = 15) throws {
    guard process == nil else { return }
    process = try ChildProcess(
      [
        "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
        "--disable-shm=yes", "--log-target=stderr", "-F", directory + "/start.pa",
      ],
      environment: environment, stdout: .null, stderr: .file(directory + "/pulseaudio.log"))
    let deadline = monotonicNow() + timeout
    while true {
      if access(socketPath, F_OK) == 0, (try? pactl(["info"]))?.exitCode == 0 { return }
      guard let process, process.isRunning else {
        throw TestSupportError("pulseaudio exited at start: \(log)")
      }
      guard monotonicNow() < deadline else {
        throw TestSupportError("pulseaudio did not answer within \(timeout) s: \(log)")
      }
      // Bounded polling for readiness: the loop runs (the test's own connection is served) while
      // waiting up to 50 ms for the socket.
      loop.run(until: { false }, timeout: 0.05)
    }
  }

  /// Stops the server (SIGTERM, then SIGKILL after `grace` seconds) and waits for its exit.
  public func stop(grace: Double = 5) {
    process?.terminate(grace: grace)
    process = nil
  }

  /// Whether the server runs.
  public var isRunning: Bool { process?.isRunning ?? false }

  /// What the server logged.
  public var log: String { (try? readTextFile(directory + "/pulseaudio.log")) ?? "" }

  /// Runs `pactl ARGS` against this server, the loop running meanwhile.
  @discardableResult
  public func pactl(_ arguments: [String], timeout: Double = 10) throws -> CommandResult {
    try ChildProcess.run(["pactl"] + arguments, environment: environment, loop: loop, timeout: timeout)
  }

  /// Runs `pactl ARGS` and fails unless it succeeds; its output.
  @discardableResult
  public func pactlChecked(_ arguments: [String]) throws -> String {
    let result = try pactl(arguments)
    guard result.exitCode == 0 else {
      throw TestSupportError("pactl \(arguments.joined(separator: " ")): \(result)")
    }
    return result.output
  }

  /// A sink's volume (the loudest channel, percent) and mute, as `pactl` reads them.
  public func level(of sink: String) throws -> (percent: Int, muted: Bool) {
    let volume = try pactlChecked(["get-sink-volume", sink])
    let mute = try pactlChecked(["get-sink-mute", sink])
    // "Volume: front-left: 65536 / 100% / 0.00 dB,   front-right: …"
    let percents = volume.split(separator: "/").compactMap { part -> Int? in
      let trimmed = part.trimmingCharacters(in: " ")
      guard trimmed.hasSuffix("%") else { return nil }
      return Int(trimmed.dropLast())
    }
    guard let loudest = percents.max() else { throw TestSupportError("pactl get-sink-volume: \(volume)") }
    return (loudest, mute.contains("yes"))
  }

  /// Loads a null sink now; the module's index (to unload it).
  @discardableResult
  public func loadNullSink(_ sink: NullSink) throws -> Int {
    let output = try pactlChecked(["load-module", "module-null-sink"] + Self.words(sink.loadArguments))
    guard let index = Int(output.trimmingCharacters(in: " \n")) else {
      throw TestSupportError("load-module: \(output)")
    }
    return index
  }

  /// The module's arguments as separate words for pactl (`sink_properties="a=1 b=2"` stays one).
  static func words(_ arguments: String) -> [String] {
    var words: [String] = []
    var current = ""
    var quoted = false
    for character in arguments {
      if character == "\"" {
        quoted.toggle()
        current.append(character)
      } else if character == " " && !quoted {
        if !current.isEmpty { words.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { words.append(current) }
    return words
  }
}

extension StringProtocol {
  fileprivate func trimmingCharacters(in set: String) -> String {
    var text = Substring(self)
    while let first = text.first, set.contains(first) { text.removeFirst() }
    while let last = text.last, set.contains(last) { text.removeLast() }
    return String(text)
  }
}
