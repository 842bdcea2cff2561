import BenchmarkSupport
import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// What every part of the run shares: the emulated devices, the private bus with the run's own
/// connection, and how to start responderd, thd and playerctld on them.
///
/// Devices (umockdev, live injection): the same USB headset, a Logitech H340 whose KEY_PLAYPAUSE
/// acts on press (no click grammar), one on each of four USB ports, since an emulated node is a pty
/// whose bytes go to whichever reader reads first: responderd reads the one on port 2
/// (/dev/input/event7) and owns it (grabbed: its ioctls are answered live, EVIOCGRAB included), thd
/// the one on port 3 (event8), the relay (the floor with the device) the one on port 4 (event9), and
/// a second responderd the one on port 5 (event10), shared as before the grab (`grab = "never"`);
/// and a bmc150 accelerometer.
final class Bench {
  let options: Options
  let devices: UmockdevTestbed
  /// LD_PRELOAD for the children that must see the emulated devices (responderd, thd); the others
  /// (dbus-daemon, mpv, playerctld, playerctl started by the run) get none.
  let preload: String
  let loop: EventLoop
  let bus: PrivateBus
  let connection: DBusConnection
  let responderdPath: String
  let audio: String
  let headsetName = "Logitech USB Headset H340 Consumer Control"
  let responderdHeadset = "/dev/input/event7"
  let thdHeadset = "/dev/input/event8"
  let relayHeadset = "/dev/input/event9"
  let sharedHeadset = "/dev/input/event10"
  /// The live ioctl answers of responderd's headset and of the shared one: `isGrabbed`.
  let responderdHeadsetIoctl: EvdevIoctlHandler
  let sharedHeadsetIoctl: EvdevIoctlHandler
  static let accelerometerPath = "/sys/devices/platform/80860F41:01/i2c-1/i2c-BOSC0200:00/iio:device0"
  static let accelerometerNode = "/dev/iio:device0"

  /// The pids of the connections that owned a name of org.mpris.MediaPlayer2.*, by unique name.
  private var mprisPids: [String: UInt32] = [:]
  /// When a watched name was last owned and released (times read on the loop).
  private(set) var ownedAt: [String: Double] = [:]
  private(set) var releasedAt: [String: Double] = [:]
  private var subscriptions: [DBusSubscription] = []

  init(options: Options) throws {
    self.options = options
    // The testbed first (umockdev caches whether it runs under the preload library), then no
    // preload for children unless asked for.
    devices = UmockdevTestbed()
    devices.makeInputDirectory()
    preload = getenv("LD_PRELOAD").map { String(cString: $0) } ?? ""
    unsetenv("LD_PRELOAD")

    responderdHeadsetIoctl = try EvdevIoctlHandler(ioctlPath: fixturePath("evdev", "headset.ioctl"))
    try devices.addEvdevDevice(
      ioctlPath: fixturePath("evdev", "headset.ioctl"), sysfsPath: fixturePath("evdev", "headset.umockdev"),
      name: "headset", handler: responderdHeadsetIoctl)
    let shared = try Self.headsetOnPort(5, node: 10)
    let sharedIoctl = devices.root + "/headset-port5.ioctl"
    let sharedSysfs = devices.root + "/headset-port5.umockdev"
    try writeTextFile(sharedIoctl, shared.ioctl)
    try writeTextFile(sharedSysfs, shared.umockdev)
    sharedHeadsetIoctl = try EvdevIoctlHandler(ioctlPath: sharedIoctl)
    try devices.addEvdevDevice(
      ioctlPath: sharedIoctl, sysfsPath: sharedSysfs, name: "headset-port5", handler: sharedHeadsetIoctl)
    let (umockdev, ioctl) = try Self.headsetOnPort(3, node: 8)
    try devices.addEvdevDevice(ioctl: ioctl, sysfs: umockdev, name: "headset-port3")
    let relayDevice = try Self.headsetOnPort(4, node: 9)
    try devices.addEvdevDevice(ioctl: relayDevice.ioctl, sysfs: relayDevice.umockdev, name: "headset-port4")
    try devices.addDevices(fromFile: fixturePath("IIO", "iio-accel.umockdev"))
    // Offer 100 Hz, so that the sensor runs at exactly the rate measured (as MotionCost does).
    devices.setAttribute(
      Self.accelerometerPath, "in_accel_sampling_frequency_available",
      "7.81 15.63 31.25 62.5 100 125 250 500 1000\n")

    responderdPath = try BuiltProducts.path(of: "responderd")
    loop = try EventLoop()
    bus = try PrivateBus()
    connection = try bus.connect(loop: loop)
    // A WAV file: no encoding (a 900 s Ogg took sox over a minute on the loaded 2-core machine).
    audio = bus.directory + "/long.wav"
    let sox = try ChildProcess(
      ["sox", "-n", "-r", "8000", "-c", "1", audio, "synth", "900", "sine", "440", "vol", "0.2"],
      stdout: .null, stderr: .inherit)
    guard ChildProcess.exitedSuccessfully(try sox.waitForExit(timeout: 60)) else {
      throw BenchmarkError("sox could not write \(audio)")
    }
    subscriptions.append(
      connection.onNameOwnerChanged(namespace: "org.mpris.MediaPlayer2") { [weak self] change in
        guard let owner = change.newOwner, !owner.isEmpty else { return }
        self?.resolvePid(of: owner)
      })
    for name in ["org.responderd.Daemon1", "org.mpris.MediaPlayer2.playerctld"] {
      subscriptions.append(
        connection.onNameOwnerChanged(name: name) { [weak self] change in
          let now = monotonicNow()
          if let owner = change.newOwner, !owner.isEmpty {
            self?.ownedAt[name] = now
          } else {
            self?.releasedAt[name] = now
          }
        })
    }
    // A round trip, so that the match rules are in place before anything starts.
    _ = try connection.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetId", timeout: 5)
  }

