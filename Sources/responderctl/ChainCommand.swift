import ResponderClient
import ResponderTools
import TouchScenes

/// `responderctl chain`: the chain of responders now, the first responder marked.
struct ChainCommand {
  static var command: Command {
    Command(
      name: "chain",
      abstract: "Show the responder chain now: the first responder (marked *), the other applications "
        + "(most recently registered first), then the built-in handlers in config order.",
      discussion: "An event goes down the chain until someone handles it; at the end it is dropped. "
        + "Applications and handlers only see the event types they take. An application that follows "
        + "its window's focus shows (window active) or (window inactive): an inactive one gets no shake. "
        + "An application whose connection missed its deadlines says so, and why its events pass it by.",
      arguments: [.json]
    ) { try ChainCommand(json: $0.flag("json")).run() }
  }

  var json = false

  func run() throws {
    let properties = try DaemonLink.connect(json: json).properties()
    let chain = ChainEntry.list(properties["Chain"])
    if json {
      let first = chain.first { $0.isFirstResponder }?.id
      output(
        JSON.object([
          ("firstResponder", first.map { .number(Double($0)) } ?? .null),
          ("chain", .array(chain.map(\.json))),
        ]).text)
      return
    }
    let nameWidth = max(4, chain.map(\.name.count).max() ?? 0) + 2
    let eventsWidth = max(6, chain.map(\.events.count).max() ?? 0) + 2
    output("  " + padded("NAME", nameWidth) + padded("KIND", 9) + padded("EVENTS", eventsWidth) + "OWNER")
    for entry in chain {
      let owner =
        [entry.busName, entry.path, entry.focus.map { "(window \($0))" }, entry.passedOver.map { "(\($0))" }]
        .compactMap { $0 }.joined(separator: " ")
      let line =
        (entry.isFirstResponder ? "* " : "  ") + padded(entry.name, nameWidth) + padded(entry.kind, 9)
        + padded(entry.events, eventsWidth) + owner
      output(String(line.reversed().drop { $0 == " " }.reversed()))
    }
    output("  (end of chain: dropped)")
    if chain.contains(where: \.isFirstResponder) { output("* first responder") }
  }
}

extension ChainEntry {
  /// The EVENTS column: the types it takes, or "none" (a `command` handler with no command).
  var events: String { eventTypes.isEmpty ? "none" : eventTypes.joined(separator: ", ") }
}
