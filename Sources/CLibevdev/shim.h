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

/// A pen's capabilities and state, read with the evdev ioctls directly (a pen is read for its proximity
/// alone: no libevdev handle, which would read every axis and slot). Swift does not import the _IOC macros.

/// Whether the device has EV_KEY `code` (EVIOCGBIT(EV_KEY)): 1 yes, 0 no, -1 with errno set.
static inline int gestured_evdev_has_key(int fd, unsigned int code) {
    unsigned char bits[KEY_MAX / 8 + 1] = {0};
    if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}

/// Whether EV_KEY `code` is down now (EVIOCGKEY): 1 down, 0 up, -1 with errno set.
static inline int gestured_evdev_key_down(int fd, unsigned int code) {
    unsigned char bits[KEY_MAX / 8 + 1] = {0};
    if (ioctl(fd, EVIOCGKEY(sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}

/// The device's name (EVIOCGNAME) into `name` (NUL-terminated); -1 with errno set.
static inline int gestured_evdev_name(int fd, char *name, unsigned int size) {
    int n = ioctl(fd, EVIOCGNAME(size), name);
    if (n < 0) return -1;
    name[size - 1] = '\0';
    return n;
}

/// The device's vendor and product ids (EVIOCGID); -1 with errno set.
static inline int gestured_evdev_ids(int fd, unsigned short *vendor, unsigned short *product) {
    struct input_id id;
    if (ioctl(fd, EVIOCGID, &id) < 0) return -1;
    *vendor = id.vendor;
    *product = id.product;
    return 0;
}

/// The event clock (EVIOCSCLOCKID); -1 with errno set.
static inline int gestured_evdev_set_clock(int fd, int clock) {
    return ioctl(fd, EVIOCSCLOCKID, &clock);
}

/// Asks the kernel to queue for this descriptor only EV_SYN and the two EV_KEY codes given (EVIOCSMASK,
/// Linux 4.4): a pen moving over the glass then wakes no reader of proximity. -1 with errno set (an older
/// kernel: ENOTTY or EINVAL; everything is queued then and the reader skips it).
static inline int gestured_evdev_mask_keys(int fd, unsigned int key1, unsigned int key2) {
    unsigned char types[EV_MAX / 8 + 1] = {0};
    unsigned char keys[KEY_MAX / 8 + 1] = {0};
    types[EV_KEY / 8] |= 1 << (EV_KEY % 8);
    keys[key1 / 8] |= 1 << (key1 % 8);
    keys[key2 / 8] |= 1 << (key2 % 8);
    struct input_mask mask = {.type = EV_KEY, .codes_size = sizeof keys, .codes_ptr = (unsigned long long)(unsigned long)keys};
    if (ioctl(fd, EVIOCSMASK, &mask) < 0) return -1;
    struct input_mask typeMask = {.type = 0, .codes_size = sizeof types, .codes_ptr = (unsigned long long)(unsigned long)types};
    return ioctl(fd, EVIOCSMASK, &typeMask);
}

/// The current value of absolute axis `code` (EVIOCGABS), whatever this reader's event mask: the kernel
/// keeps it as the device reports it. 0 when the device has no such axis (or on error).
static inline int gestured_evdev_abs_value(int fd, unsigned int code) {
    struct input_absinfo info;
    if (ioctl(fd, EVIOCGABS(code), &info) < 0) return 0;
    return info.value;
}
