import DBus
import EventLoop
import EventTime
import ResponderClient
import ResponderConfig
import ResponderCore
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// `responderctl respond --events motion -- CMD ARGS…`: a responder that runs a command per event.
struct RespondCommand {
  static var command: Command {
    Command(
      name: "respond",
      abstract: "Register as a responder, become first responder, and run a command for each event.",
      discussion: """
        The command runs without a shell, once per event, with RESPONDERD_EVENT_TYPE,
        RESPONDERD_EVENT_SUBTYPE, RESPONDERD_EVENT_TIMESTAMP (and RESPONDERD_EVENT_PHASE for motion)
        in its environment; the event counts as handled when the command starts. Ctrl-C or SIGTERM
        unregisters and exits. When responderd restarts, responderctl registers again.
        Example: responderctl respond --events motion -- notify-send "shaken"
        """,
      arguments: [
        .option(
          "--events", help: "The event types to take, comma-separated: motion, remoteControl.",
          defaultValue: "motion"),
        .flag("--no-first-responder", help: "Stay in the chain without becoming first responder."),
        .remainder("command", help: "The command and its arguments, after --."),
      ]
    ) { arguments in
      let command = RespondCommand(
        events: arguments.string("events") ?? "motion",
        noFirstResponder: arguments.flag("no-first-responder"),
        commandLine: arguments.remainder)
      try command.validate()
      try command.run()
    }
  }

  var events = "motion"
  var noFirstResponder = false
  /// The command to run for each event, and its arguments.
  var commandLine: [String] = []

  func eventTypes() throws -> Set<EventType> {
    var types = Set<EventType>()
    for name in events.split(separator: ",") {
      let trimmed = name.trimmingSpaces
      guard let type = EventType(name: trimmed), ResponderBusAPI.registrableEventTypes.contains(type) else {
        throw ValidationError("unknown event type '\(trimmed)' in --events; use motion and/or remoteControl")
      }
      types.insert(type)
    }
    guard !types.isEmpty else { throw ValidationError("--events is empty; use motion and/or remoteControl") }
    return types
  }

  func validate() throws {
    _ = try eventTypes()
    guard !commandLine.isEmpty else { throw ValidationError("give the command to run after --") }
  }

  func run() throws {
    let types = try eventTypes()
    let link = try DaemonLink.connect()
    let children = ChildProcesses(loop: link.loop)
    // The commands started end with this one (Ctrl-C, SIGTERM, responderd lost): each runs in a
    // process group of its own, which a terminal's Ctrl-C does not reach; killed, the kernel
    // ends them (their parent-death signal); what they leave behind is taken in and ended too.
    children.adoptOrphans()
    defer { children.endAll() }
    let client: ResponderClient
    do {
      client = try ResponderClient(connection: link.bus, path: "/org/responderd/Respond", eventTypes: types)
    } catch {
      throw failure("cannot export the responder object: \(error.message)")
    }
    let program = commandLine[0]
    client.onEvent = { event in
      var environment = [
        "RESPONDERD_EVENT_TYPE": event.type.name,
        "RESPONDERD_EVENT_SUBTYPE": event.subtype.name,
        "RESPONDERD_EVENT_TIMESTAMP": formatSeconds(event.timestamp, decimals: 6),
      ]
      if let phase = event.phase { environment["RESPONDERD_EVENT_PHASE"] = phase.rawValue }
      do {
        let pid = try children.spawn(commandLine, extraEnvironment: environment) { status in
          if status != 0 {
            writeText("responderctl respond: \(program) exited with status \(status)\n", to: .standardError)
          }
        }
        writeText("responderctl respond: \(event) → \(program) (pid \(pid))\n", to: .standardError)
        return true
      } catch {
        writeText("responderctl respond: \(event): cannot start \(program): \(error)\n", to: .standardError)
        return false
      }
    }
    client.addObserver { event in
      switch event {
      case .daemonLost:
        writeText(
          "responderctl respond: responderd went away; registering again when it is back\n",
          to: .standardError)
      case .registered(let id):
        writeText(
          "responderctl respond: registered as responder \(id) for \(self.events)\n", to: .standardError)
      case .firstResponderChanged(let isFirst):
        writeText(
          "responderctl respond: \(isFirst ? "is" : "is no longer") the first responder\n", to: .standardError
        )
      }
    }

    var registration: Result<UInt32, DBusError>?
    client.register(becomeFirstResponder: false) { registration = $0 }
    link.loop.run(until: { registration != nil }, timeout: client.timeout + 1)
    switch registration {
    case .success?: break
    case .failure(let error)?: throw failure("RegisterResponder failed: \(error.message)")
    case nil: throw failure("responderd did not answer RegisterResponder")
    }
    if !noFirstResponder {
      var accepted: Result<Bool, DBusError>?
      client.becomeFirstResponder { accepted = $0 }
      link.loop.run(until: { accepted != nil }, timeout: client.timeout + 1)
      if case .success(false)? = accepted {
        writeText(
          "responderctl respond: the first responder refuses to resign; staying in the chain after it\n",
          to: .standardError)
      } else if case .failure(let error)? = accepted {
        writeText("responderctl respond: BecomeFirstResponder failed: \(error.message)\n", to: .standardError)
      }
    }

    var failureCode: ExitCode?
    var unregistered = false
    link.bus.addObserver { event in
      guard case .disconnected(let error) = event else { return }
      failureCode = DaemonLinkFailure.lostBus(error)
      link.loop.stop()
    }
    try link.loop.onSignals([SIGINT, SIGTERM]) { _ in
      client.unregister { _ in
        unregistered = true
        link.loop.stop()
      }
      link.loop.scheduler.schedule(after: 2) { link.loop.stop() }
    }
    link.loop.run()
    if let failureCode { throw failureCode }
    link.bus.flush()
    guard unregistered else { throw failure("responderd did not answer UnregisterResponder") }
    writeText("responderctl respond: unregistered; bye\n", to: .standardError)
  }
}

extension Substring {
  var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
