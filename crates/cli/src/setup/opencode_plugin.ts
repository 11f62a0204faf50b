// cairn for OpenCode: records this session through `cairn hook opencode <event>` and merges
// cairn's memory protocol, and what cairn knows about the project, into the system prompt that
// OpenCode already sends (never as a second system message; never into OpenCode's own side
// requests: titles, summaries, compaction). Before a compaction, cairn's context joins the
// compaction prompt. Every session this process saw is ended when OpenCode disposes of its
// instance or exits (so it is summarised), or when it is deleted. Text inside
// <private>…</private> is stripped before anything leaves OpenCode. Installed, and removed, by
// `cairn setup opencode`.
import type { Plugin } from "@opencode-ai/plugin"

const CAIRN = "__CAIRN_EXE__"
const CAIRN_ARGS: string[] = __CAIRN_ARGS__
// After the event: the tool profile (`--tools engram`), so what the hook says names its tools.
const HOOK_ARGS: string[] = __CAIRN_HOOK_ARGS__
const PROTOCOL: string = __CAIRN_PROTOCOL__

const stripPrivate = (text: string): string =>
  text.replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, "[REDACTED]")

type Part = { type: string; text?: string }

// The openings of the system prompts of OpenCode's own side requests, which are not the
// conversation and get nothing from cairn.
const SIDE_REQUESTS = [
  "You are a title generator",
  "You are a helpful AI assistant tasked with summarizing conversations",
  "Summarize what was done in this conversation",
]

const isSideRequest = (system: ReadonlyArray<string>): boolean =>
  SIDE_REQUESTS.some((opening) => (system[0] ?? "").includes(opening))

const textOf = (parts: ReadonlyArray<Part>): string =>
  parts
    .map((part) => (part.type === "text" ? (part.text ?? "") : ""))
    .filter((text) => text.length > 0)
    .join("\n")

// What a tool returned. Built-in tools hand the plugin `{ title, output, metadata }`; MCP tools
// hand it the MCP result itself, `{ content: [{ type: "text", text }], isError }`.
const toolResult = (output: unknown): { text: string; failed: boolean } => {
  const result = (output ?? {}) as { output?: unknown; content?: unknown; isError?: unknown }
  if (Array.isArray(result.content)) {
    return { text: textOf(result.content as Part[]), failed: result.isError === true }
  }
  return { text: String(result.output ?? ""), failed: false }
}

export const CairnPlugin: Plugin = async ({ client, directory }) => {
  const contexts = new Map<string, string>()
  // The line a prompt's hook printed (the reminder to save), for that prompt's requests only.
  const reminders = new Map<string, string>()
  // Sessions seen and not yet ended.
  const open = new Set<string>()

  // Runs the hook and returns what it printed; never throws, so OpenCode never stops on cairn.
  const hook = async (event: string, payload: Record<string, unknown>): Promise<string> => {
    try {
      const child = Bun.spawn([CAIRN, ...CAIRN_ARGS, "hook", "opencode", event, ...HOOK_ARGS], {
        stdin: new Blob([JSON.stringify({ directory, ...payload })]),
        stdout: "pipe",
        stderr: "ignore",
      })
      const output = await new Response(child.stdout).text()
      await child.exited
      return output
    } catch {
      return ""
    }
  }

  // Ends every open session: when OpenCode disposes of this instance, and (synchronously, as
  // nothing async runs then) when the process exits.
  const endAll = async () => {
    for (const sessionID of [...open]) {
      open.delete(sessionID)
      await hook("session.ended", { sessionID })
    }
  }
  process.on("exit", () => {
    for (const sessionID of open) {
      try {
        Bun.spawnSync([CAIRN, ...CAIRN_ARGS, "hook", "opencode", "session.ended", ...HOOK_ARGS], {
          stdin: new TextEncoder().encode(JSON.stringify({ directory, sessionID })),
          stdout: "ignore",
          stderr: "ignore",
        })
      } catch {
        // Never stop OpenCode on cairn.
      }
    }
    open.clear()
  })

  const lastAssistantText = async (sessionID: string): Promise<string | undefined> => {
    try {
      const messages = await client.session.messages({ path: { id: sessionID } })
      const last = (messages.data ?? []).filter((m) => m.info.role === "assistant").at(-1)
      return last ? stripPrivate(textOf(last.parts)) : undefined
    } catch {
      return undefined
    }
  }

  return {
    event: async ({ event }) => {
      switch (event.type) {
        case "session.created": {
          const sessionID = event.properties.info.id
          open.add(sessionID)
          const context = await hook("session.created", { sessionID })
          if (context.trim()) contexts.set(sessionID, context)
          break
        }
        case "session.compacted": {
          // A fresh context for the compacted conversation, injected from the next turn on.
          const sessionID = event.properties.sessionID
          const context = await hook("session.compacted", { sessionID })
          if (context.trim()) contexts.set(sessionID, context)
          break
        }
        case "session.idle": {
          const sessionID = event.properties.sessionID
          await hook("session.idle", { sessionID, text: await lastAssistantText(sessionID) })
          break
        }
        case "session.deleted":
          open.delete(event.properties.info.id)
          await hook("session.deleted", { sessionID: event.properties.info.id })
          break
        case "server.instance.disposed":
          await endAll()
          break
        case "session.error":
          if (event.properties.sessionID) {
            await hook("session.error", {
              sessionID: event.properties.sessionID,
              error: event.properties.error ?? null,
            })
          }
          break
      }
    },
    "chat.message": async (input, output) => {
      open.add(input.sessionID)
      const reminder = await hook("chat.message", {
        sessionID: input.sessionID,
        text: stripPrivate(textOf(output.parts)),
      })
      if (reminder.trim()) reminders.set(input.sessionID, reminder)
      else reminders.delete(input.sessionID)
    },
    "tool.execute.after": async (input, output) => {
      const result = toolResult(output)
      const text = stripPrivate(result.text)
      await hook("tool.execute.after", {
        sessionID: input.sessionID,
        tool: input.tool,
        args: input.args ?? {},
        ...(result.failed ? { error: text } : { output: text }),
      })
    },
    "experimental.session.compacting": async (input, output) => {
      const context = await hook("session.compacting", { sessionID: input.sessionID })
      if (context.trim()) output.context.push(context)
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (isSideRequest(output.system)) return
      const context = input.sessionID ? (contexts.get(input.sessionID) ?? "") : ""
      const reminder = input.sessionID ? (reminders.get(input.sessionID) ?? "") : ""
      const extra = [PROTOCOL, context, reminder].filter((text) => text.trim()).join("\n\n")
      if (output.system.length === 0) output.system.push(extra)
      else output.system[0] = `${output.system[0]}\n\n${extra}`
    },
  }
}
