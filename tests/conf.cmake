# conf: the option table, its four sources, --help and the round trip.
add_executable(test_conf test_conf.c)
target_link_libraries(test_conf PRIVATE conf PkgConfig::CHECK project_options)
add_test(NAME conf COMMAND test_conf)
