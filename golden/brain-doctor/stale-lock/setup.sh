# A lexindex was killed mid-run: its lock note names a pid that no longer exists.
printf 'pid 999999999' >home/locks/lexindex.lock
