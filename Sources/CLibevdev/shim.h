#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>

/// The timestamp of an input_event in microseconds. `input_event_sec`/`input_event_usec` are macros that
/// name different fields on 32-bit userspace with a 64-bit time_t, so Swift reads them through this.
static inline long long gestured_input_event_microseconds(const struct input_event *event) {
    return (long long)event->input_event_sec * 1000000LL + (long long)event->input_event_usec;
}

/// `ioctl(fd, UI_SET_PHYS, phys)` on a /dev/uinput descriptor, before the device is created (libevdev's
/// uinput support sets no phys). Returns -1 with errno set on failure. A function because Swift does not
/// import the _IOW macro.
static inline int gestured_uinput_set_phys(int fd, const char *phys) {
    return ioctl(fd, UI_SET_PHYS, phys);
}

/// Fills an input_event for writing to uinput (the kernel stamps the time itself).
static inline void gestured_input_event_set(struct input_event *event, unsigned short type, unsigned short code, int value) {
    event->input_event_sec = 0;
    event->input_event_usec = 0;
    event->type = type;
    event->code = code;
    event->value = value;
}
