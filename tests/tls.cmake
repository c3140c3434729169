# HTTPS material and content digests: Check suites of beneath_tls.
set(tls_test_env
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
foreach(suite tls_material etag_cache)
  add_executable(test_${suite} test_${suite}.c)
  target_link_libraries(test_${suite}
    PRIVATE beneath_tls PkgConfig::CHECK project_options)
  add_test(NAME ${suite} COMMAND test_${suite})
  set_tests_properties(${suite} PROPERTIES ENVIRONMENT "${tls_test_env}")
endforeach()
