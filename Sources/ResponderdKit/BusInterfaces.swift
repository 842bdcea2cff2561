import DBus
import ResponderClient

/// Every D-Bus interface responderd exports or calls, as documented descriptors: the same ones the
/// daemon and `ResponderClient` export. `responderctl interfaces` writes them as interface files
/// (`/usr/share/dbus-1/interfaces/NAME.xml` in the package).
public enum BusInterfaces {
  /// `org.responderd.Daemon1` (exported by the daemon) and `org.responderd.Responder1` (exported
  /// by applications, called by the daemon). The motion interface (`org.responderd.Motion1`, issue
  /// 18) joins this list when it lands.
  public static var all: [DBusInterface] {
    // An API object that is never started: its interface's handlers have nothing to act on.
    let api = ResponderAPI()
    return withExtendedLifetime(api) { [api.interface(), ResponderClient.interfaceDescription] }
  }
}
