// cairn for OpenCode: records this session through `cairn hook opencode <event>` and merges
// cairn's memory protocol, and what cairn knows about the project, into the system prompt that
// OpenCode already sends (never as a second system message). Text inside <private>…</private>
// is stripped before anything leaves OpenCode. Installed, and removed, by `cairn setup opencode`.
import type { Plugin } from "@opencode-ai/plugin"

const CAIRN = "__CAIRN_EXE__"
const PROTOCOL = __CAIRN_PROTOCOL__

const stripPrivate = (text: string): string =>
  text.replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, "[REDACTED]")

const textOf = (parts: Array<{ type: string; text?: string }> = []): string =>
  parts.filter((part) => part.type === "text" && part.text).map((part) => part.text).join("\n")

export const CairnPlugin: Plugin = async ({ client, directory }) => {
  const contexts = new Map<string, string>()
  const toolArgs = new Map<string, unknown>()

  // Runs the hook; never throws, never blocks OpenCode for long.
  const hook = async (event: string, payload: Record<string, unknown>): Promise<string> => {
    try {
      const child = Bun.spawn([CAIRN, "hook", "opencode", event], {
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
      const last = (messages.data ?? []).filter((m: any) => m.info?.role === "assistant").at(-1)
      return last ? stripPrivate(textOf(last.parts)) : undefined
    } catch {
      return undefined
    }
  }

  return {
    event: async ({ event }: { event: any }) => {
      const sessionID = event.properties?.info?.id ?? event.properties?.sessionID
      if (!sessionID) return
      switch (event.type) {
        case "session.created":
        case "session.compacted": {
          const context = await hook(event.type, { sessionID })
          if (context.trim()) contexts.set(sessionID, context)
          break
        }
        case "session.idle":
          await hook("session.idle", { sessionID, text: await lastAssistantText(sessionID) })
          break
        case "session.deleted":
          await hook("session.deleted", { sessionID })
          break
        case "session.error":
          await hook("session.error", { sessionID, error: event.properties?.error ?? null })
          break
      }
    },
    "chat.message": async (input: any, output: any) => {
      await hook("chat.message", { sessionID: input.sessionID, text: stripPrivate(textOf(output.parts)) })
    },
    "tool.execute.before": async (input: any, output: any) => {
      toolArgs.set(input.callID, output.args)
    },
    "tool.execute.after": async (input: any, output: any) => {
      const args = toolArgs.get(input.callID) ?? {}
      toolArgs.delete(input.callID)
      await hook("tool.execute.after", {
        sessionID: input.sessionID,
        tool: input.tool,
        args,
        output: stripPrivate(String(output.output ?? "")),
      })
    },
    "experimental.chat.system.transform": async (input: any, output: { system: string[] }) => {
      const extra = [PROTOCOL, contexts.get(input.sessionID) ?? ""].filter((s) => s.trim()).join("\n\n")
      if (output.system.length === 0) output.system.push(extra)
      else output.system[0] = `${output.system[0]}\n\n${extra}`
    },
  }
}
