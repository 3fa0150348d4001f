/*
 * passthrough-panel: a uinput touchscreen driven from standard input, for the passthrough checks. Events
 * are written through the uinput descriptor (like a driver), so they reach the panel even while gestured
 * grabs it (writes into a grabbed evdev node, as evemu-play does, are dropped by the kernel).
 *
 * usage: passthrough-panel NAME [--pen PEN-NAME] [--size WIDTH-MM HEIGHT-MM]
 *   Creates a touchscreen called NAME: 10 slots, 0..1000 x 0..1600 at 10 units/mm (100 x 160 mm; with
 *   --size, 0..WIDTH*10 x 0..HEIGHT*10, a phone's or a 27-inch monitor's), INPUT_PROP_DIRECT, BTN_TOUCH,
 *   ABS_X/ABS_Y, no ABS_MT_TOOL_TYPE, phys passthrough-panel/input0; prints its event node on a line. With --pen (the pen checks), the panel also reports ABS_MT_TOUCH_MAJOR
 *   (0..1000, no resolution of its own: 10 units/mm through the positions), and a pen called PEN-NAME is
 *   made beside it: INPUT_PROP_DIRECT, BTN_TOOL_PEN, BTN_TOOL_RUBBER, BTN_TOUCH, BTN_STYLUS, ABS_X/ABS_Y
 *   as the panel's, ABS_PRESSURE 0..4095, phys passthrough-panel/input1; its node on a second line. Then
 *   reads commands, one a line, and answers each with one line:
 *     play FILE           write the E: lines of an evemu event file to the panel and its P: lines (the same
 *                         format) to the pen, paced by their timestamps -> "played N"
 *     unplug-pen          destroy the pen (an unplug) -> "unplugged"
 *     plug-pen            make the pen again -> its new node
 *     latency NODE N      N frames of one finger sliding in the middle, one at a time, each read back from
 *                         NODE (the panel itself: a plain reader, the floor; or gestured's copy of it) by a
 *                         reader in a separate process (as any client is: its wake-up is part of the path)
 *                         -> "latency NODE <frames read> <p50 us> <p99 us> <max us>": from just before the
 *                         write to the moment the reader's read() returned the frame, CLOCK_MONOTONIC
 *     land NODE N X Y     N touches landing at (X, Y) (X and X+1 in turn, so each landing changes X) and
 *                         lifting, one at a time: the delay of each landing frame as for latency (a
 *                         touch gestured forwards at its landing, such as one in an excluded part of an
 *                         edge, against the floor of a plain reader) -> "land NODE <read> <p50> <p99> <max>"
 *     click NODE N X Y HOLD-MS
 *                         N one-finger long presses at (X, Y) (X and X+1 in turn), one at a time, NODE being
 *                         gestured's virtual pointer of the panel (touch that points): for each, from just
 *                         before the landing's write plus HOLD-MS (the hold's deadline) to the moment a
 *                         reader of NODE read() the BTN_RIGHT press; the finger lifts once the click's
 *                         release was read; between presses it sleeps 0.1 s to an absolute time
 *                         (clock_nanosleep), whose lateness is the floor of a timer's wake-up ->
 *                         "click NODE <clicks read> <p50 us> <p99 us> <max us> timer <sleeps> <p50> <p99> <max>"
 *     buttons NODE        the buttons NODE's kernel state holds down (EVIOCGKEY) ->
 *                         "buttons NODE left <0|1> right <0|1> middle <0|1>", or "buttons NODE cannot-open"
 *   EOF destroys the panel (an unplug).
 *
 * The X position of each latency frame carries its sequence number, so a frame is recognised on the other
 * side whatever else the reader sees. Built by tests/vm/run.sh on the host and run in the rig's guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void die(const char *what) {
    fprintf(stderr, "passthrough-panel: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void axis(int fd, int code, int min, int max, int resolution) {
    struct uinput_abs_setup setup = {.code = code, .absinfo = {.minimum = min, .maximum = max, .resolution = resolution}};
    if (ioctl(fd, UI_SET_ABSBIT, code) < 0 || ioctl(fd, UI_ABS_SETUP, &setup) < 0) die("UI_ABS_SETUP");
}

static int ui = -1;
static int pen_ui = -1;
/* The panel's axes' maxima, 10 units a millimetre (--size). */
static int max_x = 1000, max_y = 1600;
static const char *pen_name = NULL;

