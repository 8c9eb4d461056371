# SPDX-License-Identifier: MIT
# cmake -DCC=<compiler> -DINCLUDES=<dir;dir> -P check_deprecated.cmake
# The 1.0 names that 1.1 replaced (docs/MIGRATING.md) warn a new compile, naming their
# replacement, and compile quietly with ARBOR_NO_DEPRECATION_WARNINGS.
cmake_policy(VERSION 3.25)
if(NOT CC OR NOT INCLUDES)
    message(FATAL_ERROR "usage: cmake -DCC=cc -DINCLUDES=dirs -P check_deprecated.cmake")
endif()
# old name, its call, the replacement the warning must name
set(calls
    "arbor_scene_gather_instances|arbor_scene_gather_instances(s, &n, 1, ARBOR_LAYOUT_MAT4, f, b, 1, &c)|arbor_scene_instance_batches"
    "arbor_clip_bind_names|arbor_clip_bind_names(clip, s, n, &n)|arbor_clip_rig_by_names"
    "arbor_node_get_trs|arbor_node_get_trs(s, n, &t)|arbor_node_trs"
    "arbor_node_get_instance|arbor_node_get_instance(s, n, 0, &t)|arbor_node_instance"
    "arbor_node_local_bounds|arbor_node_local_bounds(s, n, r, r)|arbor_node_bounds")
set(body "")
foreach(entry IN LISTS calls)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 1 call)
    string(APPEND body "    (void)${call};\n")
endforeach()
set(dir "${CMAKE_CURRENT_BINARY_DIR}/check_deprecated")
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${dir}/old.c" "#include <arbor/arbor.h>\n"
     "void old(arbor_scene *s, arbor_node n, const arbor_clip *clip, float *f, arbor_instance_batch *b,\n"
     "         uint32_t c, arbor_trs t, arbor_real *r);\n"
     "void old(arbor_scene *s, arbor_node n, const arbor_clip *clip, float *f, arbor_instance_batch *b,\n"
     "         uint32_t c, arbor_trs t, arbor_real *r) {\n${body}}\n")
set(include_flags "")
foreach(d IN LISTS INCLUDES)
    list(APPEND include_flags "-I${d}")
endforeach()
execute_process(COMMAND "${CC}" -std=c11 -fsyntax-only ${include_flags} "${dir}/old.c"
                ERROR_VARIABLE warnings RESULT_VARIABLE rc)
foreach(entry IN LISTS calls)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 old)
    list(GET parts 2 new)
    if(NOT warnings MATCHES "${old}[^ ]* is deprecated: use ${new} ")
        message(FATAL_ERROR "${old} does not warn that it is deprecated for ${new}:\n${warnings}")
    endif()
endforeach()
execute_process(COMMAND "${CC}" -std=c11 -fsyntax-only -Werror -DARBOR_NO_DEPRECATION_WARNINGS ${include_flags}
                        "${dir}/old.c"
                ERROR_VARIABLE quiet RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "with ARBOR_NO_DEPRECATION_WARNINGS the 1.0 names should compile quietly:\n${quiet}")
endif()
message(STATUS "the 1.0 names warn, naming their replacements; ARBOR_NO_DEPRECATION_WARNINGS silences them")
