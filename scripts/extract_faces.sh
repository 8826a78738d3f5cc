#!/usr/bin/env bash
# Lay out the real face photographs of docs/data.md ("Faces") in $MAFVAR_FACES
# (default ../data/faces) from local git mirrors of their two public
# repositories (the search tool's `fetch github:debruine/webmorphR.stim` and
# `fetch github:acani/acani-sinatra` bring them here), at the commits named there.
#
#     scripts/extract_faces.sh WEBMORPH_GIT_DIR ACANI_GIT_DIR
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 WEBMORPH_GIT_DIR ACANI_GIT_DIR" >&2; exit 2; fi
web=$1; acani=$2
for g in "$web" "$acani"; do git --git-dir="$g" rev-parse --git-dir >/dev/null || { echo "$0: $g is not a git directory" >&2; exit 2; }; done
out=${MAFVAR_FACES:-$(cd "$(dirname "$0")/../.." && pwd)/data/faces}
mkdir -p "$out/webmorph" "$out/acani"
for set in neutral_front smiling_front canada lisa zoom; do
  mkdir -p "$out/webmorph/$set"
  files=$(git --git-dir="$web" ls-tree --name-only fa8b78f "inst/$set/")
  for f in $files; do
    case $(basename "$f") in ._*|.DS_Store) continue;; esac   # macOS metadata, not photos
    git --git-dir="$web" show "fa8b78f:$f" > "$out/webmorph/$set/$(basename "$f")"
  done
done
# ca5f8bd replaced photos whose licence changed; 48ad800 holds the rest
for n in $(seq 1 28); do
  blob=$(git --git-dir="$acani" rev-parse "ca5f8bd:seed/pics-thbs/picture_$n@2.jpg" 2>/dev/null \
         || git --git-dir="$acani" rev-parse "48ad800:seed/pics-thbs/picture_$n@2.jpg")
  git --git-dir="$acani" show "$blob" > "$out/acani/picture_$n.jpg"
done
git --git-dir="$acani" show ca5f8bd:seed/pics-thbs/README.md > "$out/acani/README.md"
echo "faces laid out in $out"
