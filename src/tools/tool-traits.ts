/**
 * What a tool is, stated once on the tool (`RegisteredTool.traits`), for every consumer that needs to
 * know (the MCP endpoint's tool annotations today). A tool without traits is treated as the most
 * dangerous kind: it may write, destroy, differ on repeat and reach outside the server.
 */

export interface ToolTraits {
  /** It only observes (files, the clock): it changes nothing outside its result. */
  readOnly: boolean;
  /** It may overwrite or delete what exists (meaningful when not read-only). */
  destructive: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotent: boolean;
  /** It may reach outside the server's files (network, an external service, any program). */
  openWorld: boolean;
}

/** The traits of a tool that reads local files or the clock. */
export const READ_ONLY_LOCAL_TRAITS: ToolTraits = {
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
};
