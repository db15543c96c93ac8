/**
 * What a tool is, stated once on the tool (`RegisteredTool.traits`), for every consumer that needs to
 * know: the loop (may its calls run side by side? does a call wait for the user's yes by default?), the
 * MCP endpoint (tool annotations) and the web app (ask before enabling? how to show a result?). No layer keeps a list of tool names for these questions.
 * A tool without traits is treated as the most dangerous kind: it may write, destroy, differ on repeat
 * and reach outside the server, it runs alone, each call waits for the user's approval, and its result is
 * shown as plain JSON.
 */
import type { ToolResultView } from '../contracts/tool-result-view.ts';

/** Whether a call waits for the user's yes unless a rule says otherwise (the `approval` setting's default). */
export type ApprovalDefault = 'never' | 'always';

export interface ToolTraits {
  /** It only observes (files, the clock): it changes nothing outside its result, so it may run concurrently. */
  readOnly: boolean;
  /** It may overwrite or delete what exists (meaningful when not read-only). */
  destructive: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotent: boolean;
  /** It may reach outside the server's files (network, an external service, any program). */
  openWorld: boolean;
  /** Enabling it needs an explicit yes from the user (it can do anything the server's account can). */
  confirmBeforeEnable: boolean;
  /** The rendering the web app uses for its result. */
  resultView: ToolResultView;
  /** The default of the tool's `approval` setting (docs/tools.md, "Approvals"). */
  approvalDefault: ApprovalDefault;
}

/** The traits of a tool without declared traits: the cautious answer to every question. */
export const CAUTIOUS_TRAITS: ToolTraits = {
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
  confirmBeforeEnable: true,
  resultView: 'json',
  approvalDefault: 'always',
};

/** The traits of a tool that reads local files or the clock, shown with the given view. */
export function readOnlyLocalTraits(resultView: ToolResultView): ToolTraits {
  return {
    readOnly: true,
    destructive: false,
    idempotent: true,
    openWorld: false,
    confirmBeforeEnable: false,
    resultView,
    approvalDefault: 'never',
  };
}

/** A tool's traits, or the cautious ones when it declares none. */
export function traitsOf(tool: { traits?: ToolTraits } | undefined): ToolTraits {
  return tool?.traits ?? CAUTIOUS_TRAITS;
}
