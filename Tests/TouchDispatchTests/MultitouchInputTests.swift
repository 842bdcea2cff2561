import EventTime
import InputCodes
import ResponderCore
import Testing
import TouchDispatch

private func abs(_ code: UInt16, _ value: Int32, at time: Seconds = 1) -> RawInputEvent {
  RawInputEvent(time: time, type: InputCode.EV_ABS, code: code, value: value)
}
private func syn(at time: Seconds = 1) -> RawInputEvent {
  RawInputEvent(time: time, type: InputCode.EV_SYN, code: InputCode.SYN_REPORT, value: 0)
}
private func dropped(at time: Seconds = 1) -> RawInputEvent {
  RawInputEvent(time: time, type: InputCode.EV_SYN, code: InputCode.SYN_DROPPED, value: 0)
}
private let slot = InputCode.ABS_MT_SLOT
private let id = InputCode.ABS_MT_TRACKING_ID
private let x = InputCode.ABS_MT_POSITION_X
private let y = InputCode.ABS_MT_POSITION_Y

/// A frame of contacts, each (slot, tracking id, x, y).
private func frame(_ time: Seconds, _ contacts: (Int, Int32, Int32, Int32)...) -> MultitouchReport {
  .frame(time: time, contacts: contacts.map { RawContact(slot: $0.0, trackingID: $0.1, x: $0.2, y: $0.3) })
}

private func feed(_ decoder: inout MultitouchDecoder, _ events: [RawInputEvent]) -> [MultitouchReport] {
  events.compactMap { decoder.feed($0) }
}

@Suite struct MultitouchDecoderTests {
  /// The kernel documentation's protocol B example: two contacts, a move of the second, a release.
  @Test func kernelDocumentationExample() {
    var decoder = MultitouchDecoder()
    let reports = feed(
      &decoder,
      [
        abs(slot, 0), abs(id, 45), abs(x, 10), abs(y, 20), abs(slot, 1), abs(id, 46), abs(x, 30),
        abs(y, 40), syn(at: 1),
        abs(slot, 1), abs(x, 35), syn(at: 2),  // only the changed value is sent
        abs(slot, 0), abs(id, -1), syn(at: 3),
      ])
    #expect(
      reports == [
        frame(1, (0, 45, 10, 20), (1, 46, 30, 40)),
        frame(2, (0, 45, 10, 20), (1, 46, 35, 40)),
        frame(3, (1, 46, 35, 40)),
      ])
  }

  /// The slot selection persists across frames; values before any ABS_MT_SLOT go to slot 0.
  @Test func slotPersistsAcrossFrames() {
    var decoder = MultitouchDecoder()
    let reports = feed(
      &decoder,
      [
        abs(id, 7), abs(x, 1), abs(y, 2), abs(InputCode.ABS_MT_TOUCH_MAJOR, 12),
        abs(InputCode.ABS_MT_PRESSURE, 40),
        syn(at: 1), abs(x, 5), syn(at: 2), syn(at: 3),
      ])
    #expect(reports.count == 2)  // an unchanged frame reports nothing
    #expect(
      reports.last
        == .frame(
          time: 2, contacts: [RawContact(slot: 0, trackingID: 7, x: 5, y: 2, touchMajor: 12, pressure: 40)]))
  }

  /// A new tracking id in a used slot, in one frame, is a new contact (the old one lifted).
  @Test func newTrackingIDReplacesTheContact() {
    var decoder = MultitouchDecoder()
    let reports = feed(
      &decoder, [abs(id, 1), abs(x, 10), abs(y, 10), syn(at: 1), abs(id, 2), abs(x, 50), syn(at: 2)])
    #expect(reports.last == frame(2, (0, 2, 50, 10)))
  }

  /// SYN_DROPPED: everything until the next SYN_REPORT is discarded, the contacts are lost, their
  /// slots silent until released or touched again; the current slot is unknown until ABS_MT_SLOT.
  @Test func synDropped() {
    var decoder = MultitouchDecoder()
    var reports = feed(
      &decoder,
      [
        abs(slot, 0), abs(id, 200), abs(x, 500), abs(y, 900), syn(at: 6.1),
        abs(x, 510, at: 6.2), dropped(at: 6.2), abs(x, 999, at: 6.2), abs(slot, 1, at: 6.2),
        abs(id, 9, at: 6.2),
        syn(at: 6.3),
      ])
    #expect(
      reports == [
        frame(6.1, (0, 200, 500, 900)),
        .dropped(time: 6.3),
      ])
    reports = feed(&decoder, [abs(x, 520, at: 6.4), syn(at: 6.4)])  // slot unknown: ignored
    #expect(reports == [])
    reports = feed(&decoder, [abs(slot, 0, at: 6.5), abs(x, 530, at: 6.5), syn(at: 6.5)])  // stale slot
    #expect(reports == [])
    reports = feed(
      &decoder,
      [
        abs(id, -1, at: 6.6), syn(at: 6.6), abs(id, 201, at: 6.7), abs(x, 100, at: 6.7), abs(y, 100, at: 6.7),
        syn(at: 6.7),
      ])
    #expect(reports == [frame(6.7, (0, 201, 100, 100))])
  }
}

