# add_tile_kernel: compile .tile files with tlc into a static library of launchers.
#
#   add_tile_kernel(<target>
#                   SOURCES a.tile [b.tile ...]
#                   [ARCHS sm_90a sm_80 ...]
#                   [DEFINES NAME=VALUE ...]
#                   [NAMESPACE ns]
#                   [OUTPUT_DIR dir]
#                   [OPTIONS tlc arguments ...])
#
# For each a.tile, tlc writes <dir>/a.fatbin, a.h, a.cpp (the launcher, with the fatbin embedded)
# and a.json (the manifest). <target> is a STATIC library of the a.cpp files; linking it gives
# the include directory of a.h (#include "a.h"), tlc::runtime, the CUDA driver library and C++17.
# The launchers live in namespace tlc::a, or ns::a with NAMESPACE ns.
#
# ARCHS defaults to CMAKE_CUDA_ARCHITECTURES (90a -> sm_90a, 80 -> sm_80, 90-real -> sm_90; native
# and all are an error), else to sm_90a. OPTIONS are further tlc arguments for every file (e.g.
# --codegen=tma-stores, --jobs=4, --every-plain-entry); the output, the architectures, -D and the
# namespace are add_tile_kernel's own arguments. OUTPUT_DIR defaults to
# ${CMAKE_CURRENT_BINARY_DIR}/tile_kernels/<target>. tlc reruns when a .tile file or the tlc
# executable changes. See docs/cmake.md.
#
# Works in a build that add_subdirectory()s tlc (targets tlc::tlc and tlc::runtime are aliases of
# the in-tree targets) and after find_package(tlc) (imported targets of an installed tlc).

include_guard(GLOBAL)

# Turns one CMAKE_CUDA_ARCHITECTURES entry ("90a", "80-real", "90-virtual") or a tlc name
# ("sm_90a") into a tlc --arch value; stores it in <out>.
function(_tlc_arch_name entry out)
  set(value "${entry}")
  if(value MATCHES "^sm_[0-9]+[a-z]?$")
    set(${out} "${value}" PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "-(real|virtual)$" "" value "${value}")
  if(value MATCHES "^[0-9]+[a-z]?$")
    set(${out} "sm_${value}" PARENT_SCOPE)
    return()
  endif()
  if(value MATCHES "^(native|all|all-major)$")
    message(FATAL_ERROR
      "add_tile_kernel: CMAKE_CUDA_ARCHITECTURES '${entry}' cannot be used: tlc compiles ahead of "
      "time for a fixed list of architectures. Pass ARCHS (e.g. ARCHS sm_90a sm_80) or set "
      "CMAKE_CUDA_ARCHITECTURES to a list such as \"90a;80\".")
  endif()
  message(FATAL_ERROR
    "add_tile_kernel: unknown architecture '${entry}'; expected sm_XY or sm_XYa (e.g. sm_90a), "
    "or a CMAKE_CUDA_ARCHITECTURES entry such as 90a or 80")
endfunction()

# tlc_compile(<prefix> <source> [OUTPUTS ext...] [COMMENT text] [ARGS tlc arguments...]): the one
# rule that runs tlc, `tlc <source> -o <prefix> <ARGS>`, producing <prefix>.<ext> for each OUTPUTS
# extension (default: fatbin h cpp json; launchers and manifest outputs tlc writes but the build
# does not want are removed). It reruns when <source> or tlc changes. add_tile_kernel, the
# bundled kernels (kernels/), the GPU tests' kernels and the differential builds use it.
function(tlc_compile prefix source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "COMMENT" "OUTPUTS;ARGS")
  if(NOT ARG_OUTPUTS)
    set(ARG_OUTPUTS fatbin h cpp json)
  endif()
  set(outputs)
  foreach(ext IN LISTS ARG_OUTPUTS)
    list(APPEND outputs "${prefix}.${ext}")
  endforeach()
  set(remove)
  foreach(ext h cpp)
    if(NOT ext IN_LIST ARG_OUTPUTS)
      list(APPEND remove "${prefix}.${ext}")
    endif()
  endforeach()
  set(remove_command)
  if(remove)
    set(remove_command COMMAND "${CMAKE_COMMAND}" -E remove ${remove})
  endif()
  if(NOT ARG_COMMENT)
    get_filename_component(name "${source}" NAME)
    set(ARG_COMMENT "tlc ${name} ${ARG_ARGS}")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "$<TARGET_FILE:tlc::tlc>" "${source}" -o "${prefix}" ${ARG_ARGS}
    ${remove_command}
    DEPENDS "${source}" tlc::tlc
    COMMENT "${ARG_COMMENT}"
    VERBATIM)
endfunction()

