/**
 * What agents and the voice companion talk to: the MCP server (the tool registry of mcp.tools
 * and mcp.voice_tools, its call log and sessions) and the voice companion, whose tools are the
 * voice subset.
 */
import type { AppContext } from "./context";
import type { Lifecycle } from "../platform/core/lifecycle";
import type { OccupancyBoard } from "../household/occupancy/occupancy.board";
import { CallLog } from "../care/surfaces/mcp/call-log";
import { ToolRegistry } from "../care/surfaces/mcp/registry";
import { McpSessions } from "../care/surfaces/mcp/server";
import { VoiceCompanion } from "../care/surfaces/voice/voice-companion";

export interface Agents {
  mcp: { sessions: McpSessions; tools: ToolRegistry; calls: CallLog };
  voice: VoiceCompanion;
}

export function startAgents(ctx: AppContext, lifecycle: Lifecycle, occupancy: OccupancyBoard): Agents {
  const { settings, log } = ctx;
  // The MCP server: the tool registry (mcp.tools, mcp.voice_tools), its call log and sessions.
  const mcpCalls = new CallLog(ctx);
  lifecycle.add("mcp call log", mcpCalls.start());
  const mcpTools = new ToolRegistry(settings.mcp, log, mcpCalls);
  const mcpSessions = new McpSessions(ctx, occupancy, mcpTools);
  lifecycle.add("mcp sessions", () => mcpSessions.close());
  // The voice companion: conversations with the realtime model, its tools the voice subset.
  const voice = new VoiceCompanion(ctx, mcpTools, occupancy);
  ctx.voice = voice;
  voice.registerFrames();
  lifecycle.add("voice companion", () => voice.close());
  return { mcp: { sessions: mcpSessions, tools: mcpTools, calls: mcpCalls }, voice };
}
