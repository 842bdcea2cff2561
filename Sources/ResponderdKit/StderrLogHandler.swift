import Logging
import ResponderConfig
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A swift-log handler writing one line per message to stderr. Under systemd (JOURNAL_STREAM set)
/// each line starts with the syslog priority (`<6>`), which journald turns into the priority field;
/// in a terminal it starts with the level name.
public struct StderrLogHandler: Logging.LogHandler {
  public var metadata: Logger.Metadata = [:]
  public var logLevel: Logger.Level
  private let label: String
  private let journald: Bool

  public init(label: String, level: Logger.Level = .info) {
    self.label = label
    self.logLevel = level
    self.journald = environment("JOURNAL_STREAM") != nil
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    let fields = metadata.logLineFields(merging: event.metadata)
    let prefix = journald ? "<\(Self.priority(event.level))>" : "\(event.level): "
    writeText("\(prefix)\(event.message)\(fields)\n", to: .standardError)
  }

  /// The syslog priority of a level.
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }
}

extension Logger.Metadata {
  /// How a log line ends: " key=value" for each field, sorted by key, those of `extra` (a
  /// message's own) taking precedence over these (the handler's).
  public func logLineFields(merging extra: Logger.Metadata?) -> String {
    var merged = self
    if let extra { merged.merge(extra) { $1 } }
    return merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
  }
}
