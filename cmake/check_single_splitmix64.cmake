# SPDX-License-Identifier: MIT
# cmake -DROOT=<source dir> -P check_single_splitmix64.cmake
# splitmix64 is defined once, in bench/splitmix64.h: no C file of the tests, the tools, the fuzz
# targets or the benchmarks types its step again (its increment, 0x9E3779B97F4A7C15, gives it away).
if(NOT ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P check_single_splitmix64.cmake")
endif()
file(GLOB_RECURSE files "${ROOT}/tests/*.[ch]" "${ROOT}/tools/*.[ch]" "${ROOT}/fuzz/*.[ch]" "${ROOT}/bench/*.[ch]")
set(found "")
foreach(f IN LISTS files)
    file(STRINGS "${f}" hits REGEX "[0xX]9[Ee]3779[Bb]97[Ff]4[Aa]7[Cc]15")
    if(hits)
        file(RELATIVE_PATH rel "${ROOT}" "${f}")
        list(APPEND found "${rel}")
    endif()
endforeach()
if(NOT found STREQUAL "bench/splitmix64.h")
    list(JOIN found "\n  " text)
    message(FATAL_ERROR "splitmix64 should be defined in bench/splitmix64.h alone; its step is in:\n  ${text}")
endif()
message(STATUS "splitmix64: one definition, bench/splitmix64.h")
