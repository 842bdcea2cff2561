#!/usr/bin/env python3
"""Writes the seed corpus of the D-Bus value fuzzer (Fuzz/Seeds/dbus/): marshalled messages
(little-endian, D-Bus specification wire format) carrying every type of value, nested, written by
this independent encoder rather than by libdbus. Run: Fuzz/Seeds/make-dbus-seeds.py"""
import os
import struct

ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "h": 4,
         "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1}
FIXED = {"y": "B", "b": "I", "n": "h", "q": "H", "i": "i", "u": "I", "x": "q", "t": "Q", "d": "d", "h": "I"}


def complete_type(sig, start=0):
    """End index of the complete type starting at sig[start]."""
    c = sig[start]
    if c == "a":
        return complete_type(sig, start + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        i = start + 1
        while sig[i] != close:
            i = complete_type(sig, i)
        return i + 1
    return start + 1


def split(sig):
    types, i = [], 0
    while i < len(sig):
        j = complete_type(sig, i)
        types.append(sig[i:j])
        i = j
    return types


def pad(buf, n):
    while len(buf) % n:
        buf.append(0)


def put(buf, sig, value):
    c = sig[0]
    pad(buf, ALIGN[c])
    if c in FIXED:
        buf += struct.pack("<" + FIXED[c], value)
    elif c in "so":
        data = value.encode()
        buf += struct.pack("<I", len(data)) + data + b"\0"
    elif c == "g":
        data = value.encode()
        buf += bytes([len(data)]) + data + b"\0"
    elif c == "v":
        inner_sig, inner = value
        put(buf, "g", inner_sig)
        put(buf, inner_sig, inner)
    elif c == "(":
        for s, v in zip(split(sig[1:-1]), value):
            put(buf, s, v)
    elif c == "a":
        element = sig[1:]
        at = len(buf)
        buf += b"\0\0\0\0"
        pad(buf, ALIGN[element[0]])
        start = len(buf)
        if element[0] == "{":
            key, val = split(element[1:-1])
            for k, v in value:
                pad(buf, 8)
                put(buf, key, k)
                put(buf, val, v)
        else:
            for v in value:
                put(buf, element, v)
        buf[at:at + 4] = struct.pack("<I", len(buf) - start)
    else:
        raise ValueError(sig)


def message(kind, serial, fields, signature="", body=()):
    body_buf = bytearray()
    for s, v in zip(split(signature), body):
        put(body_buf, s, v)
    if signature:
        fields = fields + [(8, ("g", signature))]
    header = bytearray(b"l" + bytes([kind, 0, 1]))
    header += struct.pack("<II", len(body_buf), serial)
    put(header, "a(yv)", fields)
    pad(header, 8)
    return bytes(header + body_buf)


def call(path, interface, member, signature="", body=(), destination="org.example.Peer"):
    fields = [(1, ("o", path)), (2, ("s", interface)), (3, ("s", member)), (6, ("s", destination))]
    return message(1, 7, fields, signature, body)


def signal(path, interface, member, signature="", body=()):
    fields = [(1, ("o", path)), (2, ("s", interface)), (3, ("s", member)), (7, ("s", ":1.42"))]
    return message(4, 9, fields, signature, body)


metadata = [("mpris:trackid", ("o", "/org/mpris/MediaPlayer2/Track/1")),
            ("xesam:title", ("s", "Song")), ("xesam:artist", ("as", ["A", "B"])),
            ("mpris:length", ("x", 215_000_000))]
seeds = {
    "empty-call": call("/", "org.example.Empty", "Ping"),
    "every-basic-type": call("/org/responderd/Test", "org.responderd.Test", "Echo", "ybnqiuxtdsog",
                             [0xFE, 1, -12345, 54321, -2_000_000_000, 4_000_000_000, -2**63, 2**64 - 1,
                              -1.5e300, "héllo wörld ✓", "/org/responderd/Test", "a{sv}(ii)"]),
    "properties-changed": signal("/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties",
                                 "PropertiesChanged", "sa{sv}as",
                                 ["org.mpris.MediaPlayer2.Player",
                                  [("PlaybackStatus", ("s", "Playing")), ("Metadata", ("a{sv}", metadata)),
                                   ("Position", ("x", 123_456))], ["Volume"]]),
    "nested-containers": call("/a/b", "org.example.Nest", "Deep", "a(sa(iv))aaya{sa{sv}}",
                              [[("x", [(1, ("v", ("s", "in a variant in a variant")))])],
                               [[1, 2, 3], []], [("outer", [("inner", ("ai", [4, 5]))])]]),
    "method-return": message(2, 11, [(5, ("u", 7)), (6, ("s", ":1.7"))], "v", [("(bs)", (1, "ok"))]),
    "error": message(3, 12, [(4, ("s", "org.freedesktop.DBus.Error.Failed")), (5, ("u", 7))], "s",
                     ["it did not work"]),
    "register-responder": call("/org/responderd/Responder", "org.responderd.Responder1", "Register",
                               "osasa{sv}", ["/org/example/App/Responder", "org.example.App",
                                             ["remoteControl", "motion"],
                                             [("canBecomeFirstResponder", ("b", 1))]]),
}
folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbus")
os.makedirs(folder, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(folder, name + ".bin"), "wb") as f:
        f.write(data)
