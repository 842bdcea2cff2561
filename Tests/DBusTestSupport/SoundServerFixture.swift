import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A real sound server of the test's own in a temporary runtime directory, with null sinks and the
/// PulseAudio protocol's socket (`pulse/native`): the test talks to it through libpulse and reads
/// the volumes back with `pactl`. Stopped on `deinit`.
///
/// - PulseAudio: `pulseaudio -n --daemonize=no -F script`.
/// - PipeWire: `pipewire`, `wireplumber` (on a private session bus) and `pipewire-pulse`, the null
///   sinks loaded through pipewire-pulse (`pactl load-module module-null-sink`).
public final class SoundServerFixture {
  /// Which server.
  public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
    case pulseaudio, pipewire
    public var description: String { rawValue }
  }

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
      "LD_PRELOAD": "", "DBUS_SESSION_BUS_ADDRESS": bus?.address ?? "disabled:",
      "PULSE_RUNTIME_PATH": runtimeDirectory + "/pulse", "PIPEWIRE_RUNTIME_DIR": runtimeDirectory,
    ]
  }
  public let kind: Kind
  private let sinks: [NullSink]
  private let loop: EventLoop
  private var processes: [ChildProcess] = []
  private var bus: PrivateBus?

  /// Writes the start script (`sinks`, the first one the default). `start()` starts the server.
  public init(_ kind: Kind = .pulseaudio, sinks: [NullSink], loop: EventLoop) throws {
    self.kind = kind
    self.sinks = sinks
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
    bus?.stop()
    _ = try? ChildProcess.runSeparately(["rm", "-rf", directory], timeout: 10)
  }

  /// Starts the server and waits until `pactl info` answers (bounded: `timeout` seconds).
  public func start(timeout: Double = 15) throws {
    guard processes.isEmpty else { return }
    let deadline = monotonicNow() + timeout
    switch kind {
    case .pulseaudio:
      try spawn(
        "pulseaudio",
        [
          "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes",
          "--log-target=stderr", "-F", directory + "/start.pa",
        ])
      try waitUntilAnswering(deadline: deadline)
    case .pipewire:
      // WirePlumber needs a session bus: a private one.
      if bus == nil { bus = try PrivateBus() }
      try spawn("pipewire", [])
      // WirePlumber gives up when PipeWire's socket is not there yet.
      while access(runtimeDirectory + "/pipewire-0", F_OK) != 0 {
        if let gone = processes.first(where: { !$0.isRunning }) {
          throw TestSupportError("\(gone.arguments[0]) exited at start: \(log)")
        }
        guard monotonicNow() < deadline else {
          throw TestSupportError("pipewire did not start in time: \(log)")
        }
        loop.run(until: { false }, timeout: 0.05)
      }
      try spawn("wireplumber", [])
      try spawn("pipewire-pulse", [])
      try waitUntilAnswering(deadline: deadline)
      for sink in sinks { try loadNullSink(sink) }
      if let first = sinks.first, let last = sinks.last {
        // WirePlumber takes the new sinks in: wait until the last one is listed.
        while !(try pactlChecked(["list", "short", "sinks"])).contains("\t\(last.name)\t") {
          guard monotonicNow() < deadline else { throw TestSupportError("no null sinks in time: \(log)") }
          loop.run(until: { false }, timeout: 0.05)
        }
        // The default goes through WirePlumber's metadata, which may not be there yet.
        while try pactl(["set-default-sink", first.name]).exitCode != 0 {
          guard monotonicNow() < deadline else {
            throw TestSupportError("cannot set the default sink: \(log)")
          }
          loop.run(until: { false }, timeout: 0.05)
        }
      }
    }
  }

  private func spawn(_ program: String, _ arguments: [String]) throws {
    processes.append(
      try ChildProcess(
        [program] + arguments, environment: environment, stdout: .null,
        stderr: .file(directory + "/\(program).log")))
  }

  /// Bounded polling for readiness: the loop runs (the test's own connection is served) while
  /// waiting up to 50 ms at a time for the socket and an answer to `pactl info`.
  private func waitUntilAnswering(deadline: Double) throws {
    while true {
      if access(socketPath, F_OK) == 0, (try? pactl(["info"]))?.exitCode == 0 { return }
      if let gone = processes.first(where: { !$0.isRunning }) {
        throw TestSupportError("\(gone.arguments[0]) exited at start: \(log)")
      }
      guard monotonicNow() < deadline else {
        throw TestSupportError("\(kind) did not answer in time: \(log)")
      }
      loop.run(until: { false }, timeout: 0.05)
    }
  }

  /// Stops the server (SIGTERM, then SIGKILL after `grace` seconds) and waits for its exit.
  public func stop(grace: Double = 5) {
    for process in processes.reversed() { process.terminate(grace: grace) }
    processes.removeAll()
  }

  /// Sends `signal` to the server's processes (SIGSTOP freezes it, SIGCONT resumes it).
  public func signal(_ signal: Int32) {
    for process in processes { process.signal(signal) }
  }

  /// Stops every process of the server and returns once each one is stopped (see
  /// `ChildProcess.freeze`).
  public func freeze(timeout: Double = 5) throws {
    for process in processes { try process.freeze(timeout: timeout) }
  }

  /// Whether the server runs.
  public var isRunning: Bool { processes.contains { $0.isRunning } }

  /// What the server logged.
  public var log: String {
    ["pulseaudio", "pipewire", "wireplumber", "pipewire-pulse"].compactMap { program in
      (try? readTextFile(directory + "/\(program).log")).map { "\(program): \($0)" }
    }.joined(separator: "\n")
  }

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