static void emit(const struct input_event *events, size_t n) {
    if (write(ui, events, n * sizeof *events) != (ssize_t)(n * sizeof *events)) die("write");
}

/* A finger lands at (x, y) in slot 0 with the next tracking id: one frame. */
static void touch_down(int x, int y, int *tracking) {
    struct input_event down[] = {
        {.type = EV_ABS, .code = ABS_MT_SLOT, .value = 0},
        {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = (*tracking)++},
        {.type = EV_ABS, .code = ABS_MT_POSITION_X, .value = x},
        {.type = EV_ABS, .code = ABS_MT_POSITION_Y, .value = y},
        {.type = EV_KEY, .code = BTN_TOUCH, .value = 1},
        {.type = EV_ABS, .code = ABS_X, .value = x},
        {.type = EV_ABS, .code = ABS_Y, .value = y},
        {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
    };
    emit(down, sizeof down / sizeof *down);
}

/* The finger in slot 0 lifts: one frame. */
static void touch_up(void) {
    struct input_event up[] = {
        {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = -1},
        {.type = EV_KEY, .code = BTN_TOUCH, .value = 0},
        {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
    };
    emit(up, sizeof up / sizeof *up);
}

/* The event node of the uinput device on `fd` (waits for sysfs to show it); exits on failure. */
static void find_node(int fd, char *node, size_t size) {
    char sysname[64] = "";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) die("UI_GET_SYSNAME");
    node[0] = '\0';
    for (int attempt = 0; attempt < 500 && !node[0]; attempt++) {
        for (int n = 0; n < 1024 && !node[0]; n++) {
            char path[256];
            snprintf(path, sizeof path, "/sys/devices/virtual/input/%s/event%d", sysname, n);
            if (access(path, F_OK) == 0) snprintf(node, size, "/dev/input/event%d", n);
        }
        if (!node[0]) usleep(10000);
    }
    if (!node[0]) die("finding the event node");
}

/* Makes the pen and prints its node. */
static void make_pen(void) {
    pen_ui = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
    if (pen_ui < 0) die("/dev/uinput (pen)");
    if (ioctl(pen_ui, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(pen_ui, UI_SET_EVBIT, EV_ABS) < 0
        || ioctl(pen_ui, UI_SET_KEYBIT, BTN_TOOL_PEN) < 0 || ioctl(pen_ui, UI_SET_KEYBIT, BTN_TOOL_RUBBER) < 0
        || ioctl(pen_ui, UI_SET_KEYBIT, BTN_TOUCH) < 0 || ioctl(pen_ui, UI_SET_KEYBIT, BTN_STYLUS) < 0
        || ioctl(pen_ui, UI_SET_PROPBIT, INPUT_PROP_DIRECT) < 0)
        die("UI_SET_*BIT (pen)");
    axis(pen_ui, ABS_X, 0, max_x, 10);
    axis(pen_ui, ABS_Y, 0, max_y, 10);
    axis(pen_ui, ABS_PRESSURE, 0, 4095, 0);
    if (ioctl(pen_ui, UI_SET_PHYS, "passthrough-panel/input1") < 0) die("UI_SET_PHYS (pen)");
    struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 0x1234, .product = 0x5679, .version = 1}};
    snprintf(setup.name, sizeof setup.name, "%s", pen_name);
    if (ioctl(pen_ui, UI_DEV_SETUP, &setup) < 0 || ioctl(pen_ui, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE (pen)");
    char node[128];
    find_node(pen_ui, node, sizeof node);
    printf("%s\n", node);
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Plays the E: lines of an evemu file, sleeping between frames as their timestamps say. */
static long play(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    long count = 0;
    long long previous = -1;
    while (fgets(line, sizeof line, f)) {
        long long sec, usec;
        unsigned type, code;
        int value;
        char which;
        if (sscanf(line, "%c: %lld.%lld %x %x %d", &which, &sec, &usec, &type, &code, &value) != 6) continue;
        if (which != 'E' && which != 'P') continue;
        long long t = sec * 1000000LL + usec;
        if (previous >= 0 && t > previous) usleep((useconds_t)(t - previous));
        previous = t;
        struct input_event e = {.type = (unsigned short)type, .code = (unsigned short)code, .value = value};
        if (which == 'E') {
            emit(&e, 1);
        } else if (pen_ui >= 0 && write(pen_ui, &e, sizeof e) != sizeof e) {
            die("write (pen)");
        }
        count++;
    }
    fclose(f);
    return count;
}

/* Prints " <count> <p50> <p99> <max>" of the delays (microseconds), or " 0 - - -" (no line end). */
static void print_figures(long long *delays, int received) {
    if (received == 0) {
        printf(" 0 - - -");
        return;
    }
    qsort(delays, (size_t)received, sizeof *delays, compare);
    printf(" %d %lld %lld %lld", received, delays[received / 2], delays[(received * 99) / 100], delays[received - 1]);
}

/* Prints "WHAT NODE <count> <p50> <p99> <max>" of the delays, a line. */
static void print_delays(const char *what, const char *node, long long *delays, int received) {
    printf("%s %s", what, node);
    print_figures(delays, received);
    printf("\n");
}

/* What the latency reader tells the writer: the X value of a frame it read and when read() returned it. */
struct seen {
    int x;
    long long at;
};

/* The reader: a separate process, as any client of the node is, so a frame's path is the same as for any
 * reader (a wake-up of another process included). Reports every ABS_MT_POSITION_X it reads on `out`;
 * x = -1 once it has the node open. Exits when the writer closes the pipe. */
static void reader(const char *node, int out) {
    int rd = open(node, O_RDONLY | O_CLOEXEC);
    struct seen ready = {.x = -1, .at = 0};
    if (rd < 0) ready.x = -2;
    if (write(out, &ready, sizeof ready) != sizeof ready || rd < 0) _exit(1);
    struct input_event in[64];
    for (;;) {
        ssize_t n = read(rd, in, sizeof in);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(0);
        long long at = now_us();
        for (ssize_t k = 0; k < n / (ssize_t)sizeof *in; k++) {
            struct seen s = {.x = in[k].value, .at = at};
            /* A lift is reported as x = -3, so a landing's delay is timed only once the last touch has gone. */
            if (in[k].type == EV_ABS && in[k].code == ABS_MT_TRACKING_ID && in[k].value == -1) s.x = -3;
            /* A virtual pointer's right button: pressed -4, released -5 (its ABS_X is never read as a frame). */
            else if (in[k].type == EV_KEY && in[k].code == BTN_RIGHT) s.x = in[k].value ? -4 : -5;
            else if (!(in[k].type == EV_ABS && in[k].code == ABS_MT_POSITION_X)) continue;
            if (write(out, &s, sizeof s) != sizeof s) _exit(0);
        }
    }
}

/* Starts the reader of `node` in a child process; *from is where it reports. Returns the child, or 0 when it
 * could not open the node (the child is gone then). */
static pid_t start_reader(const char *node, int *from) {
    int p[2];
    if (pipe(p) != 0) die("pipe");
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        close(p[0]);
        close(ui);
        reader(node, p[1]);
    }
    close(p[1]);
    struct seen s;
    if (read(p[0], &s, sizeof s) != sizeof s || s.x != -1) {
        close(p[0]);
        waitpid(child, NULL, 0);
        return 0;
    }
    *from = p[0];
    return child;
}

static void stop_reader(pid_t child, int from) {
    close(from);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
}

/* Waits up to a second for the reader to report `x`; its time in *at. Returns 0 when it did not come. */
static int await_seen(int from, int x, long long *at) {
    struct seen s;
    for (;;) {
        struct pollfd pf = {.fd = from, .events = POLLIN};
        if (poll(&pf, 1, 1000) <= 0 || read(from, &s, sizeof s) != sizeof s) return 0;
        if (s.x == x) {
            *at = s.at;
            return 1;
        }
    }
}

/* `land`: each landing frame's delay from the write to the reader's read(), the touch lifted and its lift
 * read back before the next. */
static void landings(const char *node, int count, int x0, int y, int *tracking) {
    static long long delays[100000];
    if (count < 1 || count > 100000) {
        printf("land %s bad-count\n", node);
        return;
    }
    int from = -1, received = 0;
    pid_t child = start_reader(node, &from);
    if (child) {
        for (int i = 0; i < count; i++) {
            int x = x0 + (i % 2);
            long long sent = now_us(), at = 0;
            touch_down(x, y, tracking);
            if (!await_seen(from, x, &at)) break;
            delays[received++] = at - sent;
            touch_up();
            if (!await_seen(from, -3, &at)) break;
        }
        stop_reader(child, from);
    }
    print_delays("land", node, delays, received);
}

/* `click`: each long press's click, from the hold's deadline (the landing's write plus `hold_ms`) to the
 * reader's read() of the BTN_RIGHT press on the pointer; the finger lifts once the release was read too. */
static void clicks(const char *node, int count, int x0, int y, int hold_ms, int *tracking) {
    static long long delays[1000], timer_late[1000];
    int timers = 0;
    if (count < 1 || count > 1000 || hold_ms < 0) {
        printf("click %s bad-count\n", node);
        return;
    }
    int from = -1, received = 0;
    pid_t child = start_reader(node, &from);
    if (child) {
        for (int i = 0; i < count; i++) {
            int x = x0 + (i % 2);
            long long sent = now_us(), pressed = 0, released = 0;
            touch_down(x, y, tracking);
            /* The hold's time and a few seconds of emulation more: a click that never came ends the run. */
            int got = 0;
            for (int waited = 0; waited < hold_ms / 1000 + 5 && !got; waited++) got = await_seen(from, -4, &pressed);
            if (got) delays[received++] = pressed - sent - hold_ms * 1000LL;
            if (got) await_seen(from, -5, &released);
            touch_up();
            if (!got) break;
            /* A pause between the lift and the next landing, as a hand takes: a sleep to an absolute
             * time, whose lateness is the floor of any timer's wake-up in this system. */
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            long long due = (long long)until.tv_sec * 1000000LL + until.tv_nsec / 1000 + 100000;
            until.tv_sec = (time_t)(due / 1000000);
            until.tv_nsec = (long)(due % 1000000) * 1000;
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {}
            timer_late[timers++] = now_us() - due;
        }
        stop_reader(child, from);
    }
    printf("click %s", node);
    print_figures(delays, received);
    printf(" timer");
    print_figures(timer_late, timers);
    printf("\n");
}

/* `buttons`: what the kernel holds down on NODE (EVIOCGKEY), the state a reader opening it now would see. */
static void buttons(const char *node) {
    unsigned char keys[KEY_MAX / 8 + 1];
    memset(keys, 0, sizeof keys);
    int fd = open(node, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ioctl(fd, EVIOCGKEY(sizeof keys), keys) < 0) {
        printf("buttons %s cannot-open\n", node);
        if (fd >= 0) close(fd);
        return;
    }
    close(fd);
#define DOWN(code) ((keys[(code) / 8] >> ((code) % 8)) & 1)
    printf("buttons %s left %d right %d middle %d\n", node, DOWN(BTN_LEFT), DOWN(BTN_RIGHT), DOWN(BTN_MIDDLE));
#undef DOWN
}

static void latency(const char *node, int frames, int *tracking) {
    static long long delays[100000];
    if (frames < 1 || frames > 100000) {
        printf("latency %s bad-frame-count\n", node);
        return;
    }
    int from = -1;
    pid_t child = start_reader(node, &from);
    if (!child) {
        printf("latency %s cannot-open\n", node);
        return;
    }
    struct seen s;
    touch_down(100, 800, tracking);
    /* The landing comes through (x = 100) before the frames are timed. */
    for (;;) {
        struct pollfd pf = {.fd = from, .events = POLLIN};
        if (poll(&pf, 1, 2000) <= 0 || read(from, &s, sizeof s) != sizeof s || s.x == 100) break;
    }
    int received = 0;
    for (int i = 0; i < frames; i++) {
        int x = 200 + (i % 600); /* the middle of the panel, away from the edge zones */
        struct input_event move[] = {
            {.type = EV_ABS, .code = ABS_MT_POSITION_X, .value = x},
            {.type = EV_ABS, .code = ABS_X, .value = x},
            {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
        };
        long long sent = now_us();
        emit(move, 3);
        int got = 0;
        while (!got) {
            struct pollfd pf = {.fd = from, .events = POLLIN};
            if (poll(&pf, 1, 1000) <= 0 || read(from, &s, sizeof s) != sizeof s) break;
            if (s.x == x) {
                delays[received++] = s.at - sent;
                got = 1;
            }
        }
        if (!got) break; /* a frame lost for a second: the reader gets nothing; report what came */
    }
    touch_up();
    usleep(50000);
    stop_reader(child, from);
    print_delays("latency", node, delays, received);
}

int main(int argc, char **argv) {
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--pen") == 0 && a + 1 < argc) {
            pen_name = argv[++a];
        } else if (strcmp(argv[a], "--size") == 0 && a + 2 < argc && atoi(argv[a + 1]) > 0 && atoi(argv[a + 2]) > 0) {
            max_x = atoi(argv[a + 1]) * 10;
            max_y = atoi(argv[a + 2]) * 10;
            a += 2;
        } else {
            argc = 0;
        }
    }
    if (argc < 2) {
        fprintf(stderr, "usage: passthrough-panel NAME [--pen PEN-NAME] [--size WIDTH-MM HEIGHT-MM]\n");
        return 2;
    }
    ui = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
    if (ui < 0) die("/dev/uinput");
    if (ioctl(ui, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(ui, UI_SET_EVBIT, EV_ABS) < 0 || ioctl(ui, UI_SET_KEYBIT, BTN_TOUCH) < 0
        || ioctl(ui, UI_SET_PROPBIT, INPUT_PROP_DIRECT) < 0)
        die("UI_SET_*BIT");
    axis(ui, ABS_X, 0, max_x, 10);
    axis(ui, ABS_Y, 0, max_y, 10);
    axis(ui, ABS_MT_SLOT, 0, 9, 0);
    axis(ui, ABS_MT_POSITION_X, 0, max_x, 10);
    axis(ui, ABS_MT_POSITION_Y, 0, max_y, 10);
    axis(ui, ABS_MT_TRACKING_ID, 0, 65535, 0);
    if (pen_name) axis(ui, ABS_MT_TOUCH_MAJOR, 0, 1000, 0);
    /* A phys, as real panels have: libinput's udev rules derive the panel's device group from it, and the
     * copy must carry that group. */
    if (ioctl(ui, UI_SET_PHYS, "passthrough-panel/input0") < 0) die("UI_SET_PHYS");
    struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 0x1234, .product = 0x5678, .version = 1}};
    snprintf(setup.name, sizeof setup.name, "%s", argv[1]);
    if (ioctl(ui, UI_DEV_SETUP, &setup) < 0 || ioctl(ui, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE");
    char node[128];
    find_node(ui, node, sizeof node);
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("%s\n", node);
    if (pen_name) make_pen();

    char line[512];
    int tracking = 1000;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char arg[400];
        int n, x, y, hold;
        if (sscanf(line, "play %399s", arg) == 1) {
            long count = play(arg);
            if (count < 0) printf("cannot-play %s %s\n", arg, strerror(errno));
            else printf("played %ld\n", count);
        } else if (sscanf(line, "latency %399s %d", arg, &n) == 2) {
            latency(arg, n, &tracking);
        } else if (strcmp(line, "unplug-pen") == 0 && pen_ui >= 0) {
            ioctl(pen_ui, UI_DEV_DESTROY);
            close(pen_ui);
            pen_ui = -1;
            printf("unplugged\n");
        } else if (strcmp(line, "plug-pen") == 0 && pen_name && pen_ui < 0) {
            make_pen();
        } else if (sscanf(line, "land %399s %d %d %d", arg, &n, &x, &y) == 4) {
            landings(arg, n, x, y, &tracking);
        } else if (sscanf(line, "click %399s %d %d %d %d", arg, &n, &x, &y, &hold) == 5) {
            clicks(arg, n, x, y, hold, &tracking);
        } else if (sscanf(line, "buttons %399s", arg) == 1) {
            buttons(arg);
        } else {
            printf("unknown-command %s\n", line);
        }
    }
    if (pen_ui >= 0) {
        ioctl(pen_ui, UI_DEV_DESTROY);
        close(pen_ui);
    }
    ioctl(ui, UI_DEV_DESTROY);
    close(ui);
    return 0;
}
