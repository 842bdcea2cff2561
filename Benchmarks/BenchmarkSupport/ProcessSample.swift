import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// What /proc says about a process at one moment.
public struct ProcessSample {
  /// utime + stime, in clock ticks (USER_HZ).
  public var ticks: Int
  /// CPU time of every thread, in seconds (clock_getcpuclockid: nanosecond resolution).
  public var cpuSeconds: Double
  public var voluntarySwitches: Int
  public var involuntarySwitches: Int
  /// VmRSS, RssAnon, RssFile (kB).
  public var rss: Int
  public var rssAnon: Int
  public var rssFile: Int
  /// The part of VmRSS in umockdev's preload library (present only because of the emulation).
  public var preloadRss: Int

  /// Reads /proc/PID/stat and /proc/PID/status.
  public init(pid: pid_t) throws {
    let stat = try readTextFile("/proc/\(pid)/stat")
    guard let close = stat.lastIndex(of: ")") else { throw BenchmarkError("unreadable /proc/\(pid)/stat") }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // Fields from the state (field 3): utime is field 14, stime field 15.
    guard fields.count > 13, let utime = Int(fields[11]), let stime = Int(fields[12]) else {
      throw BenchmarkError("unreadable /proc/\(pid)/stat: \(stat)")
    }
    ticks = utime + stime
    var values: [String: Int] = [:]
    for line in try readTextFile("/proc/\(pid)/status").split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let number = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
      if let number { values[String(parts[0])] = number }
    }
    voluntarySwitches = values["voluntary_ctxt_switches"] ?? 0
    involuntarySwitches = values["nonvoluntary_ctxt_switches"] ?? 0
    rss = values["VmRSS"] ?? 0
    rssAnon = values["RssAnon"] ?? 0
    rssFile = values["RssFile"] ?? 0
    preloadRss = 0
    var inPreload = false
    for line in try readTextFile("/proc/\(pid)/smaps").split(separator: "\n") {
      let range = line.prefix { $0 != " " }
      if range.contains("-"), range.allSatisfy({ $0 == "-" || $0.isHexDigit }) {  // a mapping's header
        inPreload = line.contains("libumockdev-preload")
      } else if inPreload, line.hasPrefix("Rss:") {
        preloadRss += line.split(whereSeparator: { $0 == " " }).dropFirst().first.flatMap { Int($0) } ?? 0
      }
    }
    var clock = clockid_t()
    var time = timespec()
    guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else {
      throw BenchmarkError("no CPU clock for pid \(pid)")
    }
    cpuSeconds = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
