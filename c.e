t.ffsb: error: cannot open: No such file or directory
--threads 1: error: nothing to change: the profile has no [threadgroup]
fsmix: point threads=1: 2 errors; nothing was run
