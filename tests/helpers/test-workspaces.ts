/**
 * A real `WorkspaceService` over fresh temp directories (workspaces and data, apart as the server
 * requires) and an in-memory grant store, for tests and benchmarks that bind sessions without a
 * database. `dispose` removes the directories.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspaceService } from '../../src/workspaces/create-workspace-service.ts';
import {
  InMemoryWorkspaceRepository,
  type WorkspaceRepository,
} from '../../src/workspaces/workspace-repository.ts';
import type { WorkspaceService } from '../../src/workspaces/workspace-service.ts';

export interface TestWorkspaces {
  service: WorkspaceService;
  repository: WorkspaceRepository;
  workspacesDirectory: string;
  dataDirectory: string;
  dispose(): void;
}

export function createTestWorkspaces(
  repository: WorkspaceRepository = new InMemoryWorkspaceRepository(),
): TestWorkspaces {
  const workspacesDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'mango-workspaces-')));
  const dataDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'mango-data-')));
  const service = createWorkspaceService({ dataDirectory, workspacesDirectory }, repository);
  return {
    service,
    repository,
    workspacesDirectory,
    dataDirectory,
    dispose: () => {
      rmSync(workspacesDirectory, { recursive: true, force: true });
      rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}
