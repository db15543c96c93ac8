/**
 * The groups a tool belongs to on the settings page. A tool declares one, the settings API reports it
 * and the web app groups by it, so it sits at the bottom of the layer order (docs/architecture.md).
 */

/** The group a tool is listed under on the settings page; `external`: a tool of an external MCP server. */
export type ToolCategory = 'system' | 'image' | 'interaction' | 'external';
