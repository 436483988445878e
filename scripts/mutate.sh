#!/usr/bin/env bash
# Mutation testing of the suite (issue #23): plants a fixed list of small, realistic bugs one
# at a time in a copy of the committed tree, rebuilds the shim when the bug is in native/,
# runs that bug's test files on the CPU, and prints which bugs the suite did not catch.
# Run it on demand, not in CI: the full list takes a few minutes.
#   bash scripts/mutate.sh                      every mutation, under Deno
#   bash scripts/mutate.sh --runtime bun        the same under Bun
#   bash scripts/mutate.sh --only ID[,ID...]    some of them
#   bash scripts/mutate.sh --list               the table of mutations, nothing run
#   bash scripts/mutate.sh --check              only checks that every mutation still applies
#   --timeout S (default 180): a mutation's test run past S seconds counts as caught (a hang).
# The caller's tree is never touched: the copy is `git archive` of HEAD (as it was when the
# script started) in a temporary directory, with node_modules linked in; Zig's cache lives in
# ${XDG_CACHE_HOME:-~/.cache}/polytensor-mutate so that rebuilds after a mutation are quick.
# Each mutation's output stays in the log directory printed at the end.
# Exit status: 0 when every mutation was caught (or is marked equivalent), 1 when one
# survived or could not be applied (its text no longer occurs exactly once), 2 on bad use or
# when the suite fails without any mutation.
#
# The table below: one mutation a line, fields separated by "|||":
#   id ||| what it plants ||| file ||| exact text (must occur once) ||| replacement ||| test files [||| equivalent: why]
# "<NL>" in a text stands for a newline. A line with a 7th field is an equivalent mutation:
# its survival is reported with the reason and not counted.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