  /// The headset fixture moved to another USB port and node, with the two ioctl answers thd asks
  /// for besides libevdev's (EVIOCGBIT(0) with a 128-byte buffer, EVIOCGNAME with 256 bytes):
  /// umockdev answers only a request whose size matches a recorded one.
  static func headsetOnPort(_ port: Int, node: Int) throws -> (umockdev: String, ioctl: String) {
    func hex(_ text: String) -> String {
      text.utf8.map { byte in
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
      }.joined()
    }
    let minor = 64 + node
    let umockdev = try readTextFile(fixturePath("evdev", "headset.umockdev"))
      .replacing("usb1/1-2/1-2:1.3", with: "usb1/1-\(port)/1-\(port):1.3")
      .replacing("input7", with: "input\(node)").replacing("event7", with: "event\(node)")
      .replacing("MINOR=71", with: "MINOR=\(minor)").replacing("dev=13:71", with: "dev=13:\(minor)")
    var lines: [String] = []
    for line in try readTextFile(fixturePath("evdev", "headset.ioctl")).split(separator: "\n") {
      var line = String(line)
      if line.hasPrefix("@DEV ") { line = "@DEV /dev/input/event\(node)" }
      if line.hasPrefix("EVIOCGPHYS(0) ") {
        line = line.replacing(
          hex("usb-0000:00:14.0-2/input3"), with: hex("usb-0000:00:14.0-\(port)/input3"))
      }
      lines.append(line)
      let fields = line.split(separator: " ")
      if line.hasPrefix("EVIOCGBIT(0) "), fields.count == 3 {
        lines.append("EVIOCGBIT(0) \(fields[1]) \(fields[2])" + String(repeating: "00", count: 120))
      }
      if line.hasPrefix("EVIOCGNAME(0) "), fields.count == 3 {
        lines.append("EVIOCGNAME(0) \(fields[1]) \(fields[2])00")
      }
    }
    return (umockdev, lines.joined(separator: "\n") + "\n")
  }

  /// The environment of a child on the private bus; with `testbed`, it sees the emulated devices.
  func environment(testbed: Bool) -> [String: String] {
    bus.environment.merging(["LD_PRELOAD": testbed ? preload : "", "XDG_CONFIG_HOME": bus.directory]) { $1 }
  }

  /// Writes a responderd config file and returns its path.
  func writeConfig(_ name: String, _ text: String) throws -> String {
    let path = bus.directory + "/" + name
    try writeTextFile(path, text)
    return path
  }

  /// responderd's config for the key, idle, startup and volume parts: the defaults, with the
  /// headsets of thd (port 3), the relay (port 4) and the second responderd (port 5) left alone.
  var keysConfig: String {
    """
    # EndToEnd: the built-in defaults; the headsets on USB ports 3, 4 and 5 are thd's, the relay's
    # and the second responderd's.
    [[keys.device]]
    phys = "usb-0000:00:14.0-3/*"
    ignore = true

    [[keys.device]]
    phys = "usb-0000:00:14.0-4/*"
    ignore = true

    [[keys.device]]
    phys = "usb-0000:00:14.0-5/*"
    ignore = true

    """
  }

  /// responderd's config for the motion parts: `chain` (its lines: the chain and its handlers'
  /// tables), the keys off, the accelerometer sampled at `rate` Hz by `capture` ("polled" or
  /// "buffered").
  func motionConfig(_ chain: String, rate: Int, capture: String) -> String {
    chain + "[keys]\nenabled = false\n[motion]\nsampling-rate = \(rate)\ncapture = \"\(capture)\"\n"
  }

