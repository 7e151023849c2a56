package glfwtest

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>

// display_reachable opens and closes a connection to the X server named by DISPLAY.
static int display_reachable(void) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) return 0;
	XCloseDisplay(d);
	return 1;
}

// hold_display opens a connection to the X server and keeps it. An X server resets itself when
// its last client disconnects, and refuses connections for a moment while it does: a test that
// opens a window just after another closed could fail. A connection held for the whole run
// keeps the server from resetting.
static int hold_display(void) {
	return XOpenDisplay(NULL) != NULL;
}

// send_delete_window sends win the WM_PROTOCOLS client message WM_DELETE_WINDOW, as a window
// manager does when the user closes a window. With an empty event mask, XSendEvent delivers it
// to the client that created the window.
static int send_delete_window(unsigned long win) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) return 1;
	XEvent ev;
	memset(&ev, 0, sizeof ev);
	ev.xclient.type = ClientMessage;
	ev.xclient.window = (Window)win;
	ev.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
	ev.xclient.format = 32;
	ev.xclient.data.l[0] = (long)XInternAtom(d, "WM_DELETE_WINDOW", False);
	ev.xclient.data.l[1] = CurrentTime;
	Status ok = XSendEvent(d, (Window)win, False, NoEventMask, &ev);
	XSync(d, False);
	XCloseDisplay(d);
	return ok ? 0 : 2;
}
*/
import "C"

import "fmt"

func holdDisplay() bool { return C.hold_display() == 1 }

func displayReachable() bool { return C.display_reachable() == 1 }

func sendDeleteWindow(win uint64) error {
	switch C.send_delete_window(C.ulong(win)) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("cannot connect to the X server")
	default:
		return fmt.Errorf("XSendEvent to window 0x%x failed", win)
	}
}
