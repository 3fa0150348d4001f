// libwayland-client (Debian's libwayland-dev) and the client code wayland-scanner generated from
// protocols/*.xml (tools/wayland-protocols.sh): the requests are static inline functions here, the
// interface tables in the .c files beside include/.
#include <wayland-client.h>
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

// The interfaces' addresses: Swift imports a C `const struct` global as a value, and a pointer to that
// would point at a copy; wl_registry_bind keeps the pointer for the proxy's life.
static inline const struct wl_interface *gestured_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *gestured_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *gestured_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *gestured_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *gestured_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
static inline const struct wl_interface *gestured_zxdg_output_manager_v1_interface(void) {
    return &zxdg_output_manager_v1_interface;
}
static inline const struct wl_interface *gestured_zwlr_foreign_toplevel_manager_v1_interface(void) {
    return &zwlr_foreign_toplevel_manager_v1_interface;
}
static inline const struct wl_interface *gestured_zwp_virtual_keyboard_manager_v1_interface(void) {
    return &zwp_virtual_keyboard_manager_v1_interface;
}
