#!/usr/bin/python3
"""Accelerometer samples from responderd in Python (Debian's python3-gi), as Core Motion gives them.

Asks org.responderd.Motion1 for a stream, reads its SOCK_SEQPACKET socket (one 32-byte
little-endian record per sample: uint64 timestamp in ns, float64 x, y, z in g) and prints
"timestamp x y z" lines.

    /usr/bin/python3 motion_watch.py [--interval S] [--count N] [--device-motion]
"""

import argparse
import socket
import struct
import sys

from gi.repository import Gio, GLib

NAME = "org.responderd.Daemon1"
PATH = "/org/responderd/Daemon1"
INTERFACE = "org.responderd.Motion1"
ACCELEROMETER = struct.Struct("<Qddd")  # timestamp ns, x, y, z (g)
DEVICE_MOTION = struct.Struct("<Qdddddd")  # timestamp ns, gravity xyz, user acceleration xyz (g)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--count", type=int, default=0, help="stop after this many samples")
    parser.add_argument("--device-motion", action="store_true", help="gravity and user acceleration")
    args = parser.parse_args()

    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    method = "StartDeviceMotionUpdates" if args.device_motion else "StartAccelerometerUpdates"
    try:
        reply, fds = bus.call_with_unix_fd_list_sync(
            NAME, PATH, INTERFACE, method, GLib.Variant("(d)", (args.interval,)),
            GLib.VariantType("(hu)"), Gio.DBusCallFlags.NONE, 5000, None, None)
    except GLib.Error as error:
        print(f"motion_watch: {method} failed: {error.message}", file=sys.stderr)
        return 1
    handle, stream_id = reply.unpack()
    record = DEVICE_MOTION if args.device_motion else ACCELEROMETER
    # The socket is ours: closing it (or exiting) ends the stream.
    with socket.socket(fileno=fds.get(handle)) as samples:
        received = 0
        while args.count == 0 or received < args.count:
            data = samples.recv(record.size)
            if not data:
                print("motion_watch: responderd ended the stream", file=sys.stderr)
                return 1
            timestamp, *values = record.unpack(data)
            print(f"{timestamp / 1e9:.6f} " + " ".join(f"{v:.6f}" for v in values), flush=True)
            received += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
