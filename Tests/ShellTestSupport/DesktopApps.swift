import DBus
import DBusTestSupport
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A real application a test runs on a headless desktop, unmodified, as Debian installs it.
public struct DesktopApp: Sendable {
  /// Its command line.
  public var arguments: [String]
  /// Its name on the accessibility bus.
  public var accessibleName: String
  /// What it needs in its environment on a headless desktop.
  public var environment: [String: String]

  public init(arguments: [String], accessibleName: String, environment: [String: String] = [:]) {
    self.arguments = arguments
    self.accessibleName = accessibleName
    self.environment = environment
  }

  /// GNOME Text Editor 43 (GTK 4): a new instance of its own (`--standalone`), a new draft
  /// document with the focus in its text. GTK's cairo renderer: the headless desktop has no GPU.
  public static let textEditor = DesktopApp(
    arguments: ["/usr/bin/gnome-text-editor", "--standalone"], accessibleName: "gnome-text-editor",
    environment: ["GSK_RENDERER": "cairo"])
  /// GNOME Console (`kgx`, GTK 4 and VTE): a terminal, running the user's shell.
  public static let console = DesktopApp(
    arguments: ["/usr/bin/kgx"], accessibleName: "kgx", environment: ["GSK_RENDERER": "cairo"])
  /// KWrite 22.12 (Qt 5, KDE Frameworks) as a Wayland client editing `file` (without one it opens
  /// on its Welcome page, with no text field), publishing to the accessibility bus
  /// (`QT_LINUX_ACCESSIBILITY_ALWAYS_ON`, as when a screen reader runs), software-rendered.
  public static func kwrite(file: String) -> DesktopApp {
    DesktopApp(
      arguments: ["/usr/bin/kwrite", file], accessibleName: "kwrite",
      environment: [
        "QT_QPA_PLATFORM": "wayland", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_QUICK_BACKEND": "software",
        "LIBGL_ALWAYS_SOFTWARE": "1",
      ])
  }

  /// Why this app cannot run here (for `.enabled(if:)`), nil when it can.
  public var missing: String? {
    guard let program = arguments.first, access(program, X_OK) == 0 else {
      return "\(arguments.first ?? "the app") is not installed (scripts/deps test)"
    }
    return nil
  }
}

extension HeadlessDesktop {
  /// Starts `app` as a client of the desktop (its stderr in `NAME.err` of the desktop's
  /// directory); `stop()` kills it.
  @discardableResult
  public func launch(_ app: DesktopApp) throws -> ChildProcess {
    let name = String(app.arguments.first?.split(separator: "/").last ?? "app")
    return try start(app.arguments, environment: app.environment, stderr: .file(directory + "/\(name).err"))
  }

  /// Types `text` on the virtual keyboard, key by key as a person types: lowercase and uppercase
  /// ASCII letters, digits, space, newline and `.,-`.
  public func type(_ text: String) throws {
    for character in text {
      let lower = Character(character.lowercased())
      guard let code = Self.keyCodes[lower] else { throw TestSupportError("no key for '\(character)'") }
      let shifted = character.isUppercase
      if shifted { try key(42, pressed: true) }  // KEY_LEFTSHIFT
      try press(code)
      if shifted { try key(42, pressed: false) }
    }
  }

  /// evdev key codes (linux/input-event-codes.h) of a US keyboard layout.
  static let keyCodes: [Character: UInt16] = {
    var codes: [Character: UInt16] = [" ": 57, "\n": 28, ".": 52, ",": 51, "-": 12, "0": 11]
    for (row, first) in [("qwertyuiop", 16), ("asdfghjkl", 30), ("zxcvbnm", 44), ("123456789", 2)] {
      for (offset, character) in row.enumerated() { codes[character] = UInt16(first + offset) }
    }
    return codes
  }()

