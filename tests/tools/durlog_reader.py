#!/usr/bin/env python3
"""A second, minimal reader of fsmix's durability log (issue 26).

Written from the documentation alone (docs/output.md: "Durability log", "fsmix verify",
"Verifiable content", "Content modes"; docs/durability.md: "Durability model", the table of
promises, "Namespace operations", "A log fsmix can have written", "A log without its end
record"), never from src/, so that it checks that the docs are complete and right.

  durlog_reader.py --durability-log LOG --location L [--location L1 ...] [--model linux|posix]
                   [--cut-at NS] [--json]

--cut-at NS (docs/durability.md, "(b) Power cut"): the records acknowledged at or after NS are
the known tail of a log cut at a power cut, as fsmix verify --cut-at reads them.

What it checks, per file of the log (the last life of each id): the name (present in one of
the directories the model allows), the length (at least the acknowledged one), and in content
modes random, header, zero and compressible the header bytes of every promised block, byte by
byte (file id, generation within the acceptable window, block offset); in header mode every
promised payload byte against the pattern all blocks share (learned from the tree); in random
mode that no payload word holding a promised byte is eight zero bytes; a replaced file's blocks, new or old
(mixed, emptied); a second name l<id> whose link is durable must be there and be f<id>'s inode
(missing, split), one whose unlink is durable must stay gone (resurrected). It does not recompute the check word (its hash is not documented) nor the
random payload stream (its PRNG neither): a torn or stale random payload under a good header is
not seen, and a kind may differ from verify's where verify reads more of a block. Deleted files
whose unlink is durable must stay gone (resurrected). Directories (mkdir and rmdir records,
docs/durability.md "Directories"): a covered mkdir's must be there (missing), a covered rmdir's
must stay gone (resurrected); a name promised in a directory createdir made promises the
directory too under linux, and under posix is promised only with it (or when it is there). --model posix only drops the name
promises of fsync, fdatasync and O_SYNC writes. The bad-log rules (sequence gaps, records after
end, where torn records may lie) are not checked: torn records are skipped wherever they are.

Output: one line per file, `fsN fID verdict [kind]` with verdict kept, broken or
not-promised, one per directory, `fsN meta|data ID verdict [kind]`, and a summary; --json
prints {"files": [...], "directories": [...], "summary": {...}}.
Exit status: 0 nothing broken, 1 something broken, 2 a log it cannot read.
"""
import argparse
import json
import os
import stat
import struct
import sys

FNV_BASIS = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
DATA_DIR = 0xFFFFFFFF
MAIN = 0xFFFFFFFF
KINDS = {1: "base", 2: "write-start", 3: "write", 4: "fsync", 5: "fdatasync", 6: "create",
         7: "delete", 8: "dirsync", 9: "syncfs", 10: "sync", 11: "end", 12: "rename",
         13: "replace", 14: "truncate", 15: "fallocate", 16: "link", 17: "unlink", 18: "mkdir",
         19: "rmdir"}
META_DIR = 0xFFFFFFFE  # a mkdir's, rmdir's or dirsync's parent meta/
REC = struct.Struct("<BBHIQQQIIQQQII")  # 72 bytes, then the u64 FNV-1a
BLOCK = 512
TRACKED_DIRS = 4  # "four are tracked" (docs/durability.md, Namespace operations)


class BadLog(Exception):
    pass


def fnv1a(data):
    h = FNV_BASIS
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & M64
    return h


def gen_in(g, lo, hi):
    """g in [lo, hi] on the 32-bit circle; hi None: unbounded (within 2^31 of lo)."""
    if g == 0:
        return False
    if hi is None:
        return (g - lo) & M32 < (1 << 31)
    return (g - lo) & M32 <= (hi - lo) & M32


