#!/usr/bin/env bash
# Generates the speech corpus: espeak-ng readings of the reference stack's articles (English and
# Mandarin), resampled with sox to 16 kHz mono and encoded as FLAC or Ogg Opus, plus the edge
# cases that break audio pipelines, and audio-corpus/manifest.json describing every clip.
#
# usage: audio-corpus/generate.sh [--large] [--out DIR]
#   --large   every reading in both formats and two more voices per article (hundreds of MB;
#             not committed); defaults --out to reports/corpus-large
#   --out DIR where clips/ and manifest.json go (default: this directory)
#
# Repeatable: the same tools give the same bytes (sox -R seeds its dither, opusenc gets a fixed
# serial number per clip), so re-running changes nothing in git. Needs espeak-ng, sox, flac,
# opus-tools (opusenc), jq and coreutils (Debian: apt-get install espeak-ng sox flac opus-tools jq).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
ARTICLES="$ROOT/Sources/FleetStack/Resources/articles.json"
LARGE=0
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --large) LARGE=1 ;;
        --out) OUT="$2"; shift ;;
        *) echo "generate.sh: unknown option '$1' (expected --large or --out DIR)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$OUT" ]; then
    if [ "$LARGE" = 1 ]; then OUT="$ROOT/reports/corpus-large"; else OUT="$HERE"; fi
fi
for tool in espeak-ng sox flac opusenc jq sha256sum; do
    command -v "$tool" >/dev/null || { echo "generate.sh: '$tool' is missing (apt-get install espeak-ng sox flac opus-tools jq)" >&2; exit 1; }
done
[ -f "$ARTICLES" ] || { echo "generate.sh: $ARTICLES not found" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
rm -rf "$OUT/clips"
mkdir -p "$OUT/clips/en" "$OUT/clips/zh"
ENTRIES="$TMP/entries.jsonl"
: > "$ENTRIES"
SERIAL=1000

# speak VOICE SPEED TEXT OUT.wav — an espeak-ng reading at 16 kHz mono 16-bit.
speak() {
    printf '%s\n' "$3" > "$TMP/text.txt"
    espeak-ng -v "$1" -s "$2" -w "$TMP/raw.wav" -f "$TMP/text.txt"
    sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$4"
}

# encode IN.wav OUT FORMAT — FORMAT is flac or opus (16 kb/s, plenty for 16 kHz speech).
encode() {
    case "$3" in
        flac) flac -s -8 -f -o "$2" "$1" ;;
        opus) SERIAL=$((SERIAL + 1)); opusenc --quiet --bitrate 16 --serial "$SERIAL" "$1" "$2" ;;
        wav) cp "$1" "$2" ;;
    esac
}

# add FILE LANG ARTICLE ROUND CLASS OUTCOME REASON FORMAT CONTENT_TYPE SOURCE.wav [VOICE SPEED]
# Appends one manifest entry. Duration, rate and channels come from the PCM source (what the app
# recorded and declares); size and sha256 from the bytes written.
add() {
    local file=$1 lang=$2 article=$3 round=$4 class=$5 outcome=$6 reason=$7 format=$8 ctype=$9 src=${10}
    local voice=${11:-} speed=${12:-}
    local rate channels samples path="$OUT/clips/$lang/$file"
    rate=$(soxi -r "$src"); channels=$(soxi -c "$src"); samples=$(soxi -s "$src")
    jq -nc --arg file "clips/$lang/$file" --arg lang "$lang" --arg article "$article" --argjson round "$round" \
        --argjson duration "$(( (samples * 1000 + rate / 2) / rate ))" --argjson rate "$rate" --argjson channels "$channels" \
        --arg format "$format" --arg ctype "$ctype" --arg sha "$(sha256sum < "$path" | cut -d' ' -f1)" \
        --argjson size "$(stat -c %s "$path")" --arg class "$class" --arg outcome "$outcome" --arg reason "$reason" \
        --arg voice "$voice" --arg speed "$speed" \
        '{file: $file, language: $lang, article_id: $article, round: $round, duration_ms: $duration,
          sample_rate: $rate, channels: $channels, format: $format, content_type: $ctype, size_bytes: $size,
          sha256: $sha, class: $class, expected_outcome: $outcome}
         + (if $reason == "" then {} else {expected_reason: $reason} end)
         + (if $voice == "" then {} else {voice: $voice, speed_wpm: ($speed | tonumber)} end)' >> "$ENTRIES"
}

