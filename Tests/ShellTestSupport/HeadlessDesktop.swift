import DBus
import DBusTestSupport
import EventLoop
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A real Wayland desktop for one test (or one suite): GNOME Shell 43, mutter 43, KWin 5.27 or
/// phoc 0.24 with phosh 0.24, headless, software-rendered, on private buses, with input injected
/// as the compositor gets it from a device.
///
/// ```swift
/// let desktop = try HeadlessDesktop.gnomeShell()
/// defer { desktop.stop() }
/// let probe = try TouchProbe(desktop)          // a Wayland client that reports its wl_touch events
/// try desktop.warmUp()
/// try desktop.tap(x: 300, y: 200)
/// try probe.waitFor("the tap") { $0.contains { $0.hasPrefix("touch up") } }
/// ```
///
/// Every desktop has its own directory (`directory`: the logs `wm.log`, `inject.err`, ...), a
/// private `XDG_RUNTIME_DIR` and `HOME`, a private session bus and a private "system" bus
/// (`environment` holds what a client needs). GNOME Shell and mutter get python3-dbusmock's logind
/// on that system bus (they use logind whenever the machine has `/run/systemd/seats`), PipeWire
/// (the ScreenCast stream touch coordinates are given in) and `GSETTINGS_BACKEND=memory`; GNOME
/// Shell's start-up overview is closed. KWin runs from a copy of `kwin_wayland` without its file
/// capability (exec of the original fails where CAP_SYS_RESOURCE is not in the bounding set),
/// with `KWIN_WAYLAND_NO_PERMISSION_CHECKS=1` so that the fake-input protocol is offered.
///
/// phoc and phosh run from `phosh-session.py` (`Tests/Fixtures/wayland`): touches come from an
/// emulated evdev touchscreen of its own (umockdev) through libinput, the path a phone's panel
/// takes; keys from a `zwp_virtual_keyboard_v1` client, as from squeekboard. phosh runs with its
/// animations off (`enable-animations=false` in the desktop's GSettings keyfile), so that it
/// activates a window as it learns of it, not at the end of an animated scroll of its overview.
///
/// Nothing of the test's umockdev (`LD_PRELOAD` of libumockdev-preload, `UMOCKDEV_DIR`) reaches
/// the desktop's processes: under `umockdev-wrapper` the emulated devices stay the test's, and the
/// desktop sees only the injected input.
///
/// Every process of the desktop carries a marker in its environment, D-Bus-activated ones
/// included (they inherit the bus's); `stop()` (also on `deinit`) kills each process that has it
/// and reaps its own children, so nothing is left behind. Waits are bounded polls on `loop`.
public final class HeadlessDesktop {
  /// Which compositor runs.
  public enum Compositor: String, Sendable {
    case gnomeShell = "GNOME Shell"
    case mutter
    case kwin = "KWin"
    /// phoc 0.24 (wlroots 0.15) with the phosh 0.24 shell.
    case phosh = "Phosh"
  }

  /// What a desktop runs beside its compositor, when a test asks for it.
  public struct Options: Sendable {
    /// The accessibility bus (AT-SPI: `at-spi-bus-launcher`, started before any client) with
    /// `toolkit-accessibility` on (GSettings from a keyfile), and no `NO_AT_BRIDGE`: the shell and
    /// the apps publish their widgets there, as for a screen reader (`AccessibilityReader` reads
    /// it). GNOME Shell also gets its notification server (`org.freedesktop.Notifications`, served
    /// by the gjs helper `org.gnome.Shell.Notifications` the shell D-Bus-activates at start; on a
    /// test's own bus, which activates nothing, the desktop starts it; needs Debian's `gjs`).
    public var accessibility: Bool
    /// KWin only: its check of which client may use a restricted protocol (`org_kde_kwin_fake_input`)
    /// stays on. A client gets such a protocol only when a desktop file whose `Exec` is that
    /// client's executable names it in `X-KDE-Wayland-Interfaces` (see `applications`); the kit's
    /// own injector gets one of its own. Without it the check is off
    /// (`KWIN_WAYLAND_NO_PERMISSION_CHECKS=1`).
    public var permissionChecks: Bool
    /// Desktop files (file name to contents) installed in the desktop's
    /// `$XDG_DATA_HOME/applications` before the compositor starts (KDE's service cache is built
    /// from them for KWin).
    public var applications: [String: String]

    public init(
      accessibility: Bool = false, permissionChecks: Bool = false, applications: [String: String] = [:]
    ) {
      self.accessibility = accessibility
      self.permissionChecks = permissionChecks
      self.applications = applications
    }
  }

  public let compositor: Compositor
  /// What runs beside the compositor.
  public let options: Options
  /// The monitor's size in pixels (touch coordinates are monitor pixels).
  public let width: Int
  public let height: Int
  /// The monitor's scale: a client's surface is `width / scale` by
  /// `height / scale`, and a touch at monitor pixel (x, y) reaches it at (x / scale, y / scale).
  public let scale: Int
  /// The desktop's own directory: runtime dir `xdg/`, `home/`, sockets and logs.
  public let directory: String
  /// The loop every wait of the desktop runs (the test's own, when given, so that its bus
  /// connections are served meanwhile).
  public let loop: EventLoop
  /// A connection to the desktop's session bus, on `loop`.
  public let sessionBus: DBusConnection
  /// The session bus's address.
  public let sessionBusAddress: String
  /// The private system bus's address.
  public let systemBusAddress: String
  /// Seconds from the start of the first process until the compositor was ready for input.
  public let startSeconds: Double
  /// The environment of a client of this desktop: the test's own without umockdev's variables,
  /// plus `WAYLAND_DISPLAY`, `XDG_RUNTIME_DIR`, `HOME`, `DBUS_SESSION_BUS_ADDRESS`,
  /// `DBUS_SYSTEM_BUS_ADDRESS`, `XDG_SESSION_TYPE`, `XDG_CURRENT_DESKTOP` and the desktop's marker
  /// (`stop()` kills what carries it).
  public let environment: [String: String]

