#!/usr/bin/python3
"""colour-share.py PNG RRGGBB: prints the share of the picture's pixels of that colour (each
channel within 8), from 0 to 1. For a screenshot: how much of the screen a window of a known
plain colour covers (Debian's /usr/bin/python3 with GdkPixbuf, gir1.2-gdkpixbuf-2.0)."""
import sys

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf

path, colour = sys.argv[1], int(sys.argv[2], 16)
want = ((colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff)
pixbuf = GdkPixbuf.Pixbuf.new_from_file(path)
data = pixbuf.get_pixels()
step, stride = pixbuf.get_n_channels(), pixbuf.get_rowstride()
width, height = pixbuf.get_width(), pixbuf.get_height()
same = 0
for y in range(height):
    row = y * stride
    for x in range(width):
        i = row + x * step
        if all(abs(data[i + c] - want[c]) <= 8 for c in range(3)):
            same += 1
print('%.4f' % (same / (width * height)))
