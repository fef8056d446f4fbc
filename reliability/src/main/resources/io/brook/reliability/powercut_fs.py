#!/usr/bin/python3
"""A FUSE file system that forgets, when it is unmounted, what no fsync made durable.

    powercut_fs.py BACKING MOUNTPOINT SEED KEEP NAMES

Every operation on MOUNTPOINT is applied at once to BACKING/live (so that reads see it, as they
see the page cache), and remembered until something makes it durable:

- a write or truncation of a file, until an fsync or fdatasync of that file;
- a creation, removal or rename of a directory entry: with NAMES=strict until an fsync of its
  directory; with NAMES=journaled until any fsync, fdatasync or directory fsync at all.

strict is the reading of POSIX that a careful storage engine must assume: a file's data written
but not forced may be lost, and a new, renamed or deleted name may come back as it was unless its
directory was forced, even when the file itself was. journaled is how ext4 and XFS behave in
practice: they write name changes to one journal, in order, and a force of any file commits the
journal with every change before it.

Unmounting is the power cut. The process then undoes what was not durable, newest first: names
come back or disappear (files removed since are kept under BACKING/trash until their removal is
durable), and the data of every file written since its last fsync returns to what that fsync
covered. With KEEP above 0 the cut is torn instead: each unforced 4 KiB page keeps its new content
with probability KEEP (chosen with SEED), and each file keeps its new length with that
probability, as when the kernel wrote back part of its page cache before the power went; a page
may thus be new while the one before it is old, or zeros where the file grew. BACKING/live is
then the disk after the power came back; a summary of what the cut took is printed to stdout as
one JSON line.

Runs single-threaded: the daemon only journals and never forces anything itself (the backing
files need to survive a process crash, not a power cut), so each operation is short.
"""

import errno
import json
import os
import random
import shutil
import sys

import fusepy

PAGE = 4096


class Journal:
    """What is not durable yet: per inode the undo records of its data, and the entry changes."""

    def __init__(self, trash, journaled):
        self.trash = trash
        self.journaled = journaled
        self.data = {}  # inode -> [(old size, offset, old bytes or a zero count)]
        self.entries = []  # dicts, oldest first
        self.trash_seq = 0

    def stash(self, path):
        """A hard link to the file at path under the trash, so that a removal can be undone."""
        self.trash_seq += 1
        name = os.path.join(self.trash, str(self.trash_seq))
        os.link(path, name)
        return name

    def entry(self, directory, kind, **details):
        self.entries.append(dict(dir=directory, kind=kind, **details))

    def forced(self, directory=None):
        """A force of a file (None) or of a directory: which name changes are durable now."""
        if directory is None and not self.journaled:
            return
        kept = []
        for e in self.entries:
            if self.journaled or e['dir'] == directory:
                if e.get('trash'):
                    os.unlink(e['trash'])
                if e.get('replaced'):
                    os.unlink(e['replaced'])
            else:
                kept.append(e)
        self.entries = kept


