# End-to-end tests of the real beneath binary (tests/integration/).
# Guarded: main builds before the server lands.
if(TARGET beneath)
  pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
  find_package(Threads REQUIRED)

  add_library(e2e_harness STATIC integration/harness.c integration/site.c)
  target_include_directories(e2e_harness PUBLIC integration)
  target_link_libraries(e2e_harness
    PUBLIC PkgConfig::CHECK PkgConfig::CURL Threads::Threads
    PRIVATE project_options)

  set(e2e_env
    "BENEATH_BIN=$<TARGET_FILE:beneath>"
    "BENEATH_E2E_VERSION=${PROJECT_VERSION}")

  add_executable(test_e2e_http integration/test_http.c)
  target_link_libraries(test_e2e_http PRIVATE e2e_harness project_options)
  add_executable(test_e2e_ops integration/test_ops.c)
  target_link_libraries(test_e2e_ops PRIVATE e2e_harness project_options)

  # The whole HTTP suite once per backend, same code.
  foreach(backend kernel emulated)
    add_test(NAME e2e_http_${backend} COMMAND test_e2e_http)
    set_tests_properties(e2e_http_${backend} PROPERTIES
      ENVIRONMENT "${e2e_env};BENEATH_E2E_RESOLVER=${backend}"
      TIMEOUT 900
      LABELS e2e)
  endforeach()
  # Command line, start-up, limits, signals, privileges: backend-agnostic
  # except the root swap, which also runs per backend in the suite itself.
  add_test(NAME e2e_ops COMMAND test_e2e_ops)
  set_tests_properties(e2e_ops PROPERTIES
    ENVIRONMENT "${e2e_env};BENEATH_E2E_RESOLVER=kernel"
    TIMEOUT 900
    LABELS e2e)
  add_test(NAME e2e_ops_emulated COMMAND test_e2e_ops)
  set_tests_properties(e2e_ops_emulated PROPERTIES
    ENVIRONMENT "${e2e_env};BENEATH_E2E_RESOLVER=emulated;CK_RUN_CASE=swap"
    TIMEOUT 900
    LABELS e2e)

  # The command line as a new user types it, --check beside a running server,
  # '#' in the config file; SIGHUP re-reading the configuration (under load).
  foreach(suite cli reload)
    add_executable(test_e2e_${suite} integration/test_${suite}.c)
    target_link_libraries(test_e2e_${suite} PRIVATE e2e_harness project_options)
    add_test(NAME e2e_${suite} COMMAND test_e2e_${suite})
    set_tests_properties(e2e_${suite} PROPERTIES
      ENVIRONMENT "${e2e_env};BENEATH_E2E_RESOLVER=kernel"
      TIMEOUT 900
      LABELS e2e)
  endforeach()
endif()
