#!/usr/bin/env python3
"""Drives `watcher mcp` with the reference MCP client (the `mcp` package from PyPI), as an assistant would.

Usage: sdk-client.py WATCHER CONFIG STATE_DIR FEED
Prints one JSON object: the negotiated revision, the tools listed, and each tool's answer (text, isError).
Exits 1 when the session fails. Tests/WatcherCLITests/MCPTests.swift runs it when the package is installed.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    watcher, config, state, feed = sys.argv[1:5]
    params = StdioServerParameters(command=watcher, args=["mcp", "--config", config, "--state-dir", state])
    report = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            report["protocol"] = str(getattr(init, "protocol_version", getattr(init, "protocolVersion", "")))
            tools = await session.list_tools()
            report["tools"] = sorted(tool.name for tool in tools.tools)
            calls = {
                "search_items": {"feed": "news"},
                "explain_item": {"feed": "news", "key": "g0"},
                "feed_status": {},
                "journal": {"limit": 5},
                "pending_actions": {},
                "dry_run": {"feed": "news"},
                "propose_rule": {"rule": "name: evil\nmatch: { title: instructions }\ntag: [suspicious]"},
                "propose_feed": {"url": feed, "name": "another"},
            }
            report["calls"] = {}
            for name, arguments in calls.items():
                result = await session.call_tool(name, arguments)
                text = "\n".join(getattr(part, "text", "") for part in result.content)
                error = getattr(result, "is_error", getattr(result, "isError", False))
                report["calls"][name] = {"isError": bool(error), "text": text}
            resource = await session.read_resource("watcher://config")
            report["config"] = resource.contents[0].text
    print(json.dumps(report))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # the session failed: say how
        print("mcp session failed: %r" % (error,), file=sys.stderr)
        sys.exit(1)
