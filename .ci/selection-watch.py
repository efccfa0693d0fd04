#!/usr/bin/env python3
"""Logs every change of the owner of the X11 PRIMARY and CLIPBOARD selections, as XFixes
reports it, until killed: one line each, the selection's name, a tab, and what the new owner
holds as UTF-8 text (JSON-quoted; null when nobody owns it or the owner gives no text). A
change is logged even when a later one replaces it before it could be read. Prints `ready`
first, once it watches. Used by .ci/clipboard-test.sh; needs libX11 and libXfixes only."""

import ctypes
import json
import sys
from ctypes import POINTER, Structure, Union, byref, c_char_p, c_int, c_long, c_ubyte, c_ulong, c_void_p

x11 = ctypes.CDLL("libX11.so.6")
xfixes = ctypes.CDLL("libXfixes.so.3")


class SelectionNotify(Structure):
    """XFixesSelectionNotifyEvent."""

    _fields_ = [
        ("type", c_int),
        ("serial", c_ulong),
        ("send_event", c_int),
        ("display", c_void_p),
        ("window", c_ulong),
        ("subtype", c_int),
        ("owner", c_ulong),
        ("selection", c_ulong),
        ("timestamp", c_ulong),
        ("selection_timestamp", c_ulong),
    ]


class Converted(Structure):
    """XSelectionEvent: the answer to XConvertSelection."""

    _fields_ = [
        ("type", c_int),
        ("serial", c_ulong),
        ("send_event", c_int),
        ("display", c_void_p),
        ("requestor", c_ulong),
        ("selection", c_ulong),
        ("target", c_ulong),
        ("property", c_ulong),
        ("time", c_ulong),
    ]


class XEvent(Union):
    _fields_ = [("type", c_int), ("fixes", SelectionNotify), ("converted", Converted), ("pad", c_long * 24)]


x11.XOpenDisplay.restype = c_void_p
x11.XOpenDisplay.argtypes = [c_char_p]
x11.XDefaultRootWindow.restype = c_ulong
x11.XDefaultRootWindow.argtypes = [c_void_p]
x11.XInternAtom.restype = c_ulong
x11.XInternAtom.argtypes = [c_void_p, c_char_p, c_int]
x11.XCreateSimpleWindow.restype = c_ulong
x11.XCreateSimpleWindow.argtypes = [c_void_p, c_ulong, c_int, c_int, c_int, c_int, c_int, c_ulong, c_ulong]
x11.XNextEvent.argtypes = [c_void_p, POINTER(XEvent)]
x11.XConvertSelection.argtypes = [c_void_p, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong]
x11.XGetWindowProperty.argtypes = [
    c_void_p, c_ulong, c_ulong, c_long, c_long, c_int, c_ulong,
    POINTER(c_ulong), POINTER(c_int), POINTER(c_ulong), POINTER(c_ulong), POINTER(POINTER(c_ubyte)),
]
x11.XFree.argtypes = [c_void_p]
x11.XFlush.argtypes = [c_void_p]
xfixes.XFixesQueryExtension.argtypes = [c_void_p, POINTER(c_int), POINTER(c_int)]
xfixes.XFixesSelectSelectionInput.argtypes = [c_void_p, c_ulong, c_ulong, c_ulong]

SELECTION_NOTIFY = 31  # core event: the answer to XConvertSelection
SET_SELECTION_OWNER_MASK = 1 << 0

display = x11.XOpenDisplay(None)
if not display:
    sys.exit("selection-watch: cannot open the display")
event_base, error_base = c_int(), c_int()
if not xfixes.XFixesQueryExtension(display, byref(event_base), byref(error_base)):
    sys.exit("selection-watch: the X server has no XFixes")
root = x11.XDefaultRootWindow(display)
window = x11.XCreateSimpleWindow(display, root, 0, 0, 1, 1, 0, 0, 0)
utf8 = x11.XInternAtom(display, b"UTF8_STRING", 0)
prop = x11.XInternAtom(display, b"SELECTION_WATCH", 0)
names = {x11.XInternAtom(display, n, 0): n.decode() for n in (b"PRIMARY", b"CLIPBOARD")}
for atom in names:
    xfixes.XFixesSelectSelectionInput(display, root, atom, SET_SELECTION_OWNER_MASK)
x11.XFlush(display)
print("ready", flush=True)

queued = []


def next_event():
    if queued:
        return queued.pop(0)
    event = XEvent()
    x11.XNextEvent(display, byref(event))
    return event


def read(selection, owner):
    """What the selection holds now, or None."""
    if owner == 0:
        return None
    x11.XConvertSelection(display, selection, utf8, prop, window, 0)
    while True:
        event = XEvent()
        x11.XNextEvent(display, byref(event))
        if event.type == SELECTION_NOTIFY and event.converted.requestor == window:
            break
        queued.append(event)  # another change: logged in its turn
    if event.converted.property == 0:
        return None
    kind, fmt, count, left = c_ulong(), c_int(), c_ulong(), c_ulong()
    data = POINTER(c_ubyte)()
    x11.XGetWindowProperty(
        display, window, prop, 0, 1 << 20, 1, 0,
        byref(kind), byref(fmt), byref(count), byref(left), byref(data),
    )
    text = bytes(data[: count.value]).decode("utf-8", "replace") if data else ""
    if data:
        x11.XFree(data)
    return text


while True:
    event = next_event()
    if event.type == event_base.value:  # XFixesSelectionNotify
        selection = event.fixes.selection
        text = read(selection, event.fixes.owner)
        print(f"{names.get(selection, selection)}\t{json.dumps(text, ensure_ascii=False)}", flush=True)
