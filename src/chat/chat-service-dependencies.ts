/** What a `ChatService` is built from: every dependency injected, so the server, the CLI and tests each pass their own. */
import type { RememberedApprovalRule } from '../approvals/tool-approval-gate.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import type { ModelLoopLimits } from '../model-loop/model-loop.ts';
import type { ModelProvider } from '../providers/model-provider.ts';
import type { EnabledToolRuntime } from '../settings/tool-runtime.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { ExecuteToolOptions, ToolTimers } from '../tools/execution.ts';
import type { ChatFreshnessLedger } from '../tools/freshness-ledger.ts';
import type { TurnTimers } from '../turns/turn-timers.ts';
import type { TurnTiming } from '../turns/turn-timing.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import type { ChatRepository } from './chat-repository.ts';

export interface ChatServiceDependencies {
  repository: ChatRepository;
  /** Builds the provider of a chat; throws when it is not configured (no key). */
  createProvider: (providerId: ProviderId) => ModelProvider;
  /** The user's enabled tools and saved settings, e.g. `getEnabledToolRuntime(repository, userId)`. */
  loadToolRuntime: (userId: string, reachable: ReachableSet) => Promise<EnabledToolRuntime>;
  /** The chat's freshness ledger (database-backed on the server). */
  createLedger: (chatId: string) => ChatFreshnessLedger;
  /** The users' workspaces: where a chat may work and what its tools reach. */
  workspaces: WorkspaceService;
  /** Clock in epoch milliseconds. */
  now?: () => number;
  createId?: () => string;
  /** Where tools store generated files. */
  dataDirectory?: string;
  /** `maxIterations` comes from `MANGO_MAX_TOOL_ITERATIONS`. */
  limits?: ModelLoopLimits;
  executeOptions?: ExecuteToolOptions;
  /** Lease length and polling intervals of turns (default: a 30 s lease). */
  turnTiming?: TurnTiming;
  /** What turns' renewals, polls and retries wait on (tests drive them by hand; default: real). */
  turnTimers?: TurnTimers;
  /** How answers, cancels and events reach their waiters on any instance (default: this process only). */
  wakeUps?: WakeUpSource;
  /** Most turns one user runs at once, in any chat or instance (`MANGO_USER_MAX_TURNS`); absent: none. */
  userTurnLimit?: number;
  /** Where a turn that stops for a lost lease or a failing database says so (default: stderr). */
  log?: (line: string) => void;
  /**
   * Adds a rule the user remembered while approving to their saved settings of the tool (the settings
   * service on the server). Absent: asking to remember is refused.
   */
  rememberApprovalRule?: (userId: string, toolName: string, rule: RememberedApprovalRule) => Promise<void>;
  /** The approval timeout's timer (tests fire it without waiting). */
  approvalTimers?: ToolTimers;
  /**
   * True for a failure that says the database cannot be reached right now (the server passes its
   * driver-code check). A turn retries such a failure of the access check before a call while its
   * lease holds, instead of failing the call. Default: none is.
   */
  isDatabaseUnavailable?: (error: unknown) => boolean;
}
