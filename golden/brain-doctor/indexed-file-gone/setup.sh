# An indexed session file was deleted.
rm corpus-sessions/2026/04/s1.md