  /// The second responderd's config (key part): only the headset on port 5, shared as every device
  /// was before the grab (`grab = "never"`; a baseline build, which has no `grab`, shares it anyway),
  /// and no proxy player (the first responderd has it).
  func sharedKeysConfig(baseline: Bool) -> String {
    """
    # EndToEnd: the second responderd reads the headset on port 5 only, shared with the desktop.
    [players]
    proxy = false

    [[keys.device]]
    phys = "usb-0000:00:14.0-[234]/*"
    ignore = true
    """ + (baseline ? "\n" : "\n\n[[keys.device]]\nphys = \"usb-0000:00:14.0-5/*\"\ngrab = \"never\"\n")
  }

  /// Starts the key relay (`EndToEnd --relay`, the floor with the device) for `player`, or with
  /// `player` nil the volume relay (`--volume-relay`, with `extraEnvironment` naming the sound
  /// server); returns once it reads its headset.
  func startRelay(player: String?, extraEnvironment: [String: String] = [:]) throws -> LoggedProcess {
    let arguments = player.map { ["--relay", relayHeadset, $0] } ?? ["--volume-relay", relayHeadset]
    let relay = try LoggedProcess(
      "relay", [try BuiltProducts.path(of: "EndToEnd")] + arguments,
      environment: environment(testbed: true).merging(extraEnvironment) { $1 }, loop: loop)
    try relay.waitForOutput("ready", timeout: 10)
    return relay
  }

  /// Starts responderd with `config` (under the testbed unless `testbed` is false). With
  /// RESPONDERD_WRAPPER in the environment ("valgrind --tool=callgrind"), under that command.
  func startResponderd(config: String, testbed: Bool = true, path: String? = nil) throws -> LoggedProcess {
    let wrapper =
      getenv("RESPONDERD_WRAPPER").map { String(cString: $0).split(separator: " ").map(String.init) } ?? []
    return try LoggedProcess(
      "responderd", wrapper + [path ?? responderdPath, "--allow-root", "--config", config],
      environment: environment(testbed: testbed), loop: loop)
  }

  /// How much longer waits for responderd are under RESPONDERD_WRAPPER (valgrind is slow).
  var slowdown: Double { getenv("RESPONDERD_WRAPPER") == nil ? 1 : 20 }

  /// Starts thd reading its headset with one trigger: KEY_PLAYPAUSE pressed → `playerctl play-pause`.
  func startThd() throws -> LoggedProcess {
    let triggers = bus.directory + "/triggers.conf"
    try writeTextFile(triggers, "KEY_PLAYPAUSE\t1\tplayerctl play-pause\n")
    return try LoggedProcess(
      "thd", ["thd", "--triggers", triggers, thdHeadset], environment: environment(testbed: true), loop: loop)
  }

  /// Starts playerctld (as its D-Bus activation file would) and waits until it owns its name.
  func startPlayerctld() throws -> LoggedProcess {
    let playerctld = try LoggedProcess(
      "playerctld", ["playerctld"], environment: environment(testbed: false), loop: loop)
    let name = "org.mpris.MediaPlayer2.playerctld"
    guard loop.run(until: { (ownedAt[name] ?? 0) > (releasedAt[name] ?? 0) }, timeout: 10) else {
      throw BenchmarkError("playerctld did not own \(name) within 10 s:\n\(playerctld.output)")
    }
    return playerctld
  }

  /// Starts an mpv player, waits until it is on the bus and reports its pause state over IPC.
  func startPlayer(_ index: Int) throws -> (player: Player, busName: String) {
    let player = try Player(
      audio: audio, ipcPath: bus.directory + "/mpv\(index).sock", bus: bus, loop: loop)
    try player.observePause(timeout: 20)
    let pid = UInt32(player.process.pid)
    guard loop.run(until: { mprisPids.values.contains(pid) }, timeout: 20),
      let name = mprisPids.first(where: { $0.value == pid })?.key
    else {
      throw BenchmarkError("mpv (pid \(pid)) did not appear on the bus within 20 s")
    }
    return (player, name)
  }

  private func resolvePid(of owner: String) {
    connection.call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetConnectionUnixProcessID", arguments: [.string(owner)], timeout: 5
    ) { [weak self] result in
      if case .success(let values) = result, case .uint32(let pid)? = values.first {
        self?.mprisPids[owner] = pid
      }
    }
  }

  /// Runs the loop for `seconds` (processing what comes meanwhile).
  func pass(_ seconds: Double) {
    if seconds > 0 { loop.run(until: { false }, timeout: seconds) }
  }

  /// Runs the loop until `condition` holds; throws `what` after `timeout` seconds.
  func wait(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
    guard loop.run(until: condition, timeout: timeout) else {
      throw BenchmarkError("timed out after \(timeout) s waiting for \(what)")
    }
  }
}
