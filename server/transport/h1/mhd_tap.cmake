# SPDX-License-Identifier: MIT
# cmake -DIN=libmicrohttpd.a -DOUT=FILE -DOBJCOPY=... -DNM=... -DAR=...
#       -P mhd_tap.cmake
#
# A copy of libmicrohttpd's static archive whose socket calls are the byte
# tap's (transport/h1/wire.h): recv, send, sendmsg, sendfile64 and shutdown
# renamed wire_recv, wire_send, ... in its objects alone, so that only
# libmicrohttpd's calls reach the tap and the executable defines no libc
# name; and whose pools' malloc and free (memorypool.o's alone) are
# mhd_pool_malloc and mhd_pool_free (transport/h1/mhd_pool.h). Fails when the
# archive still calls any of those socket calls, or another call that moves
# a socket's bytes (a libmicrohttpd that sent with writev would bypass the
# tap: its TLS and its byte counts would be wrong, silently), or when its
# pools are not where they were.
cmake_minimum_required(VERSION 3.20)
foreach(v IN ITEMS IN OUT OBJCOPY NM AR)
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
      "see those bytes (transport/h1/mhd_tap.cmake)")
  endif()
endforeach()
foreach(f IN LISTS tapped)
  if(NOT "wire_${f}" IN_LIST calls)
    file(REMOVE ${OUT}.tmp)
    message(FATAL_ERROR "${IN} does not call ${f}(): not the libmicrohttpd "
      "the tap was made for (transport/h1/mhd_tap.cmake)")
  endif()
endforeach()
# the pools: one member, its malloc and free
set(pool libmicrohttpd_la-memorypool.o)
set(dir ${OUT}.d)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${AR} x ${OUT}.tmp ${pool} WORKING_DIRECTORY ${dir}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${IN} has no ${pool}: ${err} (transport/h1/mhd_tap.cmake)")
endif()
execute_process(COMMAND ${NM} -u ${dir}/${pool} OUTPUT_VARIABLE undefined)
foreach(f IN ITEMS malloc free)
  if(NOT undefined MATCHES "U ${f}\n")
    message(FATAL_ERROR "${pool} does not call ${f}(): its pools are not "
      "where mhd_pool.c expects them (transport/h1/mhd_tap.cmake)")
  endif()
endforeach()
execute_process(COMMAND ${OBJCOPY} --redefine-sym malloc=mhd_pool_malloc
    --redefine-sym free=mhd_pool_free ${dir}/${pool}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  execute_process(COMMAND ${AR} r ${OUT}.tmp ${dir}/${pool}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
endif()
file(REMOVE_RECURSE ${dir})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${pool}: ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
