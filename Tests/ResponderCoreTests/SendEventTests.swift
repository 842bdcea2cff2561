import EventTime
import ResponderCore
import Testing

/// An application that sees every event first, as seed 003 describes ("如果需要，可以通过子类化
/// UIApplication 并重写此方法来拦截传入的事件。对于你拦截的每个事件，必须在实现中处理事件后通过调用
/// [super sendEvent:event] 进行调度"): it logs each event, keeps the play events to itself, and
/// passes the others on.
final class InterceptingApplication: Application {
  var seen: [String] = []
  override func sendEvent(_ event: Event) {
    seen.append(event.subtype == .none ? "\(event.type)" : "\(event.type)/\(event.subtype)")
    if event.subtype == .remoteControlPlay { return }
    super.sendEvent(event)
  }
}

@Suite struct SendEventTests {
  @Test func anOverrideSeesRemoteControlMotionAndTouchEvents() {
    let app = InterceptingApplication(scheduler: VirtualScheduler())
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    app.beginReceivingRemoteControlEvents()
    let first = Node("first", next: app, handles: [.motion, .remoteControl])
    first.becomes = true
    #expect(first.becomeFirstResponder())

    app.post(.remoteControl(.remoteControlNextTrack, timestamp: 1))
    app.post(.motion(timestamp: 2))
    app.post(.motion(timestamp: 3), phase: .ended)
    app.sendEvent(Event(type: .touches, timestamp: 4))
    #expect(app.seen == ["remoteControl/nextTrack", "motion/motionShake", "motion/motionShake", "touches"])
    // Passed on with super: delivered as before, with the motion phase it was posted with.
    #expect(first.received == ["remote:nextTrack", "motionBegan", "motionEnded"])
    #expect(records.map(\.handledBy) == ["first", "first", "first", nil])
  }

  @Test func anEventTheOverrideKeepsEndsThereAndTheQueueGoesOn() {
    let app = InterceptingApplication(scheduler: VirtualScheduler())
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    app.beginReceivingRemoteControlEvents()
    let first = Node("first", next: app, handles: [.remoteControl])
    first.becomes = true
    first.becomeFirstResponder()

    app.post(.remoteControl(.remoteControlPlay, timestamp: 1))
    app.post(.remoteControl(.remoteControlPause, timestamp: 2))
    #expect(app.seen == ["remoteControl/play", "remoteControl/pause"])
    #expect(first.received == ["remote:pause"])
    #expect(records.count == 2)
    #expect(records[0].wasDropped)
    #expect(records[0].dropReason == "kept by sendEvent")
    #expect(records[1].handledBy == "first")
    #expect(app.pendingEventCount == 0)
  }
}
