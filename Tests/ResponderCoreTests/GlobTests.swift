import ResponderCore
import Testing

@Suite struct GlobTests {
  @Test(
    "wildcards",
    arguments: [
      ("*Headset Jack", "sof-hda-dsp Headset Jack", true), ("*Headset Jack", "Headset Jack", true),
      ("*Headset Jack", "Headset Jack 2", false), ("Logitech*", "Logitech K120", true),
      ("Logi?ech*", "Logitech K120", true), ("*K1?0*", "Logitech K120 Keyboard", true),
      ("ALSA", "ALSA", true), ("ALSA", "alsa", false), ("", "", true), ("*", "", true),
      ("a*b*c", "abxbc", true),
      ("a*b*c", "abxbd", false),
    ])
  func wildcards(pattern: String, text: String, expected: Bool) {
    #expect(Glob(pattern).matches(text) == expected)
  }

  @Test func questionMarkIsExactlyOneCharacter() {
    #expect(Glob("v?c").matches("vlc"))
    #expect(!Glob("v?c").matches("vllc"))
    #expect(!Glob("v?c").matches("vc"))
    #expect(!Glob("?").matches(""))
  }

  @Test func anAsteriskInTheTextIsAnOrdinaryCharacter() {
    #expect(Glob("*a").matches("*xa"))
    #expect(Glob("a*").matches("a*"))
    #expect(!Glob("a").matches("*"))
  }

  /// `[…]` as fnmatch(3) reads it (device rules such as `phys = "usb-*-[12]/input0"` matched
  /// nothing before: the brackets were literal).
  @Test(
    "character classes",
    arguments: [
      ("usb-*-[12]/input0", "usb-0000:00:14.0-1/input0", true),
      ("usb-*-[12]/input0", "usb-0000:00:14.0-3/input0", false),
      ("event[0-9]", "event7", true), ("event[0-9]", "eventx", false),
      ("event[!0-9]", "eventx", true), ("event[^0-9]", "event7", false),
      ("[]]", "]", true), ("[!]]", "]", false), ("[a-]", "-", true),
      ("[[]x", "[x", true), ("a[b", "a[b", true), ("a[b", "ab", false),
      ("[z-a]", "m", false), ("*[Hh]eadset*", "USB headset", true),
    ])
  func characterClasses(pattern: String, text: String, expected: Bool) {
    #expect(Glob(pattern).matches(text) == expected, "\(pattern) ~ \(text)")
  }

  @Test func describesItselfAsThePattern() {
    #expect(Glob("mpv.instance*").description == "mpv.instance*")
    #expect(Glob("mpv.instance*").pattern == "mpv.instance*")
  }
}
