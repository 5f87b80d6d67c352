/**
 * The tool registry of a replay: deep-agent's state tools run for real against the replay state; every other tool
 * answers from the recording (the recorded tool result with the same call id), or fails as "not available".
 * Nothing here touches the host filesystem or the network.
 */
import type { ToolCallContent, ToolResultMessage } from "../../generated/types.js";
import type { ToolExecution, ToolRegistry } from "./loop.js";
import type { ToolSpec } from "../../providers/types.js";
import { STATE_TOOL_SCHEMAS, isStateTool, runStateTool, type ReplayState } from "./state-tools.js";

/** The text of a tool result: its text blocks joined with "\n" (images and other blocks are not text). */
export function resultText(m: ToolResultMessage): string {
  return m.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

export interface RegistryOptions {
  state: ReplayState;
  /** run write_todos/ls/read_file/write_file/edit_file/glob/grep against `state` */
  stateTools: boolean;
  /** recorded tool results by tool call id (answers for tools that are not run for real) */
  recorded?: ReadonlyMap<string, ToolResultMessage>;
  /** ISO clock for FileData timestamps */
  now?: () => string;
  /** called after a state tool ran, with the recorded result for the same call if there is one */
  onStateResult?: (
    call: ToolCallContent,
    got: ToolExecution,
    recorded: ToolResultMessage | undefined,
    turn: number,
  ) => void;
}

export function createRegistry(opts: RegistryOptions): ToolRegistry {
  const now = opts.now ?? (() => new Date().toISOString());
  const specs: ToolSpec[] = opts.stateTools
    ? Object.entries(STATE_TOOL_SCHEMAS).map(([name, s]) => ({
        name,
        description: s.description,
        parameters: s.parameters,
      }))
    : [];
  return {
    specs: () => specs,
    async execute(call, turn) {
      const recorded = opts.recorded?.get(call.id);
      if (opts.stateTools && isStateTool(call.name)) {
        const r = runStateTool(call.name, call.arguments, { state: opts.state, now });
        const out: ToolExecution = { text: r.text, isError: r.isError, source: "state" };
        opts.onStateResult?.(call, out, recorded, turn);
        return out;
      }
      if (recorded) return { text: resultText(recorded), isError: recorded.isError, source: "recorded" };
      return {
        text: `Tool ${call.name} is not available in replay: it is not a deep-agent state tool and the checkpoint holds no recorded result for call ${call.id}`,
        isError: true,
        source: "unavailable",
      };
    },
  };
}
