#!/usr/bin/env python3
"""stridemap.1 from the program's own --help texts, at build time.

usage: gen_manpage.py STRIDEMAP VERSION OUT

The commands are the ones `stridemap --help` lists; each one's --help is
its section, kept as written (the texts are laid out for a terminal), so
the man page says what the program says and cannot drift from it.
"""
import re
import subprocess
import sys


def run(program, *args):
    done = subprocess.run([program, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"gen_manpage: '{' '.join([program, *args])}' exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def roff(text):
    """Literal lines: backslashes escaped, minus signs kept ASCII for
    copying options, no line read as a request."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen_manpage.py STRIDEMAP VERSION OUT")
    program, version, out = sys.argv[1:]
    usage = run(program, "--help")
    listed = usage.split("commands:\n", 1)[1].split("\n\n", 1)[0] if "commands:\n" in usage else ""
    commands = [m.group(1) for m in re.finditer(r"^  ([a-z]+)\s", listed, re.M)]
    if not commands:
        sys.exit("gen_manpage: 'stridemap --help' lists no commands")
    summary = usage.split("\n\n", 2)[1].strip() if usage.count("\n\n") >= 2 else ""

    page = [
        f'.TH STRIDEMAP 1 "" "stridemap {version}" "User Commands"',
        ".SH NAME",
        "stridemap \\- " + (summary.rstrip(".").replace("\\", "\\e") or "periodic gaits of walking models"),
        ".SH SYNOPSIS",
        ".B stridemap",
        ".I COMMAND",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        "The text of \\fBstridemap \\-\\-help\\fR, then each command's \\fB\\-\\-help\\fR.",
        ".PP",
        ".nf",
        roff(usage),
        ".fi",
        ".SH COMMANDS",
    ]
    for cmd in commands:
        page += [f'.SS "{cmd}"', ".nf", roff(run(program, cmd, "--help")), ".fi"]
    page += [
        ".SH ENVIRONMENT",
        ".TP",
        ".B STRIDEMAP_MODEL_PATH",
        "Colon-separated directories searched for model files NAME.yaml before ./models and the",
        "installed share/stridemap/models.",
        ".TP",
        ".B OPENBLAS_NUM_THREADS",
        "OpenBLAS threads (default 1).",
        ".SH FILES",
        ".TP",
        ".I share/stridemap/models/*.yaml",
        "The model files installed with the program, opened by NAME.",
        ".SH SEE ALSO",
        "The README and docs/output-schema.md (the CSV and JSON outputs) of the source tree.",
    ]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
