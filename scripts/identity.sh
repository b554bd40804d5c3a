#!/usr/bin/env bash
# identity.sh: what users see from one lfsim build, collected so that two
# builds can be compared byte for byte. Used before and after a change that
# must not change outputs (a refactor, a speed-up).
#
#   scripts/identity.sh collect BIN DIR   run every embedded example, every lab
#                                         scenario, every bench scenario cut at
#                                         300us (their stop: is one line) and
#                                         scripts/identity/*.yaml (what those do
#                                         not exercise: perftest, pingpong, pcap,
#                                         faults, poisson), a sweep, and validate
#                                         every bad file in testdata and one with
#                                         more errors than are listed; write the
#                                         results under DIR
#   scripts/identity.sh compare DIR1 DIR2 diff two collections (wall_seconds
#                                         and report.html left out)
set -euo pipefail
cd "$(dirname "$0")/.."

collect() {
  local bin=$1 out=$2
  mkdir -p "$out/runs" "$out/errors"
  local names=()
  for f in scenarios/examples/*.yaml; do names+=("$(basename "$f" .yaml)"); done
  local labs=()
  for f in scenarios/labs/*/*.yaml; do
    d=${f#scenarios/}; labs+=("${d%.yaml}")
  done
  for n in "${names[@]}" "${labs[@]}"; do
    local o="$out/runs/${n//\//_}"
    "$bin" run "$n" -q -o "$o" >"$o.stdout" 2>"$o.stderr" || echo "exit $?" >>"$o.stderr"
  done
  local tmp; tmp=$(mktemp -d)
  for f in scenarios/bench/*.yaml resolve/testdata/explicit-overrides.yaml; do
    local n; n=$(basename "$f" .yaml)
    sed -E 's/^stop: *\{at: *[0-9a-z]+/stop: {at: 300us/' "$f" >"$tmp/$n.yaml"
    local o="$out/runs/bench_$n"
    "$bin" run "$tmp/$n.yaml" -q -o "$o" >"$o.stdout" 2>"$o.stderr" || echo "exit $?" >>"$o.stderr"
    # a warning names the file where it is, in a temporary folder
    # whose name changes with each collection
    { grep -rlsF "$tmp" "$o.stderr" "$o" || true; } | xargs -r sed -i "s#$tmp#TMP#g"
  done
  "$bin" list >"$out/list.txt" 2>&1 || true
  for l in scenarios/labs/*/; do
    l=$(basename "$l"); "$bin" lab "$l" >"$out/lab-$l.txt" 2>&1 || true
  done
  # a sweep of two points, and a sweep file with a mistake
  printf 'base: single-write\nvary:\n  hca.mtu: [1024, 4096]\n' >"$tmp/mtu.yaml"
  ( cd "$tmp" && "$bin" sweep mtu.yaml -o sweep -j 1 -q ) >"$out/sweep.stdout" 2>"$out/sweep.stderr" || echo "exit $?" >>"$out/sweep.stderr"
  mv "$tmp/sweep" "$out/runs/sweep-mtu"
  printf 'base: single-write\nvary:\n  hca.mtuu: [1024]\n' >"$tmp/bad-sweep.yaml"
  ( cd "$tmp" && "$bin" sweep bad-sweep.yaml -o bad -q ) >"$out/errors/bad-sweep.stdout" 2>"$out/errors/bad-sweep.stderr" || echo "exit $?" >>"$out/errors/bad-sweep.stderr"
  for f in scripts/identity/*.yaml; do
    local o="$out/runs/identity_$(basename "$f" .yaml)"
    "$bin" run "$f" -q -o "$o" >"$o.stdout" 2>"$o.stderr" || echo "exit $?" >>"$o.stderr"
  done
  # past the error limit, which errors are listed depends on the order of
  # the checks: 199 unknown keys, then two errors for the last place (the
  # switch's xon, the HCA's dce_tcp_g)
  { for i in $(seq 1 199); do echo "k$i: 1"; done
    printf 'topology: {kind: star, hosts: 2}\nswitch: {pfc: {xoff: 100KiB, xon: 200KiB}}\nhca: {dcqcn: {dce_tcp_g: 2000}}\n'
  } >"$tmp/many-errors.yaml"
  # bad files are validated from one place, so that messages name them
  # the same way whichever folder of the tree holds them
  for f in cmd/lfsim/testdata/*.yaml resolve/testdata/several-errors.yaml "$tmp/many-errors.yaml"; do
    local n; n=$(basename "$f" .yaml)
    [ "$f" = "$tmp/$n.yaml" ] || cp "$f" "$tmp/$n.yaml"
    ( cd "$tmp" && "$bin" validate "$n.yaml" ) >"$out/errors/$n.stdout" 2>"$out/errors/$n.stderr" || echo "exit $?" >>"$out/errors/$n.stderr"
  done
  rm -rf "$tmp"
  # wall-clock figures are the only thing allowed to differ
  find "$out/runs" -name summary.json -exec sed -i -E 's/"wall_seconds": *[0-9.e+-]+/"wall_seconds": 0/' {} +
  find "$out/runs" -name report.html -delete
  find "$out/runs" -name '*.stdout' -exec sed -i -E 's/[0-9.]+ ?(s|ms) wall|wall[^,]*//g' {} +
}

case "${1:-}" in
  collect) collect "$2" "$3" ;;
  compare) diff -r "$2" "$3" && echo "identical: $(find "$2" -type f | wc -l) files" ;;
  *) echo "usage: $0 collect BIN DIR | compare DIR1 DIR2" >&2; exit 2 ;;
esac