function(add_tile_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "NAMESPACE;OUTPUT_DIR" "SOURCES;ARCHS;DEFINES;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_tile_kernel(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "add_tile_kernel(${target}): no SOURCES given")
  endif()
  if(NOT TARGET tlc::tlc)
    message(FATAL_ERROR
      "add_tile_kernel(${target}): no tlc::tlc target; call find_package(tlc) or "
      "add_subdirectory(<tlc source dir>) first")
  endif()
  if(NOT TARGET tlc::runtime)
    message(FATAL_ERROR
      "add_tile_kernel(${target}): no tlc::runtime target: tlc was built without the CUDA "
      "toolkit (cuda.h and libcuda), which the launchers need")
  endif()

  # Architectures: ARCHS, else CMAKE_CUDA_ARCHITECTURES, else sm_90a.
  set(archs)
  if(ARG_ARCHS)
    set(arch_entries ${ARG_ARCHS})
  elseif(CMAKE_CUDA_ARCHITECTURES)
    set(arch_entries ${CMAKE_CUDA_ARCHITECTURES})
  else()
    set(arch_entries sm_90a)
  endif()
  foreach(entry IN LISTS arch_entries)
    _tlc_arch_name("${entry}" arch)
    list(APPEND archs ${arch})
  endforeach()
  list(REMOVE_DUPLICATES archs)
  set(arch_args)
  foreach(arch IN LISTS archs)
    list(APPEND arch_args --arch ${arch})
  endforeach()

  set(define_args)
  foreach(define IN LISTS ARG_DEFINES)
    if(NOT define MATCHES "^[A-Za-z_][A-Za-z0-9_]*=.+$")
      message(FATAL_ERROR "add_tile_kernel(${target}): DEFINES entry '${define}' must have the "
                          "form NAME=VALUE")
    endif()
    list(APPEND define_args -D ${define})
  endforeach()

  foreach(option IN LISTS ARG_OPTIONS)
    if(NOT option MATCHES "^-")
      message(FATAL_ERROR "add_tile_kernel(${target}): OPTIONS entry '${option}' is not a tlc option "
                          "(options start with '-'; give an option's value with '=', e.g. "
                          "--codegen=tma-stores)")
    endif()
    if(option MATCHES "^(-o|--output|--arch|-D|--namespace|--emit|--split-input-file|--check|--verify-diagnostics)(=.*)?$"
       OR option MATCHES "^-[oD].")
      message(FATAL_ERROR "add_tile_kernel(${target}): OPTIONS entry '${option}' is set by "
                          "add_tile_kernel itself (use OUTPUT_DIR, ARCHS, DEFINES or NAMESPACE)")
    endif()
  endforeach()

  if(ARG_NAMESPACE AND NOT ARG_NAMESPACE MATCHES "^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
    message(FATAL_ERROR "add_tile_kernel(${target}): NAMESPACE '${ARG_NAMESPACE}' is not a C++ "
                        "namespace name such as myapp or myapp::kernels")
  endif()

  set(out_dir "${ARG_OUTPUT_DIR}")
  if(NOT out_dir)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/tile_kernels/${target}")
  elseif(NOT IS_ABSOLUTE "${out_dir}")
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${out_dir}")
  endif()
  file(MAKE_DIRECTORY "${out_dir}")

  # ptxas comes from the toolkit tlc was configured with, when that one has it; else tlc searches
  # $CUDA_PATH, /usr/local/cuda and PATH itself.
  set(cuda_args)
  if(TLC_CUDA_PATH AND EXISTS "${TLC_CUDA_PATH}/bin/ptxas")
    set(cuda_args --cuda-path "${TLC_CUDA_PATH}")
  endif()

  set(stems)
  set(sources)
  set(headers)
  set(fatbins)
  set(manifests)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${src}" NAME_WLE)
    if(NOT stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "add_tile_kernel(${target}): '${src}': the file name (without .tile) "
                          "names the launchers' namespace and must be a C++ identifier")
    endif()
    if(stem IN_LIST stems)
      message(FATAL_ERROR "add_tile_kernel(${target}): two SOURCES named '${stem}'")
    endif()
    list(APPEND stems ${stem})
    set(ns_args)
    if(ARG_NAMESPACE)
      set(ns_args --namespace "${ARG_NAMESPACE}::${stem}")
    endif()
    set(prefix "${out_dir}/${stem}")
    file(RELATIVE_PATH rel "${CMAKE_SOURCE_DIR}" "${src}")
    if(rel MATCHES "^\\.\\./")
      set(rel "${src}")
    endif()
    tlc_compile("${prefix}" "${src}" COMMENT "tlc ${rel} (${archs}) for ${target}"
                ARGS ${arch_args} ${define_args} ${ns_args} ${cuda_args} ${ARG_OPTIONS})
    list(APPEND sources "${prefix}.cpp")
    list(APPEND headers "${prefix}.h")
    list(APPEND fatbins "${prefix}.fatbin")
    list(APPEND manifests "${prefix}.json")
  endforeach()

  add_library(${target} STATIC ${sources} ${headers})
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  target_link_libraries(${target} PUBLIC tlc::runtime)
  find_package(Threads QUIET)
  if(TARGET Threads::Threads)
    target_link_libraries(${target} PUBLIC Threads::Threads)
  endif()
  target_compile_features(${target} PUBLIC cxx_std_17)
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    LINKER_LANGUAGE CXX
    TLC_OUTPUT_DIR "${out_dir}"
    TLC_ARCHS "${archs}"
    TLC_FATBINS "${fatbins}"
    TLC_MANIFESTS "${manifests}")
endfunction()
