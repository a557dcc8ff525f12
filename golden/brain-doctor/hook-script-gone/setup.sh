# The installed Stop hook points at a stop-hook.sh that is not there any more.
mkdir -p user/.claude
printf '%s\n' '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"BRAIN_BIN=/gone/bin/brain /gone/share/brain/stop-hook.sh","timeout":30}]}]}}' >user/.claude/settings.json
