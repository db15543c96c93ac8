/**
 * powershell (docs/tools.md, "Shell tools: bash, zsh, powershell"): registered only on Windows, with `pwsh`
 * when it is on PATH, else Windows PowerShell (findShellInterpreter). Elsewhere it is never offered to a
 * model.
 */
import { registerTool } from '../registry.ts';
import { buildShellTool } from '../shell/build-shell-tool.ts';
import { findShellInterpreter } from '../shell/shell-interpreter.ts';

const interpreter = findShellInterpreter('powershell');
if (interpreter) registerTool(buildShellTool('powershell', { interpreter }));
