"""The README's commands, run as they are written (make test).

Every ```sh block of README.md belongs to a section this test knows what to do with, so a block added to
the README is either run here or said not to be (a new section fails the test until it is listed). The
blocks of a section run in order as one bash script from the source tree, with the build's gestured and
gesturectl first on PATH, HOME a private directory and /tmp/ a private directory too (the README's
/tmp/g.sock, /tmp/wacom.toml); they must exit 0 and print no warning or error. `swift build` lines are
left out (make test has built). Every ```toml block is checked by the program that reads it: a bindings
file (with [[binding]]) by `gesturectl bind --check`, the rest by `gestured --check-config`.

GESTURED_BIN names the directory of the built binaries (make test sets it), else .build/debug.
"""
import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("GESTURED_BIN") or os.path.join(ROOT, ".build", "debug")

# What happens to each section's shell blocks.
RUN = "run"                  # run as written
RUN_WITHOUT_SYSTEMCTL = "run, systemctl lines left out"   # then the bindings file is checked
NOT_RUN = {
    "Try it": "make targets: make demo runs inside make test; the rest are the test suites and benchmarks themselves",
    "Script it": "its commands act on the session (start a keyboard, type keys, lock the screen); run by hand",
    "Follow the finger: example clients": "GTK examples that need a display; make test-examples runs them under Xvfb",
    "Install": "installs onto the running system as root (apt, systemctl); make test-vm installs both ways in a guest",
}
SECTIONS = {
    "Replay a recording": RUN,
    "Run the daemon, with or without a touchscreen": RUN,
    "Gestures that run commands": RUN_WITHOUT_SYSTEMCTL,
    "On a phone or convertible": RUN_WITHOUT_SYSTEMCTL,
    "Keep an edge for your app": RUN,
}
# Programs the README's bindings run that a build machine need not have: bind --check warns that they are
# not on PATH, which is true here and no fault of the README.
DESKTOP_PROGRAMS = {"notify-send"}


def readme_blocks():
    """(section, language, text) for every fenced block, in order."""
    section = None
    blocks = []
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence:
            language = fence.group(1)
            body = []
            i += 1
            while i < len(lines) and lines[i] != "```":
                body.append(lines[i])
                i += 1
            blocks.append((section, language, "\n".join(body) + "\n"))
        i += 1
    return blocks


def complaints(output, allowed=()):
    """Lines of output that warn or report an error: the daemon's <3>/<4> lines, "warning:", "error"."""
    found = []
    for line in output.splitlines():
        if re.match(r"^<[34]>", line) or re.search(r"\bwarning\b|\berror\b", line, re.IGNORECASE):
            if not any(f"{program} is not on PATH" in line for program in allowed):
                found.append(line)
    return found


class ReadmeTests(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory(prefix="gestured-readme-")
        self.home = os.path.join(self.scratch.name, "home")
        self.tmp = os.path.join(self.scratch.name, "tmp")
        os.makedirs(self.home)
        os.makedirs(self.tmp)
        self.environment = {
            "PATH": BIN + ":/usr/bin:/bin",
            "HOME": self.home,
            "LANG": "C.UTF-8",
        }

    def tearDown(self):
        self.scratch.cleanup()

    def run_script(self, script, timeout=60):
        # The README's /tmp/ is this test's scratch directory, and it writes the build's binaries as
        # .build/debug/NAME: the build make test made (replaced second: the build may itself be under /tmp).
        script = script.replace("/tmp/", self.tmp + "/").replace(".build/debug/", BIN + "/")
        result = subprocess.run(["/bin/bash", "-c", "set -euo pipefail\n" + script], cwd=ROOT, env=self.environment,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                timeout=timeout, text=True)
        return result.returncode, result.stdout

    def test_every_section_with_commands_is_known(self):
        for section, language, _ in readme_blocks():
            if language == "sh":
                self.assertTrue(section in SECTIONS or section in NOT_RUN,
                                f"README section {section!r} has shell commands this test neither runs nor explains")

    def test_the_commands_run_clean(self):
        blocks = readme_blocks()
        ran = []
        for section, action in SECTIONS.items():
            scripts = [text for (s, language, text) in blocks if s == section and language == "sh"]
            self.assertTrue(scripts, f"README has no section {section!r} with commands any more: update this test")
            script = "".join(scripts)
            lines = [line for line in script.split("\n") if line.strip() != "swift build"]
            if action == RUN_WITHOUT_SYSTEMCTL:
                lines = [line for line in lines if not line.lstrip().startswith("systemctl ")]
            with self.subTest(section=section):
                status, output = self.run_script("\n".join(lines))
                self.assertEqual(status, 0, f"{section}: exit status {status}\n{output}")
                self.assertEqual(complaints(output), [], f"{section}: warnings\n{output}")
                if action == RUN_WITHOUT_SYSTEMCTL:
                    # The bindings file the commands wrote, as gesturectl bind reads it.
                    status, output = self.run_script("gesturectl bind --check")
                    self.assertEqual(status, 0, f"{section}: bind --check\n{output}")
                    self.assertIn("OK", output)
                    self.assertEqual(complaints(output, DESKTOP_PROGRAMS), [], f"{section}: bind --check\n{output}")
                ran.append(section)
        # What the sections made: the plot, the replay's configuration; the daemon stopped and its socket is gone.
        self.assertTrue(os.path.getsize(os.path.join(self.tmp, "swipe.svg")) > 1000)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "g.sock")), "the README's daemon did not remove its socket")
        self.assertEqual(len(ran), len(SECTIONS))

    def test_every_toml_block_loads(self):
        tomls = [(section, text) for (section, language, text) in readme_blocks() if language == "toml"]
        self.assertTrue(tomls)
        for index, (section, text) in enumerate(tomls):
            with self.subTest(section=section, block=index):
                path = os.path.join(self.tmp, f"block{index}.toml")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                if re.search(r"^\[\[binding\]\]", text, re.MULTILINE):
                    command = [os.path.join(BIN, "gesturectl"), "bind", "--check", "--bindings", path]
                else:
                    command = [os.path.join(BIN, "gestured"), "--check-config", path]
                result = subprocess.run(command, env=self.environment, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, timeout=30)
                self.assertEqual(result.returncode, 0, result.stdout)
                self.assertEqual(complaints(result.stdout, DESKTOP_PROGRAMS), [], result.stdout)


if __name__ == "__main__":
    unittest.main()
