# conf: the option table, its four sources, --help and the round trip.
add_executable(test_conf test_conf.c)
target_link_libraries(test_conf PRIVATE conf PkgConfig::CHECK project_options)
add_test(NAME conf COMMAND test_conf)
set_tests_properties(conf PROPERTIES ENVIRONMENT
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