MUTATIONS=$(cat <<'EOF'
promote-kind|||promote_types keeps the lower kind|||src/base/dtype.ts|||return A.category > B.category ? a : b;|||return A.category > B.category ? b : a;|||test/elementwise.test.ts test/property.test.ts
promote-half|||float16 with bfloat16 gives the first, not float32|||src/base/dtype.ts|||return "float32"; // float16 with bfloat16|||return a; // float16 with bfloat16|||test/elementwise.test.ts test/property.test.ts
combine-float|||a float 0-d/scalar no longer lifts an int tensor|||src/base/dtype.ts|||if (h === 0 || DTYPES[lower].category === 2) return|||if (h === 0) return|||test/elementwise.test.ts test/property.test.ts
scalar-widen|||a same-kind JS scalar widens the tensor|||src/base/dtype.ts|||if (c <= DTYPES[t].category) return t;|||if (c < DTYPES[t].category) return t;|||test/elementwise.test.ts test/property.test.ts
scalar-int32|||bool tensor with an int scalar gives int32|||src/base/dtype.ts|||c === 1 ? "int64" : "bool"|||c === 1 ? "int32" : "bool"|||test/elementwise.test.ts test/property.test.ts
bcast-max|||broadcast takes the larger size, not the non-1|||src/base/shape.ts|||if (out[o] === 1) out[o] = d;|||if (out[o] < d) out[o] = d;|||test/elementwise.test.ts test/property.test.ts test/errors.test.ts
bcast-align|||broadcast aligns shapes on the left|||src/base/shape.ts|||const o = rank - s.length + i, d = s[i];|||const o = i, d = s[i];|||test/elementwise.test.ts test/property.test.ts
bstride-fast|||broadcastStrides fast path tests the target dim|||src/base/shape.ts|||same = shape[i] === to[i] || shape[i] !== 1;|||same = shape[i] === to[i] || to[i] !== 1;|||test/elementwise.test.ts test/property.test.ts test/movement.test.ts
bstride-zero|||a broadcast size-1 dim keeps its stride|||src/base/shape.ts|||out[o] = shape[i] === 1 && to[o] !== 1 ? 0 : strides[i];|||out[o] = strides[i];|||test/elementwise.test.ts test/property.test.ts
permute-strides|||permute reorders shape but not strides|||src/tensor/movement.ts|||p.map((a) => t.strides[a])|||p.map((_, i) => t.strides[i])|||test/movement.test.ts test/property.test.ts
slice-offset|||slice start ignores the axis stride|||src/tensor/movement.ts|||t.offset + s * t.strides[a], "slice"|||t.offset + s, "slice"|||test/movement.test.ts test/indexing.test.ts
slice-len|||slice length rounds down with a step|||src/tensor/movement.ts|||Math.ceil((e - s) / step)|||Math.floor((e - s) / step)|||test/movement.test.ts test/indexing.test.ts
expand-stride|||expand keeps a size-1 dim's stride|||src/tensor/movement.ts|||src >= 0 && have === size ? t.strides[src] : 0|||src >= 0 ? t.strides[src] : 0|||test/movement.test.ts test/elementwise.test.ts
flip-offset|||flip starts at the wrong end of later axes|||src/tensor/movement.ts|||offset += (t.shape[a] - 1) * t.strides[a];|||offset += (t.shape[a] - 1) * t.strides[list[0]];|||test/movement.test.ts test/indexing.test.ts
view-1dims|||view() lets a size-1 dim break a chunk of strides|||src/tensor/movement.ts|||if (d === 0 || (old[d - 1] !== 1 && os[d - 1] !== tensorNumel * chunk)) {|||if (d === 0 || os[d - 1] !== tensorNumel * chunk) {|||test/movement.test.ts test/property.test.ts
imax-cmp|||integer max comparator flipped (extreme_i)|||native/src/backends/cpu/reduce_ops.h|||m = x[i] > m ? x[i] : m;|||m = x[i] < m ? x[i] : m;|||test/reduce.test.ts test/property.test.ts
sum-init|||float sum starts at 1|||native/src/backends/cpu/reduce_ops.h|||kind == K_MIN ? INFINITY : 0.0;|||kind == K_MIN ? INFINITY : 1.0;|||test/reduce.test.ts test/fused_reduce.test.ts
prod-ident|||integer prod identity 0|||native/src/backends/cpu/reduce_ops.h|||s->i = kind == K_PROD ? 1 :|||s->i = kind == K_PROD ? 0 :|||test/reduce.test.ts test/property.test.ts
imax-init|||integer max starts at 0, not INT64_MIN|||native/src/backends/cpu/reduce_ops.h|||kind == K_MAX ? INT64_MIN|||kind == K_MAX ? 0|||test/reduce.test.ts test/property.test.ts
argmax-tie|||column argmax takes the last of equal values|||native/src/backends/cpu/reduce_ops.h|||(want_max ? x > b : x < b) || (x != x && b == b)|||(want_max ? x >= b : x <= b) || (x != x && b == b)|||test/reduce.test.ts test/property.test.ts
argmax-nan|||column argmax/argmin skips NaN|||native/src/backends/cpu/reduce_ops.h|||(want_max ? x > b : x < b) || (x != x && b == b)|||(want_max ? x > b : x < b)|||test/reduce.test.ts test/property.test.ts
max-nan|||float max/min ignores NaN in blocks|||native/src/backends/cpu/reduce_ops.h|||s->f = (want_max ? e > s->f : e < s->f) ? e : s->f;<NL>    s->nan |= nan;|||s->f = (want_max ? e > s->f : e < s->f) ? e : s->f;|||test/reduce.test.ts test/property.test.ts
index-bound|||bounds check lets index == size through|||native/src/backends/cpu/index.c|||v < -size || v >= size ? -1|||v < -size || v > size ? -1|||test/indexing.test.ts
index-clamp|||clamp mode wraps negatives instead of clamping|||native/src/backends/cpu/index.c|||if (mode == 1) return v < 0 ? 0 :|||if (mode == 1) return v < 0 ? v + size :|||test/indexing.test.ts
index-wrap|||wrap mode mirrors negatives (|v| % size)|||native/src/backends/cpu/index.c|||int64_t r = v % size;|||int64_t r = (v < 0 ? -v : v) % size;|||test/indexing.test.ts
sort-stable|||merge sort takes the right run on ties (unstable)|||native/src/backends/cpu/sort.c|||int t = LESS(y, x);|||int t = !LESS(x, y);|||test/sort.test.ts
sort-stable-ins|||insertion runs move past equal keys (unstable)|||native/src/backends/cpu/sort.c|||for (; j > lo && LESS(x, a[j - 1]); j--)|||for (; j > lo && !LESS(a[j - 1], x); j--)|||test/sort.test.ts
sort-nan|||f32 NaN sorts below -inf|||native/src/backends/cpu/sort.c|||b = 0x7fc00000u;|||b = 0xffc00000u;|||test/sort.test.ts
sort-desc|||descending ignored for 32-bit keys|||native/src/backends/cpu/sort.c|||uint64_t flip = j->desc ? 0xffffffffull : 0;|||uint64_t flip = 0;|||test/sort.test.ts
sort-i32-sign|||int32 keys without the sign flip|||native/src/backends/cpu/sort.c|||(uint64_t)((r[i] ^ 0x80000000u) ^ flip)|||(uint64_t)(r[i] ^ flip)|||test/sort.test.ts
sort-negzero|||-0.0 no longer ties with 0.0|||native/src/backends/cpu/sort.c|||else if ((b & 0x7fffffffu) == 0) b = 0;<NL>|||<NL>|||test/sort.test.ts
sat-i32|||float -> int32 wraps past INT32_MAX|||native/src/backends/cpu/view.h|||if (d >= 2147483647.0) return INT32_MAX;|||if (d >= 2147483647.0) return (int32_t)(int64_t)d;|||test/elementwise.test.ts test/property.test.ts
nan-i64|||NaN -> int64 gives INT64_MIN, not 0|||native/src/backends/cpu/view.h|||pt_f2i64(double d) {<NL>  if (d != d) return 0;|||pt_f2i64(double d) {<NL>  if (d != d) return INT64_MIN;|||test/elementwise.test.ts test/property.test.ts
u8-saturate|||int -> uint8 store saturates instead of wrapping|||native/src/backends/cpu/ew_io.h|||EW_STORE_LOOP(RT, uint8_t, (uint8_t)(uint64_t)to_i64(v))|||EW_STORE_LOOP(RT, uint8_t, (uint8_t)(to_i64(v) < 0 ? 0 : to_i64(v) > 255 ? 255 : to_i64(v)))|||test/elementwise.test.ts test/property.test.ts
round-half-away|||round() rounds half away from zero|||native/src/backends/cpu/ew_ops.h|||EW_MAP(y, FN(rint)(x[k]))|||EW_MAP(y, FN(round)(x[k]))|||test/elementwise.test.ts test/property.test.ts
bf16-round|||f32 -> bfloat16 rounds ties down, not to even|||native/src/backends/cpu/view.h|||(x + 0x7fff + ((x >> 16) & 1)) >> 16|||(x + 0x7fff) >> 16|||test/elementwise.test.ts test/property.test.ts test/creation.test.ts
fuse-f16|||a float16 node is inlined unrounded|||src/lazy/record.ts|||if (d === "float32" || d === "float64"|||if (d === "float16" || d === "float32" || d === "float64"|||test/lazy.test.ts test/property.test.ts
fuse-u8|||a uint8 node is inlined unwrapped|||src/lazy/record.ts|||d === "int32" || d === "int64") return true;|||d === "int32" || d === "int64" || d === "uint8") return true;|||test/lazy.test.ts test/property.test.ts
fuse-bool|||any bool node is inlined (add on bools gives 2)|||src/lazy/record.ts|||return n.dtype === "bool" && (e.k === "unary" || e.k === "binary") && BOOL_ROOTS.has(e.op);|||return n.dtype === "bool";|||test/lazy.test.ts test/property.test.ts
fuse-shape|||a node is inlined into an op of another shape|||src/lazy/record.ts|||n.refs !== null && sameShape(x.shape, shape) && storesExactly(n)|||n.refs !== null && storesExactly(n)|||test/lazy.test.ts test/property.test.ts
fuse-depth|||chain steps ignore the depth limit|||src/lazy/record.ts|||nodes > MAX_NODES || depth > MAX_DEPTH) return undefined;|||nodes > MAX_NODES) return undefined;|||test/lazy.test.ts
dispose-leak|||dispose() of an unregistered tensor releases nothing|||src/tensor/tensor.ts|||else release(this.device, this.#epoch, buf, node);|||else void node;|||test/ownership.test.ts test/tidy.test.ts
hold-buffer|||a materialized lazy tensor's buffer is never released|||src/runtime/ownership.ts|||held.node = null;<NL>  held.buf = buf;|||held.node = null;|||test/ownership.test.ts test/lazy.test.ts test/tidy.test.ts
dispose-twice|||dispose() keeps its handle, so a second one releases again|||src/tensor/tensor.ts|||    this.#buf = 0;<NL>    this.#held = null;|||    this.#held = null;|||test/ownership.test.ts test/tidy.test.ts
tidy-keep|||pt.keep no longer exempts from tidy|||src/runtime/ownership.ts|||if ((keep !== null && keep.has(o)) || kept.has(o)) {|||if (keep !== null && keep.has(o)) {|||test/tidy.test.ts
tidy-nested|||a nested tidy keeps its intermediates|||src/runtime/ownership.ts|||} else o.dispose();|||} else if (scope === null) o.dispose();|||test/tidy.test.ts
EOF
)

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
runtime=deno only="" mode=run timeout_s=180
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime=${2:-}; shift 2 ;;
    --only) only=${2:-}; shift 2 ;;
    --list) mode=list; shift ;;
    --check) mode=check; shift ;;
    --timeout) timeout_s=${2:-}; shift 2 ;;
    *) usage ;;
  esac
