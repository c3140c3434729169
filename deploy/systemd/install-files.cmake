# Install-time step of deploy/CMakeLists.txt: the files whose place or text
# depends on the installation prefix, which is known only now
# ("cmake --install --prefix P", cpack): the systemd units (ExecStart names
# the installed binary and configuration), the example configuration, and
# beneath(1) (it names the installed documentation).
#   in: SRC (deploy/systemd), GEN (the build tree's generated files),
#       UNITDIR, SYSUSERSDIR, BINDIR, DOCDIR and MANDIR (relative to the
#       prefix, or absolute)
set(prefix "${CMAKE_INSTALL_PREFIX}")
foreach(var UNITDIR SYSUSERSDIR BINDIR DOCDIR MANDIR)
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
# the documentation's directory as roff: '-' is \-, and a line may break
# after each '/' (\:)
string(REPLACE "-" "\\-" MAN_DOCDIR "${DOCDIR}")
string(REPLACE "/" "/\\:" MAN_DOCDIR "${MAN_DOCDIR}")
configure_file(${GEN}/beneath.1 ${GEN}/installed/beneath.1 @ONLY)
file(INSTALL ${GEN}/installed/beneath.1
  DESTINATION "${MANDIR}/man1"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL ${GEN}/beneath.conf
  DESTINATION "${SYSCONFDIR}/beneath"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
