// libxkbcommon (Debian's libxkbcommon-dev): keysym names, and the keymap gesturectl's virtual keyboard
// sends to the compositor.
#include <xkbcommon/xkbcommon.h>
