import Testing

extension Trait where Self == ConditionTrait {
  /// Runs the test when `missing` is nil; else skips it with that as the reason (a program or
  /// fixture the test needs and this machine lacks).
  public static func enabledUnless(missing: String?) -> Self {
    .enabled(if: missing == nil, Comment(rawValue: missing ?? ""))
  }
}
