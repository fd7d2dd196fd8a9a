#!/bin/bash
# A stand-in for `judge` in course-server's tests, for machines without a GPU. A submission's
# kernel text says how its run behaves:
#   LOOP    never ends            CRASH   dies without a reply, exit status 139
#   SPAM    prints 10 MB first    NOTYET  replies not yet (a line with a comma and quotes)
#   US=N    a timed run's median is N µs (else 100)
set -u
case "${1:-}" in
--fingerprint) echo "fake-judge-1" ;;
--list-exercises)
    echo "ch05 tile_reverse"
    echo "ch06 warp_sum"
    ;;
--gpu-health) exit 0 ;;
--solution-job)
    printf '{"chapter":"%s","exercise":"%s","kernel_name":"solution.cu","kernel":"US=50","plan":null,"todo":null,"seeds":[1,2],"timed":true}\n' "$2" "$3"
    ;;
--run-submission)
    job=$(cat)
    case "$job" in
    *LOOP*)
        # A loop of sleeps, not `exec sleep`: this script's own command line must stay.
        while :; do sleep 1; done
        ;;
    *CRASH*)
        echo "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" >&2
        exit 139
        ;;
    *SPAM*)
        head -c 10000000 /dev/zero | tr '\0' 'x'
        echo
        head -c 1000000 /dev/zero | tr '\0' 'y' >&2
        ;;
    *NOTYET*)
        echo '{"verdict":"not_yet","line":"not yet: out[3] is 1, expected \"2\"","timing":null}'
        exit 0
        ;;
    esac
    us=100
    if [[ $job =~ US=([0-9]+) ]]; then us=${BASH_REMATCH[1]}; fi
    if [[ $job == *'"timed":true'* ]]; then
        echo "timing $us µs"
        echo "{\"verdict\":\"passed\",\"line\":\"passed\",\"timing\":{\"median_us\":$us,\"rate\":12.5,\"unit\":\"GB/s\",\"launches\":20}}"
    else
        echo '{"verdict":"passed","line":"passed","timing":null}'
    fi
    ;;
*)
    echo "fake-runner: unknown command ${1:-}" >&2
    exit 2
    ;;
esac
