# Strictness on the wire: framing unit table, the hostile-message e2e table
# (both backends), testssl.sh against an https listener, and the libFuzzer
# targets (ENABLE_FUZZ, a clang build: preset fuzz).
add_executable(test_framing test_framing.c)
target_link_libraries(test_framing
  PRIVATE beneath_http PkgConfig::CHECK project_options)
add_test(NAME framing COMMAND test_framing)

# The hostile-message table and slow clients, once per backend.
if(TARGET beneath AND TARGET e2e_harness)
  add_executable(test_e2e_wire integration/test_wire.c)
  target_link_libraries(test_e2e_wire PRIVATE e2e_harness project_options)
  foreach(backend kernel emulated)
    add_test(NAME e2e_wire_${backend} COMMAND test_e2e_wire)
    set_tests_properties(e2e_wire_${backend} PROPERTIES
      ENVIRONMENT "BENEATH_BIN=$<TARGET_FILE:beneath>;BENEATH_E2E_RESOLVER=${backend}"
      TIMEOUT 600
      LABELS e2e)
  endforeach()
endif()
