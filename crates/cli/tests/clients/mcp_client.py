"""Drives cairn with the official MCP Python SDK, as an agent would.

Usage:
    mcp_client.py stdio CAIRN_BINARY [ARG ...]   # starts `CAIRN_BINARY ARG ...` itself
    mcp_client.py http URL [TOKEN]               # connects to a running `cairn serve`

It lists the tools, stores, searches, gets, updates and forgets a memory, asks for context,
stores a session summary, reads a memory as a resource, and makes bad calls. Every check raises on failure; the last line printed is a JSON
summary the Rust test reads. The process environment (CAIRN_HOME, CAIRN_PROJECT, ...) is passed
on to a stdio server.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def payload(result):
    """The JSON a successful tool call returned."""
    assert not result.is_error, f"tool failed: {result.content}"
    return json.loads(result.content[0].text)


def error_text(result):
    """The message of a call that must fail as a tool result."""
    assert result.is_error, f"expected is_error, got {result.content}"
    return result.content[0].text


async def exercise(session):
    init = await session.initialize()
    tools = await session.list_tools()
    names = [tool.name for tool in tools.tools]
    for expected in ["memory_store", "memory_search", "memory_get", "memory_update", "memory_forget",
                     "memory_context", "memory_session_summary"]:
        assert expected in names, f"{expected} missing from {names}"

    stored = payload(await session.call_tool("memory_store", {
        "content": "The staging database runs PostgreSQL 16 behind pgbouncer",
        "category": "fact",
        "tags": ["postgres", "staging"],
    }))
    assert stored["status"] == "created", stored
    memory_id = stored["memory"]["id"]
    handle = stored["memory"]["handle"]

    again = payload(await session.call_tool("memory_store", {
        "content": "The staging database runs PostgreSQL 16 behind pgbouncer",
    }))
    assert again["status"] == "duplicate", again

    found = payload(await session.call_tool("memory_search", {"query": "pgbouncer staging", "mode": "lexical"}))
    assert [hit["id"] for hit in found["results"]] == [memory_id], found

    got = payload(await session.call_tool("memory_get", {"ids": [handle]}))
    assert got["memories"][0]["content"].startswith("The staging database"), got

    updated = payload(await session.call_tool("memory_update", {
        "id": handle,
        "content": "The staging database runs PostgreSQL 17 behind pgbouncer",
        "importance": 4,
    }))
    assert updated["status"] == "updated", updated
    assert updated["memory"]["importance"] == 4, updated

    context = payload(await session.call_tool("memory_context", {"query": "staging database", "budget": 200}))
    assert context["tokens"] <= 200 and memory_id in context["ids"], context
    assert f"[{handle}]" in context["context"], context
    too_small = error_text(await session.call_tool("memory_context", {"budget": 10}))
    assert "budget" in too_small, too_small

    summarised = payload(await session.call_tool("memory_session_summary", {
        "goal": "Check which PostgreSQL the staging database runs",
        "accomplished": ["recorded the version"],
        "next_steps": ["upgrade production too"],
    }))
    assert summarised["status"] == "created", summarised
    assert "session-summary" in summarised["memory"]["tags"], summarised
    no_goal = error_text(await session.call_tool("memory_session_summary", {"goal": " "}))
    assert "goal" in no_goal, no_goal

    listed = await session.list_resources()
    assert f"cairn://memory/{memory_id}" in [str(r.uri) for r in listed.resources], listed
    resource = await session.read_resource(f"cairn://memory/{handle}")
    document = json.loads(resource.contents[0].text)
    assert document["id"] == memory_id and "PostgreSQL 17" in document["content"], document

    too_big = error_text(await session.call_tool("memory_store", {"content": "x" * 20000}))
    assert "content" in too_big and "limit" in too_big, too_big
    bad_category = error_text(await session.call_tool("memory_store", {"content": "y", "category": "musing"}))
    assert "category" in bad_category or "arguments" in bad_category, bad_category
    missing = error_text(await session.call_tool("memory_get", {"ids": ["00000000"]}))
    assert "no memory" in missing, missing

    forgotten = payload(await session.call_tool("memory_forget", {"id": handle}))
    assert forgotten["status"] == "forgotten", forgotten
    after = payload(await session.call_tool("memory_search", {"query": "pgbouncer", "mode": "lexical"}))
    assert after["results"] == [], after
    gone = error_text(await session.call_tool("memory_get", {"ids": [memory_id]}))
    assert "no memory" in gone, gone

    return {
        "server": init.server_info.name,
        "version": init.server_info.version,
        "tools": names,
        "too_big": too_big,
        "schemas": {tool.name: tool.input_schema for tool in tools.tools},
    }


async def main(argv):
    mode = argv[1]
    if mode == "stdio":
        params = StdioServerParameters(command=argv[2], args=argv[3:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                summary = await exercise(session)
    elif mode == "http":
        import httpx2
        headers = {"Authorization": f"Bearer {argv[3]}"} if len(argv) > 3 else {}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(argv[2], http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    summary = await exercise(session)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
