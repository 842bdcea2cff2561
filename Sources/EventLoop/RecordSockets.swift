import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

// Unix sockets of records (SOCK_SEQPACKET): one record per send, kept whole; what the motion API
// hands each client. Sends and receives never wait (MSG_DONTWAIT).

extension FileDescriptor {
  /// `socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC)`: two connected ends, blocking (the
  /// sends and receives below never wait, whatever the descriptor's mode).
  public static func recordSocketPair() throws(Errno) -> (FileDescriptor, FileDescriptor) {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    _ = try retryingOnInterrupt { socketpair(AF_UNIX, type, 0, &fds) }
    return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
  }

  /// `setsockopt(SO_SNDBUF)`: the send buffer, in bytes (the kernel doubles what it is given).
  public func setSendBufferSize(_ bytes: Int) throws(Errno) {
    var value = Int32(clamping: bytes)
    _ = try retryingOnInterrupt {
      setsockopt(rawValue, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }
  }

  /// Sends one record without waiting and without SIGPIPE; the bytes sent. A full socket is
  /// `.wouldBlock` (or `.noBufferSpace`).
  public func sendRecord(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    try retryingOnInterrupt {
      send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
    }
  }

  /// Receives one record without waiting; its length, 0 when the other end is closed. Nothing
  /// to read is `.wouldBlock`.
  public func receiveRecord(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try retryingOnInterrupt { recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
  }

  /// `ioctl(TIOCOUTQ)`: the bytes the kernel counts against the send buffer now.
  public func queuedOutputBytes() throws(Errno) -> Int {
    var queued: Int32 = 0
    _ = try retryingOnInterrupt { ioctl(rawValue, UInt(TIOCOUTQ), &queued) }
    return Int(queued)
  }
}