@Suite struct TouchCalibrationTests {
  let ranges = (x: Int32(0)...1079, y: Int32(0)...2339)

  /// The ranges stretch over the screen: the minimum is the edge, each unit a 1/(max-min+1) step.
  @Test func unrotated() {
    let c = TouchCalibration(xRange: ranges.x, yRange: ranges.y, screen: Size(width: 540, height: 1170))
    #expect(c.point(x: 0, y: 0) == Point(x: 0, y: 0))
    #expect(c.point(x: 300, y: 600) == Point(x: 150, y: 300))
    #expect(c.point(x: 1080, y: 2340) == Point(x: 540, y: 1170))
    let offset = TouchCalibration(
      xRange: 100...1099, yRange: -500...499, screen: Size(width: 100, height: 100))
    #expect(offset.point(x: 100, y: -500) == Point(x: 0, y: 0))
    #expect(offset.point(x: 600, y: 0) == Point(x: 50, y: 50))
  }

  /// Rotations: where each corner of the panel lands on the screen the user sees.
  @Test func rotations() {
    let panel = (x: Int32(0)...999, y: Int32(0)...1999)  // a portrait panel, 1000 × 2000 units
    func calibration(_ r: TouchRotation) -> TouchCalibration {
      let turned = r == .degrees90 || r == .degrees270
      return TouchCalibration(
        xRange: panel.x, yRange: panel.y,
        screen: turned ? Size(width: 2000, height: 1000) : Size(width: 1000, height: 2000),
        rotation: r)
    }
    // The panel's top-left corner (0, 0) and a point near its top edge, 100 units right of the corner.
    #expect(calibration(.degrees0).point(x: 0, y: 0) == Point(x: 0, y: 0))
    #expect(calibration(.degrees0).point(x: 100, y: 0) == Point(x: 100, y: 0))
    // 90° clockwise: the panel's top edge is the screen's right edge, its left edge the top.
    #expect(calibration(.degrees90).point(x: 0, y: 0) == Point(x: 1999, y: 0))
    #expect(calibration(.degrees90).point(x: 100, y: 0) == Point(x: 1999, y: 100))
    #expect(calibration(.degrees90).point(x: 0, y: 1999) == Point(x: 0, y: 0))
    // 180°: upside down.
    #expect(calibration(.degrees180).point(x: 0, y: 0) == Point(x: 999, y: 1999))
    #expect(calibration(.degrees180).point(x: 999, y: 1999) == Point(x: 0, y: 0))
    // 270°: the panel's top edge is the screen's left edge, its left edge the bottom.
    #expect(calibration(.degrees270).point(x: 0, y: 0) == Point(x: 0, y: 999))
    #expect(calibration(.degrees270).point(x: 100, y: 0) == Point(x: 0, y: 899))
    #expect(calibration(.degrees270).point(x: 999, y: 1999) == Point(x: 1999, y: 0))
    // Every rotation maps the panel's centre to the screen's centre.
    for r in TouchRotation.allCases {
      let c = calibration(r).point(x: 500, y: 1000)
      #expect(
        abs(c.x - calibration(r).screen.width / 2) <= 1 && abs(c.y - calibration(r).screen.height / 2) <= 1)
    }
    #expect(TouchRotation(degrees: 45) == nil)
  }

  /// Contact size and pressure become radius and force.
  @Test func radiusAndForce() {
    let c = TouchCalibration(
      xRange: 0...999, yRange: 0...999, screen: Size(width: 500, height: 500), pressureRange: 0...255)
    let sample = c.sample(RawContact(slot: 2, trackingID: 9, x: 500, y: 250, touchMajor: 40, pressure: 51))
    #expect(sample.location == Point(x: 250, y: 125))
    #expect(sample.majorRadius == 10)
    #expect(sample.force == 0.2 && sample.maximumPossibleForce == 1)
    #expect(sample.slot == 2 && sample.trackingID == 9)
  }
}

