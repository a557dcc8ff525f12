# usage.jsonl lost its 0600 mode.
umask 077; mkdir -p home/logs
printf '%s\n' '{"schema":1,"ts":"2026-04-10T09:00:00Z","surface":"cli","event":"ask","latency_ms":12,"query_len":14,"n_hits":3}' \
  '{"schema":1,"ts":"2026-04-10T09:05:00Z","surface":"hook","event":"stop_hook","latency_ms":48,"exit_code":0,"n_docs":1}' >home/logs/usage.jsonl
chmod 644 home/logs/usage.jsonl
