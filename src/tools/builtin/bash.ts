/**
 * bash (docs/tools.md, "Shell tools: bash, zsh, powershell"): registered only when a `bash` executable is on
 * PATH, so an unavailable shell is never offered to a model. The tool itself is buildShellTool('bash').
 */
import { registerTool } from '../registry.ts';
import { findShellInterpreter } from '../shell/shell-interpreter.ts';
import { buildShellTool } from './build-shell-tool.ts';

const interpreter = findShellInterpreter('bash');
if (interpreter) registerTool(buildShellTool('bash', { interpreter }));