@Suite struct TouchscreenInputTests {
  /// A recording (evemu format) through decoder, calibration and window: the view gets the two
  /// fingers at the calibrated places, and a drop cancels the touch under way.
  @Test func recordingToViews() throws {
    let text = """
      N: Goodix Capacitive TouchScreen
      I: 0018 0416 038f 0100
      A: 35 0 1079 0 0 0
      A: 36 0 2339 0 0 0
      E: 5.100000 0003 002f 0
      E: 5.100000 0003 0039 100
      E: 5.100000 0003 0035 300
      E: 5.100000 0003 0036 600
      E: 5.100000 0000 0000 0
      E: 5.116000 0003 002f 1
      E: 5.116000 0003 0039 101
      E: 5.116000 0003 0035 700
      E: 5.116000 0003 0036 1200
      E: 5.116000 0000 0000 0
      E: 5.132000 0003 002f 0
      E: 5.132000 0003 0035 310
      E: 5.132000 0000 0000 0
      E: 5.148000 0003 0039 -1
      E: 5.148000 0000 0000 0
      E: 5.164000 0003 002f 1
      E: 5.164000 0003 0039 -1
      E: 5.164000 0000 0000 0
      E: 6.100000 0003 002f 0
      E: 6.100000 0003 0039 200
      E: 6.100000 0003 0035 500
      E: 6.100000 0003 0036 900
      E: 6.100000 0000 0000 0
      E: 6.200000 0003 0035 510
      E: 6.200000 0000 0003 0
      E: 6.300000 0000 0000 0
      """
    let recording = try EvemuRecording(text: text)
    let scheduler = VirtualScheduler(now: 5)
    let window = Window(frame: Rect(x: 0, y: 0, width: 540, height: 1170), scheduler: scheduler)
    let log = Log()
    let view = RecordingView("V", frame: window.bounds, log: log)
    view.isMultipleTouchEnabled = true
    window.addSubview(view)
    var positions: [Point] = []
    window.addDeliveryObserver { delivery in
      if delivery.method == .touchesBegan { positions += delivery.touches.map(\.locationInWindow) }
    }
    let x = recording.absoluteAxes[InputCode.ABS_MT_POSITION_X]!
    let y = recording.absoluteAxes[InputCode.ABS_MT_POSITION_Y]!
    let screen = TouchscreenInput(
      window: window,
      calibration: TouchCalibration(
        xRange: x.minimum...x.maximum, yRange: y.minimum...y.maximum, screen: Size(width: 540, height: 1170)))
    for event in recording.events {
      scheduler.advance(to: event.time)
      screen.handle(event)
    }
    #expect(
      log.take() == [
        "V touchesBegan 0", "V touchesBegan 1", "V touchesMoved 0", "V touchesEnded 0", "V touchesEnded 1",
        "V touchesBegan 0", "V touchesCancelled 0",
      ])
    #expect(positions == [Point(x: 150, y: 300), Point(x: 350, y: 600), Point(x: 250, y: 450)])
  }
}

