/**
 * When the files panel shows its folder again without a click: after a tool result that can have
 * changed files. Whether it can is read from the tool's own declaration (`readOnly` in its settings
 * descriptor, a trait of the tool), never from a list of names, so a new file tool, a shell or an MCP
 * server's tool is covered the day it exists; a tool the page has no descriptor for is assumed to
 * change files. A burst of results (parallel calls finishing together) becomes one refresh, and a
 * result that arrives while a refresh is running gets exactly one more after it, so the last listing
 * is never older than the last result. Free of the DOM apart from the event name, so it is unit-tested.
 */

/** The event the chat view dispatches (bubbling) for every tool result of a turn it shows. */
export const TOOL_RESULT_EVENT = 'mango-tool-result';

export interface ToolResultDetail {
  /** The tool's name as the turn stream gave it. */
  name: string;
}

/** Tells the page that a result of `name` arrived, from `target` up (the chat page's layout listens). */
export function announceToolResult(target: EventTarget, name: string): void {
  target.dispatchEvent(
    new CustomEvent<ToolResultDetail>(TOOL_RESULT_EVENT, { bubbles: true, detail: { name } }),
  );
}

/** Whether a result of `name` can have changed files: the tool is not declared read-only, or is unknown. */
export function canChangeFiles(
  name: string,
  tools: ReadonlyMap<string, { readOnly: boolean }> | undefined,
): boolean {
  return tools?.get(name)?.readOnly !== true;
}

/** How long results may keep arriving before the refresh runs: long enough for one burst, short for a person. */
export const REFRESH_QUIET_MILLISECONDS = 150;

export interface RefreshCoalescer {
  /** Asks for a refresh: one runs after the current burst (and after a refresh already running). */
  request(): void;
}

/**
 * Coalesces refresh requests. `defer` runs its callback once later (a timer in the page, by hand in a
 * test); requests before it fires join that refresh; a request while `refresh` runs schedules one
 * more once it finished. A failed refresh is the caller's to show; it does not stop later ones.
 */
export function createRefreshCoalescer(
  refresh: () => Promise<void>,
  defer: (run: () => void) => void = (run) => {
    setTimeout(run, REFRESH_QUIET_MILLISECONDS);
  },
): RefreshCoalescer {
  let scheduled = false;
  let running = false;
  let again = false;
  const schedule = () => {
    scheduled = true;
    defer(() => {
      scheduled = false;
      running = true;
      void refresh()
        .catch(() => {})
        .finally(() => {
          running = false;
          if (again) {
            again = false;
            schedule();
          }
        });
    });
  };
  return {
    request() {
      if (scheduled) return;
      if (running) {
        again = true;
        return;
      }
      schedule();
    },
  };
}

/**
 * Runs `refresh` (coalesced, `defer` as the coalescer's) after every tool result heard on `events` whose tool can change files;
 * the tools' declarations are listed once (until they arrive, or when they cannot be, every result
 * counts).
 */
export function refreshAfterToolResults(
  api: { listTools(): Promise<readonly { name: string; readOnly: boolean }[]> },
  events: EventTarget,
  refresh: () => Promise<void>,
  defer?: (run: () => void) => void,
): void {
  const refresher = createRefreshCoalescer(refresh, defer);
  let tools: ReadonlyMap<string, { readOnly: boolean }> | undefined;
  void api
    .listTools()
    .then((listed) => {
      tools = new Map(listed.map((tool) => [tool.name, tool]));
    })
    .catch(() => {});
  events.addEventListener(TOOL_RESULT_EVENT, (event) => {
    const { name } = (event as CustomEvent<ToolResultDetail>).detail;
    if (canChangeFiles(name, tools)) refresher.request();
  });
}
