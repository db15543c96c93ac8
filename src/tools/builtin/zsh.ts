/**
 * zsh (docs/tools.md, "Shell tools: bash, zsh, powershell"): registered only when a `zsh` executable is on
 * PATH, so an unavailable shell is never offered to a model. The tool itself is buildShellTool('zsh').
 */
import { registerTool } from '../registry.ts';
import { findShellInterpreter } from '../shell/shell-interpreter.ts';
import { buildShellTool } from './build-shell-tool.ts';

const interpreter = findShellInterpreter('zsh');
if (interpreter) registerTool(buildShellTool('zsh', { interpreter }));
