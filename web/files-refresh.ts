/**
 * When the files panel shows its folder again without a click: after a tool result that can have
 * changed files. Whether it can is read from the tool's own declaration (`readOnly` in its settings
 * descriptor, a trait of the tool), never from a list of names, so a new file tool, a shell or an MCP
 * server's tool is covered the day it exists; a tool the page has no descriptor for is assumed to
 * change files. A burst of results becomes one refresh: the results of one response's calls (a result
 * that arrives while other calls of the turn still wait for theirs holds its refresh until the last of
 * them, or {@link HELD_REFRESH_MILLISECONDS} at most, so a slow call does not keep the panel stale),
 * and results finishing together. A result that arrives while a refresh is running gets exactly one
 * more after it, so the last listing is never older than the last result. Free of the DOM apart from the event name, so it is unit-tested.
 */

/** The event the chat view dispatches (bubbling) for every tool result of a turn it shows. */
export const TOOL_RESULT_EVENT = 'mango-tool-result';

export interface ToolResultDetail {
  /** The tool's name as the turn stream gave it. */
  name: string;
  /** Calls of the turn still without a result when this one arrived. */
  pending: number;
}

/**
 * Tells the page that a result of `name` arrived, from `target` up (the chat page's layout listens),
 * while `pending` other calls of the turn still wait for theirs.
 */
export function announceToolResult(target: EventTarget, name: string, pending = 0): void {
  target.dispatchEvent(
    new CustomEvent<ToolResultDetail>(TOOL_RESULT_EVENT, { bubbles: true, detail: { name, pending } }),
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
/** Longest a refresh waits for the other calls of a response, so one slow call does not keep the panel stale. */
export const HELD_REFRESH_MILLISECONDS = 2000;

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
 * Runs `refresh` (coalesced, `defer` as the coalescer's) after the tool results heard on `events` whose
 * tool can change files: at once when no other call of the turn waits for its result, otherwise when
 * the last of them has one, or after `hold` (by default {@link HELD_REFRESH_MILLISECONDS}). The tools'
 * declarations are listed once (until they arrive, or when they cannot be, every result counts).
 */
export function refreshAfterToolResults(
  api: { listTools(): Promise<readonly { name: string; readOnly: boolean }[]> },
  events: EventTarget,
  refresh: () => Promise<void>,
  defer?: (run: () => void) => void,
  hold: (run: () => void) => void = (run) => {
    setTimeout(run, HELD_REFRESH_MILLISECONDS);
  },
): void {
  const refresher = createRefreshCoalescer(refresh, defer);
  let tools: ReadonlyMap<string, { readOnly: boolean }> | undefined;
  void api
    .listTools()
    .then((listed) => {
      tools = new Map(listed.map((tool) => [tool.name, tool]));
    })
    .catch(() => {});
  // A refresh owed to a result whose siblings were still running; `holding` counts the holds asked
  // for, so one that fires after the refresh was given (by the last sibling) does nothing.
  let owed = false;
  let holding = 0;
  const give = () => {
    owed = false;
    holding += 1;
    refresher.request();
  };
  events.addEventListener(TOOL_RESULT_EVENT, (event) => {
    const { name, pending } = (event as CustomEvent<ToolResultDetail>).detail;
    if (canChangeFiles(name, tools)) owed = true;
    if (!owed) return;
    if (!(pending > 0)) {
      give();
      return;
    }
    const ticket = holding;
    hold(() => {
      if (owed && ticket === holding) give();
    });
  });
}
