/**
 * The model side of the replay loop. A provider is asked for the next assistant message given the history so far
 * and the tools on offer; it answers with a canonical AssistantMessage (tool calls as `toolCall` content blocks).
 */
import type { AgentMessage, AssistantMessage } from "../generated/types.js";

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input */
  parameters: Record<string, unknown>;
}

export interface ProviderRequest {
  /** the canonical history so far (extension messages included: providers must skip them) */
  messages: AgentMessage[];
  tools: ToolSpec[];
  /** 1-based number of this assistant turn within the run */
  turn: number;
  signal?: AbortSignal;
}

export interface Provider {
  /** e.g. "recorded", "script:replies.json", "openai:http://127.0.0.1:8080/v1" */
  readonly name: string;
  complete(req: ProviderRequest): Promise<AssistantMessage>;
}