done
case "$runtime" in deno | bun) ;; *) usage ;; esac

# The table, split into arrays (index k is one mutation).
ids=() whats=() files=() froms=() tos=() tests=() equivs=()
while IFS= read -r line; do
  [ -z "$line" ] && continue
  f=()
  while [[ $line == *"|||"* ]]; do f+=("${line%%|||*}"); line=${line#*|||}; done
  f+=("$line")
  if [ ${#f[@]} -lt 6 ]; then echo "mutate.sh: bad table line (${#f[@]} fields): ${f[0]}" >&2; exit 2; fi
  if [ -n "$only" ] && [[ ",$only," != *",${f[0]},"* ]]; then continue; fi
  ids+=("${f[0]}") whats+=("${f[1]}") files+=("${f[2]}") froms+=("${f[3]}") tos+=("${f[4]}") tests+=("${f[5]}")
  equivs+=("${f[6]:-}")
done <<<"$MUTATIONS"
if [ ${#ids[@]} -eq 0 ]; then echo "mutate.sh: no mutation matches --only $only" >&2; exit 2; fi

if [ "$mode" = list ]; then
  for k in "${!ids[@]}"; do
    printf '%-16s %-52s %s\n%16s   runs %s\n' "${ids[k]}" "${whats[k]}" "${files[k]}" "" "${tests[k]}"
    [ -n "${equivs[k]}" ] && printf '%16s   %s\n' "" "${equivs[k]}"
  done
  echo "${#ids[@]} mutations"
  exit 0
fi

# apply FILE FROM TO: replaces the one occurrence of FROM in FILE ("<NL>" is a newline);
# exit status 3, and a message, when FROM does not occur exactly once.
apply() {
  python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("<NL>", "\n"), sys.argv[3].replace("<NL>", "\n")
text = open(path, encoding="utf-8").read()
n = text.count(old)
if n != 1:
    print(f"{path}: the text to replace occurs {n} times, not once: {old!r}", file=sys.stderr)
    sys.exit(3)
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
}

source "$ROOT/scripts/env.sh" # ZIG, DENO, BUN (and cd "$ROOT")
rev=$(git -C "$ROOT" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/polytensor-mutate.XXXXXX")
tree=$work/tree logs=$work/logs
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree" "$logs"
git -C "$ROOT" archive "$rev" | tar -x -C "$tree"
ln -s "$ROOT/node_modules" "$tree/node_modules"

if [ "$mode" = check ]; then
  bad=0
  for k in "${!ids[@]}"; do
    if apply "$tree/${files[k]}" "${froms[k]}" "${tos[k]}"; then
      git -C "$ROOT" show "$rev:${files[k]}" >"$tree/${files[k]}"
    else bad=$((bad + 1)); fi
  done
  echo "${#ids[@]} mutations, $bad do not apply"
  rm -rf "$work"
  [ "$bad" -eq 0 ]
  exit
fi

# The suite as CI runs it on the CPU: no PT_* settings but the device and the library.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^PT_' || true)
export PT_DEVICE=cpu PT_LIBRARY="$tree/native/zig-out/lib/libpolytensor.so" NO_COLOR=1
zcache=${XDG_CACHE_HOME:-$HOME/.cache}/polytensor-mutate/zig
mkdir -p "$zcache"
build() { (cd "$tree" && "${ZIG[@]}" build --cache-dir "$zcache") >"$logs/build.txt" 2>&1; }

# run_tests LOG FILES...: the files under the chosen runtime, with the time limit; sets rc and nfail.
run_tests() {
  local log=$1
  shift
  set +e
  if [ "$runtime" = deno ]; then
    (cd "$tree" && timeout -k 10 "$timeout_s" "$DENO" test --allow-all --v8-flags=--expose-gc "$@") >"$log" 2>&1
  else
    (cd "$tree" && timeout -k 10 "$timeout_s" "$BUN" test --timeout 120000 "${@/#/./}") >"$log" 2>&1
  fi
  rc=$?
  set -e
  if [ "$runtime" = deno ]; then
    nfail=$(grep -Eo '[0-9]+ failed' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  else
    nfail=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  fi
  nfail=${nfail:-0}
}

start=$EPOCHREALTIME
echo "mutate.sh: $rev in $tree, $runtime on the CPU, ${#ids[@]} mutations" >&2
build || { echo "mutate.sh: the unmutated shim does not build (see $logs/build.txt)" >&2; exit 2; }
# The baseline: every file the chosen mutations run must pass unmutated, or "caught" means nothing.
mapfile -t all < <(printf '%s\n' "${tests[@]}" | tr ' ' '\n' | sort -u)
run_tests "$logs/baseline.txt" "${all[@]}"
if [ "$rc" -ne 0 ]; then
  echo "mutate.sh: the suite fails without any mutation (exit $rc, $nfail failed; see $logs/baseline.txt)" >&2
  exit 2
fi

caught=0 survived=0 equivalent=0 broken=0
printf '%-16s %-52s %-30s %7s\n' id "what it plants" result seconds
for k in "${!ids[@]}"; do
  t0=$EPOCHREALTIME file=${files[k]} native=0
  [[ $file == native/* ]] && native=1
  if ! apply "$tree/$file" "${froms[k]}" "${tos[k]}" 2>"$logs/${ids[k]}.txt"; then
    result="mutation text not found" broken=$((broken + 1))
    cat "$logs/${ids[k]}.txt" >&2
  else
    if [ "$native" -eq 1 ] && ! build; then
      result="caught by the build" caught=$((caught + 1))
      cp "$logs/build.txt" "$logs/${ids[k]}.txt"
    else
      read -r -a files_k <<<"${tests[k]}"
      run_tests "$logs/${ids[k]}.txt" "${files_k[@]}"
      if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then result="caught by timeout (${timeout_s}s)" caught=$((caught + 1))
      elif [ "$rc" -ne 0 ] && [ "$nfail" -gt 0 ]; then result="caught by $nfail failing tests" caught=$((caught + 1))
      elif [ "$rc" -ne 0 ]; then result="caught by a crash (exit $rc)" caught=$((caught + 1))
      elif [ -n "${equivs[k]}" ]; then result="equivalent" equivalent=$((equivalent + 1))
      else result="SURVIVED" survived=$((survived + 1)); fi
    fi
  fi
  git -C "$ROOT" show "$rev:$file" >"$tree/$file" # the pristine file again
  [ "$native" -eq 1 ] && build
  printf '%-16s %-52s %-30s %7.1f\n' "${ids[k]}" "${whats[k]:0:52}" "$result" "$(echo "$EPOCHREALTIME - $t0" | bc)"
  [ "$result" = equivalent ] && printf '%16s   %s\n' "" "${equivs[k]}"
done
printf '%s mutations, %s caught, %s survived' "${#ids[@]}" "$caught" "$survived"
[ "$equivalent" -gt 0 ] && printf ', %s equivalent' "$equivalent"
[ "$broken" -gt 0 ] && printf ', %s could not be applied' "$broken"
printf ' (%s, %.0f s; logs in %s)\n' "$runtime" "$(echo "$EPOCHREALTIME - $start" | bc)" "$logs"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
