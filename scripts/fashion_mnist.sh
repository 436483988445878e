#!/usr/bin/env bash
# Makes Fashion-MNIST available to examples/fashion_mnist.ts and prints the folder that holds its
# four idx files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz,
# t10k-labels-idx1-ubyte.gz). They come from Debian's dataset-fashion-mnist package (31 MB), which
# puts them in /usr/share/datasets/fashion-mnist. As env.sh's ensure_lavapipe: apt-get install as
# root or through sudo; failing that (no root, no sudo), `apt-get download` of the .deb and
# `dpkg -x` of its data folder into a cache, $PT_FASHION_MNIST or
# ${XDG_CACHE_HOME:-~/.cache}/polytensor/fashion-mnist, which the example also looks in.
# Idempotent: prints the folder at once when the files are already there.
#   bash scripts/fashion_mnist.sh          then   deno run -A examples/fashion_mnist.ts
set -euo pipefail
SYSTEM=/usr/share/datasets/fashion-mnist
CACHE=${PT_FASHION_MNIST:-${XDG_CACHE_HOME:-$HOME/.cache}/polytensor/fashion-mnist}
FILES=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)

# Whether folder $1 holds all four files, gzipped or not.
complete() {
  local f
  for f in "${FILES[@]}"; do [ -s "$1/$f.gz" ] || [ -s "$1/$f" ] || return 1; done
}
for d in "$CACHE" "$SYSTEM"; do
  if complete "$d"; then echo "$d"; exit 0; fi
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "fashion_mnist: no apt-get: download the four idx files of https://github.com/zalandoresearch/fashion-mnist" \
    "(data/fashion) into $CACHE, or pass their folder to the example with --data DIR" >&2
  exit 1
fi

sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
  echo "fashion_mnist: apt-get install dataset-fashion-mnist" >&2
  # The package lists may be missing (a fresh container) or stale: update once and retry.
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dataset-fashion-mnist >&2; then
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dataset-fashion-mnist >&2 || true
  fi
  if complete "$SYSTEM"; then echo "$SYSTEM"; exit 0; fi
  echo "fashion_mnist: apt-get install failed; downloading the .deb instead" >&2
fi

# No root: the .deb's files unpacked into the cache (apt-get download needs no root, only lists).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fashion_mnist: apt-get download dataset-fashion-mnist, unpacked into $CACHE" >&2
(cd "$tmp" && apt-get download -qq dataset-fashion-mnist >&2) || {
  echo "fashion_mnist: apt-get download failed: the package lists may be missing; run 'sudo apt-get update'" \
    "(or 'sudo apt-get install dataset-fashion-mnist'), then this script again" >&2
  exit 1
}
dpkg -x "$tmp"/dataset-fashion-mnist_*.deb "$tmp/root"
mkdir -p "$CACHE"
for f in "${FILES[@]}"; do cp "$tmp/root$SYSTEM/$f.gz" "$CACHE/"; done
complete "$CACHE" || { echo "fashion_mnist: the package did not hold the expected files" >&2; exit 1; }
echo "$CACHE"
