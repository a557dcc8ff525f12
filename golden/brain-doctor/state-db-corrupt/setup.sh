# state.sqlite was overwritten with garbage.
rm -f home/state.sqlite-wal home/state.sqlite-shm
printf 'this is not an SQLite database, just bytes that happen to be here' >home/state.sqlite
