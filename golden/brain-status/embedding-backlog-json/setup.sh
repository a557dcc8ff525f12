# Vectors exist for the notes only: the sessions are the embedding backlog, projected at the rate
# the last vecindex run measured (2 docs × 1.5 s).
mkdir -p home/index/vec
printf '%s' '{"schema":1,"generation":1,"fingerprint":{"model":"local:all-MiniLM-L6-v2","dims":384,"chunking":{"max_tokens":256,"overlap_tokens":32},"prompt":"title\\n\\nchunk;v1"},"chunks":3,"docs":3,"rate":{"secs_per_doc":1.5,"secs_per_chunk":0.25,"docs":40,"kernel":"int8-vnni","measured_at":"2026-04-10T12:00:00Z"}}' >home/index/vec/manifest.json
python3 -c "import sqlite3; c = sqlite3.connect('home/state.sqlite'); c.execute(\"UPDATE documents SET vec_fingerprint = 'local:all-MiniLM-L6-v2/384d/c256o32/title\\\\n\\\\nchunk;v1', vec_indexed_at = 1775822400 WHERE collection = 'notes'\"); c.commit()"
