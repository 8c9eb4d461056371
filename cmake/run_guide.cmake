# SPDX-License-Identifier: MIT
# Runs one program of the manual (cmake/guide.cmake) in a fresh folder holding a copy of
# examples/, and compares what it prints with the manual's ```output blocks. The folder sits
# beside a link named shared to SHARED, so ../shared/... reads as it does from a checkout.
#   cmake -DPROGRAM=... -DEXPECTED=<file or empty> -DWORK_DIR=... -DEXAMPLES=... -DSHARED=...
#         -DNEEDS_SHARED=<ON|OFF> -P run_guide.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/arbor")
file(COPY "${EXAMPLES}" DESTINATION "${WORK_DIR}/arbor")
if(NEEDS_SHARED)
    if(NOT IS_DIRECTORY "${SHARED}")
        if("$ENV{CI}" STREQUAL "true")
            message(FATAL_ERROR "${PROGRAM} reads ../shared, and ${SHARED} is missing")
        endif()
        message("guide: skipped: ${PROGRAM} reads ../shared, and ${SHARED} is missing")
        return()
    endif()
    file(CREATE_LINK "${SHARED}" "${WORK_DIR}/shared" SYMBOLIC)
endif()
execute_process(COMMAND "${PROGRAM}" WORKING_DIRECTORY "${WORK_DIR}/arbor"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT EXPECTED STREQUAL "")
    file(READ "${EXPECTED}" want)
    if(NOT out STREQUAL want)
        file(WRITE "${WORK_DIR}/printed.txt" "${out}")
        execute_process(COMMAND diff -u "${EXPECTED}" "${WORK_DIR}/printed.txt")
        message(FATAL_ERROR "${PROGRAM} printed something other than the manual shows (diff above: "
                            "- the manual, + the program)\nstderr:\n${err}")
    endif()
endif()
message(STATUS "${PROGRAM}: ok")
