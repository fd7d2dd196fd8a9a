#!/usr/bin/env bash
# Chapter 8's scan, select and sort as they were before issue 34 (old/: release binaries built
# from a worktree of commit 36b2733, in a target directory of their own) and as they are (bin/:
# from the GPU bundle), in turn, twice, on the same GPU: each run's rate lines.
# Run from a folder holding old/ and bin/, each with cub_reference beside the programs.
set -u
cd "$(dirname "$0")" || exit
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
    for p in scan_lookback select_lookback radix_sort; do
        for which in old bin; do
            echo "== round $round $which/$p"
            "./$which/$p" 2>&1 | grep -E "look-back|radix sort|CUB's (scan|select|sort):|differ|keeps"
        done
    done
done
