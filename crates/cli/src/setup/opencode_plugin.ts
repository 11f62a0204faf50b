// cairn for OpenCode: records this session through `cairn hook opencode <event>` and merges
// cairn's memory protocol, and what cairn knows about the project, into the system prompt that
// OpenCode already sends (never as a second system message). Before a compaction, cairn's
// context joins the compaction prompt. Text inside <private>…</private> is stripped before
// anything leaves OpenCode. Installed, and removed, by `cairn setup opencode`.
import type { Plugin } from "@opencode-ai/plugin"

const CAIRN = "__CAIRN_EXE__"
const CAIRN_ARGS: string[] = __CAIRN_ARGS__
const PROTOCOL: string = __CAIRN_PROTOCOL__

const stripPrivate = (text: string): string =>
  text.replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, "[REDACTED]")

type Part = { type: string; text?: string }

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

  // Runs the hook and returns what it printed; never throws, so OpenCode never stops on cairn.
  const hook = async (event: string, payload: Record<string, unknown>): Promise<string> => {
    try {
      const child = Bun.spawn([CAIRN, ...CAIRN_ARGS, "hook", "opencode", event], {
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
          await hook("session.deleted", { sessionID: event.properties.info.id })
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
      await hook("chat.message", { sessionID: input.sessionID, text: stripPrivate(textOf(output.parts)) })
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
      const context = input.sessionID ? (contexts.get(input.sessionID) ?? "") : ""
      const extra = [PROTOCOL, context].filter((text) => text.trim()).join("\n\n")
      if (output.system.length === 0) output.system.push(extra)
      else output.system[0] = `${output.system[0]}\n\n${extra}`
    },
  }
}
