// The bench's baseline server: a bare Fastify hello-world in its own process, the floor any Fastify
// route on this machine can reach. Prints its URL when listening.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const addr = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${addr.port}\n`);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => app.close().then(() => process.exit(0)));
