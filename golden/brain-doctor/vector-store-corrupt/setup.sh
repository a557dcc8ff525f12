# The vector store's manifest names a generation whose files are gone.
mkdir -p home/index/vec
printf '%s' '{"schema":1,"generation":7,"fingerprint":{"model":"ollama:m","dims":4,"chunking":{"max_tokens":256,"overlap_tokens":32},"prompt":"title\\n\\nchunk;v1"},"chunks":2,"docs":1}' >home/index/vec/manifest.json
