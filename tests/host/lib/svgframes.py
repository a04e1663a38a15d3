#!/usr/bin/env python3
# Lists the frames of a flame graph SVG (tools/flamegraph.py's) for the shell host tests:
# parses it as XML, then prints one frame a line: name, x, width, red, green, blue (tab-separated).
"""Usage: svgframes.py SVG. Exit 1 if the file is no XML or holds no frame."""

import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main(path):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        print("svgframes: %s: %s" % (path, e), file=sys.stderr)
        return 1
    n = 0
    for g in root.iter(NS + "g"):
        title, rect = g.find(NS + "title"), g.find(NS + "rect")
        if title is None or rect is None:
            continue
        rgb = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill", ""))
        if not rgb:
            print("svgframes: %s: fill=%s is not rgb()" % (path, rect.get("fill")),
                  file=sys.stderr)
            return 1
        print("\t".join([title.text.split(":")[0], rect.get("x"), rect.get("width")]
                        + list(rgb.groups())))
        n += 1
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else 2)
