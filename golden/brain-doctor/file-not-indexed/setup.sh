# A note was added after the last indexing run.
printf -- '---\ntitle: New note\n---\nWritten after indexing.\n' >corpus-notes/kb/new-note.md
