/**
 * The tool settings API's bodies, as the server sends and receives them and the web app reads and
 * writes them: one tool's descriptor and the update of one tool's settings. Both sides import them from
 * here, at the bottom of the layer order (docs/architecture.md), so the web app needs nothing of the
 * settings service to speak its API.
 */
import type { ToolCategory } from './tool-category.ts';
import type { ToolParameterDescriptor } from './tool-parameter-descriptor.ts';
import type { ToolResultView } from './tool-result-view.ts';

/** Everything a settings page needs to render one tool; the API returns it as is. */
export interface ToolSettingsDescriptor {
  name: string;
  title: string;
  description: string;
  category: ToolCategory;
  enabled: boolean;
  canDisable: boolean;
  /** False when the tool cannot run in this deployment (it is then never offered, whatever `enabled`). */
  available: boolean;
  /** Why it cannot run, when `available` is false. */
  unavailableReason?: string;
  /** How it runs here, when that matters to users (e.g. the shell sandbox's mode). */
  notice?: string;
  /** Enabling it needs an explicit yes (declared on the tool as a trait). */
  confirmBeforeEnable: boolean;
  /**
   * It only observes: a call changes no file (declared on the tool as a trait). The files panel shows
   * the workspace again after every result of a tool that is not read-only.
   */
  readOnly: boolean;
  /** How a result of this tool is rendered (declared on the tool as a trait). */
  resultView: ToolResultView;
  /** Effective values: defaults < saved. */
  parameters: Record<string, unknown>;
  parameterDescriptors: ToolParameterDescriptor[];
}

/** The body of `PUT /api/settings/tools/:toolName`: every field optional, absent means unchanged. */
export interface ToolSettingsUpdate {
  enabled?: boolean;
  parameters?: Record<string, unknown>;
}
