// An MCP client in a few lines, with the SDK careflow already depends on (the README's "Agents").
//   MCP=<key> node docs/examples/mcp-call.mjs                      lists the tools
//   MCP=<key> node docs/examples/mcp-call.mjs <tool> '<json args>'  calls one
// MCP_URL (default http://localhost:8080/mcp) points at another careflow.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.MCP_URL ?? "http://localhost:8080/mcp");
const client = new Client({ name: "careflow-readme", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": process.env.MCP ?? "" } } }));
const [tool, args] = process.argv.slice(2);
if (tool) console.log(JSON.stringify(await client.callTool({ name: tool, arguments: JSON.parse(args ?? "{}") }), null, 2));
else for (const t of (await client.listTools()).tools) console.log(`${t.name}: ${t.description}`);
await client.close();
