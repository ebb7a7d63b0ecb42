#!/usr/bin/env bash
# Opens a Fleet report in headless Chromium, takes a screenshot, and fails if the page logged a
# script error or the screenshot is blank. Called by `make test` (scripts/after-tests.sh).
#
#   bench/browser-check.sh [REPORT_DIR_OR_INDEX_HTML [SCREENSHOT.png]]
#
# With no report given it renders the committed fixture run (with its baseline) through the built
# `fleet report` (.build/debug/fleet, .build/release/fleet, or $FLEET) and checks that.
# Exit: 0 ok · 1 the check failed (script error, blank or missing screenshot) · 2 bad usage, no
# chromium or no fleet binary. Needs chromium (apt-get install -y chromium) and python3.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() { echo "usage: $0 [REPORT_DIR_OR_INDEX_HTML [SCREENSHOT.png]]" >&2; exit 2; }
[ $# -le 2 ] || usage

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ]; then
    fleet=${FLEET:-}
    for candidate in "$repo/.build/debug/fleet" "$repo/.build/release/fleet"; do
        [ -n "$fleet" ] || { [ -x "$candidate" ] && fleet=$candidate; } || true
    done
    [ -n "$fleet" ] || { echo "browser-check: no fleet binary (swift build first, or set FLEET)" >&2; exit 2; }
    fixtures=$repo/Tests/FleetReportTests/Fixtures
    "$fleet" report "$fixtures/results.json" --baseline "$fixtures/baseline.json" \
        --out "$work/report" --history "$work/history.sqlite" >/dev/null
    set -- "$work/report"
fi

target=$1
[ -d "$target" ] && target="$target/index.html"
[ -f "$target" ] || { echo "browser-check: no report at '$target'" >&2; exit 2; }
page=$(cd "$(dirname "$target")" && pwd)/$(basename "$target")
shot=${2:-$(dirname "$page")/screenshot.png}

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "browser-check: chromium not found (apt-get install -y chromium)" >&2; exit 2; }

log="$work/console.log"
rm -f "$shot"

# --enable-logging=stderr --v=0 puts the page's console messages (and uncaught errors) on stderr
# as "CONSOLE(line)" lines. A private profile directory keeps runs independent; `timeout` bounds
# the whole check, since a stuck browser must fail the check, not hang CI.
status=0
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
    --window-size=1280,2400 --virtual-time-budget=3000 \
    --screenshot="$shot" "file://$page" >"$work/stdout.log" 2>"$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "browser-check: chromium exited with $status" >&2
    tail -20 "$log" >&2
    exit 1
fi

# Script errors and failed loads (a self-contained page loads nothing) fail the check.
if grep -E 'CONSOLE\(|Uncaught|ERR_FILE_NOT_FOUND|net::ERR_' "$log" | grep -viE 'dbus|gpu|sandbox' >"$work/errors.log"; then
    echo "browser-check: the page logged errors:" >&2
    cat "$work/errors.log" >&2
    exit 1
fi

[ -s "$shot" ] || { echo "browser-check: no screenshot was written to $shot" >&2; tail -20 "$log" >&2; exit 1; }

# Blank = (nearly) one colour. Decode the PNG with the standard library and count distinct colours
# and non-white pixels on a sample grid.
python3 - "$shot" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"browser-check: {path} is not a PNG")
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        if depth != 8 or colour not in (2, 6):
            sys.exit(f"browser-check: unexpected PNG format (depth {depth}, colour type {colour})")
        bpp = 4 if colour == 6 else 3
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * bpp
rows, prev, i = [], bytearray(stride), 0
for _ in range(height):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
colours, ink = set(), 0
for y in range(0, height, 7):
    for x in range(0, width, 5):
        px = tuple(rows[y][x * bpp:x * bpp + 3]); colours.add(px)
        ink += px != (255, 255, 255)
samples = ((height + 6) // 7) * ((width + 4) // 5)
print(f"browser-check: {width}x{height} screenshot, {len(colours)} colours, {100 * ink / samples:.1f}% non-white")
if len(colours) < 8 or ink < samples * 0.01:
    sys.exit(f"browser-check: the screenshot {path} looks blank")
PY
echo "browser-check: ok ($shot)"
