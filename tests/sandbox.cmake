# The sandbox end to end (tests/integration/test_sandbox.c): the beneath
# binary, and beneath_faults (the same server with the sandbox's fault hook,
# built only for tests) for the tries that must be refused.
if(TARGET beneath AND TARGET e2e_harness AND TARGET beneath_faults)
  add_executable(test_e2e_sandbox integration/test_sandbox.c)
  target_link_libraries(test_e2e_sandbox PRIVATE e2e_harness project_options)
  add_test(NAME e2e_sandbox COMMAND test_e2e_sandbox)
  set_tests_properties(e2e_sandbox PROPERTIES
    ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_FAULTS_BIN=$<TARGET_FILE:beneath_faults>;BENEATH_E2E_RESOLVER=kernel"
    TIMEOUT 900
    LABELS e2e)
endif()
