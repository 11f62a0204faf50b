"""Calls MCP tools in order with the official MCP Python SDK and prints what each returned.

Usage:
    mcp_calls.py CALLS CAIRN_BINARY [ARG ...]

CALLS is a JSON list of {"tool": name, "arguments": {...}}. The server is started as
`CAIRN_BINARY ARG ...` with this process's environment. The last line printed is a JSON list,
one {"is_error": bool, "text": str} per call, for the Rust test to compare with the CLI and HTTP.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(argv):
    calls = json.loads(argv[1])
    params = StdioServerParameters(command=argv[2], args=argv[3:], env=dict(os.environ))
    results = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for call in calls:
                result = await session.call_tool(call["tool"], call["arguments"])
                results.append({"is_error": bool(result.is_error), "text": result.content[0].text})
    print(json.dumps(results))


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
