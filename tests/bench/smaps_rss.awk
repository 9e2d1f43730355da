# smaps_rss.awk - the private memory of a process from its /proc/PID/smaps, for bench_depth.sh's
# RSS (docs/engines.md, "Memory"). Prints one line "PRIVATE SINKS FILE" in kB:
#
#   PRIVATE  the Rss of the process's own memory: anonymous mappings (no file: the heap, the
#            stacks, mmap(MAP_ANONYMOUS) of the workers, fibers and buffers) and io_uring's
#            rings (anon_inode:[io_uring]), without the read sinks;
#   SINKS    the Rss of the read sinks: the anonymous mappings marked MADV_DONTDUMP (VmFlags
#            "dd"; fsmix marks only them, crew.c; a sanitizer's shadow is dd too, so in
#            a sanitizer build SINKS has it). One sink per CPU, shared by every thread; a
#            sink becomes memory when a read lands on its CPU, so how much of them a run
#            touches is the scheduler's doing (0.5 to 1 MiB apart between two runs of one
#            thread on 2 CPUs), not a cost of the threads or of the operations in flight;
#   FILE     the Rss of file mappings (binary, libraries): page cache shared with every
#            process that maps them, a few hundred kB of which come and go with reclaim.
#
# The kernel's own mappings ([vdso], [vvar], [vsyscall]) count nowhere.
/^[0-9a-f]+-[0-9a-f]+ / {
	path = ""
	for (i = 6; i <= NF; i++)
		path = path (i > 6 ? " " : "") $i
	kind = "file"
	if (path == "" || path == "[heap]" || path ~ /^\[stack/ || path ~ /^\[anon:/ ||
	    path == "anon_inode:[io_uring]")
		kind = "anon"
	else if (path ~ /^\[/)
		kind = "none"
	rss = 0
	next
}
/^Rss:/ {
	rss = $2
	next
}
/^VmFlags:/ {
	if (kind == "anon" && path != "anon_inode:[io_uring]" && $0 ~ / dd( |$)/)
		sinks += rss
	else if (kind == "anon")
		priv += rss
	else if (kind == "file")
		file += rss
	next
}
END {
	printf "%d %d %d\n", priv, sinks, file
}
