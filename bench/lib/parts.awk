# parts.awk: `perf script -F ip,sym,dso` of a server under load -> where its
# CPU time goes, by part. Variables: us (the server's CPU µs per request,
# measured beside the profile: each part gets its share of it), bin (the
# server binary's path, to tell its own code from the libraries').
# A sample is one block of frames, leaf first, ended by a blank line. Parts:
# - a system call: the sample has kernel frames and its first user frame is
#   a libc system call wrapper; named by the wrapper (openat2 goes through
#   syscall()); the kernel's share of a send is split into the loopback
#   delivery to the client (softirq: net_rx_action) and its wake-up
#   (try_to_wake_up) and the rest;
# - kernel, no system call: interrupts, faults and scheduling outside any
#   call; a user-space sample in a libc system call wrapper counts for its
#   call (the entry and exit of the call);
# - user space: by the leaf's object: the server's own code,
#   libmicrohttpd, libc (named by its top functions), other libraries.
# POSIX awk (Debian's mawk).
function flush(   part, i) {
  if (nf == 0) return
  part = classify()
  n[part]++
  total++
  if (part == "libc") libc[leafsym]++
  if (part == "other calls") libc_other[callsym]++
  nf = 0
}
# " (f 1.2%, g 0.5%)": the four functions with the most samples in a[]
function top(a,   k, f, b2, d2, extra) {
  split("", d2)
  extra = ""
  for (k = 0; k < 4; k++) {
    b2 = ""
    for (f in a) if (!(f in d2) && (b2 == "" || a[f] > a[b2])) b2 = f
    if (b2 == "") break
    d2[b2] = 1
    extra = extra (extra == "" ? " (" : ", ") b2 " " sprintf("%.1f%%", 100 * a[b2] / total)
  }
  return extra == "" ? "" : extra ")"
}
function call_of(sym) {
  if (sym ~ /sendmsg|sendto|writev|__send|sendfile/) return "send"
  if (sym ~ /recv|^__libc_read$|^read$|__read/) return "recv"
  if (sym ~ /^syscall$/) return "openat2"
  if (sym ~ /openat|open64|__open|libc_open/) return "open"
  if (sym ~ /fstat|statx/) return "fstat"
  if (sym ~ /pread/) return "read"
  if (sym ~ /close/) return "close"
  if (sym ~ /epoll/) return "epoll_wait"
  if (sym ~ /accept/) return "accept"
  return ""
}
function classify(   i, kern, user, c) {
  kern = 0
  user = 0
  for (i = 1; i <= nf; i++) {
    if (dso[i] ~ /kernel/) kern = 1
    else if (!user) user = i
  }
  leafsym = sym[1]
  if (kern && user) {
    c = call_of(sym[user])
    callsym = sym[user]
    if (c == "send") {
      for (i = 1; i < user; i++) if (sym[i] ~ /try_to_wake_up|__wake_up|ep_poll_callback/) return "send: waking the client"
      for (i = 1; i < user; i++) if (sym[i] ~ /net_rx_action/) return "send: loopback delivery to the client (softirq)"
      return "send: the rest (TCP, copy)"
    }
    if (c != "") return c
    # any other call from libc (not a fault or an interrupt in its code)
    syscall = 0
    for (i = 1; i < user; i++) {
      if (sym[i] ~ /page_fault|asm_sysvec|asm_common_interrupt/) { syscall = 0; break }
      if (sym[i] ~ /do_syscall_64|entry_SYSCALL/) syscall = 1
    }
    if (syscall) return "other calls"
  }
  if (kern) return "kernel, outside any call (interrupts, faults, scheduling)"
  # a user-space sample in a system call wrapper: the call's entry and exit
  if ((c = call_of(sym[1])) != "" && dso[1] ~ /libc\.so/)
    return c == "send" ? "send: the rest (TCP, copy)" : c
  if (dso[1] == bin) return "the server's own code"
  if (dso[1] ~ /libmicrohttpd/) return "libmicrohttpd"
  if (dso[1] ~ /libc\.so/) return "libc"
  return "other user space (" dso[1] ")"
}
NF == 0 { flush(); next }
# the header line of a sample: "comm tid" (no address)
$1 !~ /^[0-9a-f]+$/ { flush(); next }
{
  nf++
  s = $2
  for (i = 3; i < NF; i++) s = s " " $i
  sym[nf] = s
  d = $NF
  gsub(/[()]/, "", d)
  dso[nf] = d
}
END {
  flush()
  if (total == 0) { print "no samples"; exit 1 }
  printf "| part | share of samples | µs per request |\n|---|---|---|\n"
  while (1) {
    best = ""
    for (p in n) if (!(p in done) && (best == "" || n[p] > n[best])) best = p
    if (best == "") break
    done[best] = 1
    extra = ""
    if (best == "libc") extra = top(libc)
    if (best == "other calls") extra = top(libc_other)
    printf "| %s%s | %.1f%% | %.2f |\n", best, extra, 100 * n[best] / total, us * n[best] / total
  }
  printf "| **total** (%d samples) | 100%% | %.2f |\n", total, us
}
