# HTTPS material and content digests: Check suites of beneath_tls.
set(tls_test_env
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
find_package(OpenSSL 3 REQUIRED)
foreach(pair tls_material:tls tls:tls etag_cache:files)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 suite)
  list(GET pair 1 layer)
  add_executable(test_${suite} test_${suite}.c tls_fixture.c)
  target_link_libraries(test_${suite}
    PRIVATE beneath_${layer} OpenSSL::SSL OpenSSL::Crypto PkgConfig::CHECK
            project_options)
  add_test(NAME ${suite} COMMAND test_${suite})
  set_tests_properties(${suite} PROPERTIES ENVIRONMENT "${tls_test_env}")
endforeach()

# End to end over HTTPS against the real binary, with the e2e harness.
if(TARGET beneath AND TARGET e2e_harness)
  find_package(OpenSSL 3 REQUIRED)
  add_executable(test_tls_e2e test_tls_e2e.c tls_fixture.c)
  target_include_directories(test_tls_e2e PRIVATE integration)
  target_link_libraries(test_tls_e2e
    PRIVATE e2e_harness OpenSSL::Crypto project_options)
  add_test(NAME tls_e2e COMMAND test_tls_e2e)
  set_tests_properties(tls_e2e PROPERTIES
    ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=kernel"
    TIMEOUT 900
    LABELS e2e)
endif()
