import DBus
import ResponderClient
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// `responderctl monitor`: follows EventDispatched live.
struct MonitorCommand {
  static var command: Command {
    Command(
      name: "monitor",
      abstract:
        "Follow the events responderd dispatches, one line each: time, type, subtype, who handled it.",
      discussion: """
        Text lines: local time, type, subtype (and the phase of motion events), then "handled by NAME"
        or "dropped (REASON)". The keys of owned devices that act outside the chain come as type "key"
        lines with the device and what was done: a volume key, what it did to the sound server's volume
        ("default sink 'speakers' 40% → 45%"); another key (KEY_MICMUTE, KEY_VOICECOMMAND, …), its
        command ("command PROGRAM" or "none"). With --json, one object per line: time (UTC, ISO 8601),
        timestamp (seconds since boot, the event's), type, subtype, phase (motion events only),
        handledBy (null when dropped), dropReason (when dropped), source, receivedBy; a key: time,
        timestamp, type "key", key, device, path, action. Runs until Ctrl-C, SIGTERM or --count
        events; waits for responderd when it restarts.
        """,
      arguments: [
        .flag("--json", help: "One JSON object per line instead of text."),
        .option("--count", help: "Exit after this many events."),
      ]
    ) { try MonitorCommand(json: $0.flag("json"), count: $0.int("count")).run() }
  }

  var json = false
  var count: Int?

  func run() throws {
    let link = try DaemonLink.connect(json: false)
    var seen = 0
    var failure: ExitCode?
    link.bus.onSignal(
      sender: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface, member: "EventDispatchedDetails"
    ) { message in
      guard let event = DispatchedEvent(arguments: message.arguments) else { return }
      output(json ? Self.jsonLine(event) : Self.textLine(event))
      seen += 1
      if let count, seen >= count { link.loop.stop() }
    }
    // The signals are sent to the connections that ask (WatchEvents), again after a restart.
    func watchEvents() {
      link.bus.call(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface, method: "WatchEvents", timeout: 5
      ) { result in
        if case .failure(let error) = result {
          writeText("responderctl monitor: WatchEvents failed: \(error.message)\n", to: .standardError)
        }
      }
    }
    // Keys of owned devices that are neither media nor volume keys: shown too, never swallowed.
    link.bus.onSignal(
      sender: ResponderBusAPI.daemonName, path: KeysComponent.devicesPath,
      interface: KeysComponent.devicesInterface,
      member: "KeyPressed"
    ) { message in
      let values = message.arguments
      guard values.count == 5, let key = values[0].string, let device = values[2].string,
        let timestamp = values[3].double, let action = values[4].string
      else { return }
      output(
        json
          ? JSON.object([
            ("time", .string(WallClock.now().iso8601)), ("timestamp", .number(timestamp)),
            ("type", .string("key")),
            ("key", .string(key)), ("device", .string(device)), ("path", .string(values[1].string ?? "")),
            ("action", .string(action)),
          ]).text
          : WallClock.now().local + "  " + padded("key", 14) + padded(key, 22)
            + "on '\(device)' (owned): \(action)")
      seen += 1
      if let count, seen >= count { link.loop.stop() }
    }
    var announcedOwner: String? = link.owner
    link.bus.watchNameOwner(ResponderBusAPI.daemonName) { owner in
      guard owner != announcedOwner else { return }
      announcedOwner = owner
      if let owner {
        watchEvents()
        writeText("responderctl monitor: responderd is back on the bus (\(owner))\n", to: .standardError)
      } else {
        writeText(
          "responderctl monitor: responderd left the bus; waiting for it to come back\n", to: .standardError)
      }
    }
    link.bus.addObserver { event in
      guard case .disconnected(let error) = event else { return }
      failure = DaemonLinkFailure.lostBus(error)
      link.loop.stop()
    }
    try link.loop.onSignals([SIGINT, SIGTERM]) { _ in link.loop.stop() }
    // Answered once responderd sends us the events: none is missed from here on.
    do {
      _ = try link.bus.callAndWait(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface, method: "WatchEvents", timeout: 5)
    } catch {
      writeText("responderctl monitor: WatchEvents failed: \(error.message)\n", to: .standardError)
    }
    writeText(
      "responderctl monitor: following events dispatched by responderd (\(link.owner)); Ctrl-C stops\n",
      to: .standardError
    )
    if count.map({ $0 > 0 }) ?? true { link.loop.run() }
    if let failure { throw failure }
  }

  static func textLine(_ event: DispatchedEvent) -> String {
    let subtype = event.phase.map { "\(event.subtype) \($0)" } ?? event.subtype
    let outcome =
      event.handledBy.map { "handled by \($0)" }
      ?? "dropped (\(event.dropReason ?? DispatchRecord.unhandled))"
    return WallClock.now().local + "  " + padded(event.type, 14) + padded(subtype, 22) + outcome
  }

  static func jsonLine(_ event: DispatchedEvent) -> String {
    var fields: [(String, JSON)] = [
      ("time", .string(WallClock.now().iso8601)), ("timestamp", .number(event.timestamp)),
      ("type", .string(event.type)), ("subtype", .string(event.subtype)),
    ]
    if let phase = event.phase { fields.append(("phase", .string(phase))) }
    fields.append(("handledBy", event.handledBy.map(JSON.string) ?? .null))
    if let reason = event.dropReason { fields.append(("dropReason", .string(reason))) }
    fields.append(("source", .string(event.source)))
    fields.append(("receivedBy", .array(event.receivedBy.map(JSON.string))))
    return JSON.object(fields).text
  }
}

/// Why a long-running command stopped.
enum DaemonLinkFailure {
  static func lostBus(_ error: DBusError) -> ExitCode {
    failure("lost the session bus (\(error.message))")
  }
}
