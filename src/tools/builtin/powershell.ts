/**
 * powershell (docs/tools.md, "Shell tools: bash, zsh, powershell"): registered only on Windows, with `pwsh`
 * when it is on PATH, else Windows PowerShell (findShellInterpreter). Elsewhere it is never offered to a
 * model.
 */
import { registerTool } from '../registry.ts';
import { findShellInterpreter } from '../shell/shell-interpreter.ts';
import { buildShellTool } from './build-shell-tool.ts';

const interpreter = findShellInterpreter('powershell');
if (interpreter) registerTool(buildShellTool('powershell', { interpreter }));
