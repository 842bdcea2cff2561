import DBus
import DesktopWatch
import Glibc

/// kglobalaccel as KF5/KF6 exports it: `allComponents` lists the components' object paths,
/// and it signals when a component's shortcuts change, but not when a component registers (as
/// KWin 5.27's kglobalaccel, watched with dbus-monitor while Plasma's media controller started).
public final class FakeKGlobalAccel {
  public let connection: InMemoryBusConnection
  public var components: [String]
  public var failing = false
  /// How often `allComponents` was called.
  public private(set) var listed = 0

  public init(bus: InMemoryBus, components: [String], uid: UInt32 = getuid()) throws {
    connection = bus.connect(uid: uid)
    self.components = components
    let interface = DBusInterface(
      DesktopNames.kglobalaccelInterface,
      methods: [
        DBusMethod("allComponents", out: "ao", outNames: ["components"]) { [unowned self] _ in
          self.listed += 1
          if self.failing { throw DBusError.failed("kglobalaccel is shutting down") }
          return [.array(elementSignature: "o", self.components.map { .objectPath($0) })]
        }
      ],
      signals: [
        DBusSignalInfo("yourShortcutGotChanged", signature: "asai", argumentNames: ["actionId", "newKeys"])
      ])
    try connection.export(path: DesktopNames.kglobalaccelPath, interfaces: [interface])
  }

  public func own() { connection.requestName(DesktopNames.kglobalaccel) }

  /// Plasma's media controller registers its shortcuts ("Play/Pause media playback", …):
  /// `doRegister` and `setShortcutKeys` calls, which kglobalaccel answers without a signal.
  public func registerMediacontrol() {
    components.append(DesktopNames.mediacontrolComponent)
  }

  /// A shortcut of the media controller changed (the user set another key): this is signalled.
  public func changeShortcut() throws {
    try connection.emitSignal(
      path: DesktopNames.kglobalaccelPath, interface: DesktopNames.kglobalaccelInterface,
      name: "yourShortcutGotChanged",
      arguments: [
        .array(
          elementSignature: "s",
          ["mediacontrol", "playpausemedia", "Media Controller", "Play/Pause media playback"]),
        .array(elementSignature: "i", [.int32(0x0100_0080)]),
      ])
  }
}

extension InMemoryBus {
  /// A program owning `org.gnome.Shell` that says its `ShellVersion` (GNOME Shell "43.9", phosh
  /// 0.24 "43 (phosh 0.24.0)"), on a connection of its own.
  public func gnomeShell(version: String) throws -> InMemoryBusConnection {
    let connection = connect()
    try connection.export(
      path: DesktopNames.gnomeShellPath,
      interfaces: [
        DBusInterface(
          DesktopNames.gnomeShell, properties: [DBusProperty(DesktopNames.shellVersion, get: { version })])
      ])
    connection.requestName(DesktopNames.gnomeShell)
    return connection
  }
}