  private var children: [ChildProcess] = []
  private var injector: Injector?
  /// phosh: the virtual keyboard, started at the first key.
  private var keyboard: Injector?
  private let marker: String
  private var stopped = false
  /// Screenshots taken for `screenShare`.
  private var shots = 0

  // MARK: Starting

  /// GNOME Shell 43 (`gnome-shell --headless --wayland --no-x11 --virtual-monitor WxH`): its
  /// gestures, accelerators and overview are there. Ready when it logged "GNOME Shell started"
  /// and the overview it starts in is closed.
  public static func gnomeShell(
    width: Int = 1280, height: Int = 800, scale: Int = 1, loop: EventLoop? = nil,
    sessionBusAddress: String? = nil, options: Options = Options()
  ) throws -> HeadlessDesktop {
    try HeadlessDesktop(
      .gnomeShell, width: width, height: height, scale: scale, loop: loop,
      sessionBusAddress: sessionBusAddress, options: options)
  }

  /// mutter 43 alone (same flags): no shell, no gestures: every touch reaches the client.
  public static func mutter(
    width: Int = 1280, height: Int = 800, scale: Int = 1, loop: EventLoop? = nil,
    sessionBusAddress: String? = nil
  ) throws -> HeadlessDesktop {
    try HeadlessDesktop(
      .mutter, width: width, height: height, scale: scale, loop: loop, sessionBusAddress: sessionBusAddress)
  }

  /// KWin 5.27 (`kwin_wayland --virtual --no-lockscreen`), global shortcuts on (its in-process
  /// kglobalaccel; its 3-finger touch gesture).
  public static func kwin(
    width: Int = 1280, height: Int = 800, scale: Int = 1, loop: EventLoop? = nil,
    sessionBusAddress: String? = nil, options: Options = Options()
  ) throws -> HeadlessDesktop {
    try HeadlessDesktop(
      .kwin, width: width, height: height, scale: scale, loop: loop, sessionBusAddress: sessionBusAddress,
      options: options)
  }

  /// phoc 0.24 with phosh 0.24 (`phosh -U`: unlocked), on a phone's output: 720 × 1440 pixels at
  /// scale 2 by default (360 × 720 points), touches from an emulated touchscreen.
  public static func phosh(
    width: Int = 720, height: Int = 1440, scale: Int = 2, loop: EventLoop? = nil,
    sessionBusAddress: String? = nil, options: Options = Options()
  ) throws -> HeadlessDesktop {
    try HeadlessDesktop(
      .phosh, width: width, height: height, scale: scale, loop: loop, sessionBusAddress: sessionBusAddress,
      options: options)
  }

  /// Whether `compositor` can run here; nil when it can, else why not (for `.enabled(if:)`).
  public static func missing(_ compositor: Compositor) -> String? {
    var programs = ["/usr/bin/dbus-daemon", "/usr/bin/wayland-scanner", "/usr/bin/cc"]
    switch compositor {
    case .gnomeShell: programs += ["/usr/bin/gnome-shell", "/usr/bin/pipewire", "/usr/bin/python3"]
    case .mutter: programs += ["/usr/bin/mutter", "/usr/bin/pipewire", "/usr/bin/python3"]
    case .kwin: programs += ["/usr/bin/kwin_wayland"]
    case .phosh:
      programs += ["/usr/bin/phoc", "/usr/libexec/phosh", "/usr/bin/umockdev-wrapper", "/usr/bin/python3"]
    }
    for program in programs where access(program, X_OK) != 0 {
      return "\(program) is not installed (scripts/deps test): the \(compositor.rawValue) tests are skipped"
    }
    return nil
  }

