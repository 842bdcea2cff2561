import EventLoop
import IIOInput
import Motion
import Testing

/// A sample's observer may close the sensor (the last motion stream's client found gone when a
/// send fails, a responder unregistering): the capture must stop there, not read its destroyed
/// buffer again or set its poll timer again.
extension IIOInputDeviceTests {
  @Test("Buffered: closed by an observer of a sample mid-block, nothing more is read or delivered")
  func bufferedClosedFromASample() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let input = IIOInput(loop: loop, settings: IIOInput.Settings(), logger: testLogger)
    var samples = 0
    input.addSampleObserver { [weak input] _ in
      samples += 1
      input?.setWanted(false)
    }
    input.setWanted(true)
    #expect(input.sensor?.mode == "buffered" && input.sensor?.blockSamples == 6)
    // Two blocks waiting: the first sample closes the sensor.
    let now = realtimeNanoseconds()
    var blocks: [UInt8] = []
    for i in 0..<12 { blocks += scan(x: i, y: 0, z: 1023, timestamp: now - Int64(11 - i) * 16_000_000) }
    bed.feed(blocks)
    #expect(loop.run(until: { samples > 0 }, timeout: 5))
    loop.run(until: { false }, timeout: 0.2)
    #expect(samples == 1, "samples delivered after the sensor was closed")
    #expect(input.sensor == nil)
    #expect(bed.attribute("buffer/enable") == "0")
  }

  @Test("Polled: closed by an observer of a sample, no poll timer is left behind")
  func polledClosedFromASample() throws {
    let bed = try Testbed()
    defer { withExtendedLifetime(bed) {} }
    let loop = try EventLoop()
    let input = polledInput(on: loop)
    var samples = 0
    input.addSampleObserver { [weak input] _ in
      samples += 1
      input?.setWanted(false)
    }
    input.setWanted(true)
    #expect(input.sensor?.mode == "polled")
    #expect(loop.run(until: { samples > 0 }, timeout: 5))
    #expect(input.sensor == nil)
    #expect(loop.scheduler.pendingCount == 0, "the poll timer was set again after the sensor closed")
    loop.run(until: { false }, timeout: 0.2)
    #expect(samples == 1)
  }
}

extension IIOInputDeviceTests {
  @Test("A sensor that failed while wanted is opened again when it is asked for again (a new client)")
  func failedSensorOpenedAgainWhenAskedAgain() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let input = polledInput(on: loop)
    var samples = 0
    input.addSampleObserver { _ in samples += 1 }
    input.setWanted(true)
    #expect(loop.run(until: { samples > 0 }, timeout: 5))
    // A read error (as a driver answering EBUSY while another program holds its buffer).
    bed.setAttribute("in_accel_x_raw", "busy")
    #expect(loop.run(until: { input.sensor == nil }, timeout: 5), "the failed sensor is closed")
    bed.setAttribute("in_accel_x_raw", "12")
    input.setWanted(true)
    #expect(input.sensor?.mode == "polled", "opened again")
    let count = samples
    #expect(loop.run(until: { samples > count }, timeout: 5))
    input.setWanted(false)
  }
}
