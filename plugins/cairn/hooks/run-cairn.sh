#!/bin/sh
# cairn's Claude Code plugin: every hook runs `cairn hook claude-code EVENT --plugin` with the
# event Claude Code sends on stdin. Without cairn on PATH it says how to get it (into the
# session's context at its start, to stderr otherwise) and exits 0: a missing cairn never
# blocks the agent.
if command -v cairn >/dev/null 2>&1; then
    exec cairn hook claude-code "$1" --plugin
fi
cat >/dev/null
message="cairn is not on PATH, so this session has no memory: install it (https://github.com/cairn-memory/cairn#install) and start a new session"
if [ "$1" = SessionStart ]; then
    echo "$message"
else
    echo "$message" >&2
fi
exit 0
