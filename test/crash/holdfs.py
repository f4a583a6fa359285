#!/usr/bin/env python3
"""holdfs: a FUSE pass-through for power-cut tests (issue 22) that holds every data write in
memory until its file is fsynced, and on command drops what was not, as a power cut would.

It owns only the model of a disk with a volatile cache: the mountpoint mirrors a backing
directory; metadata (create, mkdir, rename, unlink, link, truncate, chmod, utimens) reaches
the backing directory at once, but a file's bytes reach it only when that file is fsynced
(or written through an O_SYNC/O_DSYNC handle). After a cut the backing directory is the disk
as the power cut left it; the harness (holdfs.ts) reads it directly, never through the
mount. It must not decide what a test expects.

Usage: python3 holdfs.py <backing-dir> <mountpoint> <control-socket>
       python3 holdfs.py --check     (exits 0 when fusepy and libfuse load)

Runs in the foreground, prints one JSON line {"event": "ready"} on stdout once mounted and
{"event": "exit", ...} once unmounted, then exits 0. The control socket takes one command a
line and answers one JSON line each:

  cut [torn SEED]      power off now: drop every held write (torn: first apply a seeded
                       random half of the held pages, as a disk that wrote some of its cache)
  arm N [pages P] [torn SEED]
                       power off just before the Nth sync from now (fsync, fdatasync,
                       fsyncdir or an O_DSYNC write; with pages, only syncs of a file holding
                       at least P pages count); that sync fails. Answers "armed" now and a
                       "cut" line on the same connection when it fires
  stats                counters: writes, syncs, held files and pages, whether cut
  ping

From the cut on, power is off: writes are accepted and dropped (the kernel may still write
back dirty pages before the unmount), syncs and metadata changes fail with EIO, and reads
answer from the backing directory alone.
"""

import errno
import json
import os
import random
import socket
import stat
import sys
import threading

try:  # Debian's python3-fusepy names the module fusepy; pip's fusepy names it fuse.
    from fusepy import FUSE, FuseOSError, Operations
except ImportError:
    from fuse import FUSE, FuseOSError, Operations

# Held writes are kept in pages of this size; a torn cut applies whole pages.
PAGE = 4096
# The share of held pages a torn cut writes before dropping the rest.
TORN_SHARE = 0.5
# Writes the kernel may send in one request (big_writes); fewer requests for LMDB's commits.
MAX_WRITE = 128 * 1024
# HOLDFS_TRACE=1 prints every sync point and name change on stderr, to see what a cut falls on.
TRACE = os.environ.get("HOLDFS_TRACE") == "1"


def trace(*words):
    if TRACE:
        print("holdfs:", *words, file=sys.stderr, flush=True)


