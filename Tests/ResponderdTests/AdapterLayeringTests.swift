import Testing

/// Adapters read, the core decides (issue 48, item 3): the evdev reader reaches neither the key
/// interpreter nor the touch dispatch through what Package.swift declares, so what its keys and
/// touches mean is decided above it.
@Suite struct AdapterLayeringTests {
  /// Every target `name` depends on, directly or through others.
  func reach(of name: String) throws -> Set<String> {
    let targets = try ArchitectureCheck.targets(DocumentationTests.read("Package.swift"))
    let dependencies = Dictionary(targets.map { ($0.name, $0.dependencies) }) { first, _ in first }
    var reached: Set<String> = []
    var pending = Array(dependencies[name] ?? [])
    while let next = pending.popLast() {
      guard reached.insert(next).inserted else { continue }
      pending += dependencies[next] ?? []
    }
    return reached
  }

  @Test func theEvdevReaderReachesNeitherTheKeyInterpreterNorTheTouchDispatch() throws {
    let reached = try reach(of: "EvdevInput")
    #expect(reached.contains("CEvdev"))
    #expect(!reached.contains("RemoteControl"))
    #expect(!reached.contains("TouchDispatch"))
  }

  @Test func theServiceKitRunsThemAboveIt() throws {
    let reached = try reach(of: "ResponderdKit")
    #expect(reached.isSuperset(of: ["EvdevInput", "RemoteControl", "TouchDispatch"]))
  }
}
