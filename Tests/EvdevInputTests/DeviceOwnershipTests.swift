import EvdevInput
import Testing

/// The ownership of one device, event by event: no device is opened.
@Suite struct DeviceOwnershipTests {
  /// Feeds `events` from `state`, returning the state reached and every action asked for.
  func run(_ events: [DeviceOwnership.Event], from state: DeviceOwnership = .shared) -> (
    DeviceOwnership, [DeviceOwnership.Action]
  ) {
    var state = state
    var actions: [DeviceOwnership.Action] = []
    for event in events { actions += state.handle(event) }
    return (state, actions)
  }

  @Test func aDeviceNotToBeOwnedIsSharedAndNeverGrabbed() {
    let (state, actions) = run([.opened(toBeOwned: false), .eventsRead, .eventsRead])
    #expect(state == .shared)
    #expect(actions == [.reportStatus])
    #expect(!state.isOwned)
  }

  @Test func aDeviceToBeOwnedIsGrabbedAtOnceWhenEveryKeyIsUp() {
    var state = DeviceOwnership.yieldedToDesktop
    #expect(state.handle(.opened(toBeOwned: true)) == [.grab])
    #expect(state == .shared)
    #expect(state.handle(.grabbed) == [.discardPending, .reportStatus])
    #expect(state == .owned)
    #expect(state.isOwned)
  }

  @Test func aKeyDownWaitsForEveryKeyUpTellingOnce() {
    var state = DeviceOwnership.shared
    _ = state.handle(.opened(toBeOwned: true))
    #expect(state.handle(.keyDown) == [.reportStatus])
    #expect(state == .waitingForKeysUp)
    // Each read tries again; a key still down says nothing new.
    #expect(state.handle(.eventsRead) == [.grab])
    #expect(state.handle(.keyDown) == [])
    #expect(state.handle(.eventsRead) == [.grab])
    #expect(state.handle(.grabbed) == [.discardPending, .reportStatus])
    #expect(state == .owned)
    // Once owned, reading asks for nothing.
    #expect(state.handle(.eventsRead) == [])
  }

  @Test func aFailedGrabLeavesItBusyForGoodReadingOnlyMappedKeys() {
    let (busy, actions) = run([.opened(toBeOwned: true), .grabFailed(busy: true), .eventsRead, .keyDown])
    #expect(busy == .busy(heldByAnother: true))
    #expect(actions == [.grab, .readMappedKeysOnly, .reportStatus])
    let (failed, _) = run([.opened(toBeOwned: true), .keyDown, .grabFailed(busy: false), .grabbed])
    #expect(failed == .busy(heldByAnother: false))
  }

  @Test func theDesktopGetsSharedAndBusyDevicesButNotOwnedOrWaitingOnes() {
    for state in [DeviceOwnership.shared, .busy(heldByAnother: true)] {
      #expect(run([.desktopAppeared], from: state) == (.yieldedToDesktop, [.close, .reportStatus]))
    }
    for state in [DeviceOwnership.owned, .waitingForKeysUp] {
      #expect(run([.desktopAppeared], from: state) == (state, []))
    }
  }

  @Test func aYieldedDeviceIsOpenedAgainWhenTheDesktopLeavesDroppingWhatItHad() {
    #expect(run([.desktopLeft], from: .yieldedToDesktop) == (.yieldedToDesktop, [.reopen, .discardPending]))
    #expect(run([.desktopLeft], from: .shared) == (.shared, []))
    #expect(run([.desktopLeft], from: .suspended) == (.suspended, []))
  }

  @Test func anInactiveSessionClosesOpenDevicesAndKeepsClosedOnesClosed() {
    for state in [DeviceOwnership.shared, .waitingForKeysUp, .owned, .busy(heldByAnother: false)] {
      #expect(state.isOpen)
      #expect(run([.sessionInactive], from: state) == (.suspended, [.close, .reportStatus]))
    }
    #expect(!DeviceOwnership.yieldedToDesktop.isOpen)
    #expect(run([.sessionInactive], from: .yieldedToDesktop) == (.suspended, [.reportStatus]))
    #expect(
      run([.sessionInactive, .sessionInactive], from: .owned) == (.suspended, [.close, .reportStatus]))
    // Suspended, nothing but opening it again moves it.
    #expect(run([.desktopAppeared, .eventsRead, .grabbed], from: .suspended) == (.suspended, []))
  }
}
