#!/usr/bin/python3
"""A PNG of a headless KWin 5.27's output: org.kde.KWin.ScreenShot2.CaptureActiveScreen on the
session bus of $DBUS_SESSION_BUS_ADDRESS writes the raw image to a pipe and answers its size,
stride and QImage format; GdkPixbuf writes the PNG. KWin answers any caller when it runs with
KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1 (ShellTestSupport starts it so).

usage: kwin-screenshot.py OUT.png
"""
import os
import sys
import threading

from gi.repository import GdkPixbuf, Gio, GLib


def main(path):
    bus = Gio.bus_get_sync(Gio.BusType.SESSION)
    read_end, write_end = os.pipe()
    chunks = []

    def drain():
        with os.fdopen(read_end, "rb") as pipe:
            while True:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    return
                chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    fds = Gio.UnixFDList.new()
    index = fds.append(write_end)
    os.close(write_end)
    reply, _ = bus.call_with_unix_fd_list_sync(
        "org.kde.KWin", "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2", "CaptureActiveScreen",
        GLib.Variant("(a{sv}h)", ({"include-cursor": GLib.Variant("b", False)}, index)),
        GLib.VariantType("(a{sv})"), 0, 30000, fds, None)
    del fds  # KWin holds the write end now; ours is closed with the list
    reader.join(30)
    info = reply.unpack()[0]
    width, height, stride = info["width"], info["height"], info["stride"]
    data = b"".join(chunks)
    if len(data) < stride * height:
        raise RuntimeError("short image: %d bytes for %dx%d" % (len(data), width, height))
    # QImage ARGB32/RGB32 (premultiplied or not) on a little-endian machine: B, G, R, A bytes.
    rgba = bytearray(width * height * 4)
    for row in range(height):
        line = data[row * stride:row * stride + width * 4]
        out = row * width * 4
        rgba[out + 0:out + width * 4:4] = line[2::4]
        rgba[out + 1:out + width * 4:4] = line[1::4]
        rgba[out + 2:out + width * 4:4] = line[0::4]
        rgba[out + 3:out + width * 4:4] = b"\xff" * width
    pixbuf = GdkPixbuf.Pixbuf.new_from_bytes(GLib.Bytes.new(bytes(rgba)), GdkPixbuf.Colorspace.RGB, True, 8,
                                             width, height, width * 4)
    pixbuf.savev(path, "png", [], [])
    print("ok %dx%d format %s" % (width, height, info.get("format")))


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
