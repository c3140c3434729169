# conf: the option table, its four sources, --help and the round trip.
add_executable(test_conf test_conf.c)
target_link_libraries(test_conf PRIVATE conf PkgConfig::CHECK project_options)
add_test(NAME conf COMMAND test_conf)
set_tests_properties(conf PROPERTIES ENVIRONMENT
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")

# conf: values typed by server/http/ parsers, the '#' rule, --port and PORT.
add_executable(test_conf_values test_conf_values.c)
target_link_libraries(test_conf_values PRIVATE conf PkgConfig::CHECK
  project_options)
add_test(NAME conf_values COMMAND test_conf_values)
set_tests_properties(conf_values PROPERTIES ENVIRONMENT
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")

# libFuzzer harness for conf_parse: clang only, opt-in.
option(ENABLE_FUZZ "Build libFuzzer harnesses (clang)" OFF)
if(ENABLE_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  # coverage feedback needs the library instrumented too
  target_compile_options(conf PRIVATE -fsanitize=fuzzer-no-link)
  add_executable(fuzz_conf fuzz_conf.c)
  target_compile_options(fuzz_conf PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_conf PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_conf PRIVATE conf project_options)
endif()

# docs/configuration.md must hold --help, verbatim.
add_executable(conf_help_dump conf_help_dump.c)
target_link_libraries(conf_help_dump PRIVATE conf project_options)
add_test(NAME conf-readme
  COMMAND ${CMAKE_COMMAND} -DHELP=$<TARGET_FILE:conf_help_dump>
    -DREADME=${PROJECT_SOURCE_DIR}/docs/configuration.md
    -P ${CMAKE_CURRENT_SOURCE_DIR}/conf-readme.cmake)
