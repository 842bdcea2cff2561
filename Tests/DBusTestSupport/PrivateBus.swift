import CSystemShims
import DBus
import EventLoop
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A private session dbus-daemon for one test (or suite), in its own temporary directory.
///
/// It listens on `unix:path=DIR/bus`, so `restart()` (or `kill()` then `start()`) brings a new
/// daemon up at the same address, as after a crash. The daemon is a child of the test process
/// (`--nofork`), killed and reaped on `stop()`/`deinit`, and the directory removed.
///
/// ```swift
/// let bus = try PrivateBus()
/// let connection = try bus.connect(loop: loop)
/// let client = try ChildProcess(["dbus-send", "--print-reply", …], environment: bus.environment)
/// ```
public final class PrivateBus {
  /// The temporary directory (config, socket, `services/`).
  public let directory: String
  /// The socket path (a name in the abstract namespace with `abstractSocket`).
  public let socketPath: String
  /// The address to connect to (no guid, so it stays valid across restarts).
  public let address: String
  /// Where `.service` files for bus activation go.
  public var servicesDirectory: String { directory + "/services" }
  public private(set) var daemon: ChildProcess?

  /// Environment for child processes: `DBUS_SESSION_BUS_ADDRESS` pointing here.
  public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

  /// Creates the directory and config, and starts the daemon. With `abstractSocket` the bus
  /// listens on an abstract socket (no file: reconnection cannot use inotify).
  public init(start: Bool = true, abstractSocket: Bool = false) throws {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/responderd-bus-XXXXXX").utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
      throw SystemError("mkdtemp", path: FilePath(base), errno: .last)
    }
    directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if abstractSocket {
      socketPath = directory.split(separator: "/").last.map(String.init) ?? "responderd-bus"
      address = "unix:abstract=" + DBusAddress.escape(socketPath)
    } else {
      socketPath = directory + "/bus"
      address = "unix:path=" + DBusAddress.escape(socketPath)
    }
    mkdir(directory + "/services", 0o700)
    try writeTextFile(configPath, Self.config(directory: directory, listen: address))
    if start { try self.start() }
  }

  deinit {
    stop()
    Self.removeTree(directory)
  }

  var configPath: String { directory + "/session.conf" }

  /// Starts a daemon (after `kill()` or `stop()`), waiting until it listens (10 s at most).
  public func start() throws {
    guard daemon == nil else { return }
    let daemon = try ChildProcess(
      ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=\(configPath)", "--print-address=1"],
      stdout: .capture, stderr: .null)
    // stderr is discarded: it holds warnings such as "Failed to set fd limit", and nobody
    // would read it later (a full pipe would block the daemon).
    guard let line = try daemon.readLine(timeout: 10), line.hasPrefix("unix:") else {
      daemon.terminate()
      throw TestSupportError(
        "dbus-daemon did not print its address; run it by hand to see why: dbus-daemon --nofork --config-file=\(configPath)"
      )
    }
    self.daemon = daemon
  }

  /// Stops the daemon (SIGTERM, then SIGKILL) and reaps it.
  public func stop() {
    daemon?.terminate()
    daemon = nil
  }

  /// Kills the daemon with `signal` at once (as in a crash) and reaps it; the stale socket stays.
  public func kill(signal: Int32 = SIGKILL) throws {
    guard let daemon else { return }
    daemon.signal(signal)
    try daemon.waitForExit(timeout: 10)
    self.daemon = nil
  }

  /// Stops and starts again at the same address.
  public func restart() throws {
    stop()
    try start()
  }

  /// A connection to this bus on `loop`, registered (waits at most `timeout` seconds).
  public func connect(
    loop: EventLoop, reconnect: DBusConnection.ReconnectPolicy = .never, timeout: Double = 10
  ) throws -> DBusConnection {
    let connection = try DBusConnection(address: address, loop: loop, reconnect: reconnect)
    try connection.waitUntilConnected(timeout: timeout)
    return connection
  }

  /// The session config (the project's recipe, a private session bus that allows all, with a
  /// fixed address and a real session bus's limits).
  static func config(directory: String, listen: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>session</type>
      <keep_umask/>
      <listen>\(listen)</listen>
      <auth>EXTERNAL</auth>
      <servicedir>\(directory)/services</servicedir>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
      </policy>
      <!-- The limits of a real session bus (dbus's session.conf), not the low built-in ones
           (128 pending replies per connection, for one). -->
      <limit name="max_incoming_bytes">1000000000</limit>
      <limit name="max_outgoing_bytes">1000000000</limit>
      <limit name="max_message_size">1000000000</limit>
      <limit name="max_names_per_connection">50000</limit>
      <limit name="max_match_rules_per_connection">50000</limit>
      <limit name="max_replies_per_connection">50000</limit>
    </busconfig>

    """
  }

  /// Removes `path` and everything below it (no symlinks followed).
  public static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      if let dir = opendir(path) {
        var names: [String] = []
        while let entry = readdir(dir) {
          let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
          }
          if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { removeTree(path + "/" + name) }
      }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}

/// Locates executables built next to the test binary (e.g. `DBusEchoPeer`).
public enum BuiltProducts {
  /// The directory of the running executable.
  public static var directory: String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return "." }
    let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }

  /// The path of the built executable `name`; throws when it was not built.
  public static func path(of name: String) throws -> String {
    let candidate = directory + "/" + name
    guard access(candidate, X_OK) == 0 else {
      throw TestSupportError("\(candidate) not found: build it first (swift build --target \(name))")
    }
    return candidate
  }
}