def parse(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 64 or data[:8] != b"FSMIXDUR":
        raise BadLog("not a durability log")
    version, hlen, rlen, flags, mono, real, nfs, nworkers, runid = struct.unpack_from(
        "<IIIIQQIIQ", data, 8)
    if rlen != 80 or hlen < 72 or len(data) < hlen:
        raise BadLog("header lengths %d/%d" % (hlen, rlen))
    if fnv1a(data[:hlen - 8]) != struct.unpack_from("<Q", data, hlen - 8)[0]:
        raise BadLog("header fails its check")
    fss = {}
    for i in range(nfs):
        idx, mode, pct, tree, seed, spec = struct.unpack_from("<IBBxxQQQ", data, 64 + 32 * i)
        fss[idx] = {"mode": mode, "pct": pct, "tree": tree}
    hdr = {"version": version, "flags": flags, "nworkers": nworkers, "fs": fss, "runid": runid}
    recs, torn = [], 0
    for pos in range(hlen, len(data) - len(data[hlen:]) % rlen, rlen):
        raw = data[pos:pos + rlen]
        if fnv1a(raw[:72]) != struct.unpack_from("<Q", raw, 72)[0]:
            torn += 1  # the docs: a torn tail is skipped (this reader does not judge where)
            continue
        (kind, fl, fs, worker, seq, t0, t1, file, d, off, ln, size, gen,
         resv) = REC.unpack_from(raw)
        recs.append({"n": len(recs) + torn + 1, "kind": KINDS.get(kind, kind), "flags": fl,
                     "fs": fs, "worker": worker, "seq": seq, "t0": t0, "t1": t1,
                     "file": file, "dir": d, "off": off, "len": ln, "size": size,
                     "gen": gen, "resv": resv})
    if not recs:
        raise BadLog("no good record")
    return hdr, recs, torn


class File:
    """One life of a file id: from its base or create record to its delete (or the end)."""

    def __init__(self, fs, fid, d, created, t1):
        self.fs, self.id, self.dir, self.created = fs, fid, d, created
        self.t_made = t1             # when its current name was made (create, rename)
        self.cands = [d]             # directories it may be in (the durable one first)
        self.left = []               # (dir, t1) renamed away from, not yet durably left
        self.left_durable = []       # directories it durably left
        self.name_promised = False
        self.pending = []            # unsettled writes: [off, end, gen, size, t1]
        self.settled = []            # promised content: [off, end, gen_min]
        self.length = 0              # promised length
        self.gen_max = 0             # the newest generation a write of it began
        self.deleted = None          # t1 of its unlink
        self.unlink_durable = False
        self.replace = None          # (gen, size, confirmed by its dirsync)
        self.recreated = False
        self.link = None             # the second name's last change: [kind, dir, t1, durable]

    def key(self):
        return (self.fs, self.id)


class Dir:
    """One directory id under its parent (meta/ or data/): its last mkdir or rmdir."""

    def __init__(self, fs, parent, did):
        self.fs, self.parent, self.id = fs, parent, did
        self.made = False     # its last record a mkdir (else an rmdir)
        self.t1 = 0           # when that returned
        self.promised = False  # covered


class Model:
    def __init__(self, hdr, recs, model):
        self.dirs = {}
        self.hdr, self.model = hdr, model
        self.recs = sorted(recs, key=lambda r: (r["t1"], r["worker"], r["seq"]))
        self.live = {}
        self.lives = []
        self.complete = any(r["kind"] == "end" for r in recs)
        self.tail_known, self.touched = False, set()

    def known_tail(self, tail):
        """The log cut at a power cut's moment (--cut-at), its later records known (docs:
        fsmix verify --cut-at, as crashtest's states): a file may have vanished or been made
        anew only where a record after the cut deletes, renames, replaces, creates, truncates,
        fallocates, links or unlinks it; deletes and creates explain nothing when none did."""
        deletes = creates = False
        for r in tail:
            k = r["kind"]
            if k in ("delete", "rename", "unlink"):
                deletes = True
            elif k in ("create", "replace", "truncate", "fallocate", "link"):
                deletes, creates = deletes or k == "replace", True
            else:
                continue
            self.touched.add((r["fs"], r["file"]))
        self.hdr["flags"] |= (0 if deletes else 4) | (0 if creates else 8)
        self.tail_known = True

    def may(self, f, by_flags):
        """Whether a change after the log's end may explain a finding of f."""
        if self.complete:
            return False
        return (f.fs, f.id) in self.touched if self.tail_known else by_flags

    def life(self, r):
        return self.live.get((r["fs"], r["file"]))

    def new(self, r, created):
        old = self.live.get((r["fs"], r["file"]))
        if old is not None and old.deleted is None:
            old.deleted = r["t1"]  # an id taken again while live: treat as gone
        if old is not None:
            old.recreated = True
        f = File(r["fs"], r["file"], r["dir"], created, r["t1"])
        if old is not None and old.link and old.link[0] == "unlink":
            # a create never makes l<id>: the old life's unlink stays its last change (covered
            # later, it must stay gone) until a link of the new life (docs: "Second names")
            f.link, old.link = old.link, None
        self.live[f.key()] = f
        self.lives.append(f)
        return f

    def settle(self, f, ws, length=None):
        for w in ws:
            f.settled.append([w[0], w[1], w[2]])
            f.length = max(f.length, w[3])
        if length is not None:
            f.length = max(f.length, length)

    def dir_promised(self, fs, d):
        """linux: a name promised in a directory createdir made promises the directory."""
        x = self.dirs.get((fs, DATA_DIR, d))
        if self.model == "linux" and x is not None and x.made:
            x.promised = True

    def cover_dirs(self, r, parent):
        """A covering call: the mkdirs and rmdirs under parent (None: every) before it."""
        for x in self.dirs.values():
            if x.fs == r["fs"] or r["kind"] == "sync":
                if (parent is None or x.parent == parent) and x.t1 < r["t0"]:
                    x.promised = True

    def name_durable(self, f, t_start=None):
        f.name_promised = True
        self.dir_promised(f.fs, f.dir)
        if t_start is None or f.t_made < t_start:
            f.cands = [f.dir]

    def cover_all(self, r, fs_only):
        """sync / syncfs: what completed before the call started."""
        for f in self.lives:
            if fs_only and f.fs != r["fs"]:
                continue
            self.cover_link(f, None, r["t0"])
            if f.deleted is not None:
                if f.deleted < r["t0"]:
                    f.unlink_durable = True
                self.cover_left(f, None, r["t0"])
                continue
            ws = [w for w in f.pending if w[4] < r["t0"]]
            f.pending = [w for w in f.pending if w[4] >= r["t0"]]
            self.settle(f, ws)
            if f.t_made < r["t0"]:
                self.name_durable(f)
            self.cover_replace(f, r["t0"])
            self.cover_left(f, None, r["t0"])

    def cover_replace(self, f, t0):
        """A replace's rename is durable once a sync, a syncfs or a dirsync of its directory
        (the caller's reach) started after it returned (docs/durability.md: the rename row, "A
        name made anew"): then only the new content."""
        if f.replace and not f.replace[2] and f.replace_t1 < t0:
            f.replace = (f.replace[0], f.replace[1], True)

    def cover_link(self, f, d, t0):
        """A second name's link or unlink is covered by a dirsync of its own directory (d), a
        syncfs or a sync (d None) that started after it completed."""
        if f.link and not f.link[3] and f.link[2] < t0 and (d is None or d == f.link[1]):
            f.link[3] = True

    def cover_left(self, f, d, t0):
        keep = []
        for (ld, t) in f.left:
            if t < t0 and (d is None or ld == d):
                f.left_durable.append(ld)
            else:
                keep.append((ld, t))
        f.left = keep

    def replay(self):
        for r in self.recs:
            k = r["kind"]
            if k == "base":
                f = self.new(r, False)
                f.length = r["size"]
                f.gen_max = r["gen"]
                if r["size"]:
                    f.settled.append([0, r["size"], 1 if r["gen"] else None])
                f.base_unknown = r["gen"] == 0
            elif k == "create":
                self.new(r, True).gen_max = 1  # "1 as created"; no write-start for it
            elif k == "write-start":
                f = self.life(r)
                if f:
                    f.gen_max = max(f.gen_max, r["gen"]) if f.gen_max else r["gen"]
            elif k == "write":
                f = self.life(r)
                if not f:
                    continue
                w = [r["off"], r["off"] + r["len"], r["gen"], r["size"], r["t1"]]
                if r["flags"] & 1:
                    # its own extent and the length to it (off + len), not the write's new
                    # length (size): that may be an unsynced append's or a zero range's
                    self.settle(f, [w[:3] + [r["off"] + r["len"]] + w[4:]])
                    if self.model == "linux" and len(f.cands) == 1:
                        f.name_promised = True  # its own name, as fsync (not a rename's)
                        self.dir_promised(f.fs, f.dir)
                else:
                    f.pending.append(w)
            elif k in ("fsync", "fdatasync"):
                f = self.life(r)
                if not f:
                    continue
                ws = [w for w in f.pending if w[4] <= r["t1"]]
                f.pending = [w for w in f.pending if w[4] > r["t1"]]
                self.settle(f, ws, r["size"])
                if self.model == "linux" and not f.name_promised and len(f.cands) == 1:
                    f.name_promised = True  # its own name, not a rename's (not by fsync)
                    self.dir_promised(f.fs, f.dir)
            elif k == "delete":
                f = self.life(r)
                if f:
                    f.deleted = r["t1"]
                    f.dir = r["dir"]
            elif k == "dirsync":
                self.cover_dirs(r, r["dir"])
                self.dir_promised(r["fs"], r["dir"])
                for f in self.lives:
                    if f.fs != r["fs"]:
                        continue
                    self.cover_link(f, r["dir"], r["t0"])
                    if f.deleted is not None:
                        if f.dir == r["dir"] and f.deleted < r["t0"]:
                            f.unlink_durable = True
                        self.cover_left(f, r["dir"], r["t0"])
                        continue
                    if f.dir == r["dir"] and f.t_made < r["t0"]:
                        self.name_durable(f)
                    if f.dir == r["dir"]:
                        self.cover_replace(f, r["t0"])
                    self.cover_left(f, r["dir"], r["t0"])
            elif k in ("sync", "syncfs"):
                self.cover_dirs(r, None)
                self.cover_all(r, k == "syncfs")
            elif k in ("mkdir", "rmdir"):
                x = Dir(r["fs"], r["dir"], r["file"])  # a new state: nothing promised yet
                x.made, x.t1 = k == "mkdir", r["t1"]
                self.dirs[(x.fs, x.parent, x.id)] = x
            elif k == "rename":
                f = self.life(r)
                if not f:
                    continue
                # a directory it came back to no longer counts as left, durably or not yet
                f.left = [(d, t) for d, t in f.left if d != r["dir"]] + [(f.dir, r["t1"])]
                f.left_durable = [d for d in f.left_durable if d != r["dir"]]
                f.dir, f.t_made = r["dir"], r["t1"]
                f.cands = (f.cands + [r["dir"]])[-(TRACKED_DIRS + 1):]
            elif k in ("link", "unlink"):
                f = self.life(r)
                if f and f.deleted is None:  # the last change of its second name counts
                    f.link = [k, r["dir"], r["t1"], False]
            elif k == "replace":
                f = self.life(r)
                if not f:
                    continue
                f.gen_max = r["gen"] if not f.gen_max else max(f.gen_max, r["gen"])
                if r["flags"] & 4:
                    continue
                f.old = (list(f.settled), f.length)
                f.pending = []
                f.settled = [[0, r["size"], r["gen"]]] if r["size"] else []
                f.length = r["size"]
                f.replace = (r["gen"], r["size"], False)
                f.replace_t1 = r["t1"]
                f.t_made = r["t1"]
                if f.dir not in f.cands:
                    f.cands.append(f.dir)
            elif k == "truncate":
                f = self.life(r)
                if not f:
                    continue
                n = r["size"]
                f.settled = [[a, min(b, n), g] for a, b, g in f.settled if a < n]
                f.pending = [[a, min(b, n), g, min(s, n), t] for a, b, g, s, t in f.pending
                             if a < n]
                f.length = min(f.length, n)
                if f.replace:
                    f.replace = (f.replace[0], min(f.replace[1], n), f.replace[2])
            elif k == "fallocate" and r["resv"] in (1, 2):
                # punch hole (1), zero range (2): docs/durability.md, "nothing in the range is
                # promised any more"; a pending write keeps its part before the hole, or after
                # it when it starts inside (a later fsync promises what remains)
                f = self.life(r)
                if not f:
                    continue
                lo, hi = r["off"], r["off"] + r["len"]
                f.settled = [[a, b, g] for a, b, g in f.settled if b <= lo or a >= hi] + \
                    [[a, lo, g] for a, b, g in f.settled if a < lo < b] + \
                    [[hi, b, g] for a, b, g in f.settled if a < hi < b]
                kept = []
                for w in f.pending:
                    a, b = w[0], w[1]
                    if b <= lo or a >= hi:
                        kept.append(w)
                    elif a < lo:
                        kept.append([a, lo] + w[2:])
                    elif b > hi:
                        kept.append([hi, b] + w[2:])
                f.pending = kept


def path_of(loc, fs, d, fid, letter="f"):
    sub = "data" if d == DATA_DIR else os.path.join("data", "d%03d" % d)
    return os.path.join(loc, "fsmix.fs%d" % fs, sub, "%s%d" % (letter, fid))


# verify's kinds in its order: a file's verdict is the first of them it broke (docs/output.md)
KIND_ORDER = ["missing", "short", "wrong", "stale", "torn", "zeroed", "unreadable",
              "resurrected", "mixed", "emptied", "split"]


def judge(m, f, locs):
    """The verdict of one life, its second name's included: (verdict, kind). Like verify's,
    a file's kind is the first in KIND_ORDER it has a finding of (broken before lost tail)."""
    both = [v for v in (judge_first(m, f, locs), judge_link(m, f, locs)) if v is not None]
    found = [v for v in both if v[1] is not None]
    if not found:
        return ("kept", None) if ("kept", None) in both else ("not-promised", None)
    return min(found, key=lambda x: (KIND_ORDER.index(x[1]) if x[1] in KIND_ORDER else 99,
                                     x[0] != "broken"))


def judge_link(m, f, locs):
    """A second name whose last change is durable: None when none is."""
    if not f.link or not f.link[3] or f.recreated:
        return None
    loc = locs[f.fs] if f.fs < len(locs) else locs[0]
    lp = path_of(loc, f.fs, f.link[1], f.id, "l")
    # a later delete, replace, link or unlink may explain it: flags 4 (no group deletes, renames
    # or replaces files) and 16 (none links or unlinks) both say none could
    lost = m.may(f, (m.hdr["flags"] & 20) != 20)
    if f.link[0] == "unlink":
        if os.path.lexists(lp):
            return ("lost-tail" if lost else "broken", "resurrected")
        return ("kept", None)
    if f.deleted is not None:
        return None
    if not os.path.lexists(lp):
        return ("lost-tail" if lost else "broken", "missing")
    if not f.name_promised or (f.replace and not f.replace[2]):
        return ("kept", None)  # the f<id> there may be an earlier inode (a delete, a replace)
    order = [f.dir] + [d for d in reversed(f.cands) if d != f.dir]
    for d in order:
        p = path_of(loc, f.fs, d, f.id)
        if os.path.lexists(p):
            a, b = os.lstat(lp), os.lstat(p)
            if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                return ("lost-tail" if lost else "broken", "split")
            break
    return ("kept", None)


PATTERNS = {}  # content=header: the payload (bytes 24..511) of each filesystem, learned


def learn(m, locs):
    """content=header's payload is "the same in every block, file and generation" (docs), but
    its bytes come from the seed's PRNG, which is not documented: so it is learned, before any
    file is judged, as the payload most blocks of the whole tree hold. Zeroed blocks (a lost
    extent, a hole) do not vote: after a power cut they can outnumber the good ones in the
    first files read, and a pattern learned from those would call good blocks torn."""
    votes = {}
    for f in m.lives:
        if m.hdr["fs"].get(f.fs, {"mode": 0})["mode"] != 4 or m.live.get(f.key()) is not f:
            continue
        loc = locs[f.fs] if f.fs < len(locs) else locs[0]
        for d in set([f.dir] + f.cands):
            try:
                with open(path_of(loc, f.fs, d, f.id), "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            v = votes.setdefault(f.fs, {})
            for off in range(0, len(data) - BLOCK + 1, BLOCK):
                pl = data[off + 24:off + BLOCK]
                if any(pl):
                    v[pl] = v.get(pl, 0) + 1
    for fs, v in votes.items():
        best = max(v, key=v.get)
        if v[best] >= 8:
            PATTERNS[fs] = best  # fewer: too little to tell, the payload is not checked


def header_state(f, data, blk, s, e, lo, hi):
    """The header bytes of the block at blk that [s, e) covers: None (none), ok, zeroed, stale
    or wrong. Word 0: file id (low 32 bits), generation (high); word 1: the block's offset."""
    lo_b, hi_b = max(s, blk), min(e, blk + 16)
    if lo_b >= hi_b:
        return None
    want = struct.pack("<IIQ", f.id, 0, blk)
    zero = not any(data[lo_b:hi_b])  # zeroes where content is not (its offset's high bytes are)
    gen_bytes = {}
    for p in range(lo_b, hi_b):
        i = p - blk
        if 4 <= i < 8:
            gen_bytes[i - 4] = data[p]
        elif data[p] != want[i]:
            return "zeroed" if zero else "wrong"
    if not gen_bytes or lo is None:
        return "ok"
    g = sum(b << (8 * i) for i, b in gen_bytes.items())
    if len(gen_bytes) == 4:
        if gen_in(g, lo, hi):
            return "ok"
        if zero:
            return "zeroed"  # generation 0 is never written
        return "stale" if g and (lo - g) & M32 < (1 << 31) else "wrong"
    mask = sum(0xFF << (8 * i) for i in gen_bytes)
    top = hi if hi is not None else (lo + 4096) & M32
    n = (top - lo) & M32
    if n > 1 << 16:
        return "ok"  # a partial generation in a window too wide to search: accepted
    for d in range(n + 1):
        if ((lo + d) & M32) & mask == g:
            return "ok"
    return "zeroed" if zero else "wrong"


def check_blocks(f, data, mode, hi, any_gen=False):
    """First finding in the promised ranges: (kind, offset) or None. Checked: the header's file,
    generation and offset bytes; in header mode every payload byte against the pattern; in
    random mode that no whole payload word is eight zero bytes. Not checked: the check word
    (word 2: its hash is not documented) and random payload bytes (its stream neither)."""
    pattern = PATTERNS.get(f.fs) if mode == 4 else None
    for a, b, gmin in f.settled:
        gmin = 1 if any_gen else gmin  # any_gen: a file made anew holds generations from 1
        for blk in range(a - a % BLOCK, b, BLOCK):
            s, e = max(a, blk), min(b, blk + BLOCK)
            if e > len(data):
                return ("short", len(data))
            hs = header_state(f, data, blk, s, e, gmin, hi) if mode in (0, 1, 2, 4) else None
            if hs not in (None, "ok"):
                return (hs, max(s, blk))
            bad = None
            for p in range(max(s, blk + 24), e):
                i = p - blk
                if mode == 4 and pattern is not None and data[p] != pattern[i - 24]:
                    bad = p
                    break
                # random: a payload word is never eight zero bytes, so promised bytes in a
                # word that reads all zero are zeroed, also a word the range covers only in
                # part (its first or last: checked once, at the range's first byte or the
                # word's); other bytes of a partial word cannot be judged without the stream
                w0 = p - i % 8
                if mode == 0 and (i % 8 == 0 or p == s) and w0 + 8 <= len(data) and \
                        data[w0:w0 + 8] == b"\0" * 8:
                    bad = p
                    break
            if bad is None:
                continue
            if hs == "ok" and blk + 16 <= e and s <= blk:
                return ("torn", bad)  # a good header, bad bytes after it
            rest = data[bad:min(len(data), blk + BLOCK)]
            return ("zeroed" if not any(rest) else "wrong", bad)
    return None


def judge_first(m, f, locs):
    """The verdict of one life, its first name f<id>: (verdict, kind)."""
    loc = locs[f.fs] if f.fs < len(locs) else locs[0]
    if f.deleted is not None:
        if f.recreated and m.live.get(f.key()) is not f:
            pass  # a later create of the id: that one is checked (docs: not resurrected)
        dirs = ([f.dir] if f.unlink_durable else []) + f.left_durable
        if f.recreated:
            return ("not-promised", None)
        for d in dirs:
            if os.path.lexists(path_of(loc, f.fs, d, f.id)):  # whatever it names
                if m.may(f, not (m.hdr["flags"] & 8)):
                    return ("lost-tail", "resurrected")
                return ("broken", "resurrected")
        return ("kept", None) if dirs else ("not-promised", None)
    promised_data = bool(f.settled) or f.length > 0
    if not f.name_promised and not promised_data:
        return ("not-promised", None)
    order = [f.dir] + [d for d in reversed(f.cands) if d != f.dir]
    found = None
    for d in order:
        p = path_of(loc, f.fs, d, f.id)
        try:
            os.lstat(p)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:  # EIO, EUCLEAN: a promised name unreadable, whatever the tail did;
            if f.name_promised:  # an unpromised one's failing lookup tells nothing
                return ("broken", "unreadable")
            continue
        found = p
        break
    if found is None:
        if not f.name_promised:
            return ("kept", None)  # its name was never promised: absent is allowed
        x = m.dirs.get((f.fs, DATA_DIR, f.dir))
        if x is not None and x.made and not x.promised and \
                not os.path.isdir(os.path.dirname(path_of(loc, f.fs, f.dir, f.id))):
            return ("kept", None)  # lost with its directory, whose entry was not promised
        if m.may(f, not (m.hdr["flags"] & 4) or f.created):
            return ("lost-tail", "missing")
        return ("broken", "missing")
    try:
        with open(found, "rb") as fh:
            data = fh.read()
    except OSError:
        return ("broken", "unreadable")
    mode = m.hdr["fs"].get(f.fs, {"mode": 0})["mode"]
    hi = None if not m.complete or not f.gen_max else f.gen_max
    res = None
    if f.replace and f.replace[1]:
        res = check_replace(f, data, mode)
        if res == "old":
            return ("kept", None)
    if res is None:
        if len(data) < f.length:
            res = ("short", len(data))
        else:
            res = check_blocks(f, data, mode, hi)
    if res is None:
        return ("kept", None)
    if m.tail_known:
        # the records after the cut are known: only a file they deleted and a create then made
        # anew may hold other content, of any length, of generations from 1 (or zeroes: its
        # writes cut short); a delete alone explains no content (docs: "renew")
        if not m.may(f, True) or m.hdr["flags"] & 8:
            return ("broken", res[0])
        if res[0] == "short":
            return ("lost-tail", "short")
        again = check_blocks(f, data, mode, hi, any_gen=True)
        if again is None or again[0] in ("zeroed", "short"):
            return ("lost-tail", res[0])
        return ("broken", res[0])
    if m.may(f, not (m.hdr["flags"] & 8) or f.created) and res[0] != "wrong":
        return ("lost-tail", res[0])
    return ("broken", res[0])


def judge_dir(m, x, locs):
    """A directory's verdict: (verdict, kind)."""
    if not x.promised:
        return ("not-promised", None)
    loc = locs[x.fs] if x.fs < len(locs) else locs[0]
    name = ("meta/m%d" if x.parent == META_DIR else "data/d%03d") % x.id
    p = os.path.join(loc, "fsmix.fs%d" % x.fs, name)
    # made: a directory must be there; removed: the name must stay gone, whatever it names
    # (docs/durability.md, "Directories": a file or a symlink in its place is the name back)
    if x.made:
        try:
            there = stat.S_ISDIR(os.lstat(p).st_mode)
        except FileNotFoundError:
            there = False
        except OSError:  # a corrupt directory (EIO, EUCLEAN): unreadable, whatever the tail did
            return ("broken", "unreadable")
    else:
        there = os.path.lexists(p)
    if there == x.made:
        return ("kept", None)
    kind = "missing" if x.made else "resurrected"
    # a lost tail may hide an rmdir or mkdir of meta/; createdir's directories are never removed
    # (a missing one only where the run removes directories: header flag 32 clear)
    lost = not m.complete and x.parent == META_DIR and (not x.made or not m.hdr["flags"] & 32)
    return ("lost-tail" if lost else "broken", kind)


def check_replace(f, data, mode):
    """A replaced file: the new content whole, or (before its dirsync returned) the old. An
    empty file where the new content is not: emptied, unless the old may have been empty and
    the dirsync had not returned. Blocks of the new generation (or later) and blocks of older
    ones anywhere in the file as found: mixed. "old": the old content, not checked further."""
    gen, size, confirmed = f.replace
    if len(data) == 0:
        return "old" if not confirmed and f.old[1] == 0 else ("emptied", 0)
    if mode not in (0, 1, 2, 4):
        return None
    new = old = 0
    first = [None, None]
    for off in range(0, len(data) - 7, BLOCK):
        w0 = struct.unpack_from("<Q", data, off)[0]
        if w0 & M32 != f.id or not w0 >> 32:
            continue  # no generation of this file (zeroes, garbage): the usual checks say
        is_new = gen_in(w0 >> 32, gen, None)  # "its generation or later", unbounded
        new, old = new + is_new, old + (not is_new)
        if first[is_new] is None:
            first[is_new] = off
    if new and old:
        return ("mixed", max(first))
    if not confirmed and not new:
        return "old"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--durability-log", required=True)
    ap.add_argument("--location", action="append", required=True)
    ap.add_argument("--model", default="linux", choices=["linux", "posix"])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cut-at", type=int, default=0,
                    help="the power cut's CLOCK_MONOTONIC ns: later records are no promise")
    a = ap.parse_args()
    try:
        hdr, recs, torn = parse(a.durability_log)
    except (BadLog, OSError) as e:
        print("durlog_reader: %s: %s" % (a.durability_log, e), file=sys.stderr)
        return 2
    if a.cut_at:
        tail = [r for r in recs if r["t1"] >= a.cut_at]
        recs = [r for r in recs if r["t1"] < a.cut_at]
    m = Model(hdr, recs, a.model)
    if a.cut_at:
        m.known_tail(tail)
    m.replay()
    learn(m, a.location)
    out, summary = [], {"files": 0, "kept": 0, "broken": 0, "not-promised": 0,
                        "lost-tail": 0, "broken_by_kind": {}}
    for f in m.lives:
        if m.live.get(f.key()) is not f:
            continue  # an id made anew: its last life is what the tree can show
        v, kind = judge(m, f, a.location)
        state = "deleted" if f.deleted is not None else "live"
        out.append({"fs": f.fs, "file": f.id, "state": state, "verdict": v, "kind": kind})
        summary["files"] += 1
        summary[v] += 1
        if v == "broken":
            summary["broken_by_kind"][kind] = summary["broken_by_kind"].get(kind, 0) + 1
    dirs = []
    for x in sorted(m.dirs.values(), key=lambda x: (x.fs, x.parent != META_DIR, x.id)):
        v, kind = judge_dir(m, x, a.location)
        if v == "not-promised":
            continue
        dirs.append([x.fs, "meta" if x.parent == META_DIR else "data", x.id, v, kind])
        summary[v] += 1
        if v == "broken":
            summary["broken_by_kind"][kind] = summary["broken_by_kind"].get(kind, 0) + 1
    summary["directories"] = len(dirs)
    summary.update(records=len(recs), torn_records=torn, log_complete=m.complete)
    if a.json:
        files = [[o["fs"], o["file"], o["verdict"].replace("-", "_"), o["kind"]] for o in out]
        dirs = [d[:3] + [d[3].replace("-", "_"), d[4]] for d in dirs]
        json.dump({"files": files, "directories": dirs, "summary": summary}, sys.stdout,
                  indent=1)
        print()
    else:
        for o in out:
            print("fs%d f%d %s %s%s" % (o["fs"], o["file"], o["state"], o["verdict"],
                                        " " + o["kind"] if o["kind"] else ""))
        for d in dirs:
            print("fs%d %s %d %s%s" % (d[0], d[1], d[2], d[3], " " + d[4] if d[4] else ""))
        print("durlog_reader: %d files and directories: kept %d, broken %d, not promised %d, lost tail %d"
              % (summary["files"], summary["kept"], summary["broken"],
                 summary["not-promised"], summary["lost-tail"]))
    return 1 if summary["broken"] else 0


if __name__ == "__main__":
    sys.exit(main())
