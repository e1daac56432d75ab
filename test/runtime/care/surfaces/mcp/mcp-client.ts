/** The official SDK's client over streamable HTTP, for the MCP tests and the benchmark. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function connectMcp(baseUrl: string, key: string, opts: { via?: "header" | "bearer" | "query"; query?: string } = {}): Promise<Client> {
  const via = opts.via ?? "header";
  const url = new URL(`${baseUrl}/mcp`);
  if (opts.query) for (const [k, v] of new URLSearchParams(opts.query)) url.searchParams.set(k, v);
  if (via === "query") url.searchParams.set("api_key", key);
  const headers: Record<string, string> = via === "header" ? { "X-API-Key": key } : via === "bearer" ? { Authorization: `Bearer ${key}` } : {};
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: "careflow-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export type { Client };
