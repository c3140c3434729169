# Tests of what gets installed (deploy/): the install tree, the Debian
# package, the container image. The scripts print what they check; each
# exits 77 (skipped) where this machine cannot run it.
add_test(NAME install
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test-install.sh ${CMAKE_BINARY_DIR})
set_tests_properties(install PROPERTIES
  TIMEOUT 300 LABELS "deploy" SKIP_RETURN_CODE 77)
# A package or an image of a sanitizer build is no product: those tests run
# in the release build only.
if(NOT ENABLE_ASAN AND NOT ENABLE_UBSAN)
  add_test(NAME deb
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test-deb.sh ${CMAKE_BINARY_DIR}
      ${PROJECT_VERSION})
  # dpkg takes one lock: never two package tests at once
  set_tests_properties(deb PROPERTIES
    TIMEOUT 600 LABELS "deploy" SKIP_RETURN_CODE 77 RESOURCE_LOCK dpkg)
  # the .deb on a debootstrapped Debian 12 with systemd as PID 1, in podman:
  # the shipped unit's start-up line (kernel backend, both walls), reload,
  # socket activation, a planted symlink refused with EXDEV (about 80 s
  # with the cached root; building the root first takes about 5 minutes)
  add_test(NAME systemd
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/systemd/test.sh ${CMAKE_BINARY_DIR}
      ${PROJECT_VERSION})
  set_tests_properties(systemd PROPERTIES
    TIMEOUT 900 LABELS "deploy;container" SKIP_RETURN_CODE 77)
  # the image in podman (runc), in a store of its own: build, read-only
  # serving, the kernel backend and both walls under podman's default
  # profile, profiles that block openat2 (the line names the filter), and
  # podman kube play of exactly the shipped Kubernetes files (both replicas)
  add_test(NAME container
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/container/test.sh
      $<TARGET_FILE:beneath> ${PROJECT_SOURCE_DIR})
  set_tests_properties(container PROPERTIES
    TIMEOUT 600 LABELS "deploy;container" SKIP_RETURN_CODE 77)
  # podman kube play of deploy/kubernetes/sites (its CA lines aimed at
  # Pebble): two replicas over one --sites volume and one --acme-dir
  # volume; a site written once served by both, its certificate ordered
  # once (by the replica that reaches Pebble) and served by both
  add_test(NAME container_sites
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/container/test-sites.sh
      $<TARGET_FILE:beneath> ${PROJECT_SOURCE_DIR})
  set_tests_properties(container_sites PROPERTIES
    TIMEOUT 300 LABELS "deploy;container" SKIP_RETURN_CODE 77)
endif()
# The README's build-from-source commands with the test packages hidden: a
# packager's build needs only "scripts/deps.sh build".
add_test(NAME plain_build
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test-build.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(plain_build PROPERTIES
  TIMEOUT 900 LABELS "deploy" ENVIRONMENT "CMAKE_BUILD_PARALLEL_LEVEL=2")