class PowerCutFs(fusepy.Operations):

    def __init__(self, backing, journaled):
        self.live = os.path.join(backing, 'live')
        trash = os.path.join(backing, 'trash')
        shutil.rmtree(trash, ignore_errors=True)
        os.makedirs(self.live, exist_ok=True)
        os.makedirs(trash)
        self.journal = Journal(trash, journaled)
        self.inodes = {}  # file handle -> inode

    def _full(self, path):
        return self.live + path

    def _parent_inode(self, path):
        return os.lstat(os.path.dirname(self._full(path))).st_ino

    # --- attributes and directories -------------------------------------------------------

    def getattr(self, path, fh=None):
        st = os.lstat(self._full(path))
        return {k: getattr(st, k) for k in ('st_mode', 'st_size', 'st_nlink', 'st_uid', 'st_gid',
                                           'st_atime', 'st_mtime', 'st_ctime', 'st_blocks')}

    def access(self, path, mode):
        if not os.access(self._full(path), mode):
            raise fusepy.FuseOSError(errno.EACCES)

    def chmod(self, path, mode):
        os.chmod(self._full(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._full(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._full(path), times)

    def statfs(self, path):
        st = os.statvfs(self._full(path))
        return {k: getattr(st, k) for k in ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail',
                                           'f_ffree', 'f_files', 'f_flag', 'f_frsize', 'f_namemax')}

    def readdir(self, path, fh):
        return ['.', '..'] + os.listdir(self._full(path))

    def mkdir(self, path, mode):
        os.mkdir(self._full(path), mode)
        self.journal.entry(self._parent_inode(path), 'mkdir', path=path)

    def rmdir(self, path):
        parent = self._parent_inode(path)
        mode = os.lstat(self._full(path)).st_mode
        os.rmdir(self._full(path))
        self.journal.entry(parent, 'rmdir', path=path, mode=mode)

    def fsyncdir(self, path, datasync, fh):
        self.journal.forced(os.lstat(self._full(path)).st_ino)
        return 0

    # --- names of files ---------------------------------------------------------------------

    def create(self, path, mode, fi=None):
        fd = os.open(self._full(path), os.O_RDWR | os.O_CREAT | os.O_EXCL, mode)
        self.inodes[fd] = os.fstat(fd).st_ino
        # the number of an inode freed since may be reused: a new file has no unforced writes
        self.journal.data.pop(self.inodes[fd], None)
        self.journal.entry(self._parent_inode(path), 'create', path=path)
        return fd

    def unlink(self, path):
        parent = self._parent_inode(path)
        trash = self.journal.stash(self._full(path))
        os.unlink(self._full(path))
        self.journal.entry(parent, 'unlink', path=path, trash=trash)

    def link(self, target, source):
        os.link(self._full(source), self._full(target))
        self.journal.entry(self._parent_inode(target), 'create', path=target)

    def rename(self, old, new):
        full_old, full_new = self._full(old), self._full(new)
        old_parent, new_parent = self._parent_inode(old), self._parent_inode(new)
        if os.path.isdir(full_old):
            os.rename(full_old, full_new)
            # a directory cannot be linked: its rename is durable once both parents are forced,
            # which the journal approximates with the new parent alone
            self.journal.entry(new_parent, 'rename-dir', old=old, new=new)
            return
        replaced = self.journal.stash(full_new) if os.path.lexists(full_new) else None
        moved = self.journal.stash(full_old)
        os.rename(full_old, full_new)
        self.journal.entry(old_parent, 'unlink', path=old, trash=moved)
        self.journal.entry(new_parent, 'create', path=new, replaced=replaced)

    # --- data -------------------------------------------------------------------------------

    def open(self, path, flags):
        truncate = flags & os.O_TRUNC
        # read and write whatever the caller asked for: a write reads what it replaces
        flags &= ~(os.O_ACCMODE | os.O_CREAT | os.O_EXCL | os.O_TRUNC | os.O_APPEND)
        fd = os.open(self._full(path), flags | os.O_RDWR)
        self.inodes[fd] = os.fstat(fd).st_ino
        if truncate:
            self._truncate_fd(fd, 0)
        return fd

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        old_size = os.fstat(fh).st_size
        self._remember(self.inodes[fh], old_size, offset, len(data), os.pread(fh, len(data), offset))
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if fh is not None:
            self._truncate_fd(fh, length)
            return
        fd = os.open(self._full(path), os.O_RDWR)
        try:
            self.inodes[fd] = os.fstat(fd).st_ino
            self._truncate_fd(fd, length)
        finally:
            del self.inodes[fd]
            os.close(fd)

    def _truncate_fd(self, fd, length):
        old_size = os.fstat(fd).st_size
        old = os.pread(fd, old_size - length, length) if length < old_size else b''
        start = min(length, old_size)
        self._remember(self.inodes[fd], old_size, start, max(length, old_size) - start, old)
        os.ftruncate(fd, length)

    def _remember(self, inode, old_size, offset, length, old):
        # changed: [offset, offset + length); old: what was there (up to the old end). The zeros
        # of preallocated space are the common case: keep only their count.
        self.journal.data.setdefault(inode, []).append(
            (old_size, offset, length, len(old) if old.count(0) == len(old) else old))

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        self.journal.data.pop(self.inodes[fh], None)
        self.journal.forced()
        return 0

    def release(self, path, fh):
        del self.inodes[fh]
        os.close(fh)
        return 0


def cut(fs, seed, keep):
    """Undoes what was not durable; returns the summary."""
    rng = random.Random(seed)
    journal = fs.journal
    summary = dict(entries_undone=0, entries_moot=0, entry_undo_failures=0, files_cut=0, records_undone=0,
                   bytes_written_since_fsync=0, pages_kept=0, pages_lost=0)
    for e in reversed(journal.entries):
        where = os.path.dirname(fs._full(e.get('path') or e.get('new')))
        if not os.path.isdir(where):
            # its directory's removal was durable: whatever happened inside it is gone with it
            summary["entries_moot"] += 1
            continue
        try:
            print('powercut_fs: undoing %s %s' % (e['kind'], e.get('path') or e.get('new')), file=sys.stderr)
            undo_entry(fs, e)
            summary['entries_undone'] += 1
        except OSError as x:
            summary['entry_undo_failures'] += 1
            print('powercut_fs: cannot undo %s: %s' % (e, x), file=sys.stderr)
    paths = {}
    for root, _, files in os.walk(fs.live):
        for name in files:
            p = os.path.join(root, name)
            paths.setdefault(os.lstat(p).st_ino, p)
    for inode, records in journal.data.items():
        if inode in paths and records:
            print('powercut_fs: cutting %s (%d unforced writes)' % (paths[inode], len(records)), file=sys.stderr)
            undo_data(paths[inode], records, rng, keep, summary)
    shutil.rmtree(journal.trash, ignore_errors=True)
    return summary


def undo_entry(fs, e):
    kind = e['kind']
    if kind == 'create':
        os.unlink(fs._full(e['path']))
        if e.get('replaced'):
            os.link(e['replaced'], fs._full(e['path']))
    elif kind == 'unlink':
        os.link(e['trash'], fs._full(e['path']))
    elif kind == 'mkdir':
        shutil.rmtree(fs._full(e['path']))
    elif kind == 'rmdir':
        os.mkdir(fs._full(e['path']), e['mode'] & 0o7777)
    elif kind == 'rename-dir':
        os.rename(fs._full(e['new']), fs._full(e['old']))


def undo_data(path, records, rng, keep, summary):
    summary['files_cut'] += 1
    summary['records_undone'] += len(records)
    fd = os.open(path, os.O_RDWR)
    try:
        new_size = os.fstat(fd).st_size
        pages = set()
        for _, offset, length, _ in records:
            pages.update(range(offset // PAGE, (offset + length + PAGE - 1) // PAGE))
            summary['bytes_written_since_fsync'] += length
        newest = {p: os.pread(fd, PAGE, p * PAGE) for p in pages} if keep > 0 else {}
        for old_size, offset, _, old in reversed(records):
            os.pwrite(fd, bytes(old) if isinstance(old, int) else old, offset)
            os.ftruncate(fd, old_size)
        durable_size = os.fstat(fd).st_size
        size = new_size if keep > 0 and rng.random() < keep else durable_size
        os.ftruncate(fd, size)
        for p in sorted(pages):
            if p in newest and rng.random() < keep:
                os.pwrite(fd, newest[p][:max(0, size - p * PAGE)], p * PAGE)
                summary['pages_kept'] += 1
            else:
                summary['pages_lost'] += 1
    finally:
        os.close(fd)


def main():
    if len(sys.argv) != 6 or sys.argv[5] not in ('strict', 'journaled'):
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    backing, mountpoint, seed, keep = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    fs = PowerCutFs(backing, sys.argv[5] == 'journaled')
    aborted = 0
    try:
        fusepy.FUSE(fs, mountpoint, foreground=True, nothreads=True, big_writes=True, fsname='powercut')
    except RuntimeError as x:
        if mounted(mountpoint):
            raise
        # The kernel sometimes ends the connection with ECONNABORTED instead of ENODEV as the
        # mount goes. The journal holds every operation this daemon answered (one at a time) and
        # the broker is dead before an unmount, so the cut below is as exact as after a clean end.
        print('powercut_fs: the connection ended with an error after the unmount (%s); cutting as usual' % x,
              file=sys.stderr)
        aborted = 1
    summary = cut(fs, seed, keep)
    summary['connections_aborted'] = aborted
    print(json.dumps(summary), flush=True)


def mounted(mountpoint):
    target = ' ' + os.path.abspath(mountpoint) + ' '
    with open('/proc/self/mountinfo') as f:
        return any(target in line for line in f)


if __name__ == '__main__':
    main()
