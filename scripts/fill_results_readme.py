#!/usr/bin/python3
"""Puts the tables the reproduce scripts printed (results/tables/NAME.md, or
a page of their own such as results/human9/README.md) into results/README.md,
between the lines
    <!-- BEGIN tables/NAME.md -->
    <!-- END tables/NAME.md -->
so that the README shows what the last scripts/reproduce_all.sh computed;
FILE.md#SECTION takes only the lines under the file's heading SECTION (any
level, "### SECTION" or "## SECTION"), up to the next heading of the same or
a higher level.  FILE is relative to the README's directory and stays in it.
A block whose file is missing is left as it is (and named on stderr).
Usage: /usr/bin/python3 scripts/fill_results_readme.py [results/README.md]
"""
import os
import re
import sys

BLOCK = re.compile(r"(<!-- BEGIN ([\w/.-]+\.md(?:#[^>\n]+?)?) -->\n)(.*?)(<!-- END \2 -->)", re.S)
HEADING = re.compile(r"(#+) (.*)")


def section(text, name):
    """The lines under the heading 'name', up to the next heading of its level
    or a higher one; None if absent."""
    out, level, fenced = [], 0, False
    for line in text.split("\n"):
        fenced ^= line.startswith("```")
        h = None if fenced else HEADING.fullmatch(line)
        if level and h and len(h.group(1)) <= level:
            break
        if level:
            out.append(line)
        elif h and h.group(2).strip() == name:
            level = len(h.group(1))
    return "\n".join(out) if level else None


def fill(text, base):
    missing = []

    def sub(m):
        file, _, part = m.group(2).partition("#")
        path = os.path.join(base, file)
        body = None
        if ".." not in file.split("/") and os.path.exists(path):
            with open(path) as f:
                body = f.read()
            if part:
                body = section(body, part)
        if body is None:
            missing.append(m.group(2))
            return m.group(0)
        body = body.strip("\n")
        return m.group(1) + body + "\n" + m.group(4)

    return BLOCK.sub(sub, text), missing


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else "results/README.md"
    with open(readme) as f:
        text = f.read()
    new, missing = fill(text, os.path.dirname(readme))
    for m in missing:
        print("fill_results_readme: no %s; its block is unchanged" % m, file=sys.stderr)
    with open(readme, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
