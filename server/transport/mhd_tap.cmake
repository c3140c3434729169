# SPDX-License-Identifier: MIT
# cmake -DIN=libmicrohttpd.a -DOUT=FILE -DOBJCOPY=... -DNM=... -P mhd_tap.cmake
#
# A copy of libmicrohttpd's static archive whose socket calls are the byte
# tap's (transport/wire.h): recv, send, sendmsg, sendfile64 and shutdown
# renamed wire_recv, wire_send, ... in its objects alone, so that only
# libmicrohttpd's calls reach the tap and the executable defines no libc
# name. Fails when the archive still calls any of those, or another call
# that moves a socket's bytes (a libmicrohttpd that sent with writev would
# bypass the tap: its TLS and its byte counts would be wrong, silently).
cmake_minimum_required(VERSION 3.20)
foreach(v IN ITEMS IN OUT OBJCOPY NM)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "mhd_tap.cmake: -D${v}= is missing")
  endif()
endforeach()
set(tapped recv send sendmsg sendfile64 shutdown)
set(args "")
foreach(f IN LISTS tapped)
  list(APPEND args --redefine-sym ${f}=wire_${f})
endforeach()
execute_process(COMMAND ${OBJCOPY} ${args} ${IN} ${OUT}.tmp
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objcopy ${IN}: ${err}")
endif()
execute_process(COMMAND ${NM} -u ${OUT}.tmp
  RESULT_VARIABLE rc OUTPUT_VARIABLE undefined ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm ${OUT}.tmp: ${err}")
endif()
string(REGEX MATCHALL "U [A-Za-z0-9_]+" calls "${undefined}")
list(TRANSFORM calls REPLACE "^U " "")
foreach(f IN ITEMS ${tapped} recvfrom recvmsg recvmmsg sendto sendmmsg
    writev sendfile splice)
  if(f IN_LIST calls)
    file(REMOVE ${OUT}.tmp)
    message(FATAL_ERROR "${IN} calls ${f}() itself: the byte tap would not "
      "see those bytes (transport/mhd_tap.cmake)")
  endif()
endforeach()
foreach(f IN LISTS tapped)
  if(NOT "wire_${f}" IN_LIST calls)
    file(REMOVE ${OUT}.tmp)
    message(FATAL_ERROR "${IN} does not call ${f}(): not the libmicrohttpd "
      "the tap was made for (transport/mhd_tap.cmake)")
  endif()
endforeach()
file(RENAME ${OUT}.tmp ${OUT})
