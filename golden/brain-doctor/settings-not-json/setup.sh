# Claude Code's settings.json was hand-edited into invalid JSON.
mkdir -p user/.claude
printf '{"hooks": {oops' >user/.claude/settings.json
