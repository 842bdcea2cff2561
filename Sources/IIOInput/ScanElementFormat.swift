/// How one channel is stored in a buffered IIO scan, as `scan_elements/*_type` describes it:
/// `[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift`, e.g. `le:s12/16>>4` (a 12-bit signed value in
/// the upper bits of a little-endian 16-bit word).
public struct ScanElementFormat: Equatable, Sendable, CustomStringConvertible {
  public var isBigEndian: Bool
  public var isSigned: Bool
  /// Significant bits.
  public var bits: Int
  /// Bits of storage (8, 16, 32 or 64).
  public var storageBits: Int
  /// How many values the element holds (1 unless `X` is given).
  public var repeatCount: Int
  /// Right shift to apply to the stored word before masking to `bits`.
  public var shift: Int

  public init(
    isBigEndian: Bool, isSigned: Bool, bits: Int, storageBits: Int, repeatCount: Int = 1, shift: Int
  ) {
    self.isBigEndian = isBigEndian
    self.isSigned = isSigned
    self.bits = bits
    self.storageBits = storageBits
    self.repeatCount = repeatCount
    self.shift = shift
  }

  /// Parses a `*_type` attribute; nil when it is malformed or describes something undecodable
  /// (storage not 8/16/32/64 bits, more bits than storage).
  public init?(_ text: some StringProtocol) {
    let text = String(text).filter { $0 != "\n" && $0 != " " }
    let parts = text.split(separator: ":", maxSplits: 1)
    guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
    var rest = Substring(parts[1])
    guard let signChar = rest.first, "sSuU".contains(signChar) else { return nil }
    rest = rest.dropFirst()
    guard let slash = rest.firstIndex(of: "/"), let bits = Int(rest[..<slash]) else { return nil }
    rest = rest[rest.index(after: slash)...]
    guard let shiftRange = rest.firstRange(of: ">>"), let shift = Int(rest[shiftRange.upperBound...]) else {
      return nil
    }
    let storage = rest[..<shiftRange.lowerBound]
    var storageBits: Int
    var repeatCount = 1
    if let x = storage.firstIndex(of: "X") {
      guard let s = Int(storage[..<x]), let r = Int(storage[storage.index(after: x)...]), r >= 1 else {
        return nil
      }
      storageBits = s
      repeatCount = r
    } else {
      guard let s = Int(storage) else { return nil }
      storageBits = s
    }
    self.init(
      isBigEndian: parts[0] == "be", isSigned: signChar == "s" || signChar == "S", bits: bits,
      storageBits: storageBits, repeatCount: repeatCount, shift: shift)
    guard isDecodable else { return nil }
  }

  /// Whether `value(at:)` can decode it.
  public var isDecodable: Bool {
    [8, 16, 32, 64].contains(storageBits) && bits >= 1 && bits <= storageBits && shift >= 0
      && shift < storageBits && repeatCount >= 1
  }

  /// Bytes one value takes.
  public var storageBytes: Int { storageBits / 8 }

  /// Decodes the value stored at `pointer` (the `index`-th of a repeated element): the word in
  /// its byte order, shifted right, masked to `bits`, sign-extended when signed.
  @inlinable
  public func value(at pointer: UnsafeRawPointer, index: Int = 0) -> Int64 {
    let bytes = storageBits / 8
    let base = pointer + index * bytes
    var word: UInt64 = 0
    if isBigEndian {
      for i in 0..<bytes { word = (word << 8) | UInt64(base.load(fromByteOffset: i, as: UInt8.self)) }
    } else {
      for i in stride(from: bytes - 1, through: 0, by: -1) {
        word = (word << 8) | UInt64(base.load(fromByteOffset: i, as: UInt8.self))
      }
    }
    word >>= UInt64(shift)
    if bits < 64 {
      word &= (UInt64(1) << UInt64(bits)) - 1
      if isSigned && word & (UInt64(1) << UInt64(bits - 1)) != 0 {
        word |= ~((UInt64(1) << UInt64(bits)) - 1)
      }
    }
    return Int64(bitPattern: word)
  }

  public var description: String {
    let repeatText = repeatCount > 1 ? "X\(repeatCount)" : ""
    return "\(isBigEndian ? "be" : "le"):\(isSigned ? "s" : "u")\(bits)/\(storageBits)\(repeatText)>>\(shift)"
  }
}
