#!/usr/bin/env bash
# Digests of every value the suite reads back, for comparing two builds of the library on one
# device (issue #26's corpus: a rewrite of the kernels must not change one bit of any result).
#   bash scripts/digest.sh record OUT.tsv [test files...]   runs the suite under Deno on PT_DEVICE,
#                                 in PT_DIGEST_JOBS processes side by side (default 4; a file's
#                                 shard is fixed by its place in the list), with PT_DIGEST
#   bash scripts/digest.sh compare BEFORE.tsv AFTER.tsv     lists the reads that differ; exit 1 if any (.tsv.gz too)
# PT_DIGEST_TIMEOUT=S stops the suite after S seconds, keeping what it read so far.
# A line is "file :: test, run, read index, dtype, shape, hash" (test/harness.ts writes them).
# Reads that vary from run to run (timing, addresses) show when two records of one
# build are compared.
set -euo pipefail
mode=${1:-}
case "$mode" in
record)
  out=$2
  shift 2
  # shellcheck disable=SC1091
  source "$(dirname "$0")/env.sh" # builds the shim once; the shards below skip setup
  build_native
  files=("$@")
  [ ${#files[@]} -eq 0 ] && files=(test/*.test.ts)
  jobs=${PT_DIGEST_JOBS:-4} dir=$(mktemp -d) pids=()
  export PATH="$(dirname "$DENO"):$PATH" PT_SKIP_SETUP=1 PT_DIGEST="$dir" PT_RUNTIMES=deno
  for ((k = 0; k < jobs; k++)); do
    shard=()
    for ((i = k; i < ${#files[@]}; i += jobs)); do shard+=("${files[i]}"); done
    [ ${#shard[@]} -eq 0 ] && continue
    ${PT_DIGEST_TIMEOUT:+timeout "$PT_DIGEST_TIMEOUT"} bash scripts/test.sh "${shard[@]}" >"$dir/shard$k.log" 2>&1 &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do
    wait "${pids[k]}" || echo "digest: shard $k failed (log kept in $dir.logs); digests of what ran are kept" >&2
    tail -1 "$dir/shard$k.log" >&2
  done
  cat "$dir"/*.tsv | LC_ALL=C sort -t $'\t' -k1,1 -k2,2n -k3,3n >"$out"
  mkdir -p "$dir.logs" && mv "$dir"/*.log "$dir.logs/" && rm -rf "$dir"
  echo "digest: $(wc -l <"$out") reads in $(cut -f1 "$out" | LC_ALL=C sort -u | wc -l) tests -> $out (logs $dir.logs)" >&2
  ;;
compare)
  # Tests found in only one record (added or removed between the builds) are listed, not failed;
  # in a test both ran, every read must match.
  a=$2 b=$3
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # records may be gzipped (.digests/ keeps them so); each is read several times below
  for side in a b; do
    f=${!side}
    if [[ "$f" == *.gz ]]; then zcat "$f" >"$tmp/$side.tsv" && printf -v "$side" '%s' "$tmp/$side.tsv"; fi
  done
  only=$(LC_ALL=C comm -3 <(cut -f1 "$a" | LC_ALL=C sort -u) <(cut -f1 "$b" | LC_ALL=C sort -u))
  [ -n "$only" ] && echo "digest: tests in one record only (left: $a, right indented: $b):" && echo "$only" | head -20
  keyed() { # the reads of tests both records have, as "test|run|read<TAB>dtype shape hash"
    LC_ALL=C join -t $'\t' <(cut -f1 "$a" | LC_ALL=C sort -u) <(cut -f1 "$b" | LC_ALL=C sort -u) | LC_ALL=C join -t $'\t' - "$1" |
      awk -F'\t' '{print $1"|"$2"|"$3"\t"$4" "$5" "$6}' | LC_ALL=C sort -t $'\t' -k1,1
  }
  diffs=$(LC_ALL=C join -t $'\t' -a1 -a2 -e MISSING -o 0,1.2,2.2 <(keyed "$a") <(keyed "$b") | awk -F'\t' '$2 != $3')
  if [ -z "$diffs" ]; then
    echo "digest: $(keyed "$a" | wc -l) reads of the tests both records have, all identical"
    exit 0
  fi
  echo "$diffs" | head -50
  echo "digest: $(echo "$diffs" | wc -l) reads differ in $(echo "$diffs" | cut -d'|' -f1 | sort -u | wc -l) tests"
  exit 1
  ;;
*)
  sed -n 2,9p "$0" >&2
  exit 2
  ;;
esac