  /// Starts the desktop. With `sessionBusAddress` the compositor uses that session bus (a test's
  /// own, where the service under test runs) instead of a private one of its own. `scale` 2 (or
  /// 3) needs a monitor whose scaled size is at least 800 by 480 (mutter's rule): 2560x1600 for
  /// a 1280x800 desktop at scale 2. KWin gets `--scale` and a virtual output of `width / scale`
  /// by `height / scale` points (touches are injected in points there: monitor pixels divided by
  /// the scale, as with mutter).
  public init(
    _ compositor: Compositor, width: Int = 1280, height: Int = 800, scale: Int = 1, loop: EventLoop? = nil,
    sessionBusAddress: String? = nil, options: Options = Options()
  ) throws {
    self.compositor = compositor
    self.options = options
    self.width = width
    self.height = height
    self.scale = scale
    let eventLoop = try loop ?? EventLoop()
    self.loop = eventLoop
    let directory = try makeTemporaryDirectory("responderd-desktop")
    self.directory = directory
    let marker = "RESPONDERD_HEADLESS_DESKTOP=" + directory
    self.marker = marker
    let started = monotonicNow()
    var base = Self.cleanEnvironment()
    base["RESPONDERD_HEADLESS_DESKTOP"] = directory
    base["HOME"] = directory + "/home"
    // dbus-daemon finds session services in XDG_DATA_HOME (not in HOME: it asks passwd).
    base["XDG_DATA_HOME"] = directory + "/home/.local/share"
    base["XDG_CONFIG_HOME"] = directory + "/home/.config"
    base["XDG_CACHE_HOME"] = directory + "/home/.cache"
    base["XDG_RUNTIME_DIR"] = directory + "/xdg"
    base["XDG_SESSION_TYPE"] = "wayland"
    base["WAYLAND_DISPLAY"] = "wayland-0"
    mkdir(directory + "/xdg", 0o700)
    mkdir(directory + "/home", 0o700)
    // GSettings from a keyfile (any key not there keeps its default). With accessibility, for
    // every process: the shell, the bus launcher and the apps start with toolkit-accessibility on
    // (org.a11y.Status.IsEnabled reads it), and no key repeat (a key typed through a loaded
    // desktop may reach the app late enough after its press for the app to repeat it: "hhello").
    // Under phosh (phosh-session.py gives phosh GSETTINGS_BACKEND=keyfile), no animations: phosh's
    // overview follows the activated window and, once there, activates it again; animated (a 250
    // ms scroll), that can come after phoc mapped and focused the next window, which then loses
    // the focus to the one before. Unanimated, it comes as phosh learns of the window: for the
    // first, before phosh folds its home and lets the window have the keyboard.
    var interface: [String] = []
    if options.accessibility { interface.append("toolkit-accessibility=true") }
    if compositor == .phosh { interface.append("enable-animations=false") }
    var keyfile =
      interface.isEmpty ? "" : "[org/gnome/desktop/interface]\n" + interface.map { $0 + "\n" }.joined()
    if options.accessibility { keyfile += "[org/gnome/desktop/peripherals/keyboard]\nrepeat=false\n" }
    if !keyfile.isEmpty {
      for folder in ["/home/.config", "/home/.config/glib-2.0", "/home/.config/glib-2.0/settings"] {
        mkdir(directory + folder, 0o700)
      }
      try writeTextFile(directory + "/home/.config/glib-2.0/settings/keyfile", keyfile)
    }
    if options.accessibility {
      // KWin's own setting of no key repeat.
      try writeTextFile(directory + "/home/.config/kcminputrc", "[Keyboard]\nKeyRepeat=nothing\n")
      base["GSETTINGS_BACKEND"] = "keyfile"
    } else {
      base["NO_AT_BRIDGE"] = "1"
      base["GSETTINGS_BACKEND"] = "memory"
    }
    // No "Screen Lock disabled" banner over the top centre.
    for folder in ["/home/.local", "/home/.local/share", "/home/.local/share/gnome-shell"] {
      mkdir(directory + folder, 0o700)
    }
    try writeTextFile(directory + "/home/.local/share/gnome-shell/lock-warning-shown", "")
    if scale != 1 {
      // The virtual monitor's configuration, as GNOME's Displays settings would save it.
      mkdir(directory + "/home/.config", 0o700)
      try writeTextFile(
        directory + "/home/.config/monitors.xml",
        """
        <monitors version="2"><configuration><logicalmonitor>
        <x>0</x><y>0</y><scale>\(scale)</scale><primary>yes</primary>
        <monitor><monitorspec><connector>Meta-0</connector><vendor>MetaVendor</vendor>
        <product>MetaVirtualMonitor</product><serial>0x00</serial></monitorspec>
        <mode><width>\(width)</width><height>\(height)</height><rate>60.000</rate></mode></monitor>
        </logicalmonitor></configuration></monitors>

        """)
    }
    var applications = options.applications
    if compositor == .kwin && options.permissionChecks {
      // The kit's injector is granted fake input the way any client is: by a desktop file.
      let injector = try WaylandHelper.path(of: "kwin_fake_input")
      applications["responderd-test-kwin-fake-input.desktop"] =
        "[Desktop Entry]\nType=Application\nName=Test input injector\nNoDisplay=true\nExec=\(injector)\n"
        + "X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"
    }
    if !applications.isEmpty {
      for folder in ["/home/.local/share/applications"] { mkdir(directory + folder, 0o700) }
      for (name, contents) in applications {
        try writeTextFile(directory + "/home/.local/share/applications/" + name, contents)
      }
    }

    var children: [ChildProcess] = []
    // Until init finishes, a failure must still kill what was started.
    var cleanup: (() -> Void)? = { [directory, marker] in
      Self.kill(marked: marker, children: children)
      PrivateBus.removeTree(directory)
    }
    defer { cleanup?() }

    func bus(_ name: String) throws -> String {
      let process = try ChildProcess(
        [
          "dbus-daemon", "--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--nopidfile",
          "--address=unix:path=\(directory)/\(name)", "--print-address=1",
        ], environment: base, inheritEnvironment: false, stdout: .capture,
        stderr: .file(directory + "/\(name).log"))
      children.append(process)
      guard let line = try process.readLine(timeout: 10), line.hasPrefix("unix:") else {
        throw TestSupportError(
          "the desktop's \(name) dbus-daemon did not start; see \(directory)/\(name).log")
      }
      return "unix:path=\(directory)/\(name)"
    }
    let systemBusAddress = try bus("system_bus_socket")
    self.systemBusAddress = systemBusAddress
    let sessionAddress = try sessionBusAddress ?? bus("session_bus_socket")
    self.sessionBusAddress = sessionAddress
    base["DBUS_SYSTEM_BUS_ADDRESS"] = systemBusAddress
    base["DBUS_SESSION_BUS_ADDRESS"] = sessionAddress
    let connection = try DBusConnection(address: sessionAddress, loop: eventLoop)
    sessionBus = connection
    try connection.waitUntilConnected(timeout: 10)
    if options.accessibility {
      // Before any client: a toolkit looks for the accessibility bus once, when it starts.
      let launcher = try ChildProcess(
        ["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], environment: base,
        inheritEnvironment: false, stdout: .null, stderr: .file(directory + "/atspi.log"))
      children.append(launcher)
      var a11yOwner: String?
      let watch = connection.watchNameOwner("org.a11y.Bus") { a11yOwner = $0 }
      defer { watch.cancel() }
      guard eventLoop.run(until: { a11yOwner != nil || !launcher.isRunning }, timeout: 20), launcher.isRunning
      else {
        throw TestSupportError(
          "at-spi-bus-launcher did not own org.a11y.Bus within 20 s: \(Self.tail(directory + "/atspi.log"))")
      }
    }

    func waitFor(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
      guard eventLoop.run(until: condition, timeout: timeout) else {
        throw TestSupportError(
          "timed out after \(timeout) s waiting for \(what) (\(compositor.rawValue)); wm.log:\n\(Self.tail(directory + "/wm.log"))"
        )
      }
    }
    let logPath = directory + "/wm.log"

    /// phosh: the session's own process injects the touches.
    var sessionInjector: Injector?
    switch compositor {
    case .gnomeShell, .mutter:
      base["XDG_SESSION_ID"] = "c1"
      base["XDG_CURRENT_DESKTOP"] = "GNOME"
      let logind = try ChildProcess(
        ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "logind"], environment: base,
        inheritEnvironment: false, stdout: .null, stderr: .file(directory + "/logind.log"))
      children.append(logind)
      let system = try DBusConnection(address: systemBusAddress, loop: eventLoop)
      defer { system.close() }
      try system.waitUntilConnected(timeout: 10)
      var owner: String?
      let watch = system.watchNameOwner("org.freedesktop.login1") { owner = $0 }
      defer { watch.cancel() }
      try waitFor("python3-dbusmock's logind on the private system bus", timeout: 20) { owner != nil }
      let mock = { (method: String, arguments: [DBusValue]) throws in
        _ = try system.callAndWait(
          destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
          interface: "org.freedesktop.DBus.Mock", method: method, arguments: arguments, timeout: 10)
      }
      try mock("AddSeat", [.string("seat0")])
      try mock("AddUser", [.uint32(getuid()), .string("user"), .bool(true)])
      try mock(
        "AddSession", [.string("c1"), .string("seat0"), .uint32(getuid()), .string("user"), .bool(true)])
      // PipeWire: the ScreenCast stream touch coordinates are in (RemoteDesktop's Start fails
      // without it: "Couldn't connect pipewire context").
      let pipewire = try ChildProcess(
        ["pipewire"], environment: base, inheritEnvironment: false, stdout: .null,
        stderr: .file(directory + "/pipewire.log"))
      children.append(pipewire)
      try waitFor("PipeWire's socket", timeout: 20) { access(directory + "/xdg/pipewire-0", F_OK) == 0 }
      let program = compositor == .mutter ? "mutter" : "gnome-shell"
      let startShell = { () throws -> ChildProcess in
        let wm = try ChildProcess(
          [program, "--headless", "--wayland", "--no-x11", "--virtual-monitor", "\(width)x\(height)"],
          environment: base, inheritEnvironment: false, stdout: .file(logPath), stderr: .file(logPath))
        children.append(wm)
        return wm
      }
      var wm = try startShell()
      let wanted = compositor == .mutter ? "org.gnome.Mutter.RemoteDesktop" : "org.gnome.Shell"
      var shellOwner: String?
      let shellWatch = connection.watchNameOwner(wanted) { shellOwner = $0 }
      defer { shellWatch.cancel() }
      let socketMade = { access(directory + "/xdg/wayland-0", F_OK) == 0 }
      let started = { compositor == .mutter || Self.tail(logPath).contains("GNOME Shell started") }
      let ready = { !wm.isRunning || (shellOwner != nil && socketMade() && started()) }
      do {
        do {
          try waitFor("\(program) to be ready", timeout: 45, ready)
        } catch
          where compositor == .gnomeShell && wm.isRunning && shellOwner != nil && socketMade() && !started()
        {
          // GNOME Shell 43 at times never completes its start on a loaded machine (twice in the
          // CI runs of 2026-12-03): its name owned and its socket made, it never logs "GNOME Shell
          // started", before any test has done anything. It is started once more, and the output
          // says so; a second hang fails with the signs below.
          print(
            "HeadlessDesktop: gnome-shell hung at start (owned, wayland-0 made, not started); starting it again"
          )
          wm.terminate()
          unlink(directory + "/xdg/wayland-0")
          shellOwner = nil
          wm = try startShell()
          try waitFor("\(program) to be ready (started a second time)", timeout: 45, ready)
        }
      } catch {
        // Which of the three signs of a ready shell were missing (the shell once hung at start here).
        throw TestSupportError(
          "\(error)\nat the timeout: \(wanted) \(shellOwner == nil ? "not owned" : "owned"), wayland-0 "
            + "\(socketMade() ? "made" : "not made"), \(started() ? "started" : "\"GNOME Shell started\" not logged")"
        )
      }
      guard wm.isRunning else { throw TestSupportError("\(program) died at start:\n\(Self.tail(logPath))") }
      if compositor == .gnomeShell && options.accessibility && sessionBusAddress != nil {
        // GNOME Shell's notification server is the gjs helper it D-Bus-activates at start
        // (org.gnome.Shell.Notifications, which owns org.freedesktop.Notifications); a test's own
        // bus activates nothing of the system's, so it runs here as activation would run it: once
        // org.gnome.Shell is owned (the helper quits at once when it is not).
        let helper = try ChildProcess(
          ["/usr/bin/gjs", "/usr/share/gnome-shell/org.gnome.Shell.Notifications"], environment: base,
          inheritEnvironment: false, stdout: .null, stderr: .file(directory + "/notifications.log"))
        children.append(helper)
      }
    case .kwin:
      base["XDG_CURRENT_DESKTOP"] = "KDE"
      base["KDE_FULL_SESSION"] = "true"
      base["KDE_SESSION_VERSION"] = "5"
      // No crash dialog (drkonqi) for a KDE program that dies in a test: its stderr says why.
      base["KDE_DEBUG"] = "1"
      // A plain copy: /usr/bin/kwin_wayland's file capability (cap_sys_resource=ep) makes its exec
      // fail with EPERM where that capability is not in the bounding set.
      let copy = directory + "/kwin_wayland"
      let copied = try ChildProcess.runSeparately(["cp", "/usr/bin/kwin_wayland", copy], timeout: 30)
      guard copied.status == 0 else { throw TestSupportError("cp kwin_wayland: \(copied.stderr)") }
      if !applications.isEmpty {
        // KWin finds a client's desktop file through KDE's service cache (ksycoca).
        let built = try ChildProcess.runSeparately(
          ["kbuildsycoca5", "--noincremental"], environment: base, timeout: 60)
        guard built.status == 0 else { throw TestSupportError("kbuildsycoca5 failed: \(built.stderr)") }
      }
      var kwinEnvironment = base
      if !options.permissionChecks {
        kwinEnvironment["KWIN_WAYLAND_NO_PERMISSION_CHECKS"] = "1"
      }
      kwinEnvironment["KWIN_SCREENSHOT_NO_PERMISSION_CHECKS"] = "1"
      kwinEnvironment["QT_QPA_PLATFORM"] = nil
      let wm = try ChildProcess(
        [
          copy, "--virtual", "--no-lockscreen", "--width", "\(width / scale)", "--height",
          "\(height / scale)",
        ]
          + (scale != 1 ? ["--scale", "\(scale)"] : []),
        environment: kwinEnvironment, inheritEnvironment: false, stdout: .file(logPath),
        stderr: .file(logPath))
      children.append(wm)
      var kwinOwner: String?
      let watch = connection.watchNameOwner("org.kde.KWin") { kwinOwner = $0 }
      defer { watch.cancel() }
      try waitFor("kwin_wayland to be ready", timeout: 60) {
        guard wm.isRunning else { return true }
        return kwinOwner != nil && access(directory + "/xdg/wayland-0", F_OK) == 0
      }
      guard wm.isRunning else { throw TestSupportError("kwin_wayland died at start:\n\(Self.tail(logPath))") }
    case .phosh:
      base["XDG_CURRENT_DESKTOP"] = "Phosh:GNOME"
      // The shim phoc needs beside umockdev 0.17 and libseat 0.7 (see phoc_shim.c), built here.
      let shim = try ChildProcess.runSeparately(
        [
          "cc", "-O1", "-Wall", "-shared", "-fPIC", "-o", directory + "/phoc_shim.so",
          Self.fixture("phoc_shim.c"), "-ldl",
        ],
        timeout: 60)
      guard shim.status == 0 else { throw TestSupportError("cc phoc_shim.c: \(shim.stderr)") }
      let fifo = directory + "/inject.in"
      guard mkfifo(fifo, 0o600) == 0 else { throw TestSupportError("mkfifo \(fifo): errno \(errno)") }
      let session = try ChildProcess(
        [
          "/usr/bin/python3", Self.fixture("phosh-session.py"), directory, fifo, "--size",
          "\(width)x\(height)",
          "--scale", "\(scale)",
        ], environment: base, inheritEnvironment: false, stdout: .capture,
        stderr: .file(directory + "/session.log"))
      children.append(session)
      guard let line = try session.readLine(timeout: 90), line == "ready" else {
        throw TestSupportError(
          "phoc and phosh did not start: \(Self.tail(directory + "/session.log"))\nwm.log:\n\(Self.tail(logPath))\nphosh.log:\n\(Self.tail(directory + "/phosh.log"))"
        )
      }
      sessionInjector = try Injector(process: session, fifo: fifo, name: "phosh-session.py")
    }
    environment = base
    self.children = children
    injector = sessionInjector
    startSeconds = monotonicNow() - started
    cleanup = nil
    if compositor == .gnomeShell {
      try setOverviewActive(false)
    }
  }

  deinit { stop() }

  /// Kills every process of the desktop (the compositor, its buses, helpers, clients started with
  /// `environment`, D-Bus-activated programs) and removes its directory. Safe to call twice.
  public func stop() {
    guard !stopped else { return }
    stopped = true
    injector = nil
    keyboard = nil
    sessionBus.close()
    Self.kill(marked: marker, children: children)
    children.removeAll()
    PrivateBus.removeTree(directory)
  }

  /// The processes of the desktop still alive (not zombies), found by its marker: after `stop()`,
  /// none.
  public var livingProcesses: [pid_t] { Self.markedProcesses(marker) }

  /// Starts a client of the desktop (its `environment` plus `extra`); it is killed by `stop()`.
  public func start(
    _ arguments: [String], environment extra: [String: String] = [:], stdout: ChildProcess.Output = .null,
    stderr: ChildProcess.Output = .null
  ) throws -> ChildProcess {
    let child = try ChildProcess(
      arguments, environment: environment.merging(extra) { $1 }, inheritEnvironment: false, stdout: stdout,
      stderr: stderr)
    children.append(child)
    return child
  }

  /// Runs the loop until `condition` holds; throws a clear error after `timeout` seconds.
  public func waitFor(_ what: String, timeout: Double = 10, _ condition: () -> Bool) throws {
    guard loop.run(until: condition, timeout: timeout) else {
      throw TestSupportError("timed out after \(timeout) s waiting for \(what) (\(compositor.rawValue))")
    }
  }

  // MARK: Input

  /// Touch down of `slot` at monitor pixel (`x`, `y`).
  public func down(_ slot: Int, x: Double, y: Double) throws {
    try inject("down \(slot) \(injected(x)) \(injected(y))")
  }
  /// Touch motion of `slot`.
  public func motion(_ slot: Int, x: Double, y: Double) throws {
    try inject("motion \(slot) \(injected(x)) \(injected(y))")
  }

  /// A monitor pixel coordinate as the injector takes it: KWin's fake input takes points (phosh's
  /// touchscreen, like mutter's, pixels).
  private func injected(_ pixel: Double) -> Double { compositor == .kwin ? pixel / Double(scale) : pixel }
  /// Touch up of `slot`.
  public func up(_ slot: Int) throws { try inject("up \(slot)") }
  /// The end of a touch frame (KWin, phosh: one evdev frame; mutter ends a frame with each event).
  public func frame() throws { try inject("frame") }

  /// phosh: kills phosh (SIGKILL, as a crash) and starts it again, as its session would; returns
  /// once the new one is up (phoc and the touchscreen stay, and so do touches held down).
  public func restartPhosh() throws {
    guard compositor == .phosh, let injector else { throw TestSupportError("not a phosh session") }
    _ = try injector.send("restart-phosh", timeout: 90)
  }

  /// A key by its evdev code (linux/input-event-codes.h: 164 is KEY_PLAYPAUSE), pressed or released.
  public func key(_ code: UInt16, pressed: Bool) throws {
    guard compositor == .phosh else {
      try inject("key \(code) \(pressed ? 1 : 0)")
      return
    }
    if keyboard == nil { keyboard = try Injector(keyboardOf: self) }
    _ = try keyboard?.send("key \(code) \(pressed ? 1 : 0)")
  }

  /// A press and a release of the key `code`.
  public func press(_ code: UInt16) throws {
    try key(code, pressed: true)
    try key(code, pressed: false)
  }

  /// One finger (slot 0) down at (`x`, `y`) and up.
  public func tap(x: Double, y: Double) throws {
    try down(0, x: x, y: y)
    try frame()
    try up(0)
    try frame()
  }

  /// Fingers down at `starts` (slots 0, 1, ...), each moved by (`dx`, `dy`) in `steps` frames
  /// spread over `duration` seconds (a gesture's pace), then lifted at once (still moving: a
  /// flick, as GNOME Shell's swipes want).
  public func swipe(
    fingers starts: [(x: Double, y: Double)], dx: Double, dy: Double, steps: Int = 20, duration: Double = 0.3
  ) throws {
    try drag(
      fingers: starts.map { ($0, (x: $0.x + dx, y: $0.y + dy)) }, steps: steps, duration: duration,
      hold: false)
  }

  /// Fingers already down at `starts` (slots 0, 1, ...) moved by (`dx`, `dy`) in `steps` frames
  /// spread over `duration` seconds, and left down.
  public func move(
    fingers starts: [(x: Double, y: Double)], dx: Double, dy: Double, steps: Int = 20, duration: Double = 0.3
  ) throws {
    try glide(
      starts.map { ($0, (x: $0.x + dx, y: $0.y + dy)) }, firstSlot: 0, steps: steps, duration: duration)
  }

  /// Fingers down at their `from` points (slots `firstSlot`, `firstSlot + 1`, ...), each moved in a
  /// straight line to its `to` point in `steps` frames spread over `duration` seconds, then, with
  /// `lift`, lifted: after one more step's pause with `hold` (a finger that stops before it lifts;
  /// mutter merges a motion with an up that follows at once, and the client never sees the last
  /// point), at once without (a flick).
  public func drag(
    fingers: [(from: (x: Double, y: Double), to: (x: Double, y: Double))], firstSlot: Int = 0,
    steps: Int = 20,
    duration: Double = 0.3, lift: Bool = true, hold: Bool = true
  ) throws {
    for (index, finger) in fingers.enumerated() {
      try down(firstSlot + index, x: finger.from.x, y: finger.from.y)
    }
    try frame()
    try glide(fingers, firstSlot: firstSlot, steps: steps, duration: duration)
    guard lift else { return }
    if hold { pause(until: monotonicNow() + duration / Double(max(steps, 1))) }
    for index in fingers.indices { try up(firstSlot + index) }
    try frame()
  }

  /// Fingers down moved along their straight lines, one frame a step, at the pace `duration` gives.
  private func glide(
    _ fingers: [(from: (x: Double, y: Double), to: (x: Double, y: Double))], firstSlot: Int, steps: Int,
    duration: Double
  ) throws {
    let count = max(steps, 1)
    let begin = monotonicNow()
    for step in 1...count {
      pause(until: begin + duration * Double(step) / Double(count))
      let fraction = Double(step) / Double(count)
      for (index, finger) in fingers.enumerated() {
        try motion(
          firstSlot + index, x: finger.from.x + (finger.to.x - finger.from.x) * fraction,
          y: finger.from.y + (finger.to.y - finger.from.y) * fraction)
      }
      try frame()
    }
  }

  /// Runs the loop until `due` (monotonic seconds): a gesture's pace, not a wait for an event.
  private func pause(until due: Double) {
    loop.run(until: { monotonicNow() >= due }, timeout: max(due - monotonicNow(), 0))
  }

  /// Makes the virtual keyboard and touchscreen exist. Mutter creates them at their first event,
  /// and a client binds them only after that event passed: throwaway events (a Shift press, a
  /// touch at the bottom-right pixel) are sent. KWin creates them when the injector connects.
  /// Call once before the events that count (before the client maps, ideally), then wait until
  /// the client has touch (`TouchProbe.waitForSeat`).
  public func warmUp() throws {
    // phosh: the touchscreen is there from the start; the virtual keyboard is made here (the seat
    // offers a keyboard from then on, and phoc activates windows with it).
    if compositor == .phosh {
      if keyboard == nil { keyboard = try Injector(keyboardOf: self) }
      return
    }
    // KWin's fake devices exist from the injector's connection: starting it is enough.
    try inject(compositor == .kwin ? "sync" : "warmup")
  }

  // MARK: The shell

  /// A PNG of the compositor's output at `path`: GNOME Shell and mutter through
  /// org.gnome.Shell.Screenshot (GNOME Shell only: mutter has no screenshot API), KWin through
  /// org.kde.KWin.ScreenShot2, phosh through its org.gnome.Shell.Screenshot (wlr-screencopy; the
  /// picture is in points: 360 × 720 for 720 × 1440 pixels at scale 2).
  public func screenshot(to path: String) throws {
    switch compositor {
    case .phosh:
      let reply = try sessionBus.callAndWait(
        destination: "org.gnome.Shell.Screenshot", path: "/org/gnome/Shell/Screenshot",
        interface: "org.gnome.Shell.Screenshot", method: "Screenshot",
        arguments: [.bool(false), .bool(false), .string(path)], timeout: 30)
      guard reply.first?.bool == true else { throw TestSupportError("phosh's Screenshot failed: \(reply)") }
    case .gnomeShell: try inject("screenshot \(path)")
    case .mutter: throw TestSupportError("mutter alone has no screenshot API")
    case .kwin:
      let result = try ChildProcess.runSeparately(
        ["/usr/bin/python3", fixture("kwin-screenshot.py"), path], environment: environment, timeout: 30)
      guard result.status == 0 else {
        throw TestSupportError("KWin's ScreenShot2 failed: \(result.stdout) \(result.stderr)")
      }
    }
  }

  /// The share of the screen (0 to 1) in the colour `rgb` (0xRRGGBB, each channel within 8), from
  /// a screenshot: how much of it a window of a known plain colour covers (`TouchProbe` fills its
  /// window with `TouchProbe.colour`). phosh's overview shows the window as a small thumbnail.
  public func screenShare(inColour rgb: UInt32) throws -> Double {
    let path = directory + "/share-\(shots).png"
    shots += 1
    try screenshot(to: path)
    let result = try ChildProcess.runSeparately(
      ["/usr/bin/python3", fixture("colour-share.py"), path, String(rgb, radix: 16)], timeout: 60)
    guard result.status == 0,
      let share = Double(result.stdout.split(whereSeparator: \.isWhitespace).first ?? "")
    else { throw TestSupportError("colour-share.py \(path): \(result.stdout) \(result.stderr)") }
    return share
  }

  /// GNOME Shell's overview is open (org.gnome.Shell's OverviewActive).
  public var overviewActive: Bool {
    get throws {
      let reply = try sessionBus.callAndWait(
        destination: "org.gnome.Shell", path: "/org/gnome/Shell",
        interface: "org.freedesktop.DBus.Properties",
        method: "Get", arguments: [.string("org.gnome.Shell"), .string("OverviewActive")], timeout: 10)
      guard let value = reply.first?.unwrapped.bool else {
        throw TestSupportError("OverviewActive: unexpected reply \(reply)")
      }
      return value
    }
  }

  /// Opens or closes GNOME Shell's overview and waits (10 s at most) until it says so.
  public func setOverviewActive(_ active: Bool) throws {
    _ = try sessionBus.callAndWait(
      destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.freedesktop.DBus.Properties",
      method: "Set",
      arguments: [.string("org.gnome.Shell"), .string("OverviewActive"), .variant(.bool(active))],
      timeout: 10)
    try waitFor("the overview to be \(active ? "open" : "closed")") { (try? overviewActive) == active }
  }

  /// The title of the window that has the keyboard focus (nil: none), from GNOME Shell's
  /// org.gnome.Shell.Introspect.
  public func focusedWindowTitle() throws -> String? {
    guard compositor == .gnomeShell else {
      throw TestSupportError("the focused window is known under GNOME Shell only")
    }
    let title = try inject("focus")
    return title.isEmpty ? nil : title
  }

  // MARK: Internals

  /// Sends one command to the injector (started at the first) and waits for its answer.
  @discardableResult
  private func inject(_ command: String) throws -> String {
    if injector == nil { injector = try Injector(self) }
    guard let injector else { throw TestSupportError("no injector") }
    return try injector.send(command)
  }

  /// A file of `Tests/Fixtures/wayland`.
  public static func fixture(_ name: String) -> String {
    var path = #filePath
    while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
    return path + "/Fixtures/wayland/" + name
  }
  private func fixture(_ name: String) -> String { Self.fixture(name) }

  /// The test's environment without umockdev's preload and directory, and without the test's
  /// own desktop and buses.
  static func cleanEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var entry = Glibc.environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    for name in [
      "UMOCKDEV_DIR", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "WAYLAND_DISPLAY", "DISPLAY",
      "XDG_SESSION_ID", "XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION", "QT_QPA_PLATFORM",
    ] {
      environment[name] = nil
    }
    if let preload = environment["LD_PRELOAD"] {
      let kept = preload.split(whereSeparator: { $0 == ":" || $0 == " " }).filter { !$0.contains("umockdev") }
      environment["LD_PRELOAD"] = kept.isEmpty ? nil : kept.joined(separator: ":")
    }
    return environment
  }

  /// The end of a log file (8 kB).
  static func tail(_ path: String) -> String {
    let text = (try? readTextFile(path)) ?? ""
    return String(text.suffix(8192))
  }

  /// Kills every process whose environment holds `marker` (leaves first: their parents, still
  /// alive, reap them), then `children` (SIGTERM, then SIGKILL), which are reaped.
  static func kill(marked marker: String, children: [ChildProcess]) {
    let own = Set(children.map(\.pid))
    for _ in 0..<5 {
      let others = markedProcesses(marker).filter { !own.contains($0) }
      if others.isEmpty { break }
      // Waits for each to end on its pidfd (readable at its exit), 5 s at most.
      var pollers: [pollfd] = []
      for pid in others {
        guard let descriptor = try? FileDescriptor.pidFD(for: pid) else { continue }
        Glibc.kill(pid, SIGKILL)
        pollers.append(pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0))
      }
      let deadline = monotonicNow() + 5
      while monotonicNow() < deadline, pollers.contains(where: { $0.revents == 0 }) {
        var waiting = pollers.filter { $0.revents == 0 }
        _ = poll(&waiting, nfds_t(waiting.count), 100)
        for ready in waiting where ready.revents != 0 {
          if let index = pollers.firstIndex(where: { $0.fd == ready.fd }) {
            pollers[index].revents = ready.revents
          }
        }
      }
      for poller in pollers { close(poller.fd) }
    }
    for child in children.reversed() { child.signal(SIGKILL) }
    for child in children.reversed() { _ = try? child.waitForExit(timeout: 10) }
    // Whatever a dying parent left (re-parented, marked).
    for pid in markedProcesses(marker) { Glibc.kill(pid, SIGKILL) }
  }

  /// The live processes (not zombies) whose environment holds `marker`.
  static func markedProcesses(_ marker: String) -> [pid_t] {
    guard let proc = opendir("/proc") else { return [] }
    defer { closedir(proc) }
    var found: [pid_t] = []
    let wanted = Array(marker.utf8)
    while let entry = readdir(proc) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard let pid = pid_t(name), pid != getpid() else { continue }
      guard let environ = try? readFile("/proc/\(pid)/environ") else { continue }
      let entries = environ.split(separator: 0)
      guard entries.contains(where: { $0.elementsEqual(wanted) }) else { continue }
      let status = (try? readTextFile("/proc/\(pid)/stat")) ?? ""
      if let close = status.lastIndex(of: ")"), status[status.index(close, offsetBy: 2)...].hasPrefix("Z") {
        continue
      }
      found.append(pid)
    }
    return found
  }
}

