import EventLoop
import IIOInput
import Motion
import ResponderConfig
import ResponderTools
import ResponderdKit
import Testing
import TouchScenes

/// A recorder of the accelerometer, polled (at `samplingRate` when given), started on `loop`;
/// `output` takes what it writes.
private func pollingRecorder(
  on loop: EventLoop, samplingRate: Double? = nil, output: @escaping (String) -> Void
) throws -> MotionRecorder {
  var settings = MotionSettings()
  settings.capture = .polled
  if let samplingRate { settings.samplingRate = samplingRate }
  let recorder = MotionRecorder(
    loop: loop, settings: settings.inputSettings, logger: testLogger, write: output)
  try recorder.start()
  return recorder
}

// The testbed is process-wide: these run in the one serialized suite.
extension IIOInputDeviceTests {
  @Test("motion record: the recording is a trace `motion analyze` reads, with the sensor's values")
  func recordsATrace() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    var text = ""
    let recorder = try pollingRecorder(on: loop, samplingRate: 100) { text += $0 }
    #expect(loop.run(until: { recorder.sampleCount >= 10 }, timeout: 5))
    bed.setAttribute("in_accel_z_raw", "-1024")
    let before = recorder.sampleCount
    #expect(loop.run(until: { recorder.sampleCount >= before + 3 }, timeout: 5))
    recorder.input.setWanted(false)

    #expect(text.hasPrefix("# iio:device0 (bmc150_accel), polled at 125 Hz\nt,x,y,z\n"))
    let samples = try MotionTrace.parse(text, file: "recorded.csv")
    #expect(samples.count == recorder.sampleCount)
    #expect(abs(samples[0].x - (-987 * 0.009582)) < 1e-4)
    #expect(abs((samples.last?.z ?? 0) - (-1024 * 0.009582)) < 1e-4)
    #expect(zip(samples, samples.dropFirst()).allSatisfy { $1.t > $0.t })
    // And the analysis of a still device has nothing to say.
    #expect(MotionAnalysis(samples: samples).events.isEmpty)
  }

  @Test("motion record: no accelerometer, recording refuses to start")
  func noSensor() throws {
    let bed = try Testbed(withDevice: false)
    let loop = try EventLoop()
    let recorder = MotionRecorder(loop: loop, settings: MotionSettings().inputSettings, logger: testLogger) {
      _ in
    }
    #expect(throws: MotionRecorder.Failure.self) { try recorder.start() }
    #expect(!recorder.input.isWanted)
    _ = bed
  }

  @Test("motion record: the sensor going away ends the recording")
  func sensorGoesAway() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let recorder = try pollingRecorder(on: loop) { _ in }
    #expect(loop.run(until: { recorder.sampleCount >= 2 }, timeout: 5))
    bed.removeDevice()
    #expect(loop.run(until: { recorder.sensorLost }, timeout: 3))
    #expect(recorder.input.sensor == nil)
  }
}
