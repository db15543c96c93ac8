/**
 * A failed tool call as every consumer sees it: its stable classification and a message a model or a
 * user can act on. The tool core produces it, turn events and MCP carry it and the web app shows it,
 * so it sits at the bottom of the layer order (docs/architecture.md).
 */
import type { ToolErrorClassification } from './tool-error-classification.ts';

/** Why a call failed: the stable code and what went wrong, in words. */
export interface ToolFailure {
  classification: ToolErrorClassification;
  message: string;
}
