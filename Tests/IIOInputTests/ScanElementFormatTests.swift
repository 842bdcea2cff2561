import IIOInput
import Testing

@Suite("Scan element types")
struct ScanElementFormatTests {
  @Test("Parsing the kernel's type strings")
  func parsing() throws {
    let bmc150 = try #require(ScanElementFormat("le:s12/16>>4\n"))
    #expect(
      bmc150 == ScanElementFormat(isBigEndian: false, isSigned: true, bits: 12, storageBits: 16, shift: 4))
    #expect(ScanElementFormat("be:u10/16>>6")?.isBigEndian == true)
    #expect(ScanElementFormat("be:u10/16>>6")?.isSigned == false)
    #expect(ScanElementFormat("le:S16/32X2>>0")?.repeatCount == 2)
    #expect(ScanElementFormat("le:s64/64>>0")?.storageBytes == 8)
    #expect(bmc150.description == "le:s12/16>>4")
    for bad in [
      "", "xe:s12/16>>4", "le:q12/16>>4", "le:s12/16", "le:s20/16>>0", "le:s12/12>>0", "le:s12/16>>16",
    ] {
      #expect(ScanElementFormat(bad) == nil, "\(bad)")
    }
  }

  private func decode(_ type: String, _ bytes: [UInt8], index: Int = 0) -> Int64? {
    guard let format = ScanElementFormat(type) else { return nil }
    return bytes.withUnsafeBytes { format.value(at: $0.baseAddress!, index: index) }
  }

  @Test("Endianness, sign, bits, storage and shift")
  func decoding() {
    // bmc150: 12-bit signed in the upper bits of a little-endian word: -987 << 4.
    let word = UInt16(bitPattern: Int16(-987) << 4)
    #expect(decode("le:s12/16>>4", [UInt8(word & 0xff), UInt8(word >> 8)]) == -987)
    #expect(decode("le:s12/16>>4", [0xf0, 0x7f]) == 2047)
    #expect(decode("le:s12/16>>4", [0x00, 0x80]) == -2048)
    // The same bits unsigned.
    #expect(decode("le:u12/16>>4", [0x00, 0x80]) == 2048)
    // Big endian, 10 bits shifted by 6, low bits holding garbage that the mask drops.
    #expect(decode("be:s10/16>>6", [0xff, 0xff]) == -1)
    #expect(decode("be:u10/16>>6", [0x80, 0x3f]) == 0x200)
    // 14 bits in 16 with no shift: the top bits are garbage (not sign bits).
    #expect(decode("le:s14/16>>0", [0xff, 0xdf]) == 0x1fff)
    #expect(decode("le:s14/16>>0", [0x01, 0xe0]) == -0x1fff)
    // 8 and 32 bits.
    #expect(decode("le:s8/8>>0", [0x80]) == -128)
    #expect(decode("be:s32/32>>0", [0xff, 0xff, 0xff, 0xfe]) == -2)
    #expect(decode("le:u24/32>>8", [0xaa, 0x01, 0x02, 0x03]) == 0x030201)
    // 64-bit timestamps.
    let ns: Int64 = 1_700_000_000_123_456_789
    let bytes = withUnsafeBytes(of: ns.littleEndian) { Array($0) }
    #expect(decode("le:s64/64>>0", bytes) == ns)
    #expect(decode("be:s64/64>>0", bytes.reversed()) == ns)
    // Repeated elements.
    #expect(decode("le:s16/16X3>>0", [1, 0, 2, 0, 0xfd, 0xff], index: 2) == -3)
  }
}
