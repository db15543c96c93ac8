/**
 * Turns per second through nginx (the configuration of docs/operating.md, "Behind nginx") in front of
 * two instances on one PostgreSQL database, against the same nginx in front of one of them: 4 clients
 * at once (the default MANGO_USER_MAX_TURNS), each creating a chat and running a one-answer turn
 * (the model played by the replay server), `NGINX_BENCH_TURNS` turns (default 200) per setup. Reported
 * as measured on this machine.
 */
import { startApprovalServers } from '../tests/helpers/approval-servers.ts';
import { chatApi } from '../tests/helpers/chat-api-client.ts';
import { startNginxProxy } from '../tests/helpers/nginx-proxy.ts';
import { chatBody } from '../tests/helpers/scripted-provider-streams.ts';
import { collectSseEvents } from '../tests/helpers/sse-client.ts';
import { stopTestPostgres } from '../tests/helpers/test-postgres-server.ts';

const TURNS = Number(process.env.NGINX_BENCH_TURNS ?? 200);
const CLIENTS = 4;

const setup = await startApprovalServers('postgres', 30_000);
try {
  const [a, b] = setup.servers.map((server) => server.url) as [string, string];
  const results: string[] = [];
  for (const [label, second] of [
    ['nginx, one instance', a],
    ['nginx, two instances', b],
  ] as const) {
    const proxy = await startNginxProxy(a, second);
    try {
      const api = chatApi(proxy.url, setup.token);
      let started = 0;
      const client = async () => {
        while (started < TURNS) {
          started++;
          const chatId = await api.createChat();
          setup.replay.enqueue({ body: chatBody({ text: 'ok' }) });
          const response = await api.call('POST', `/api/chats/${chatId}/turns`, { message: 'go' });
          const events = await collectSseEvents(response);
          if (response.status !== 200 || events.at(-1)?.reason !== 'completed')
            throw new Error(`a turn failed: ${response.status} ${JSON.stringify(events.at(-1))}`);
        }
      };
      const begun = performance.now();
      await Promise.all(Array.from({ length: CLIENTS }, client));
      const seconds = (performance.now() - begun) / 1000;
      results.push(`  ${label.padEnd(22)} ${(started / seconds).toFixed(1)} turns/s (${started} turns)`);
    } finally {
      await proxy.stop();
    }
  }
  console.log(`behind-nginx: ${CLIENTS} clients, PostgreSQL\n${results.join('\n')}`);
} finally {
  await setup.close();
  await stopTestPostgres();
}
