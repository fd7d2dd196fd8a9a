#!/usr/bin/env bash
# Builds the GPU check bundle: release binaries of every GPU program (those with a `*.gpu.txt`
# case), their expected outputs, and the `gpu-check` runner, packed as gpu-bundle.tar.gz
# (small enough for the 64 MiB the GPU machine accepts). On a machine with a GPU:
#   tar xzf gpu-bundle.tar.gz && gpu-bundle/gpu-check [--sanitize | --mutations] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
# With them, the CPU programs recorded on the GPU machine's 16-core host (`*.h200-host.txt`).
cases=$(find crates/examples -name '*.gpu.txt' -o -name '*.h200-host.txt' | sort)
cargo build -q -p checker --bin check-case
# shellcheck disable=SC2086 # one argument per case file (their names have no spaces)
bins=$(target/debug/check-case --bins $cases | sort -u)
args=()
for b in $bins; do args+=(--bin "$b"); done
# The programs are the course's, and one is a crate of its own: cudarc_alone (crates/cudarc-alone),
# the program with cudarc and nothing else. `--bin` finds each in whichever package has it.
cargo build --release -p course -p cudarc-alone "${args[@]}"
cargo build --release -p checker --bin gpu-check

rm -rf gpu-bundle && mkdir -p gpu-bundle/bin gpu-bundle/cases
cp target/release/gpu-check gpu-bundle/
# The learners' judge, to run the exercises' GPU parts: gpu-bundle/judge --solutions
cargo build -q --release -p course --bin judge && cp target/release/judge gpu-bundle/
# The workshop server, whose runner is the judge beside it, and its load run (README: A room
# with one GPU; scripts/server-gpu-run). A fork without the server goes without them.
if [ -d crates/course-server ]; then
    cargo build -q --release -p course-server --bins
    cp target/release/course-server target/release/load-run gpu-bundle/
    for s in server-load-run server-gpu-run; do
        [ -f "scripts/$s" ] && cp "scripts/$s" gpu-bundle/
    done
fi
for b in $bins; do cp "target/release/$b" gpu-bundle/bin/; done
# CUB's times beside chapter 8's scan, compaction and sort (scripts/build-cub-reference.sh).
if [ -x target/cub_reference ]; then
    cp target/cub_reference gpu-bundle/bin/
else
    echo "gpu-bundle: no target/cub_reference (scripts/build-cub-reference.sh): CUB's lines will say so" >&2
fi
# The unchecked launches of chapter 4's launch_findings (scripts/launch-findings.sh), and the
# sort's kernel as it was before its barrier fix (commit 36b2733), its wait limit made settable
# as the fix's is, for synccheck to compare the two.
# A chapter forked on its own (scripts/fork-chapter) has neither: the bundle goes without them.
[ -f scripts/launch-findings.sh ] && cp scripts/launch-findings.sh gpu-bundle/
if git cat-file -e 36b2733:kernels/ch08-sort.cu 2>/dev/null; then
    mkdir -p gpu-bundle/old-kernels
    git show 36b2733:kernels/ch08-sort.cu |
        sed 's|^#define WAIT_LIMIT_NS 10000000000ull$|#ifndef WAIT_LIMIT_NS\n#define WAIT_LIMIT_NS 10000000000ull\n#endif|' \
            >gpu-bundle/old-kernels/ch08-sort.cu
fi
for c in $cases; do
    rel=${c#crates/examples/}
    mkdir -p "gpu-bundle/cases/$(dirname "$rel")"
    cp "$c" "gpu-bundle/cases/$rel"
done
[ -f crates/examples/sanitizer-expected.txt ] && cp crates/examples/sanitizer-expected.txt gpu-bundle/cases/
# Chapter 10's programs (the CubeCL kernels, the ownership programs) and their CUDA recordings,
# built by the chapter's own workspace; stripped, as CubeCL's program is large.
ch10=crates/ch10-rust-kernels
if [ -d "$ch10" ]; then
    ch10_cases=$(find "$ch10/cubecl/outputs" "$ch10/ownership/programs" -name '*.gpu.txt' | sort)
    # shellcheck disable=SC2086 # one argument per case file
    ch10_bins=$(target/debug/check-case --bins $ch10_cases | sort -u)
    (cd "$ch10" && cargo build -q --release --bins)
    mkdir -p gpu-bundle/cases/ch10
    for b in $ch10_bins; do cp "$ch10/target/release/$b" gpu-bundle/bin/ && strip "gpu-bundle/bin/$b"; done
    for c in $ch10_cases; do cp "$c" gpu-bundle/cases/ch10/; done
    bins="$bins $ch10_bins"
fi
# The kernel mutations (gpu-check --mutations): each patch applied to a copy of kernels/, and
# the files it changed, with the patch, in gpu-bundle/mutants/NAME/.
for patch in mutations/gpu/*.patch; do
    [ -f "$patch" ] || continue
    name=$(basename "$patch" .patch)
    copy=$(mktemp -d)
    cp -r kernels "$copy/"
    if ! (cd "$copy" && GIT_CEILING_DIRECTORIES=$copy git apply "$OLDPWD/$patch"); then
        echo "Error: $patch no longer applies to kernels/ (remake it)." >&2
        exit 1
    fi
    mkdir -p "gpu-bundle/mutants/$name"
    cp "$patch" "gpu-bundle/mutants/$name/mutant.patch"
    for f in kernels/*.cu; do
        cmp -s "$f" "$copy/$f" || cp "$copy/$f" "gpu-bundle/mutants/$name/"
    done
    rm -rf "$copy"
done
tar czf gpu-bundle.tar.gz gpu-bundle
echo "gpu-bundle.tar.gz: $(du -h gpu-bundle.tar.gz | cut -f1), $(echo "$bins" | wc -w) GPU programs, $(find gpu-bundle/mutants -mindepth 1 -maxdepth 1 2>/dev/null | wc -l) kernel mutants"
