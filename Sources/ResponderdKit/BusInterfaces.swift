import DBus
import ResponderInterfaces

/// Every D-Bus interface responderd exports or calls, as documented descriptors: the same ones the
/// daemon and `ResponderClient` export. `responderctl interfaces` writes them as interface files
/// (`/usr/share/dbus-1/interfaces/NAME.xml` in the package).
public enum BusInterfaces {
  /// `org.responderd.Daemon1` and `org.responderd.Motion1` (exported by the daemon) and
  /// `org.responderd.Responder1` (exported by applications, called by the daemon).
  public static var all: [DBusInterface] {
    // API objects that are never started: their interfaces' handlers have nothing to act on.
    let api = ResponderAPI(bus: nil, session: nil, motionInterest: nil)
    let motion = MotionAPI(motion: nil, bus: nil)
    return withExtendedLifetime((api, motion)) {
      [api.interface(), motion.interface(), ResponderBusAPI.responderInterfaceDescription]
    }
  }
}
