# A home made under umask 022 by an older brain: the folder, the index and the registry readable by all.
chmod 755 home home/index
chmod 644 home/state.sqlite
