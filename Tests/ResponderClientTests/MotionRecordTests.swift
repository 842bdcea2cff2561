import ResponderClient
import Testing

struct MotionRecordTests {
  @Test func accelerometerRecordIsLittleEndianByteForByte() throws {
    let record = AccelerometerRecord(timestamp: 0x0102_0304_0506_0708, x: 1, y: -0.5, z: 0)
    let bytes = record.bytes
    #expect(bytes.count == AccelerometerRecord.size)
    #expect(Array(bytes[0..<8]) == [8, 7, 6, 5, 4, 3, 2, 1])
    // 1.0 = 0x3FF0000000000000, -0.5 = 0xBFE0000000000000.
    #expect(Array(bytes[8..<16]) == [0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
    #expect(Array(bytes[16..<24]) == [0, 0, 0, 0, 0, 0, 0xE0, 0xBF])
    #expect(Array(bytes[24..<32]) == [0, 0, 0, 0, 0, 0, 0, 0])
    #expect(AccelerometerRecord(bytes: bytes) == record)
    #expect(AccelerometerRecord(bytes: bytes.dropLast()) == nil)
    #expect(record.seconds == Double(0x0102_0304_0506_0708) / 1e9)
  }

  @Test func deviceMotionRecordPutsGravityThenUserAcceleration() throws {
    let record = DeviceMotionRecord(
      timestamp: 1_000_000_000, gravity: (0, 0, -1), userAcceleration: (0.25, 0, 2))
    let bytes = record.bytes
    #expect(bytes.count == DeviceMotionRecord.size)
    #expect(Array(bytes[0..<8]) == [0, 0xCA, 0x9A, 0x3B, 0, 0, 0, 0])
    #expect(Array(bytes[24..<32]) == [0, 0, 0, 0, 0, 0, 0xF0, 0xBF])  // gravity z = -1
    #expect(Array(bytes[32..<40]) == [0, 0, 0, 0, 0, 0, 0xD0, 0x3F])  // user x = 0.25
    #expect(Array(bytes[48..<56]) == [0, 0, 0, 0, 0, 0, 0, 0x40])  // user z = 2
    let read = try #require(DeviceMotionRecord(bytes: bytes))
    #expect(read == record && read.seconds == 1)
  }
}
