# libFuzzer targets of every parser that reads client bytes, a whole-request
# target and the resolver differential fuzzer (ENABLE_FUZZ, clang: the
# preset "fuzz"). Each runs FUZZ_SECONDS (default 20) with -seed=1 as a
# ctest entry labelled "fuzz"; seeds in corpus/<name>/.
foreach(lib beneath_http beneath_runtime beneath_files beneath_observe
    beneath_access beneath_respond beneath_transport beneath_process
    beneath_tls resolver)
  # coverage feedback needs the code under test instrumented too
  target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link)
endforeach()

set(fuzz_targets target:beneath_http range:beneath_http cond:beneath_http
    negotiate:beneath_http framing:beneath_http request:beneath_process
    resolver:resolver)
foreach(pair ${fuzz_targets})
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 name)
  list(GET pair 1 lib)
  add_executable(fuzz_${name} ${CMAKE_CURRENT_LIST_DIR}/fuzz_${name}.c)
  target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_${name} PRIVATE ${lib} project_options)
  add_test(NAME fuzz_${name}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh $<TARGET_FILE:fuzz_${name}>
            ${CMAKE_CURRENT_LIST_DIR}/corpus/${name}
            ${CMAKE_CURRENT_BINARY_DIR}/fuzz-corpus/${name})
  set_tests_properties(fuzz_${name} PROPERTIES
    LABELS fuzz
    TIMEOUT 900
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endforeach()
