#if canImport(Glibc)
  import Glibc
#endif

/// Seconds of CPU used by the calling thread (CLOCK_THREAD_CPUTIME_ID).
public func threadCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Seconds since boot (CLOCK_MONOTONIC).
public func monotonicSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
