import ResponderdKit
import Testing

/// Whether the touch gestures component follows the touchscreens, event by event: no device is
/// opened.
@Suite struct TouchscreenWatchTests {
  /// Feeds `events` from `state`, returning the state reached and every action asked for.
  func run(_ events: [TouchscreenWatch.Event], from state: TouchscreenWatch = .off) -> (
    TouchscreenWatch, [TouchscreenWatch.Action]
  ) {
    events.reduce(into: (state, [])) { reached, event in reached.1 += reached.0.handle(event) }
  }

  @Test func startedWithTheSessionOpenItFollowsAtOnce() {
    #expect(run([.started(sessionOpen: true)]) == (.following, [.watch]))
  }

  @Test func startedWhileTheSessionHoldsTheDevicesItWaitsClosed() {
    #expect(run([.started(sessionOpen: false)]) == (.held, []))
    #expect(run([.started(sessionOpen: false), .sessionClosed, .sessionOpened]) == (.following, [.watch]))
  }

  @Test func anotherSessionInFrontClosesItAndItsReturnOpensItOnce() {
    let (state, actions) = run([
      .started(sessionOpen: true), .sessionClosed, .sessionClosed, .sessionOpened, .sessionOpened,
    ])
    #expect(state == .following)
    #expect(actions == [.watch, .close, .watch])
  }

  @Test func notStartedTheSessionChangesNothing() {
    #expect(run([.sessionClosed, .sessionOpened, .sessionClosed]) == (.off, []))
  }

  @Test func stoppingClosesWhateverTheStateAndTheSessionNoLongerOpensIt() {
    for state in [TouchscreenWatch.off, .following, .held] {
      #expect(run([.stopped, .sessionOpened], from: state) == (.off, [.close]))
    }
  }
}
