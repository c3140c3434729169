# Unit suites of server/: one Check binary per module, each linked against
# the library of its layer only.
foreach(pair status:http mime:http date:http target:http cond:http range:http
        listing:files log:daemon root:daemon)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 suite)
  list(GET pair 1 layer)
  add_executable(test_${suite} test_${suite}.c)
  target_link_libraries(test_${suite}
    PRIVATE beneath_${layer} PkgConfig::CHECK project_options)
  add_test(NAME ${suite} COMMAND test_${suite})
endforeach()

# files_lookup against real trees under both resolver backends.
add_executable(test_lookup test_lookup.c fixture.c)
target_link_libraries(test_lookup
  PRIVATE beneath_files PkgConfig::CHECK project_options)
add_test(NAME lookup COMMAND test_lookup)

# The swappable configuration generation behind SIGHUP (server/live.c).
add_executable(test_live test_live.c)
target_link_libraries(test_live
  PRIVATE beneath_daemon PkgConfig::CHECK project_options)
add_test(NAME live COMMAND test_live)
