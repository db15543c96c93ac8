/**
 * Whether switching a tool on needs an explicit yes first. Decided by the tool's declared
 * `confirmBeforeEnable` trait, which the settings descriptor carries, never by the tool's name: a new tool
 * that can run anything is asked about the moment it declares so. Switching off never asks.
 */
import type { ToolSettingsDescriptor } from './api-client.ts';

export function needsEnableConfirmation(
  tool: Pick<ToolSettingsDescriptor, 'confirmBeforeEnable'>,
  wanted: boolean,
): boolean {
  return wanted && tool.confirmBeforeEnable;
}