ctype_of() { case "$1" in flac) echo audio/flac ;; opus) echo audio/ogg ;; wav) echo audio/wav ;; esac; }

# round2 LANG BODY — the compressed retelling read in round 2: the first ~40 % of the sentences.
round2() {
    jq -rn --arg body "$2" --arg lang "$1" '
        [$body | match(if $lang == "zh" then "[^。！？]+[。！？]" else "[^.!?]+[.!?]" end; "g").string
         | sub("^ +"; "")] as $s
        | $s[0:(($s | length) * 0.4 | ceil)] | join(if $lang == "zh" then "" else " " end)'
}

EN_VOICES=(en-us en-gb+f3 en-gb-scotland en-us+m3 en-gb-x-rp+f5 en-029)
ZH_VOICES=(cmn cmn+f3 cmn+m3 cmn+f5)
SPEEDS=(150 165 175 190)

for lang in en zh; do
    if [ "$lang" = en ]; then voices=("${EN_VOICES[@]}"); else voices=("${ZH_VOICES[@]}"); fi
    mapfile -t ids < <(jq -r --arg l "$lang" '.articles[] | select(.language == $l) | .id' "$ARTICLES")
    i=0
    for id in "${ids[@]}"; do
        body=$(jq -r --arg id "$id" '.articles[] | select(.id == $id) | .body' "$ARTICLES")
        short=$(round2 "$lang" "$body")
        for round in 1 2; do
            text=$body; [ "$round" = 2 ] && text=$short
            takes=1; [ "$LARGE" = 1 ] && takes=3
            for take in $(seq 0 $((takes - 1))); do
                v=${voices[$(( (i + round - 1 + take * 2) % ${#voices[@]} ))]}
                s=${SPEEDS[$(( (i + 2 * (round - 1) + take) % ${#SPEEDS[@]} ))]}
                wav="$TMP/$id-r$round-t$take.wav"
                speak "$v" "$s" "$text" "$wav"
                # Mostly Opus to keep the committed corpus small; a few FLAC of each round.
                if [ "$LARGE" = 1 ]; then formats="flac opus"
                elif [ "$round" = 1 ] && [ $((i % 10)) = 0 ]; then formats=flac
                elif [ "$round" = 2 ] && [ $((i % 4)) = 1 ]; then formats=flac
                else formats=opus; fi
                for fmt in $formats; do
                    tag=""; [ "$take" != 0 ] && tag="-t$take"
                    name="$id-r$round$tag-${v//+/_}-s$s.$fmt"
                    encode "$wav" "$OUT/clips/$lang/$name" "$fmt"
                    add "$name" "$lang" "$id" "$round" speech assessed "" "$fmt" "$(ctype_of "$fmt")" "$wav" "$v" "$s"
                done
            done
        done
        i=$((i + 1))
    done

    # The ends of the 5–90 s range: a two-sentence retelling, and slow full readings.
    for k in 2 3; do
        id=${ids[$k]}
        body=$(jq -r --arg id "$id" '.articles[] | select(.id == $id) | .body' "$ARTICLES")
        first=$(jq -rn --arg b "$body" '[$b | match("[^.!?。！？]+[.!?。！？]"; "g").string] | .[0:2] | join("")')
        v=${voices[$(( k % ${#voices[@]} ))]}
        speak "$v" 175 "$first" "$TMP/x.wav"
        name="$id-r2-opening-${v//+/_}-s175.opus"
        encode "$TMP/x.wav" "$OUT/clips/$lang/$name" opus
        add "$name" "$lang" "$id" 2 speech assessed "" opus audio/ogg "$TMP/x.wav" "$v" 175
    done
    for k in 4 5; do
        id=${ids[$k]}
        body=$(jq -r --arg id "$id" '.articles[] | select(.id == $id) | .body' "$ARTICLES")
        v=${voices[$(( (k + 1) % ${#voices[@]} ))]}
        slow=90; [ "$lang" = zh ] && slow=105
        speak "$v" "$slow" "$body" "$TMP/x.wav"
        name="$id-r1-slow-${v//+/_}-s$slow.opus"
        encode "$TMP/x.wav" "$OUT/clips/$lang/$name" opus
        add "$name" "$lang" "$id" 1 speech assessed "" opus audio/ogg "$TMP/x.wav" "$v" "$slow"
    done

    # Edge cases, from this language's first two articles.
    a1=${ids[0]}; a2=${ids[1]}
    b1=$(jq -r --arg id "$a1" '.articles[] | select(.id == $id) | .body' "$ARTICLES")
    b2=$(jq -r --arg id "$a2" '.articles[] | select(.id == $id) | .body' "$ARTICLES")
    v=${voices[0]}
    speak "$v" 175 "$b1" "$TMP/e1.wav"
    speak "$v" 175 "$b2" "$TMP/e2.wav"
    speak "$v" 175 "$(round2 "$lang" "$b1")" "$TMP/e1s.wav"
    e="$TMP/edge.wav"

    sox -R -n -r 16000 -c 1 -b 16 "$e" trim 0 8
    encode "$e" "$OUT/clips/$lang/$a1-r1-silence.flac" flac
    add "$a1-r1-silence.flac" "$lang" "$a1" 1 silence unreliable silence flac audio/flac "$e"
    sox -R -n -r 16000 -c 1 -b 16 "$e" trim 0 6
    encode "$e" "$OUT/clips/$lang/$a1-r2-silence.opus" opus
    add "$a1-r2-silence.opus" "$lang" "$a1" 2 silence unreliable silence opus audio/ogg "$e"

    # A reading 34 dB down over faint hiss: a signal, but nowhere near speech level.
    sox -R -n -r 16000 -c 1 -b 16 "$TMP/hiss.wav" synth "$(soxi -D "$TMP/e1s.wav")" whitenoise vol 0.0015
    sox -R -m -v 0.02 "$TMP/e1s.wav" -v 1 "$TMP/hiss.wav" -b 16 "$e"
    encode "$e" "$OUT/clips/$lang/$a1-r1-near-silence.flac" flac
    add "$a1-r1-near-silence.flac" "$lang" "$a1" 1 near_silence unreliable too_quiet flac audio/flac "$e"

    # Overdriven input: 18 dB of gain flattens every loud syllable at full scale. Still scored
    # (assessed, reason clipped, lower confidence).
    sox -R "$TMP/e1s.wav" -b 16 "$e" gain 18 2>/dev/null
    encode "$e" "$OUT/clips/$lang/$a1-r1-clipped.flac" flac
    add "$a1-r1-clipped.flac" "$lang" "$a1" 1 clipped assessed clipped flac audio/flac "$e"
    encode "$e" "$OUT/clips/$lang/$a2-r2-clipped.opus" opus
    add "$a2-r2-clipped.opus" "$lang" "$a2" 2 clipped assessed clipped opus audio/ogg "$e"

    # A tap on record and stop: 600 ms of speech.
    sox -R "$TMP/e1.wav" "$e" trim 0.3 0.6
    encode "$e" "$OUT/clips/$lang/$a1-r1-short.flac" flac
    add "$a1-r1-short.flac" "$lang" "$a1" 1 short unreliable too_short flac audio/flac "$e"

    # Past the app's 90 s auto-stop: 91 s is still accepted by the API (≤ 92 000 ms), 95 s is not.
    sox -R "$TMP/e1.wav" "$TMP/e2.wav" "$TMP/e1.wav" "$TMP/long.wav"
    sox -R "$TMP/long.wav" "$e" trim 0 91
    encode "$e" "$OUT/clips/$lang/$a1-r1-long-91s.opus" opus
    add "$a1-r1-long-91s.opus" "$lang" "$a1" 1 long assessed "" opus audio/ogg "$e"
    sox -R "$TMP/long.wav" "$e" trim 0 95
    encode "$e" "$OUT/clips/$lang/$a1-r1-long-95s.opus" opus
    add "$a1-r1-long-95s.opus" "$lang" "$a1" 1 long rejected invalid_request opus audio/ogg "$e"

    # A stereo recording (the right channel 20 ms late and 3 dB down), accepted as its mono mix.
    sox -R "$TMP/e1s.wav" "$TMP/right.wav" pad 0.02 0 vol 0.7
    sox -R -M "$TMP/e1s.wav" "$TMP/right.wav" "$TMP/st.wav"
    sox -R "$TMP/st.wav" "$e" trim 0 6
    encode "$e" "$OUT/clips/$lang/$a2-r2-stereo.flac" flac
    add "$a2-r2-stereo.flac" "$lang" "$a2" 2 stereo assessed "" flac audio/flac "$e"

    # Device sample rates: 44.1 kHz FLAC and 48 kHz Opus (both accepted).
    sox -R "$TMP/e1s.wav" -r 44100 "$e" trim 0 6
    encode "$e" "$OUT/clips/$lang/$a2-r2-44k.flac" flac
    add "$a2-r2-44k.flac" "$lang" "$a2" 2 hi_rate assessed "" flac audio/flac "$e"
    sox -R "$TMP/e1s.wav" -r 48000 "$e"
    encode "$e" "$OUT/clips/$lang/$a1-r2-48k.opus" opus
    add "$a1-r2-48k.opus" "$lang" "$a1" 2 hi_rate assessed "" opus audio/ogg "$e"

    # Interrupted writes: the first 55 % of the bytes. The manifest keeps the duration the app
    # recorded (and declares); the bytes no longer hold it.
    encode "$TMP/e1s.wav" "$TMP/whole.flac" flac
    head -c $(( $(stat -c %s "$TMP/whole.flac") * 55 / 100 )) "$TMP/whole.flac" > "$OUT/clips/$lang/$a1-r1-truncated.flac"
    add "$a1-r1-truncated.flac" "$lang" "$a1" 1 truncated failed unreadable flac audio/flac "$TMP/e1s.wav"
    encode "$TMP/e1s.wav" "$TMP/whole.opus" opus
    head -c $(( $(stat -c %s "$TMP/whole.opus") * 55 / 100 )) "$TMP/whole.opus" > "$OUT/clips/$lang/$a2-r2-truncated.opus"
    add "$a2-r2-truncated.opus" "$lang" "$a2" 2 truncated failed unreadable opus audio/ogg "$TMP/e1s.wav"

    # A recording whose file was never written: zero bytes, declared as 4 s of FLAC. The stack
    # refuses `size_bytes` 0 when the attempt is created (400 invalid_request), so: rejected.
    : > "$OUT/clips/$lang/$a1-r1-empty.flac"
    sox -R -n -r 16000 -c 1 -b 16 "$e" trim 0 4
    add "$a1-r1-empty.flac" "$lang" "$a1" 1 empty rejected invalid_request flac audio/flac "$e"

    # Bytes that do not match the name: WAV (en) or Ogg Opus (zh) in a file named .flac.
    if [ "$lang" = en ]; then
        cp "$TMP/e1s.wav" "$OUT/clips/$lang/$a2-r2-mismatch.flac"
    else
        encode "$TMP/e1s.wav" "$OUT/clips/$lang/$a2-r2-mismatch.flac" opus
    fi
    add "$a2-r2-mismatch.flac" "$lang" "$a2" 2 mismatch failed format_mismatch flac audio/flac "$TMP/e1s.wav"
done

jq -s --arg note "generated by audio-corpus/generate.sh$( [ "$LARGE" = 1 ] && echo ' --large')" \
    '{version: 1, note: $note, clips: .}' "$ENTRIES" > "$OUT/manifest.json"
echo "generate.sh: $(jq -s length "$ENTRIES") clips in $OUT ($(du -sh "$OUT/clips" | cut -f1))"
