# A referenced notes folder was moved away.
rm -rf corpus-notes
