# SPDX-License-Identifier: MIT
# The C programs of docs/guide.md and README.md, compiled and run as tests (included by the
# top-level CMakeLists.txt with the tests), so the manual cannot drift from the library.
#
# How a Markdown file becomes programs:
# - every ```c block is compiled; the ```c blocks of one `## ` section, in order, are one
#   program (the first opens it with its #includes and main, the last closes it);
# - the ```output blocks of that section, in order, are what the program must print on
#   stdout, exactly; a section without one only has to exit 0;
# - other blocks (```sh, ```cmake, ```json, ...) are not run.
# Programs are named <file>_<section number>: guide_03, readme_02 (sections counted from 1).
# They link the library as an application does (the shared libraries through the build
# tree's targets, glTF's own when it is a library of its own) and run in a folder of their
# own holding a copy of examples/ (the guide reads examples/robot_arm.gltf and writes there).

# Writes content to path only when it differs (the program is then not rebuilt for nothing).
function(arbor_write_if_changed path content)
    if(EXISTS "${path}")
        file(READ "${path}" old)
        if("${old}" STREQUAL "${content}")
            return()
        endif()
    endif()
    file(WRITE "${path}" "${content}")
endfunction()

# arbor_markdown_programs(MD PREFIX OUT_DIR NAMES_VAR): writes OUT_DIR/<name>.c and
# <name>.expected for each program of MD and sets NAMES_VAR to their names.
function(arbor_markdown_programs md prefix out_dir names_var)
    file(READ "${md}" text)
    # Lines as a CMake list: ';', '[' and ']' would split it wrongly, so they travel as control
    # characters and come back when written.
    string(ASCII 1 semi)
    string(ASCII 2 open)
    string(ASCII 3 close)
    string(REPLACE ";" "${semi}" text "${text}")
    string(REPLACE "[" "${open}" text "${text}")
    string(REPLACE "]" "${close}" text "${text}")
    string(REPLACE "\n" ";" lines "${text}")

    set(names "")
    set(section 0)
    set(block "")          # "", "c", "output" or "other"
    set(code "")
    set(expected "")
    set(has_expected OFF)
    list(APPEND lines "## end")
    foreach(line IN LISTS lines)
        if(block STREQUAL "")
            if(line MATCHES "^## ")
                if(NOT code STREQUAL "")
                    if(section LESS 10)
                        set(name "${prefix}_0${section}")
                    else()
                        set(name "${prefix}_${section}")
                    endif()
                    foreach(var code expected)
                        string(REPLACE "${semi}" ";" ${var} "${${var}}")
                        string(REPLACE "${open}" "[" ${var} "${${var}}")
                        string(REPLACE "${close}" "]" ${var} "${${var}}")
                    endforeach()
                    arbor_write_if_changed("${out_dir}/${name}.c"
                                           "/* Generated from ${md}, section ${section}. */\n${code}")
                    if(has_expected)
                        arbor_write_if_changed("${out_dir}/${name}.expected" "${expected}")
                    else()
                        file(REMOVE "${out_dir}/${name}.expected")
                    endif()
                    list(APPEND names "${name}")
                endif()
                math(EXPR section "${section} + 1")
                set(code "")
                set(expected "")
                set(has_expected OFF)
            elseif(line STREQUAL "```c")
                set(block c)
            elseif(line STREQUAL "```output")
                set(block output)
                set(has_expected ON)
            elseif(line MATCHES "^```")
                set(block other)
            endif()
        elseif(line STREQUAL "```")
            set(block "")
        elseif(block STREQUAL "c")
            string(APPEND code "${line}\n")
        elseif(block STREQUAL "output")
            string(APPEND expected "${line}\n")
        endif()
    endforeach()
    if(NOT block STREQUAL "")
        message(FATAL_ERROR "arbor: ${md}: a ``` block is not closed")
    endif()
    set(${names_var} "${names}" PARENT_SCOPE)
