# The text form, on a home with one failure.
printf 'pid 999999999' >home/locks/lexindex.lock