/// Issue 25: the slot state as the kernel keeps it, and protocol A.
@Suite struct MultitouchSlotStateTests {
  /// A quick second tap where the first lifted: the kernel drops values equal to the slot's, so
  /// the new contact sends its tracking id and nothing else; it lands where the first one lifted,
  /// with the slot's touch major, pressure and orientation, not at (0, 0).
  @Test func aNewContactKeepsTheSlotsValues() {
    var decoder = MultitouchDecoder()
    let orientation = UInt16(0x34)
    let reports = feed(
      &decoder,
      [
        abs(slot, 0), abs(id, 1), abs(x, 300), abs(y, 700), abs(InputCode.ABS_MT_TOUCH_MAJOR, 12),
        abs(InputCode.ABS_MT_PRESSURE, 40), abs(orientation, 3), syn(at: 1),
        abs(id, -1), syn(at: 1.08),
        abs(id, 2), syn(at: 1.2),  // the same place, the same size: only the tracking id
        abs(id, -1), syn(at: 1.28),
        abs(id, 3), abs(y, 705), syn(at: 1.4),  // one axis changed: the others are the slot's
      ])
    var expected = RawContact(slot: 0, trackingID: 2, x: 300, y: 700, touchMajor: 12, pressure: 40)
    expected.axes[orientation] = 3
    #expect(reports.count == 5)
    #expect(reports[2] == .frame(time: 1.2, contacts: [expected]))
    expected.trackingID = 3
    expected.y = 705
    #expect(reports[4] == .frame(time: 1.4, contacts: [expected]))
  }

  private func contact(_ x: Int32, _ y: Int32) -> [RawInputEvent] {
    [abs(InputCode.ABS_MT_POSITION_X, x), abs(InputCode.ABS_MT_POSITION_Y, y), mtReport()]
  }
  private func mtReport() -> RawInputEvent {
    RawInputEvent(time: 1, type: InputCode.EV_SYN, code: InputCode.SYN_MT_REPORT, value: 0)
  }

  /// Protocol A: contacts in any order each frame are matched to the last frame's by least total
  /// squared distance (libmtdev's rule); a new one takes the lowest free slot and a new tracking
  /// id; an empty frame lifts them all.
  @Test func protocolAContactsAreTracked() {
    var decoder = MultitouchDecoder()
    var reports = feed(&decoder, contact(100, 100) + [syn(at: 1)])
    #expect(decoder.isProtocolA)
    #expect(reports == [frame(1, (0, 0, 100, 100))])
    // A second finger, sent first.
    reports = feed(&decoder, contact(500, 500) + contact(104, 100) + [syn(at: 2)])
    #expect(
      reports == [
        frame(2, (0, 0, 104, 100), (1, 1, 500, 500))
      ])
    // The order flips again; both move.
    reports = feed(&decoder, contact(110, 104) + contact(490, 505) + [syn(at: 3)])
    #expect(
      reports == [
        frame(3, (0, 0, 110, 104), (1, 1, 490, 505))
      ])
    // The first lifts: the second keeps its slot and id; a new one takes slot 0 and id 2.
    reports = feed(&decoder, contact(480, 510) + [syn(at: 4)])
    #expect(reports == [frame(4, (1, 1, 480, 510))])
    reports = feed(&decoder, contact(200, 200) + contact(470, 515) + [syn(at: 5)])
    #expect(
      reports == [
        frame(5, (0, 2, 200, 200), (1, 1, 470, 515))
      ])
    // An empty frame (a lone SYN_MT_REPORT, or nothing): every contact lifted.
    reports = feed(&decoder, [mtReport(), syn(at: 6)])
    #expect(reports == [frame(6)])
  }

  /// Protocol A with the device's own tracking ids: the ids say which contact is which.
  @Test func protocolAWithTrackingIDs() {
    var decoder = MultitouchDecoder()
    var reports = feed(
      &decoder, [abs(id, 7)] + contact(100, 100) + [abs(id, 8)] + contact(120, 100) + [syn(at: 1)])
    #expect(reports.count == 1)
    // Each moves onto the other's place: matching by distance would swap them, the ids do not.
    reports = feed(
      &decoder, [abs(id, 8)] + contact(100, 100) + [abs(id, 7)] + contact(120, 100) + [syn(at: 2)])
    #expect(
      reports == [
        frame(2, (0, 0, 120, 100), (1, 1, 100, 100))
      ])
    // A device repeating an id within a frame: still two contacts, in two slots.
    reports = feed(
      &decoder, [abs(id, 8)] + contact(100, 100) + [abs(id, 8)] + contact(300, 100) + [syn(at: 3)])
    guard case .frame(_, let contacts) = reports.first else {
      Issue.record("no frame")
      return
    }
    #expect(Set(contacts.map(\.slot)).count == 2)
  }
}