/// The process injecting input: mutter-inject.py (RemoteDesktop) or kwin_fake_input
/// (org_kde_kwin_fake_input), fed one command per line through a FIFO, answering each with one
/// line once the compositor took it.
final class Injector {
  let process: ChildProcess
  let fifo: FileDescriptor
  let name: String

  init(_ desktop: HeadlessDesktop) throws {
    let path = desktop.directory + "/inject.in"
    guard mkfifo(path, 0o600) == 0 else { throw TestSupportError("mkfifo \(path): errno \(errno)") }
    // O_RDWR does not wait for a reader.
    fifo = try systemCall("open") { try FileDescriptor.open(path, .readWrite, options: .closeOnExec) }
    let arguments: [String]
    if desktop.compositor == .kwin {
      arguments = [try WaylandHelper.path(of: "kwin_fake_input"), path]
      name = "kwin_fake_input"
    } else {
      arguments = ["/usr/bin/python3", HeadlessDesktop.fixture("mutter-inject.py"), path]
      name = "mutter-inject.py"
    }
    process = try desktop.start(arguments, stdout: .capture, stderr: .file(desktop.directory + "/inject.err"))
    guard let line = try process.readLine(timeout: 60), line.hasPrefix("ready") else {
      throw TestSupportError(
        "\(name) did not start: \(HeadlessDesktop.tail(desktop.directory + "/inject.err"))")
    }
  }

