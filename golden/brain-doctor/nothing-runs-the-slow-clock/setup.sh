# No scheduler holds a schedule of ours and no `brain schedule run` loop runs: the slow clock never runs.
: >bin/crontab.txt
