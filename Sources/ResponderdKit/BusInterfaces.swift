import DBus
import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore
import ResponderInterfaces

/// Every D-Bus interface responderd exports or calls, as documented descriptors: the same ones the
/// daemon and `ResponderClient` export. `responderctl interfaces` writes them as interface files
/// (`/usr/share/dbus-1/interfaces/NAME.xml` in the package).
public enum BusInterfaces {
  /// `org.responderd.Daemon1` and `org.responderd.Motion1` (exported by the daemon) and
  /// `org.responderd.Responder1` (exported by applications, called by the daemon).
  public static func all() throws -> [DBusInterface] {
    // API objects that are never started (no bus, a loop that never runs, virtual time): their
    // interfaces' handlers have nothing to act on.
    let time = VirtualScheduler()
    let logger = Logger(label: "responderd") { _ in SwiftLogNoOpLogHandler() }
    let application = Application(scheduler: time)
    let api = ResponderAPI(
      bus: nil, session: nil, motionInterest: nil,
      events: ServiceEvents(application: application, logger: logger),
      chain: HandlerChain(application: application), settings: ResponderSettings(), configFile: "",
      scheduler: time, logger: logger)
    let motion = MotionAPI(motion: nil, bus: nil, loop: try EventLoop(), logger: logger)
    return withExtendedLifetime((api, motion)) {
      [api.interface(), motion.interface(), ResponderBusAPI.responderInterfaceDescription]
    }
  }
}