  /// The injector of a process already started and ready (phosh-session.py, which started phoc and
  /// phosh), reading `fifo`.
  init(process: ChildProcess, fifo path: String, name: String) throws {
    fifo = try systemCall("open") { try FileDescriptor.open(path, .readWrite, options: .closeOnExec) }
    self.process = process
    self.name = name
  }

  /// phosh's keyboard: `phoc_virtual_keyboard` (zwp_virtual_keyboard_v1), ready once the seat
  /// offers its keyboard.
  init(keyboardOf desktop: HeadlessDesktop) throws {
    let path = desktop.directory + "/keyboard.in"
    guard mkfifo(path, 0o600) == 0 else { throw TestSupportError("mkfifo \(path): errno \(errno)") }
    fifo = try systemCall("open") { try FileDescriptor.open(path, .readWrite, options: .closeOnExec) }
    name = "phoc_virtual_keyboard"
    process = try desktop.start(
      [try WaylandHelper.path(of: name), path], stdout: .capture,
      stderr: .file(desktop.directory + "/keyboard.err"))
    guard let line = try process.readLine(timeout: 30), line == "ready" else {
      throw TestSupportError(
        "\(name) did not start: \(HeadlessDesktop.tail(desktop.directory + "/keyboard.err"))")
    }
  }

  deinit {
    try? fifo.close()
    process.terminate(grace: 2)
  }

  func send(_ command: String, timeout: Double = 30) throws -> String {
    let bytes = Array((command + "\n").utf8)
    _ = try systemCall("write") { try bytes.withUnsafeBytes { try fifo.writeAll($0) } }
    guard let answer = try process.readLine(timeout: timeout) else {
      throw TestSupportError("\(name) exited at '\(command)'")
    }
    if answer == "ok" { return "" }
    if answer.hasPrefix("ok ") { return String(answer.dropFirst(3)) }
    throw TestSupportError("\(name): '\(command)': \(answer)")
  }
}

/// Makes a new directory in `base` (default: `$TMPDIR`, else /tmp) named `prefix-XXXXXX`.
func makeTemporaryDirectory(_ prefix: String, in base: String? = nil) throws -> String {
  let base = base ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  var template = Array((base + "/\(prefix)-XXXXXX").utf8CString)
  guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
    throw SystemError("mkdtemp", path: FilePath(base), errno: .last)
  }
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
