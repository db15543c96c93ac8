/** A registry for MCP tests: the real get_current_datetime plus tools that expose what a call received. */
import { getCurrentDatetimeTool } from '../../src/tools/builtin/get-current-datetime.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { makeTool } from './fake-tools.ts';

/** Observes one call of `wait_for_abort`: when it started, and the reason its signal fired with. */
export interface AbortObservation {
  started: Promise<void>;
  aborted: Promise<unknown>;
}

export interface McpTestRegistry {
  registry: ToolRegistry;
  /** Arms the next `wait_for_abort` call and returns what it will report. */
  expectWaitCall(): AbortObservation;
}

export function createMcpTestRegistry(): McpTestRegistry {
  let next: { started: PromiseWithResolvers<void>; aborted: PromiseWithResolvers<unknown> } | undefined;
  const registry = new ToolRegistry();
  registry.register(getCurrentDatetimeTool);
  registry.register(
    makeTool({
      name: 'wait_for_abort',
      // Runs until its signal fires (a client cancel, or the session closing); never returns on its own.
      execute: async (_args, context: ToolContext) => {
        const observation = next;
        next = undefined;
        observation?.started.resolve();
        const reason = await new Promise<unknown>((resolve) => {
          if (context.signal.aborted) resolve(context.signal.reason);
          context.signal.addEventListener('abort', () => resolve(context.signal.reason), { once: true });
        });
        observation?.aborted.resolve(reason);
        throw reason;
      },
    }),
  );
  registry.register(
    makeTool({
      name: 'session_probe',
      definition: {
        name: 'session_probe',
        description: 'Reports the call context; remembers `path` in the freshness ledger.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: [],
          additionalProperties: false,
        },
      },
      execute: async (args, context: ToolContext) => {
        const path = (args as { path?: string }).path;
        let seenBefore: boolean | undefined;
        if (path !== undefined) {
          seenBefore = (await context.ledger.get(path)) !== undefined;
          await context.ledger.put({
            path,
            sha256: '',
            size: 0,
            mtimeMs: 0,
            coveredThrough: 0,
            complete: true,
          });
        }
        return {
          userId: context.userId,
          workingDirectory: context.reachable.workingDirectory,
          roots: context.reachable.roots,
          seenBefore: seenBefore ?? null,
        };
      },
    }),
  );
  registry.register(
    makeTool({
      name: 'report_progress',
      execute: async (_args, context: ToolContext) => {
        for (let image = 1; image <= 3; image += 1) {
          context.onProgress({ type: 'image_completed', total: 3, message: `image ${image} of 3` });
        }
        return { images: 3 };
      },
    }),
  );
  registry.register(
    makeTool({
      name: 'off_by_default',
      settings: {
        title: 'Off by default',
        description: 'test',
        category: 'system',
        enabledByDefault: false,
        canDisable: true,
        defaultParameters: {},
        parameterDescriptors: [],
      },
    }),
  );
  return {
    registry,
    expectWaitCall() {
      const started = Promise.withResolvers<void>();
      const aborted = Promise.withResolvers<unknown>();
      next = { started, aborted };
      return { started: started.promise, aborted: aborted.promise };
    },
  };
}

/**
 * The data of a `tools/call` result: its structured content on success; for an error result, which
 * carries no structured content (asserted), the JSON of its text block.
 */
export function callResultData(result: unknown): Record<string, unknown> {
  const call = result as { isError?: boolean; structuredContent?: unknown; content: { text?: string }[] };
  if (call.isError) {
    if (call.structuredContent !== undefined) throw new Error('An error result carries structured content.');
    return JSON.parse(call.content[0]?.text ?? 'null') as Record<string, unknown>;
  }
  return call.structuredContent as Record<string, unknown>;
}
