/* SPDX-License-Identifier: MIT */
/*
 * fsinfo.c - what the walk and the directory cache ask about the filesystem
 * an fd lives on: its mount id (one statx, with the st_dev fallback written
 * once, here), the enum fs_info bits of its statfs answer (procfs,
 * MNT_NOSYMFOLLOW, a filesystem whose every change this kernel sees), and
 * the path the kernel names a directory by.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000 /* statfs f_flags for MNT_NOSYMFOLLOW */
#endif

/*
 * The mount id in a statx answer: stx_mnt_id (Linux 5.8), or st_dev before
 * that, which cannot tell a bind mount of the same filesystem from no mount
 * at all. (glibc's statx falls back to fstatat itself on kernels before
 * 4.11.)
 */
static uint64_t statx_mount_id(const struct statx *stx)
{
    if (stx->stx_mask & STATX_MNT_ID)
        return stx->stx_mnt_id;
    return ((uint64_t)stx->stx_dev_major << 32) | stx->stx_dev_minor;
}

int fsinfo_mount_id(int fd, uint64_t *out)
{
    return fsinfo_mount_id_at(fd, "", out);
}

int fsinfo_mount_id_at(int fd, const char *path, uint64_t *out)
{
    struct statx stx;

    if (statx(fd, path, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
              &stx) < 0)
        return -errno;
    *out = statx_mount_id(&stx);
    return 0;
}

int fsinfo_type_mount(int fd, bool want_mnt, mode_t *type, uint64_t *mnt)
{
    struct statx stx;
    unsigned mask = STATX_TYPE | (want_mnt ? STATX_MNT_ID : 0);

    if (statx(fd, "", AT_EMPTY_PATH, mask, &stx) < 0)
        return -errno;
    *type = stx.stx_mode & S_IFMT;
    if (want_mnt)
        *mnt = statx_mount_id(&stx);
    return 0;
}

/* Filesystems whose every change goes through this kernel's VFS. */
static bool fs_local(const struct statfs *sfs)
{
    switch ((unsigned long)sfs->f_type) {
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case SQUASHFS_MAGIC:
    case EROFS_SUPER_MAGIC_V1:
    case ISOFS_SUPER_MAGIC:
        return true;
    default:
        return false;
    }
}

int fsinfo_of(const struct statfs *sfs)
{
    int fs = FS_KNOWN;

    if (sfs->f_type == PROC_SUPER_MAGIC)
        fs |= FS_PROC;
    if (sfs->f_flags & ST_NOSYMFOLLOW)
        fs |= FS_NOSYMFOLLOW;
    if (fs_local(sfs))
        fs |= FS_LOCAL;
    return fs;
}

ssize_t fsinfo_dir_path(int fd, char *buf)
{
    char proc[32];
    ssize_t n;

    if (fd == AT_FDCWD) {
        if (!getcwd(buf, RESOLVER_PATH_MAX))
            return -errno;
        n = (ssize_t)strlen(buf);
    } else {
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        n = readlink(proc, buf, RESOLVER_PATH_MAX);
        if (n < 0)
            return -errno;
        if (n >= RESOLVER_PATH_MAX)
            return -ENAMETOOLONG;
    }
    /* "(unreachable)/x", "anon_inode:..." are not paths from our root */
    if (n == 0 || buf[0] != '/')
        return -ENOENT;
    if (n == 1)
        n = 0;
    buf[n] = '\0';
    return n;
}
