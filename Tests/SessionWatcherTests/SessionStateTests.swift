import SessionWatcher
import Testing

/// The session's state as a value: where it stands on its seat, who says it is locked, and the
/// one word the inputs and tools read from both.
@Suite struct SessionStateTests {
  @Test func withoutLogindNorAScreenSaverTheSessionIsActiveAndUnlocked() {
    let state = SessionState()
    #expect(state.phase == .active && state.isInFront)
    #expect(state.description == "active")
  }

  @Test func eitherLockLocksAnActiveSessionAndBothMustGo() {
    var state = SessionState(.active, sessionID: "3")
    state.set(.screenSaver, locked: true)
    #expect(state.phase == .locked && !state.isInFront)
    #expect(state.description == "active, locked (screen saver)")
    state.set(.logind, locked: true)
    #expect(state.description == "active, locked (logind, screen saver)")
    state.set(.screenSaver, locked: false)
    #expect(state.phase == .locked && state.word == "locked")
    state.set(.logind, locked: false)
    #expect(state == SessionState(.active, sessionID: "3"))
  }

  @Test func anInactiveSessionIsInactiveWhateverItsLocks() {
    let state = SessionState(.inactive, locks: [.logind, .screenSaver])
    #expect(state.phase == .inactive && state.word == "inactive" && state.description == "inactive")
    #expect(!state.isActive && state.isLocked && !state.isInFront)
  }
}
