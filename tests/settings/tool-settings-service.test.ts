import { expect, test } from 'bun:test';
import { ToolSettingsEvents } from '../../src/settings/tool-settings-events.ts';
import {
  InMemoryToolSettingsRepository,
  type ToolSettingsRepository,
} from '../../src/settings/tool-settings-repository.ts';
import { ToolSettingsService } from '../../src/settings/tool-settings-service.ts';
import { ToolError, ToolParameterError } from '../../src/tools/errors.ts';
import { sanitizeSavedSettings } from '../../src/tools/tool-settings-resolver.ts';
import { makeSettingsTool } from '../helpers/fake-tools.ts';
import { createTestRegistry } from '../helpers/test-app.ts';

function setup(repository: ToolSettingsRepository = new InMemoryToolSettingsRepository()) {
  const invalid: string[] = [];
  const events = new ToolSettingsEvents();
  const service = new ToolSettingsService({
    repository,
    registry: createTestRegistry(),
    events,
    onInvalidSettings: (_userId, error) => invalid.push(error.code),
  });
  return { service, repository, invalid, events };
}

test('a corrupted saved row is listed with defaults value by value, and reported', async () => {
  const { service, repository, invalid } = setup();
  await repository.put('u', 'tunable', {
    enabled: true,
    parameters: { timeoutSeconds: 'soon', label: 'kept' },
  });
  const [tunable] = await service.list('u');
  expect(tunable).toMatchObject({ enabled: true, parameters: { timeoutSeconds: 30, label: 'kept' } });
  expect(invalid).toEqual(['invalid_type']);
});

test('an update over a corrupted row stores the valid remainder plus the update', async () => {
  const { service, repository } = setup();
  await repository.put('u', 'tunable', {
    enabled: 'yes' as never,
    parameters: { timeoutSeconds: -1, label: 'kept' },
  });
  await service.update('u', 'tunable', { parameters: { ratio: 0.75 } });
  expect(await repository.get('u', 'tunable')).toEqual({ parameters: { label: 'kept', ratio: 0.75 } });
});

test('unknown tools and invalid updates throw the classified errors and store nothing', async () => {
  const { service, repository } = setup();
  await expect(service.update('u', 'nope', {})).rejects.toBeInstanceOf(ToolError);
  await expect(service.update('u', 'tunable', { parameters: { quality: 'ultra' } })).rejects.toBeInstanceOf(
    ToolParameterError,
  );
  await expect(service.update('u', 'locked', { enabled: false })).rejects.toMatchObject({
    code: 'cannot_disable',
  });
  expect(await repository.getAll('u')).toEqual({});
});

test('a long unknown name is shortened in the message', async () => {
  const { service } = setup();
  const error = await service.update('u', 'x'.repeat(5000), {}).catch((caught: Error) => caught);
  expect((error as Error).message.length).toBeLessThan(120);
});

test('without an atomic update the service falls back to get + put, and emits after success', async () => {
  const inner = new InMemoryToolSettingsRepository();
  const plain: ToolSettingsRepository = {
    getAll: (userId) => inner.getAll(userId),
    get: (userId, toolName) => inner.get(userId, toolName),
    put: (userId, toolName, settings) => inner.put(userId, toolName, settings),
  };
  const { service, events } = setup(plain);
  const seen: string[] = [];
  events.subscribe('u', (_user, tool) => seen.push(tool));
  expect(await service.update('u', 'tunable', { enabled: true })).toMatchObject({ enabled: true });
  expect(await inner.get('u', 'tunable')).toEqual({ enabled: true });
  expect(seen).toEqual(['tunable']);
});

test.each([
  [undefined, {}],
  [null, {}],
  ['text', {}],
  [{ enabled: false }, { enabled: false }],
  [{ enabled: 1, parameters: [] }, { parameters: {} }],
  [{ parameters: { verbose: true, nope: 1 } }, { parameters: { verbose: true } }],
])('sanitizeSavedSettings(%j) → %j', (saved, expected) => {
  expect(sanitizeSavedSettings(makeSettingsTool(), saved, () => {})).toEqual(expected);
});
