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


def start_updates(bus, interval, device_motion=False):
    """Starts a stream; returns its socket and id. Closing the socket ends the stream at once.

    The reply's descriptor list is emptied into the socket (steal_fds): a copy left in the list
    would keep the stream running after the socket is closed, until the process leaves the bus.
    """
    method = "StartDeviceMotionUpdates" if device_motion else "StartAccelerometerUpdates"
    reply, fds = bus.call_with_unix_fd_list_sync(
        NAME, PATH, INTERFACE, method, GLib.Variant("(d)", (interval,)),
        GLib.VariantType("(hu)"), Gio.DBusCallFlags.NONE, 5000, None, None)
    handle, stream_id = reply.unpack()
    return socket.socket(fileno=fds.steal_fds()[handle]), stream_id


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--count", type=int, default=0, help="stop after this many samples")
    parser.add_argument("--device-motion", action="store_true", help="gravity and user acceleration")
    args = parser.parse_args()

    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    try:
        stream, _ = start_updates(bus, args.interval, args.device_motion)
    except GLib.Error as error:
        print(f"motion_watch: cannot start the stream: {error.message}", file=sys.stderr)
        return 1
    record = DEVICE_MOTION if args.device_motion else ACCELEROMETER
    # Closing the socket (or exiting) ends the stream.
    with stream as samples:
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
