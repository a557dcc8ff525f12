# The corpus moved on since indexing: a new note, a deleted session, an edited note; two sessions wait for distillation.
printf -- '---\ntitle: New note\n---\nWritten after indexing.\n' >corpus-notes/kb/new-note.md
rm corpus-sessions/2026/04/s1.md
printf '\nEdited.\n' >>corpus-notes/kb/locks.md
printf 's1\ns2\n' >home/pending_distill.txt
