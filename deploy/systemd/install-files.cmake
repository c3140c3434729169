# Install-time step of deploy/CMakeLists.txt: the files whose place or text
# depends on the installation prefix, which is known only now
# ("cmake --install --prefix P", cpack): the systemd units (ExecStart names
# the installed binary and configuration) and the example configuration.
#   in: SRC (deploy/systemd), GEN (the build tree's generated files),
#       UNITDIR, SYSUSERSDIR and BINDIR (relative to the prefix, or absolute)
set(prefix "${CMAKE_INSTALL_PREFIX}")
foreach(var UNITDIR SYSUSERSDIR BINDIR)
  if(NOT IS_ABSOLUTE "${${var}}")
    set(${var} "${prefix}/${${var}}")
  endif()
endforeach()
# The GNUInstallDirs rule: the prefix /usr keeps its configuration in /etc.
if(prefix STREQUAL "/usr")
  set(SYSCONFDIR /etc)
else()
  set(SYSCONFDIR "${prefix}/etc")
endif()
configure_file(${SRC}/beneath.service.in ${GEN}/beneath.service @ONLY)
# file(INSTALL) puts $DESTDIR in front, as install() does.
file(INSTALL ${GEN}/beneath.service ${SRC}/beneath.socket
  DESTINATION "${UNITDIR}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL ${SRC}/beneath.sysusers
  DESTINATION "${SYSUSERSDIR}" RENAME beneath.conf
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL ${GEN}/beneath.conf
  DESTINATION "${SYSCONFDIR}/beneath"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