endfunction()

set(ARBOR_GUIDE_DIR "${PROJECT_BINARY_DIR}/guide")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${PROJECT_SOURCE_DIR}/docs/guide.md" "${PROJECT_SOURCE_DIR}/README.md")
# The headers point at the guide's worked examples by section number: those sections must exist.
file(GLOB _arbor_headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/arbor/*.h")
file(STRINGS "${PROJECT_SOURCE_DIR}/docs/guide.md" _arbor_guide_headings REGEX "^## [0-9]+\\. ")
foreach(_header IN LISTS _arbor_headers)
    file(STRINGS "${_header}" _refs REGEX "docs/guide\\.md, section [0-9]+")
    foreach(_ref IN LISTS _refs)
        string(REGEX REPLACE ".*docs/guide\\.md, section ([0-9]+).*" "\\1" _number "${_ref}")
        if(NOT _arbor_guide_headings MATCHES "(^|;)## ${_number}\\. ")
            message(FATAL_ERROR "arbor: ${_header} points to docs/guide.md, section ${_number}, "
                                "which the guide does not have")
        endif()
    endforeach()
endforeach()

set(_arbor_guide_programs "")
foreach(_md_name guide readme)
    if(_md_name STREQUAL "guide")
        set(_md "${PROJECT_SOURCE_DIR}/docs/guide.md")
    else()
        set(_md "${PROJECT_SOURCE_DIR}/README.md")
    endif()
    arbor_markdown_programs("${_md}" ${_md_name} "${ARBOR_GUIDE_DIR}" _names)
    if(NOT _names)
        message(FATAL_ERROR "arbor: no C program found in ${_md}")
    endif()
    list(APPEND _arbor_guide_programs ${_names})
endforeach()

foreach(_name IN LISTS _arbor_guide_programs)
    add_executable(${_name} "${ARBOR_GUIDE_DIR}/${_name}.c")
    set_target_properties(${_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${ARBOR_GUIDE_DIR}")
    # glTF is libarbor-gltf where it is a library of its own, part of libarbor before.
    if(TARGET arbor_gltf_shared)
        target_link_libraries(${_name} PRIVATE arbor_gltf_shared)
    endif()
    if(TARGET arbor_urdf_shared) # robots: libarbor-urdf
        target_link_libraries(${_name} PRIVATE arbor_urdf_shared)
    endif()
    target_link_libraries(${_name} PRIVATE arbor_shared m Threads::Threads)
    set(_expected "")
    if(EXISTS "${ARBOR_GUIDE_DIR}/${_name}.expected")
        set(_expected "${ARBOR_GUIDE_DIR}/${_name}.expected")
    endif()
    # A program that reads ../shared (the glTF files of ../shared/gltf) is skipped without it,
    # except under CI=true, where that fails (cmake/run_guide.cmake).
    file(READ "${ARBOR_GUIDE_DIR}/${_name}.c" _source)
    string(FIND "${_source}" "../shared/" _at)
    if(_at EQUAL -1)
        set(_needs_shared OFF)
    else()
        set(_needs_shared ON)
    endif()
    add_test(NAME ${_name}
             COMMAND ${CMAKE_COMMAND} "-DPROGRAM=$<TARGET_FILE:${_name}>" "-DEXPECTED=${_expected}"
                     "-DWORK_DIR=${ARBOR_GUIDE_DIR}/run/${_name}"
                     "-DEXAMPLES=${PROJECT_SOURCE_DIR}/examples"
                     "-DSHARED=${ARBOR_SHARED_DIR}" "-DNEEDS_SHARED=${_needs_shared}"
                     -P "${PROJECT_SOURCE_DIR}/cmake/run_guide.cmake")
    set_tests_properties(${_name} PROPERTIES LABELS guide TIMEOUT 300 SKIP_REGULAR_EXPRESSION "guide: skipped")
endforeach()
