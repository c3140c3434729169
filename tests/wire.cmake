# Strictness on the wire: framing unit table, the hostile-message e2e table
# (both backends), testssl.sh against an https listener, and the libFuzzer
# targets (ENABLE_FUZZ, a clang build: preset fuzz).
add_executable(test_framing test_framing.c)
target_link_libraries(test_framing
  PRIVATE beneath_http PkgConfig::CHECK project_options)
add_test(NAME framing COMMAND test_framing)
