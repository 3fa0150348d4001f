#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of Fuzz/ (address sanitizer + coverage), replays every input in
# Fuzz/Regressions/<target>/ (crashes found before, each fixed), then fuzzes each target for FUZZ_SECONDS
# from a corpus seeded with the test fixtures and the documentation's examples. Prints one summary line per
# target and one for the run; exits 1 when a target crashed or broke an invariant (the input is kept in
# .build/fuzz/crashes/<target>/). docs/testing.md, "Fuzzing", explains it.
#
#   FUZZ_SECONDS=60          fuzzing time per target (0: only the regression inputs)
#   FUZZ_TARGETS="..."       which targets (default: all four)
#   FUZZ_FLAGS="..."         more libFuzzer options for every target (-jobs=2, -dict=…)
#   FUZZ_SANITIZE=fuzzer     coverage only, no address sanitizer: about 3 times the executions per second
#                            for long runs of the Swift targets (default fuzzer,address)
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-fuzz-evemu fuzz-request fuzz-config fuzz-engine}
SANITIZE=${FUZZ_SANITIZE:-fuzzer,address}
case $SANITIZE in
  fuzzer,address) BUILD=.build/fuzz; CFLAGS_SANITIZE=fuzzer-no-link,address ;;
  fuzzer) BUILD=.build/fuzz-coverage-only; CFLAGS_SANITIZE=fuzzer-no-link ;;
  *) echo "make fuzz: FUZZ_SANITIZE is fuzzer,address (the default) or fuzzer, not $SANITIZE" >&2; exit 2 ;;
esac
WORK=$BUILD/work
mkdir -p "$WORK"

# The toolchain's lld: SwiftPM links with gold by default, and gold fails on the fuzzer + sanitizer objects
# ("internal error in format_file_lineno").
swiftc_path=$(command -v swiftc || true)
lld=$(dirname "$(readlink -f "${swiftc_path:-/nonexistent}")")/ld.lld
if [ ! -x "$lld" ]; then lld=$(command -v ld.lld || true); fi
if [ -z "$lld" ]; then
  echo "make fuzz: no ld.lld next to swiftc ($swiftc_path) or on PATH; install the Swift toolchain's lld or Debian's lld" >&2
  exit 1
fi
printf '{"schemaVersion":"1.0","linker":{"path":"%s"}}\n' "$lld" > "$WORK/toolset.json"

echo "== building the fuzz targets (release, -sanitize=$SANITIZE)"
for target in $TARGETS; do
  GESTURED_FUZZ=1 $SWIFT build --build-path "$BUILD" -c release --toolset "$WORK/toolset.json" --product "$target" \
    -Xswiftc -sanitize="$SANITIZE" \
    -Xcc -fsanitize=$CFLAGS_SANITIZE
done
bin=$(GESTURED_FUZZ=1 $SWIFT build --build-path "$BUILD" -c release --show-bin-path)

# The Swift runtime's own crash handler reads memory the address sanitizer guards; libFuzzer and ASan
# report crashes themselves.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

# --- seeds --------------------------------------------------------------------------------------------
seeds=$WORK/seeds
rm -rf "$seeds"; mkdir -p "$seeds"/{fuzz-evemu,fuzz-request,fuzz-config,fuzz-engine}
rec=Tests/Fixtures/recordings
recordings=()
for f in "$rec"/*.evemu; do recordings+=("$f"); done
for events in "$rec"/*.events; do
  base=$(basename "$events" .events); desc="$rec/${base%%.*}.desc"
  if [ -f "$desc" ]; then recordings+=("$desc:$events"); else recordings+=("$events"); fi
done
n=0
for r in "${recordings[@]}"; do
  n=$((n + 1))
  # evemu: a recording cut to its first 400 lines (mutations of a whole 30,000-line file are slow).
  if [[ $r == *:* ]]; then cat "${r%%:*}" "${r##*:}"; else cat "$r"; fi | sed -n 1,400p > "$seeds/fuzz-evemu/rec$n.evemu"
done
"$bin/fuzz-engine" --seed "$seeds/fuzz-engine" "${recordings[@]}"
# Requests: every JSON request line of the protocol documentation, one per file, and all of them in one.
grep -ho '{"type": *"[a-z-]*"[^`]*}' docs/protocol.md README.md | sort -u > "$seeds/fuzz-request/all-doc-lines" || true
i=0
while IFS= read -r line; do
  i=$((i + 1)); printf '%s\n' "$line" > "$seeds/fuzz-request/doc$i"
done < "$seeds/fuzz-request/all-doc-lines"
# Configuration: the shipped default, the TOML corpus (valid and invalid documents, Tests/Fixtures/toml)
# and every ```toml block of the documentation.
cp config/gestured.toml "$seeds/fuzz-config/gestured.toml"
for f in Tests/Fixtures/toml/valid/*.toml Tests/Fixtures/toml/invalid/*.toml; do
  cp "$f" "$seeds/fuzz-config/$(basename "$(dirname "$f")")-$(basename "$f")"
done
awk -v dir="$seeds/fuzz-config" '
  /^```toml/ { n++; file = dir "/doc" n ".toml"; inside = 1; next }
  /^```/ { inside = 0; next }
  inside { print > file }' docs/*.md README.md

# --- regressions, then fuzzing -------------------------------------------------------------------------
status=0
total_execs=0
summary=()
for target in $TARGETS; do
  regressions=(Fuzz/Regressions/"$target"/*)
  if [ -e "${regressions[0]}" ]; then
    echo "== $target: ${#regressions[@]} regression inputs"
    if ! "$bin/$target" "${regressions[@]}" > "$WORK/$target.regressions.log" 2>&1; then
      echo "make fuzz: $target fails on a regression input:" >&2
      tail -40 "$WORK/$target.regressions.log" >&2
      status=1
      continue
    fi
  fi
  [ "$SECONDS_PER_TARGET" -gt 0 ] || continue
  corpus=.build/fuzz/corpus/$target
  crashes=.build/fuzz/crashes/$target
  mkdir -p "$corpus" "$crashes"
  case $target in
    fuzz-engine|fuzz-evemu) max_len=16384 ;;
    *) max_len=8192 ;;
  esac
  echo "== $target: fuzzing for ${SECONDS_PER_TARGET}s (corpus $corpus)"
  log=$WORK/$target.log
  set +e
  # shellcheck disable=SC2086
  "$bin/$target" -max_total_time="$SECONDS_PER_TARGET" -max_len=$max_len -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$crashes/" ${FUZZ_FLAGS:-} "$corpus" "$seeds/$target" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  stats=$(sed -n "s/^fuzz-stats: $target //p" "$log" | tail -1)
  crash=$(grep -o "Test unit written to .*" "$log" | sed 's/Test unit written to //' || true)
  total_execs=$((total_execs + ${execs:-0}))
  line="fuzz: target=$target seconds=$SECONDS_PER_TARGET execs=${execs:-0} corpus=$(ls "$corpus" | wc -l) ${stats} crashes=$([ -n "$crash" ] && echo 1 || echo 0)"
  echo "$line"
  summary+=("$line")
  if [ $rc -ne 0 ]; then
    echo "make fuzz: $target stopped with status $rc${crash:+; the input is $crash}:" >&2
    grep -v '^#[0-9]' "$log" | tail -40 >&2
    status=1
  fi
done
if [ ${#summary[@]} -gt 0 ]; then
  echo "== summary"
  printf '%s\n' "${summary[@]}"
  echo "fuzz: total execs=$total_execs targets=${#summary[@]} status=$([ $status = 0 ] && echo ok || echo FAILED)"
fi
exit $status
