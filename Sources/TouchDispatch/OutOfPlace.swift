// Run-time exclusivity checks, and how this module avoids them safely.
//
// An access to a class's stored property is checked at run time unless the optimizer proves that
// no access to that property ever overlaps another one. It cannot when some access encloses code
// it does not know: a call into another module, or a release, which may run a deinit. Changing a
// list of references in place may release its old buffer; a single such change anywhere keeps
// every access to the property checked, at a cost of about a third of a touch frame.
//
// So the lists that touch frames read are changed out of place: taken out with a swap (which
// releases nothing), changed, and swapped back; what is released then is released outside the
// access. Their properties are private or internal, so that the optimizer sees every access: a
// public class's public properties are computed over private `xStorage` fields (a test,
// HotPathRulesTests, fails on a public stored `var` in such a class).
// Nothing here is unchecked: the compiler still checks any access it cannot prove.
//
// (Storing an unowned back reference releases the old one too, so those stay checked: a checked
// read of a plain `unowned` field costs less than reading one swapped in as a value, which takes
// two more atomic operations, and back references are read far more often than written.)

/// A value with an empty form to leave in its place while it is taken out: the lists and sets that
/// touch frames read.
protocol OutOfPlace {
  init()
}

extension Array: OutOfPlace {}
extension Set: OutOfPlace {}
extension TouchStarts: OutOfPlace {}
extension MotionHistory: OutOfPlace {}

/// Stores `value` in `field` and returns what was there, which the caller releases outside the
/// access (an optional timer, a recognizer's progress: values with no empty form of their own).
@inline(__always)
func exchange<Value>(_ field: inout Value, _ value: Value) -> Value {
  var value = value
  swap(&value, &field)
  return value
}

extension OutOfPlace {
  /// The value, leaving an empty one in its place.
  mutating func takeOut() -> Self {
    var taken = Self()
    swap(&taken, &self)
    return taken
  }

  /// Puts `taken` back in place; `taken` is left with what was there (released by the caller,
  /// outside the access).
  mutating func putBack(_ taken: inout Self) {
    swap(&taken, &self)
  }
}
