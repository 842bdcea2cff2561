/// `[undo]`: the built-in `undo` handler, shake to undo in the focused text field of any
/// application (docs/shake-to-undo.md).
///
/// ```toml
/// [undo]
/// enabled = true          # false: a shake nobody else takes does nothing
/// question-timeout = 8    # s: the "Undo Typing" question closes itself after this long
/// ```
public struct UndoSettings: Equatable {
  /// Whether a shake nobody else took asks to undo in the focused text field.
  public var enabled = true
  /// How long the question stays open unanswered (seconds).
  public var questionTimeout = 8.0

  public init() {}

  init(_ section: ConfigSection) throws {
    enabled = try section.bool("enabled", default: enabled)
    questionTimeout = try section.double("question-timeout", default: questionTimeout, range: 1...600)
    try section.finish()
  }
}
