#!/usr/bin/env python3
# Regenerate the options table of www-sample/reference/index.html from
# `beneath --help` (or build/*/tests/conf_help_dump), between the markers
# <!-- options: generated from --help --> and <!-- /options -->.
#   tools/www-sample/options-table.py build/release/server/beneath --help
import html
import re
import subprocess
import sys
from pathlib import Path

COL = 30
PAGE = Path(__file__).resolve().parents[2] / "www-sample/reference/index.html"
BEGIN, END = "<!-- options: generated from --help -->", "<!-- /options -->"
CLI_ONLY = {"check", "help", "probe", "version"}


def options(text):
    rows, cur = [], None
    for line in text.splitlines():
        if line.startswith("  --") or re.match(r"  -\w, --", line):
            head, rest = line[2:COL].rstrip(), line[COL:].strip()
            if len(line) > COL and line[COL - 2:COL] != "  ":
                head, rest = line[2:].rstrip(), ""
            head = re.sub(r"^-\w, ", "", head)  # "-p, --port PORT"
            name, _, meta = head.partition(" ")
            cur = {"name": name[2:], "meta": meta, "text": rest}
            rows.append(cur)
        elif cur is not None and line.startswith(" " * COL):
            cur["text"] = (cur["text"] + " " + line.strip()).strip()
        else:
            cur = None
    for r in rows:
        m = re.search(r" \(default: (.*)\)$", r["text"])
        r["default"] = m.group(1) if m else ""
        if m:
            r["text"] = r["text"][: m.start()]
    return rows


def row(o):
    meta = f" <var>{html.escape(o['meta'])}</var>" if o["meta"] else ""
    if o["name"] in CLI_ONLY:
        env = "command line only"
    else:
        env = "BENEATH_" + o["name"].upper().replace("-", "_")
    dflt = html.escape(o["default"]).replace(",", ",<wbr>")
    dflt = f"<code>{dflt}</code>" if o["default"] else ""
    return (f"<tr><td><code>--{o['name']}</code>{meta}<br>"
            f'<span class="env">{env}</span></td>'
            f"<td>{html.escape(o['text'])}</td><td>{dflt}</td></tr>")


def main():
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PROGRAM [ARGS...]  (prints --help)")
    text = subprocess.run(sys.argv[1:], check=True, capture_output=True,
                          text=True).stdout
    rows = options(text)
    if not rows:
        sys.exit(f"{sys.argv[1]}: no options in its output")
    page = PAGE.read_text()
    a, b = page.index(BEGIN) + len(BEGIN), page.index(END)
    PAGE.write_text(page[:a] + "\n" + "\n".join(map(row, rows)) + "\n" + page[b:])
    print(f"{PAGE}: {len(rows)} options")


if __name__ == "__main__":
    main()