class Held:
    """The held writes of one file: whole pages as the file would read, and its size."""

    def __init__(self, fd, size, name):
        # A duplicate descriptor keeps the inode (so its number) alive while writes are held,
        # and lets a sync or a torn cut write the file when no handle is open any more.
        self.fd = fd
        self.size = size
        self.pages = {}
        # The path of its first held write, for reports (it may have been renamed since).
        self.name = name

    def page(self, index):
        """The held page `index`, read from the backing file the first time it is written."""
        page = self.pages.get(index)
        if page is None:
            page = bytearray(os.pread(self.fd, PAGE, index * PAGE))
            page.extend(bytes(PAGE - len(page)))
            self.pages[index] = page
        return page

    def write(self, data, offset):
        end = offset + len(data)
        at = offset
        while at < end:
            index, start = divmod(at, PAGE)
            count = min(PAGE - start, end - at)
            self.page(index)[start : start + count] = data[at - offset : at - offset + count]
            at += count
        self.size = max(self.size, end)

    def overlay(self, data, offset, size):
        """`data` read from the backing file at `offset`, with the held pages laid over it."""
        end = min(offset + size, self.size)
        if end <= offset:
            return b""
        out = bytearray(data[: end - offset])
        out.extend(bytes(end - offset - len(out)))
        for index in range(offset // PAGE, (end - 1) // PAGE + 1):
            page = self.pages.get(index)
            if page is None:
                continue
            lo = max(offset, index * PAGE)
            hi = min(end, (index + 1) * PAGE)
            out[lo - offset : hi - offset] = page[lo - index * PAGE : hi - index * PAGE]
        return bytes(out)

    def truncate(self, length):
        last = (length + PAGE - 1) // PAGE
        for index in [i for i in self.pages if i >= last]:
            del self.pages[index]
        tail = self.pages.get(length // PAGE)
        if tail is not None and length % PAGE:
            start = length % PAGE
            tail[start:] = bytes(PAGE - start)
        self.size = length

    def apply(self, indexes):
        """Writes the given held pages to the backing file (the bytes below the size)."""
        for index in indexes:
            start = index * PAGE
            if start >= self.size:
                continue
            page = self.pages[index]
            os.pwrite(self.fd, bytes(page[: min(PAGE, self.size - start)]), start)


class Handle:
    def __init__(self, fd, key, sync):
        self.fd = fd
        self.key = key
        self.sync = sync


class HoldFS(Operations):
    use_ns = True

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.mutex = threading.RLock()
        self.held = {}
        self.handles = {}
        self.next_fh = 1
        self.cut = None
        self.armed = None
        self.counts = {"writes": 0, "syncs": 0, "dropped_after_cut": 0}

    # ---- helpers ---------------------------------------------------------------------------

    def _full(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def _handle(self, fi):
        handle = self.handles.get(fi.fh) if fi is not None else None
        if handle is None:
            raise FuseOSError(errno.EBADF)
        return handle

    def _powered(self):
        """Refuses a change once the power is off."""
        if self.cut is not None:
            raise FuseOSError(errno.EIO)

    def _held_for(self, handle, path):
        held = self.held.get(handle.key)
        if held is None:
            held = Held(os.dup(handle.fd), os.fstat(handle.fd).st_size, path or "(unlinked)")
            self.held[handle.key] = held
        return held

    def _drop(self, key):
        held = self.held.pop(key, None)
        if held is not None:
            os.close(held.fd)

    def _drop_if_gone(self, key):
        """Forgets the held writes of a file whose last name is gone."""
        held = self.held.get(key)
        if held is not None and os.fstat(held.fd).st_nlink == 0:
            self._drop(key)

    def _sync_point(self, what, key=None):
        """Counts a sync (of file `key`); when an armed cut falls due, cuts and fails the sync."""
        self._powered()
        self.counts["syncs"] += 1
        held = self.held.get(key)
        pages = len(held.pages) if held is not None else 0
        trace("sync", self.counts["syncs"], what, f"({pages} pages held)")
        if self.armed is None or pages < self.armed["pages"]:
            return
        self.armed["remaining"] -= 1
        if self.armed["remaining"] > 0:
            return
        armed, self.armed = self.armed, None
        report = self.power_cut(armed["torn"], "sync")
        try:
            armed["reply"](report)
        except OSError:
            pass
        raise FuseOSError(errno.EIO)

    def _sync_file(self, key):
        held = self.held.get(key)
        if held is None:
            return
        held.apply(sorted(held.pages))
        if os.fstat(held.fd).st_size < held.size:
            os.ftruncate(held.fd, held.size)
        os.fsync(held.fd)
        self._drop(key)

    # ---- control ---------------------------------------------------------------------------

    def power_cut(self, torn_seed, trigger):
        """Drops every held write (applying a seeded half of the pages first when torn)."""
        with self.mutex:
            if self.cut is not None:
                return dict(self.cut, already=True)
            files = len(self.held)
            pages = sum(len(h.pages) for h in self.held.values())
            by_file = {}
            for held in self.held.values():
                by_file[held.name] = by_file.get(held.name, 0) + len(held.pages)
            applied = 0
            if torn_seed is not None:
                chooser = random.Random(torn_seed)
                for key in sorted(self.held):
                    held = self.held[key]
                    chosen = [i for i in sorted(held.pages) if chooser.random() < TORN_SHARE]
                    held.apply(chosen)
                    os.fsync(held.fd)
                    applied += len(chosen)
            for key in list(self.held):
                self._drop(key)
            self.cut = {
                "event": "cut",
                "trigger": trigger,
                "torn": torn_seed is not None,
                "heldFiles": files,
                "heldPages": pages,
                "heldByFile": by_file,
                "appliedPages": applied,
            }
            return dict(self.cut)

    def stats(self):
        with self.mutex:
            return {
                "event": "stats",
                **self.counts,
                "heldFiles": len(self.held),
                "heldPages": sum(len(h.pages) for h in self.held.values()),
                "cut": self.cut is not None,
                "armed": self.armed is not None,
            }

    def command(self, words, reply):
        """Runs one control command (see the module's comment); its answer."""
        name = words[0] if words else ""
        count = words[1] if name == "arm" and len(words) > 1 else None
        pairs = words[2:] if count is not None else words[1:]
        options = dict(zip(pairs[::2], (int(value) for value in pairs[1::2])))
        allowed = {"cut": {"torn"}, "arm": {"torn", "pages"}}.get(name, set())
        if len(pairs) % 2 or not set(options) <= allowed:
            raise ValueError(f"unknown command: {' '.join(words)}")
        torn = options.get("torn")
        if name == "cut":
            return self.power_cut(torn, "command")
        if name == "arm" and count is not None and int(count) >= 1:
            with self.mutex:
                if self.cut is not None:
                    return dict(self.cut, already=True)
                pages = options.get("pages", 0)
                self.armed = {"remaining": int(count), "pages": pages, "torn": torn, "reply": reply}
                return {"event": "armed", "syncs": int(count), "pages": pages}
        if name == "stats":
            return self.stats()
        if name == "ping":
            return {"event": "pong"}
        raise ValueError(f"unknown command: {' '.join(words)}")

    # ---- files -----------------------------------------------------------------------------

    def getattr(self, path, fi=None):
        with self.mutex:
            handle = self.handles.get(fi.fh) if fi is not None else None
            st = os.fstat(handle.fd) if handle else os.lstat(self._full(path))
            attrs = {
                key: getattr(st, key)
                for key in ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size")
            }
            attrs["st_blocks"] = st.st_blocks
            attrs["st_atime"] = st.st_atime_ns
            attrs["st_mtime"] = st.st_mtime_ns
            attrs["st_ctime"] = st.st_ctime_ns
            held = self.held.get((st.st_dev, st.st_ino)) if stat.S_ISREG(st.st_mode) else None
            if held is not None:
                attrs["st_size"] = held.size
            return attrs

    def _open_handle(self, fd, flags):
        st = os.fstat(fd)
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = Handle(fd, (st.st_dev, st.st_ino), bool(flags & os.O_DSYNC))
        return fh

    def open(self, path, fi):
        with self.mutex:
            # Read and write through one descriptor whatever the caller asked: syncs and
            # torn cuts write the backing file through it. (The kernel checked access.)
            fd = os.open(self._full(path), os.O_RDWR | os.O_CLOEXEC)
            fi.fh = self._open_handle(fd, fi.flags)
            fi.direct_io = 0
            fi.keep_cache = 0
            return 0

    def create(self, path, mode, fi):
        with self.mutex:
            self._powered()
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | (fi.flags & os.O_EXCL)
            fd = os.open(self._full(path), flags, mode)
            fi.fh = self._open_handle(fd, fi.flags)
            fi.direct_io = 0
            fi.keep_cache = 0
            trace("create", path)
            # A new inode: nothing held may carry over from an earlier file of that number.
            self._drop(self.handles[fi.fh].key)
            return 0

    def read(self, path, size, offset, fi):
        with self.mutex:
            handle = self._handle(fi)
            data = os.pread(handle.fd, size, offset)
            held = self.held.get(handle.key)
            return data if held is None else held.overlay(data, offset, size)

    def write(self, path, data, offset, fi):
        with self.mutex:
            self.counts["writes"] += 1
            if self.cut is not None:
                self.counts["dropped_after_cut"] += 1
                return len(data)
            handle = self._handle(fi)
            if handle.sync:
                self._sync_point(f"O_DSYNC write {path} @{offset}+{len(data)}", handle.key)
            self._held_for(handle, path).write(data, offset)
            if handle.sync:
                # O_DSYNC: this write, and only it, is on disk when the call returns.
                os.pwrite(handle.fd, data, offset)
                os.fdatasync(handle.fd)
            return len(data)

    def truncate(self, path, length, fi=None):
        with self.mutex:
            self._powered()
            handle = self.handles.get(fi.fh) if fi is not None else None
            if handle:
                os.ftruncate(handle.fd, length)
                key = handle.key
            else:
                os.truncate(self._full(path), length)
                st = os.stat(self._full(path))
                key = (st.st_dev, st.st_ino)
            held = self.held.get(key)
            if held is not None:
                held.truncate(length)

    def flush(self, path, fi):
        # close() makes nothing durable.
        return 0

    def fsync(self, path, datasync, fi):
        with self.mutex:
            key = self._handle(fi).key
            self._sync_point(f"fsync {path}", key)
            self._sync_file(key)
            return 0

    def release(self, path, fi):
        with self.mutex:
            handle = self.handles.pop(fi.fh, None)
            if handle is not None:
                os.close(handle.fd)
                self._drop_if_gone(handle.key)
            return 0

    # ---- names and metadata: durable at once -----------------------------------------------

    def _key_of(self, full):
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None

    def unlink(self, path):
        with self.mutex:
            self._powered()
            key = self._key_of(self._full(path))
            os.unlink(self._full(path))
            if key is not None:
                self._drop_if_gone(key)

    def rename(self, old, new):
        with self.mutex:
            self._powered()
            replaced = self._key_of(self._full(new))
            os.rename(self._full(old), self._full(new))
            trace("rename", old, new)
            if replaced is not None:
                self._drop_if_gone(replaced)

    def link(self, target, source):
        with self.mutex:
            self._powered()
            os.link(self._full(source), self._full(target))

    def symlink(self, target, source):
        with self.mutex:
            self._powered()
            os.symlink(source, self._full(target))

    def readlink(self, path):
        return os.readlink(self._full(path))

    def mkdir(self, path, mode):
        with self.mutex:
            self._powered()
            os.mkdir(self._full(path), mode)

    def rmdir(self, path):
        with self.mutex:
            self._powered()
            os.rmdir(self._full(path))

    def mknod(self, path, mode, dev):
        with self.mutex:
            self._powered()
            os.mknod(self._full(path), mode, dev)

    def chmod(self, path, mode):
        with self.mutex:
            self._powered()
            os.chmod(self._full(path), mode)

    def chown(self, path, uid, gid):
        with self.mutex:
            self._powered()
            os.chown(self._full(path), uid, gid)

    def utimens(self, path, times=None):
        with self.mutex:
            self._powered()
            os.utime(self._full(path), ns=times)

    def access(self, path, amode):
        if not os.access(self._full(path), amode):
            raise FuseOSError(errno.EACCES)

    def opendir(self, path):
        return 0

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._full(path))

    def fsyncdir(self, path, datasync, fh):
        # Names are durable at once in this model; a directory sync is only a sync point.
        with self.mutex:
            self._sync_point(f"fsyncdir {path}")
            return 0

    def statfs(self, path):
        sv = os.statvfs(self._full(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree")
        keys += ("f_files", "f_flag", "f_frsize", "f_namemax")
        return {key: getattr(sv, key) for key in keys}

    def init(self, path):
        print(json.dumps({"event": "ready"}), flush=True)


def serve_control(fs, path):
    """Answers commands on a unix socket, one JSON line per command."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    server.bind(path)
    server.listen(4)

    def client(conn):
        send_lock = threading.Lock()

        def reply(message):
            with send_lock:
                conn.sendall((json.dumps(message) + "\n").encode())

        with conn, conn.makefile("r") as lines:
            for line in lines:
                try:
                    reply(fs.command(line.split(), reply))
                except (ValueError, OSError) as error:
                    reply({"event": "error", "message": str(error)})

    def accept():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=client, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return server


def main(argv):
    if argv[1:] == ["--check"]:
        # Reaching here means fusepy and libfuse loaded: holdfs can run.
        print(json.dumps({"event": "check", "ok": True}), flush=True)
        return 0
    if len(argv) != 4:
        print("usage: holdfs.py <backing-dir> <mountpoint> <control-socket>", file=sys.stderr)
        return 2
    backing, mountpoint, control = argv[1:]
    fs = HoldFS(backing)
    server = serve_control(fs, control)
    try:
        FUSE(
            fs,
            mountpoint,
            raw_fi=True,
            foreground=True,
            nothreads=True,
            fsname="holdfs",
            # Every lookup and stat asks holdfs, so sizes include held writes at once.
            attr_timeout=0,
            entry_timeout=0,
            negative_timeout=0,
            # Unlink goes to the backing directory at once (no .fuse_hidden files).
            hard_remove=True,
            big_writes=True,
            max_write=MAX_WRITE,
        )
    finally:
        server.close()
        try:
            os.unlink(control)
        except FileNotFoundError:
            pass
    print(json.dumps({"event": "exit", **fs.stats()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