  /// Starts Plasma's shell on KWin, as a Plasma session runs it (`plasmashell`, after the
  /// activity manager it needs), software-rendered: its notification server
  /// (`org.freedesktop.Notifications`) and popups. Returns once that server answers.
  public func startPlasmaShell(timeout: Double = 60) throws {
    guard compositor == .kwin else { throw TestSupportError("plasmashell runs on KWin here") }
    let qt = [
      "QT_QPA_PLATFORM": "wayland", "QT_QUICK_BACKEND": "software", "LIBGL_ALWAYS_SOFTWARE": "1",
    ]
    let manager = try Self.plasmaProgram("kactivitymanagerd")
    _ = try start([manager], environment: qt, stderr: .file(directory + "/kactivitymanagerd.err"))
    var owner: String?
    let watch = sessionBus.watchNameOwner("org.kde.ActivityManager") { owner = $0 }
    defer { watch.cancel() }
    try waitFor("kactivitymanagerd", timeout: timeout) { owner != nil }
    _ = try start(
      ["/usr/bin/plasmashell", "--no-respawn"], environment: qt, stderr: .file(directory + "/plasmashell.err")
    )
    try waitForNotificationServer(timeout: timeout)
  }

  /// A program of Plasma's libexec folder.
  static func plasmaProgram(_ name: String) throws -> String {
    for architecture in ["x86_64-linux-gnu", "aarch64-linux-gnu"] {
      let path = "/usr/lib/\(architecture)/libexec/\(name)"
      if access(path, X_OK) == 0 { return path }
    }
    throw TestSupportError("\(name) is not installed (scripts/deps test)")
  }

  /// Why a test of GNOME Shell with its notifications, the accessibility bus read, GNOME Text
  /// Editor and Console cannot run here, nil when it can.
  public static var gnomeAppsMissing: String? {
    missing(.gnomeShell) ?? AccessibilityReader.missing ?? DesktopApp.textEditor.missing
      ?? DesktopApp.console.missing
      ?? (access("/usr/bin/gjs", X_OK) == 0
        ? nil
        : "/usr/bin/gjs is not installed: GNOME Shell's notification server cannot start (scripts/deps test)")
  }

  /// Why a test of KWin with Plasma's shell, the accessibility bus read and KWrite cannot run
  /// here, nil when it can.
  public static var kdeAppsMissing: String? {
    missing(.kwin) ?? AccessibilityReader.missing ?? DesktopApp.kwrite(file: "").missing ?? plasmaShellMissing
      ?? (access("/usr/bin/kbuildsycoca5", X_OK) == 0
        ? nil : "kbuildsycoca5 is not installed (scripts/deps test)")
  }

  /// Why Plasma's shell cannot run here, nil when it can.
  public static var plasmaShellMissing: String? {
    if access("/usr/bin/plasmashell", X_OK) != 0 { return "plasmashell is not installed (scripts/deps test)" }
    if access("/usr/share/plasma/shells/org.kde.plasma.desktop", F_OK) != 0 {
      return "Plasma's desktop shell package is not installed (plasma-desktop; scripts/deps test)"
    }
    return (try? plasmaProgram("kactivitymanagerd")) == nil ? "kactivitymanagerd is not installed" : nil
  }

  /// Waits until a notification server owns `org.freedesktop.Notifications` on the desktop's
  /// session bus (GNOME Shell's starts with the shell; KDE's with plasmashell), and returns its
  /// `GetServerInformation` name (`gnome-shell`, `Plasma`).
  @discardableResult
  public func waitForNotificationServer(timeout: Double = 30) throws -> String {
    var owner: String?
    let watch = sessionBus.watchNameOwner("org.freedesktop.Notifications") { owner = $0 }
    defer { watch.cancel() }
    guard loop.run(until: { owner != nil }, timeout: timeout) else {
      throw TestSupportError(
        "nothing owned org.freedesktop.Notifications within \(timeout) s (\(compositor.rawValue)); GNOME Shell's server is the gjs helper org.gnome.Shell.Notifications (Debian's gjs)"
      )
    }
    let reply = try sessionBus.callAndWait(
      destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
      interface: "org.freedesktop.Notifications", method: "GetServerInformation", timeout: 10)
    return reply.first?.string ?? ""
  }
}
